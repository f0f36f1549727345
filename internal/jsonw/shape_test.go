package jsonw

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// topHoles reads s (valid JSON) and returns its top-level members' string
// and number values, at most MaxHoles, as views of s: the holes the tests
// learn with.
func topHoles(s string) ([]string, bool) {
	var sc Scanner
	sc.Reset(s)
	var top Object
	if !sc.Object(&top) {
		return nil, false
	}
	var holes []string
	for _, ok := sc.Member(&top); ok; _, ok = sc.Member(&top) {
		v := sc.Value()
		if len(v) > 0 && (v[0] == '"' || v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) && len(holes) < MaxHoles {
			holes = append(holes, v)
		}
	}
	return holes, sc.End()
}

func TestShapeMatch(t *testing.T) {
	learned := `{"type":"content_block_delta","index":3,"delta":{"type":"thinking_delta","thinking":"step 1"}}`
	var sc Scanner
	require.True(t, sc.Reset(learned))
	var top, d Object
	require.True(t, sc.Object(&top))
	var text string
	for n, ok := sc.Member(&top); ok; n, ok = sc.Member(&top) {
		if n == "delta" && sc.Object(&d) {
			for n, ok := sc.Member(&d); ok; n, ok = sc.Member(&d) {
				if n == "thinking" {
					text = sc.Value()
				}
			}
		}
	}
	require.True(t, sc.End())
	var sh Shape
	assert.False(t, sh.Match(learned, make([]string, 1)), "the zero Shape matches nothing")
	require.True(t, sh.Learn(learned, []string{text}))
	assert.True(t, sh.Learned())

	raws := make([]string, 1)
	for _, c := range []struct {
		s, raw string
	}{
		{`{"type":"content_block_delta","index":3,"delta":{"type":"thinking_delta","thinking":"step 2: \"x\" \u00e9 →\n"}}`, `"step 2: \"x\" \u00e9 →\n"`},
		{`{"type":"content_block_delta","index":3,"delta":{"type":"thinking_delta","thinking":""}}`, `""`},
		{learned, `"step 1"`},
	} {
		if assert.True(t, sh.Match(c.s, raws), c.s) {
			assert.Equal(t, c.raw, raws[0])
			assert.True(t, Valid(c.s))
		}
	}
	for _, s := range []string{
		`{"type":"content_block_delta","index":4,"delta":{"type":"thinking_delta","thinking":"step 2"}}`, // another index
		`{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","thinking":"step 2"}}`,     // another type
		`{"type":"content_block_delta","index":3,"delta":{"type":"thinking_delta","thinking":"a","thinking":"b"}}`,
		`{"type":"content_block_delta","index":3,"delta":{"type":"thinking_delta","thinking":"a"}} `,    // a byte more
		`{"type":"content_block_delta","index":3,"delta":{"type":"thinking_delta","thinking":"a\"}}`,    // the quote escaped
		`{"type":"content_block_delta","index":3,"delta":{"type":"thinking_delta","thinking":"a\x01"}}`, // a control byte
		`{"type":"content_block_delta","index":3,"delta":{"type":"thinking_delta","thinking":"a\q"}}`,   // a bad escape
		`{"type":"content_block_delta","index":3,"delta":{"type":"thinking_delta","thinking":"a\u12"}}`, // a short \u
		"{\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"\xff\"}}",
		`{"type":"content_block_delta","index":3,"delta":{"type":"thinking_delta","thinking":null}}`,      // not a string
		`{"type":"content_block_delta","index":3,"delta":{"type":"thinking_delta","thinking":"a","x":"}}`, // the hole swallows structure
		`{"type":"content_block_delta","index":3,"delta":{"type":"thinking_delta","thinking":`,
		``,
	} {
		assert.False(t, sh.Match(s, raws), s)
	}
	sh.Forget()
	assert.False(t, sh.Match(learned, raws), "forgotten")
}

func TestShapeNumbersAndSeveralHoles(t *testing.T) {
	learned := `{"type":"response.reasoning_summary_text.delta","delta":"a","sequence_number":17,"obfuscation":"xYz"}`
	holes, ok := topHoles(learned)
	require.True(t, ok)
	holes = holes[1:] // the type stays literal
	require.Len(t, holes, 3)
	var sh Shape
	require.True(t, sh.Learn(learned, holes))
	raws := make([]string, MaxHoles)
	s := `{"type":"response.reasoning_summary_text.delta","delta":"b c","sequence_number":-1.5e3,"obfuscation":""}`
	require.True(t, sh.Match(s, raws))
	assert.Equal(t, []string{`"b c"`, `-1.5e3`, `""`}, raws[:3])
	for _, s := range []string{
		`{"type":"response.reasoning_summary_text.delta","delta":"b","sequence_number":"18","obfuscation":""}`,
		`{"type":"response.reasoning_summary_text.delta","delta":"b","sequence_number":01,"obfuscation":""}`,
		`{"type":"response.reasoning_summary_text.delta","delta":"b","sequence_number":1.,"obfuscation":""}`,
		`{"type":"response.reasoning_summary_text.delta","delta":"b","sequence_number":-,"obfuscation":""}`,
		`{"type":"response.reasoning_summary_text.delta","delta":"b","sequence_number":1}`,
	} {
		assert.False(t, sh.Match(s, raws), s)
	}
	assert.False(t, sh.Match(s, raws[:2]), "no room for every hole")
}

// TestShapeTwin: a hole recorded as the twin of an earlier one matches
// only its bytes (any valid string in the earlier hole, the same in the
// twin), takes its escape flags, and is never scanned on its own; Twin
// refuses what is not two string holes in order, and Learn forgets twins.
func TestShapeTwin(t *testing.T) {
	learned := `{"reasoning":"step 1","n":7,"details":[{"text":"step 1","index":0}]}`
	holes := []string{learned[13:21], learned[26:27], learned[47:55]}
	require.Equal(t, []string{`"step 1"`, `7`, `"step 1"`}, holes)
	var sh Shape
	require.True(t, sh.Learn(learned, holes))
	for _, c := range [][2]int{{2, 1}, {1, 0}, {0, 0}, {0, 2}, {3, 0}, {2, -1}} {
		assert.False(t, sh.Twin(c[0], c[1]), "%v", c)
	}
	require.True(t, sh.Twin(2, 0))
	raws := make([]string, MaxHoles)
	s := `{"reasoning":"a \"b\" \ud83c\udf0a","n":8,"details":[{"text":"a \"b\" \ud83c\udf0a","index":0}]}`
	require.True(t, sh.Match(s, raws))
	assert.Equal(t, []string{`"a \"b\" \ud83c\udf0a"`, `8`, `"a \"b\" \ud83c\udf0a"`}, raws[:3])
	assert.True(t, sh.Surrogate(2))
	assert.True(t, sh.Escaped(2))
	require.True(t, sh.Match(`{"reasoning":"","n":8,"details":[{"text":"","index":0}]}`, raws))
	assert.False(t, sh.Surrogate(2))
	assert.False(t, sh.Escaped(2))
	for _, s := range []string{
		`{"reasoning":"a","n":8,"details":[{"text":"b","index":0}]}`,                     // not the same
		`{"reasoning":"a","n":8,"details":[{"text":"a\"","index":0}]}`,                   // more after it
		`{"reasoning":"a\"","n":8,"details":[{"text":"a","index":0}]}`,                   // less
		"{\"reasoning\":\"\xff\",\"n\":8,\"details\":[{\"text\":\"\xff\",\"index\":0}]}", // the same, invalid
	} {
		assert.False(t, sh.Match(s, raws), s)
	}
	require.True(t, sh.Learn(learned, holes))
	assert.True(t, sh.Match(`{"reasoning":"a","n":8,"details":[{"text":"b","index":0}]}`, raws), "learning again forgets twins")
}

// TestShapeMatchValue: MatchValue matches as Match does and appends the
// value of the hole it is given, decoded, after what dst held; not for a
// hole with a surrogate-half escape (Surrogate says so), and not for -1.
func TestShapeMatchValue(t *testing.T) {
	learned := `{"a":"x","n":1,"b":"y"}`
	var sh Shape
	require.True(t, sh.Learn(learned, []string{learned[5:8], learned[13:14], learned[19:22]}))
	raws := make([]string, MaxHoles)
	for _, c := range []struct {
		s    string
		v    int
		want string
	}{
		{`{"a":"p \"q\"\n\t\/\\ é","n":2,"b":""}`, 0, "held p \"q\"\n\t/\\ é"},
		{`{"a":"","n":2,"b":"12345678\r12345678"}`, 2, "held 12345678\r12345678"},
		{`{"a":"","n":2,"b":""}`, 2, "held "},
		{`{"a":"z","n":2,"b":"w"}`, -1, "held "},
	} {
		val, ok := sh.MatchValue(c.s, raws, c.v, []byte("held "))
		require.True(t, ok, c.s)
		assert.Equal(t, c.want, string(val), c.s)
		assert.True(t, sh.Match(c.s, raws))
	}
	val, ok := sh.MatchValue(`{"a":"caf\u00e9 \u2014\n","n":2,"b":""}`, raws, 0, nil)
	require.True(t, ok)
	assert.True(t, sh.Unicode(0))
	assert.False(t, sh.Surrogate(0))
	assert.Equal(t, "café —\n", string(val), "a \\u escape that is no surrogate half is decoded")
	_, ok = sh.MatchValue(`{"a":"\ud83c\udf0a","n":2,"b":""}`, raws, 0, nil)
	require.True(t, ok)
	assert.True(t, sh.Surrogate(0), "the value is not given: the hole has a surrogate half")
	for _, s := range []string{`{"a":"\q","n":2,"b":""}`, "{\"a\":\"\xff\",\"n\":2,\"b\":\"\"}", `{"a":"x","n":2,"b":"y"} `} {
		_, ok := sh.MatchValue(s, raws, 0, nil)
		assert.False(t, ok, s)
	}
}

func TestShapeLearnRefuses(t *testing.T) {
	s := `{"a":"x","b":1,"c":true,"d":[1]}`
	var sh Shape
	other := `"x"`
	for _, holes := range [][]string{
		{other},            // not a view of s
		{s[13:14], s[5:8]}, // out of order
		{s[19:23]},         // true is not a string or number
		{s[5:7]},           // a cut string
		{s[5:8], s[13:14], s[5:8], s[5:8], s[5:8]}, // too many
		{""},
	} {
		assert.False(t, sh.Learn(s, holes), "%q", holes)
		assert.False(t, sh.Learned())
	}
	assert.False(t, sh.Learn("", nil))
	require.True(t, sh.Learn(s, nil), "no holes: the text itself")
	raws := []string{}
	assert.True(t, sh.Match(s, raws))
	assert.False(t, sh.Match(s+" ", raws))
}

func TestShapeLearnAllocatesOnce(t *testing.T) {
	s := `{"type":"content_block_delta","index":3,"delta":{"type":"thinking_delta","thinking":"step 1"}}`
	holes := []string{s[len(s)-10 : len(s)-2]}
	var sh Shape
	require.True(t, sh.Learn(s, holes))
	raws := make([]string, 1)
	allocs := testing.AllocsPerRun(100, func() {
		sh.Learn(s, holes)
		sh.Match(s, raws)
	})
	assert.Zero(t, allocs)
}

// FuzzShape learns a's shape (its top-level strings and numbers as holes)
// and matches b against it: a match must mean b is valid JSON, the same
// text outside the holes, and the holes a valid JSON reader finds there.
func FuzzShape(f *testing.F) {
	f.Add(`{"type":"d","text":"a","n":1}`, `{"type":"d","text":"b\"c","n":-2.5}`)
	f.Add(`{"t":"x","s":"é"}`, "{\"t\":\"x\",\"s\":\"\xff\"}")
	f.Add(`{"t":"x","s":"a"}`, `{"t":"x","s":"a","s":"b"}`)
	f.Add(`{"t":"x","s":"a"}`, `{"t":"x","s":"a\\"}`)
	f.Add(`{"t":1}`, `{"t":10}`)
	f.Add(`{"t":1,"u":[2]}`, `{"t":1e5,"u":[2]}`)
	f.Add(`{"r":"a\"","c":1,"d":"a\""}`, `{"r":"\u00e9","c":1,"d":"\u00e9"}`)
	f.Add(`{"r":"a","c":1,"d":"a"}`, `{"r":"b","c":1,"d":"c"}`)
	f.Fuzz(func(t *testing.T, a, b string) {
		if !Valid(a) {
			return
		}
		holes, ok := topHoles(a)
		if !ok {
			return
		}
		var sh Shape
		if !sh.Learn(a, holes) {
			t.Fatalf("%q: learning its own values refused", a)
		}
		twins := map[int]int{} // equal strings: the later one a twin
		for g := range holes {
			for h := 0; h < g; h++ {
				if _, ok := twins[g]; !ok && holes[g] == holes[h] && holes[g][0] == '"' && sh.Twin(g, h) {
					twins[g] = h
				}
			}
		}
		raws := make([]string, MaxHoles)
		if !sh.Match(a, raws) {
			t.Fatalf("%q does not match its own shape", a)
		}
		matched := sh.Match(b, raws)
		for v := range holes {
			xraws := make([]string, MaxHoles)
			val, ok := sh.MatchValue(b, xraws, v, nil)
			if ok != matched {
				t.Fatalf("%q: MatchValue(%d) %v, Match %v", b, v, ok, matched)
			}
			if _, twin := twins[v]; ok && !twin && xraws[v][0] == '"' && !sh.Surrogate(v) && string(val) != Unquote(xraws[v]) {
				t.Fatalf("%q: hole %d's value %q, unquoted %q", b, v, val, Unquote(xraws[v]))
			}
		}
		if !matched {
			return
		}
		sh.Match(b, raws) // the flags of the last match
		if !Valid(b) {
			t.Fatalf("%q matches %q's shape but is not valid", b, a)
		}
		got, ok := topHoles(b)
		if !ok || len(got) != len(holes) {
			t.Fatalf("%q: holes %q, read %q", b, raws[:len(holes)], got)
		}
		for h := range got {
			if got[h] != raws[h] {
				t.Fatalf("%q: hole %d is %q, read %q", b, h, raws[h], got[h])
			}
		}
		for g, h := range twins {
			if got[g] != got[h] || sh.Surrogate(g) != sh.Surrogate(h) || sh.Escaped(g) != sh.Escaped(h) {
				t.Fatalf("%q: hole %d (%q) is a twin of hole %d (%q)", b, g, got[g], h, got[h])
			}
		}
	})
}

// FuzzScanString checks scanString against validString followed by a
// UTF-8 check, and its flags against the escapes in the string; and
// scanValue against scanString, and the value it appends (without a \u
// escape) against WriteUnquoted.
func FuzzScanString(f *testing.F) {
	for _, s := range []string{`"abc"`, `"a\"b"`, `"token 1 of step 2, the \"edge\" case;\n "`, `"\/\b\f\n\r\t\\ é日本 12345678"`, `"\u00e9 é →"`, "\"\xff\"", `"\ud83c\udf0a"`, `"12345678\n12345678é"`, `"a`, `"a\`, "\"\x01\"", `"\q"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) == 0 || s[0] != '"' {
			return
		}
		end, flags, ok := scanString(s, 1)
		vend, vok := validString(s, 1)
		xend, xflags, val, xok := scanValue(s, 1, []byte("before "))
		if xend != end || xflags != flags || xok != ok {
			t.Fatalf("%q: scanValue ends at %d (flags %b, ok %v), scanString at %d (%b, %v)", s, xend, xflags, xok, end, flags, ok)
		}
		if ok && flags&flagSurrogate == 0 {
			var b strings.Builder
			b.WriteString("before ")
			WriteUnquoted(&b, s[:end])
			if string(val) != b.String() {
				t.Fatalf("%q: scanValue wrote %q, WriteUnquoted %q", s, val, b.String())
			}
		}
		want := vok && utf8.ValidString(s[:vend])
		if ok != want {
			t.Fatalf("%q: scanString %v, validString %v and UTF-8 %v", s, ok, vok, want)
		}
		if !ok {
			return
		}
		if end != vend {
			t.Fatalf("%q: ends at %d, validString at %d", s, end, vend)
		}
		body := s[1 : end-1]
		if got, want := flags&flagEscape != 0, strings.Contains(body, `\`); got != want {
			t.Fatalf("%q: escape flag %v", s, got)
		}
		if flags&flagSurrogate == 0 && LoneAt(s[:end], false) >= 0 {
			t.Fatalf("%q: a lone surrogate without the unicode flag", s)
		}
	})
}
