package jsonw

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

func TestStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uo\te`, "tab\tnl\ncr\r", "\x00\x1f", "<html>&amp;", "Zürich — ✓", "a+b/c==", "\u2028"} {
		got := String(nil, s)
		var back string
		require.NoError(t, json.Unmarshal(got, &back), "%q -> %s", s, got)
		assert.Equal(t, s, back)
	}
	// HTML characters are not escaped; invalid UTF-8 becomes U+FFFD.
	assert.Equal(t, `"<a>&"`, string(String(nil, "<a>&")))
	assert.Equal(t, "\"x\uFFFDy\"", string(String(nil, "x\xffy")))
}

func TestWriteUnquotedMatchesEncodingJSON(t *testing.T) {
	for _, raw := range []string{`""`, `"plain"`, `"a\"b\\c\/d"`, `"\b\f\n\r\t"`, `"\u00fc\u2014"`, `"\ud83d\ude00 smile"`,
		`"lone \ud83d high"`, `"lone \ude00 low"`, `"\ud83d\u0041"`, `"mix \\u0041 \u0041"`} {
		var b strings.Builder
		require.True(t, WriteUnquoted(&b, raw))
		var want string
		require.NoError(t, json.Unmarshal([]byte(raw), &want))
		assert.Equal(t, want, b.String(), raw)
	}
	var b strings.Builder
	assert.False(t, WriteUnquoted(&b, `abc`))
	assert.False(t, WriteUnquoted(&b, `"`))
}

// AppendUnquoted writes what WriteUnquoted writes, for valid literals and
// for text that is not one.
func TestAppendUnquotedAsWriteUnquoted(t *testing.T) {
	for _, raw := range []string{`""`, `"plain"`, `"a\"b\\c\/d"`, `"\b\f\n\r\t"`, `"\u00fc\u2014"`, `"\ud83d\ude00 smile"`,
		`"lone \ud83d high"`, `"lone \ude00 low"`, `"\ud83d\u0041"`, `"mix \\u0041 \u0041"`, `"bad \x \u12"`, `"end \"`,
		`abc`, `"`, ``, `"\ud83d\ud83d\ude00"`} {
		requireAppendAsWrite(t, raw)
	}
	got, ok := AppendUnquoted([]byte("kept:"), `"a\nb"`)
	require.True(t, ok)
	require.Equal(t, "kept:a\nb", string(got))
	dst := make([]byte, 0, 16)
	allocs := testing.AllocsPerRun(100, func() { dst, _ = AppendUnquoted(dst[:0], `"caf\u00e9 \"x\""`) })
	assert.Zero(t, allocs)
	assert.Equal(t, `café "x"`, string(dst))
}

func requireAppendAsWrite(t *testing.T, raw string) {
	t.Helper()
	var b strings.Builder
	wok := WriteUnquoted(&b, raw)
	got, aok := AppendUnquoted([]byte{}, raw)
	require.Equal(t, wok, aok, "%q", raw)
	require.Equal(t, b.String(), string(got), "%q", raw)
	if Valid(raw) && len(raw) > 0 && raw[0] == '"' {
		require.LessOrEqual(t, len(got), len(raw)-2, "%q", raw)
	}
}

func FuzzAppendUnquoted(f *testing.F) {
	f.Add(`"a\u00e9\n\ud83d\ude00"`)
	f.Add(`"\\\"\/"`)
	f.Add(`"\ud800\udc00\ud800"`)
	f.Fuzz(func(t *testing.T, raw string) {
		requireAppendAsWrite(t, raw)
		requireAppendAsWrite(t, `"`+raw+`"`)
	})
}

func FuzzWriteUnquoted(f *testing.F) {
	f.Add(`"a\u00e9\n\ud83d\ude00"`)
	f.Add(`"\\\"\/"`)
	f.Fuzz(func(t *testing.T, s string) {
		raw := string(String(nil, s))
		var b strings.Builder
		if !WriteUnquoted(&b, raw) {
			t.Fatalf("not a literal: %s", raw)
		}
		want := s
		if !utf8.ValidString(s) {
			// String replaces each invalid byte (strings.ToValidUTF8 would
			// replace each run).
			var w strings.Builder
			for i := 0; i < len(s); {
				r, n := utf8.DecodeRuneInString(s[i:])
				w.WriteRune(r)
				i += n
			}
			want = w.String()
		}
		if b.String() != want {
			t.Fatalf("round trip %q -> %s -> %q", s, raw, b.String())
		}
	})
}

func TestMembers(t *testing.T) {
	assert.Equal(t, `{"a":1,"b":2`, string(Members([]byte(`{"a":1`), []byte(` { "b":2 } `))))
	assert.Equal(t, `{`, string(Members([]byte(`{`), []byte(`{ }`))))
	assert.Equal(t, `{"x":[1]`, string(Members([]byte(`{`), []byte(`{"x":[1]}`))))
	assert.Equal(t, `{`, string(Members([]byte(`{`), nil)))
}

func TestRawMember(t *testing.T) {
	obj := `{ "a" : "x\"y" , "te\u0078t": "t\n" ,"n":[1,{"a":"}"}],"o":{"b":"]"},"num":-1.5e3,"z":null }`
	assert.Equal(t, `"x\"y"`, RawMember(obj, "a"))
	assert.Equal(t, `"t\n"`, RawMember(obj, "text"))
	assert.Equal(t, `[1,{"a":"}"}]`, RawMember(obj, "n"))
	assert.Equal(t, `{"b":"]"}`, RawMember(obj, "o"))
	assert.Equal(t, `-1.5e3`, RawMember(obj, "num"))
	assert.Equal(t, `null`, RawMember(obj, "z"))
	assert.Equal(t, ``, RawMember(obj, "missing"))
	assert.Equal(t, ``, RawMember(`[1]`, "a"))
	assert.Equal(t, ``, RawMember(`{}`, "a"))
	// No allocation when member names carry no escapes.
	plain := `{"type":"reasoning.text","text":"a \"quoted\" \u00e9 word","index":0}`
	assert.Equal(t, `"a \"quoted\" \u00e9 word"`, RawMember(plain, "text"))
	allocs := testing.AllocsPerRun(100, func() { _ = RawMember(plain, "index") })
	assert.Zero(t, allocs)
}

func TestExtraMembers(t *testing.T) {
	obj := `{"type":"text", "text":"hi", "x": {"a":[1,"}"]}, "y":null, "x":2, "\u0078":3, "z" : "q"}`
	assert.Equal(t, `{"x":{"a":[1,"}"]},"y":null,"z":"q"}`, string(ExtraMembers(obj, "type", "text")))
	assert.Nil(t, ExtraMembers(`{"type":"text"}`, "type"))
	assert.Nil(t, ExtraMembers(`[1]`))
	assert.Nil(t, ExtraMembers(`{}`))
	assert.True(t, json.Valid(ExtraMembers(obj)))
}

func TestRawMembersAndNextElem(t *testing.T) {
	obj := `{"a":1, "b" : {"x":"}"}, "c":[1,2], "a":9, "d":"s"}`
	vals := make([]string, 4)
	assert.True(t, RawMembers(obj, []string{"a", "b", "d", "zz"}, vals))
	assert.Equal(t, []string{"1", `{"x":"}"}`, `"s"`, ""}, vals)
	assert.False(t, RawMembers(`[1]`, []string{"a"}, vals[:1]))
	assert.Equal(t, "", vals[0])
	allocs := testing.AllocsPerRun(100, func() { RawMembers(obj, []string{"a", "b", "d", "zz"}, vals) })
	assert.Zero(t, allocs)

	var got []string
	for e, p, ok := NextElem(` [ 1, {"a":[2,3]} ,"x" ] `, 0); ok; e, p, ok = NextElem(` [ 1, {"a":[2,3]} ,"x" ] `, p) {
		got = append(got, e)
	}
	assert.Equal(t, []string{"1", `{"a":[2,3]}`, `"x"`}, got)
	_, _, ok := NextElem(`[]`, 0)
	assert.False(t, ok)
	_, _, ok = NextElem(`{}`, 0)
	assert.False(t, ok)
}

func TestNextMember(t *testing.T) {
	obj := ` { "a" : 1, "b\u0022" :{"x":"}\"","y":[1,{"z":"]"}]} ,"c":"s,t\\" , "d":[] , "e":null,"f":-1.5e3,"g":true } `
	var got [][2]string
	for k, v, p, ok := NextMember(obj, 0); ok; k, v, p, ok = NextMember(obj, p) {
		got = append(got, [2]string{k, v})
	}
	assert.Equal(t, [][2]string{{`"a"`, "1"}, {`"b\u0022"`, `{"x":"}\"","y":[1,{"z":"]"}]}`}, {`"c"`, `"s,t\\"`},
		{`"d"`, "[]"}, {`"e"`, "null"}, {`"f"`, "-1.5e3"}, {`"g"`, "true"}}, got)
	// As gjson's ForEach reads the same object.
	var want [][2]string
	gjson.Parse(obj).ForEach(func(k, v gjson.Result) bool {
		want = append(want, [2]string{k.Raw, v.Raw})
		return true
	})
	assert.Equal(t, want, got)
	for _, s := range []string{`{}`, ` { } `, `[1]`, `"x"`, ``} {
		_, _, _, ok := NextMember(s, 0)
		assert.False(t, ok, s)
	}
	allocs := testing.AllocsPerRun(100, func() {
		for _, _, p, ok := NextMember(obj, 0); ok; _, _, p, ok = NextMember(obj, p) {
		}
	})
	assert.Zero(t, allocs)
}

func TestWriteUnquotedJoin(t *testing.T) {
	cases := []struct {
		frags []string
		want  string
	}{
		{[]string{`"wave \ud83c"`, `"\udf0a here"`}, "wave 🌊 here"},
		{[]string{`"\ud83c"`, `"\udf0a"`}, "🌊"},
		{[]string{`"a\ud83c"`, `"b"`}, "a\uFFFDb"},
		{[]string{`"a\ud83c"`}, "a\uFFFD"},
		{[]string{`"x\\ud83c"`, `"\udf0a"`}, `x\ud83c` + "\uFFFD"},
		{[]string{`"\ud83c\udf0a"`, `"ok"`}, "🌊ok"},
		{[]string{`"plain"`, `"text"`}, "plaintext"},
	}
	for _, c := range cases {
		var b strings.Builder
		var hi rune
		for _, f := range c.frags {
			require.True(t, WriteUnquotedJoin(&b, f, &hi), f)
		}
		FlushHalf(&b, &hi)
		assert.Equal(t, c.want, b.String(), "%q", c.frags)
		assert.Equal(t, c.want, appendJoined(t, c.frags), "%q", c.frags)
	}
	var hi rune
	got, ok := AppendUnquotedJoin([]byte("kept:"), `not a literal`, &hi)
	assert.False(t, ok)
	assert.Equal(t, "kept:", string(got))
}

// appendJoined reads frags with AppendUnquotedJoin, each into a slice with
// the room its documentation promises (so that it must not grow), and
// ends with AppendHalf.
func appendJoined(t *testing.T, frags []string) string {
	t.Helper()
	var out []byte
	var hi rune
	for _, f := range frags {
		room := make([]byte, 0, len(f)-2+utf8.UTFMax)
		got, ok := AppendUnquotedJoin(room, f, &hi)
		require.True(t, ok, f)
		require.LessOrEqual(t, len(got), cap(room), "%q grew past the room promised", f)
		out = append(out, got...)
	}
	return string(AppendHalf(out, &hi))
}

// escape16 writes s as a JSON string body with every non-ASCII character as
// \u escapes (surrogate pairs beyond the BMP), the way a UTF-16 host may,
// and returns the pieces: one per escape or character.
func escape16(s string) []string {
	var pieces []string
	for _, r := range s {
		switch {
		case r < 0x80:
			pieces = append(pieces, string(String(nil, string(r)))[1:len(string(String(nil, string(r))))-1])
		case r > 0xFFFF:
			a, b := utf16.EncodeRune(r)
			pieces = append(pieces, fmt.Sprintf(`\u%04x`, a), fmt.Sprintf(`\u%04x`, b))
		default:
			pieces = append(pieces, fmt.Sprintf(`\u%04x`, r))
		}
	}
	return pieces
}

// FuzzWriteUnquotedJoin: a valid string sent as UTF-16 escapes and cut
// between any two escapes (so surrogate pairs may be split) reads back
// whole.
func FuzzWriteUnquotedJoin(f *testing.F) {
	f.Add("surf 🌊 and 🏄 — ok", uint64(0x5a5a))
	f.Add("𝄞𝄞", uint64(1))
	f.Fuzz(func(t *testing.T, s string, cuts uint64) {
		if !utf8.ValidString(s) {
			return
		}
		pieces := escape16(s)
		var b strings.Builder
		var hi rune
		frag := `"`
		for i, p := range pieces {
			frag += p
			if cuts>>(uint(i)%64)&1 == 1 || i == len(pieces)-1 {
				if !WriteUnquotedJoin(&b, frag+`"`, &hi) {
					t.Fatalf("not a literal: %s", frag)
				}
				frag = `"`
			}
		}
		FlushHalf(&b, &hi)
		if b.String() != s {
			t.Fatalf("%q came back as %q", s, b.String())
		}
		var frags []string
		frag = `"`
		for i, p := range pieces {
			frag += p
			if cuts>>(uint(i)%64)&1 == 1 || i == len(pieces)-1 {
				frags = append(frags, frag+`"`)
				frag = `"`
			}
		}
		if got := appendJoined(t, frags); got != s {
			t.Fatalf("%q came back as %q from AppendUnquotedJoin", s, got)
		}
	})
}

// FuzzAppendUnquotedJoin: for any two fragments, literals or not,
// AppendUnquotedJoin appends what WriteUnquotedJoin writes, holds the same
// half, and, for a valid literal, stays within the room it promises.
func FuzzAppendUnquotedJoin(f *testing.F) {
	f.Add(`"wave \ud83c"`, `"\udf0a here"`)
	f.Add(`"a\ud83c"`, `"b"`)
	f.Add(`"x\\ud83c"`, `"\udf0a"`)
	f.Add(`"\ud83c\ud83c"`, `"\udf0a\udf0a"`)
	f.Add(`no`, `"\ude00"`)
	f.Fuzz(func(t *testing.T, a, b string) {
		var w strings.Builder
		var got []byte
		var whi, ahi rune
		for _, raw := range []string{a, b, `"` + a + `"`, `"` + b + `"`} {
			wok := WriteUnquotedJoin(&w, raw, &whi)
			room := make([]byte, 0, max(0, len(raw)-2)+utf8.UTFMax)
			part, aok := AppendUnquotedJoin(room, raw, &ahi)
			if wok != aok || whi != ahi {
				t.Fatalf("%q: WriteUnquotedJoin %v (half %x), AppendUnquotedJoin %v (half %x)", raw, wok, whi, aok, ahi)
			}
			if Valid(raw) && len(part) > cap(room) {
				t.Fatalf("%q: %d bytes appended, past the room of %d", raw, len(part), cap(room))
			}
			got = append(got, part...)
		}
		FlushHalf(&w, &whi)
		if got = AppendHalf(got, &ahi); w.String() != string(got) {
			t.Fatalf("WriteUnquotedJoin wrote %q, AppendUnquotedJoin %q", w.String(), got)
		}
	})
}

// stringByByte is String as it was first written, a byte at a time: the
// reference the stepping String is held to.
func stringByByte(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// String writes what the byte-at-a-time reference writes, at every
// offset of eight-byte stepping, for every kind of byte: escapes, control
// bytes, valid characters of each length, and every way UTF-8 goes wrong
// (overlong, surrogate halves, cut, stray continuation bytes).
func TestStringAsByByte(t *testing.T) {
	units := []string{"a", `"`, `\`, "\n", "\x00", "\x1f", "\x7f", "é", "→", "\u2028", "\ufffd", "𝄞",
		"\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xe0\x9f\xbf", "\xed\xa0\x80", "\xed\x9f\xbf", "\xee\x80\x80",
		"\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xe2\x86", "\xe2", "\x80", "\xbf", "\xff", "\xc3"}
	for _, u := range units {
		for pad := 0; pad < 9; pad++ {
			for _, tail := range []string{"", "z", "\xe2\x86"} {
				s := strings.Repeat("p", pad) + u + strings.Repeat("q", 8-pad) + u + tail
				require.Equal(t, string(stringByByte([]byte("k"), s)), string(String([]byte("k"), s)), "%q", s)
			}
		}
	}
	for _, u := range units {
		for _, v := range units {
			s := u + v
			require.Equal(t, string(stringByByte(nil, s)), string(String(nil, s)), "%q", s)
		}
	}
}

func FuzzString(f *testing.F) {
	f.Add("step 1: the \"value\" doubles →\n")
	f.Add("\xe0\x9f\xbf \xed\xa0\x80 \xf0\x90\x80\x80 \xc2")
	f.Add(strings.Repeat("ok\t", 9))
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := String(nil, s), stringByByte(nil, s); string(got) != string(want) {
			t.Fatalf("%q: String wrote %q, the reference %q", s, got, want)
		}
	})
}
