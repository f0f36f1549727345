package jsonw

import (
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoneAt(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		held bool
		want int
	}{
		{`"plain"`, false, -1},
		{`"\ud83c\udf0a pair"`, false, -1},
		{`"a\ud800"`, false, 2},
		{`"a\ud800b"`, false, 2},
		{`"\udc00"`, false, 1},
		{`"\udc00"`, true, -1},   // joins the held high half
		{`"x\udc00"`, true, 2},   // not at the start: lone
		{`"\\ud800"`, false, -1}, // an escaped backslash, then text
		{`"\\\ud800"`, false, 3}, // an escaped backslash, then a lone half
		{`"\ud83c\u0041"`, false, 1},
		{`"\ud83c\ud83c\udf0a"`, false, 1},
		{`"\u0041\n\udBff\uDfFf"`, false, -1},
		{`"\ud8"`, false, -1}, // not an escape this function judges
	} {
		assert.Equal(t, tc.want, LoneAt(tc.raw, tc.held), "%s held=%v", tc.raw, tc.held)
	}
}

func TestWriteUnquotedJoinLone(t *testing.T) {
	var b strings.Builder
	var hi rune
	n, ok := WriteUnquotedJoinLone(&b, `"a\ud83c"`, &hi)
	require.True(t, ok)
	assert.Equal(t, 0, n, "a high half at the end is held")
	n, _ = WriteUnquotedJoinLone(&b, `"\udf0a\udc00"`, &hi)
	assert.Equal(t, 1, n)
	n, _ = WriteUnquotedJoinLone(&b, `"\ud83c"`, &hi)
	assert.Equal(t, 0, n)
	n, _ = WriteUnquotedJoinLone(&b, `"z"`, &hi)
	assert.Equal(t, 1, n, "the held half had no partner")
	held := rune(0xD800)
	assert.True(t, FlushHalfLone(&b, &held))
	assert.False(t, FlushHalfLone(&b, &held))
	assert.Equal(t, "a🌊\uFFFD\uFFFDz\uFFFD", b.String())
}

// units decodes the escapes of a JSON string literal into UTF-16 code
// units (the reference for lone halves).
func units(raw string) []uint16 {
	var out []uint16
	s := raw[1 : len(raw)-1]
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			r := []rune(s[i:])[0]
			out = append(out, utf16.Encode([]rune{r})...)
			i += len(string(r))
			continue
		}
		if s[i+1] == 'u' {
			r, _ := hex4(s[i+2:])
			out = append(out, uint16(r))
			i += 6
			continue
		}
		out = append(out, uint16(s[i+1]))
		i += 2
	}
	return out
}

func hasLone(u []uint16) bool {
	for i := 0; i < len(u); i++ {
		switch c := u[i]; {
		case c >= 0xD800 && c < 0xDC00:
			if i+1 < len(u) && u[i+1] >= 0xDC00 && u[i+1] < 0xE000 {
				i++
				continue
			}
			return true
		case c >= 0xDC00 && c < 0xE000:
			return true
		}
	}
	return false
}

// FuzzLoneAt holds LoneAt to the UTF-16 reference on every valid string
// literal, and WriteUnquotedJoinLone's count to it for one fragment.
func FuzzLoneAt(f *testing.F) {
	for _, s := range []string{`"\ud800"`, `"a\ud83c\udf0a"`, `"\\ud800"`, `"\udc00\ud800"`, `"x\ud83c\u0041y"`, `"\ud83c"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if len(raw) < 2 || raw[0] != '"' || !Valid(raw) {
			return
		}
		want := hasLone(units(raw))
		if got := LoneAt(raw, false) >= 0; got != want {
			t.Fatalf("LoneAt(%s) = %v, reference %v", raw, got, want)
		}
		var b strings.Builder
		var hi rune
		n, _ := WriteUnquotedJoinLone(&b, raw, &hi)
		if FlushHalfLone(&b, &hi) {
			n++
		}
		if (n > 0) != want {
			t.Fatalf("WriteUnquotedJoinLone(%s) counted %d, reference %v", raw, n, want)
		}
	})
}

// FuzzValidDeep wraps a value in arrays and objects nested up to twice the
// depth limit: Valid accepts exactly the shallow enough ones whose core is
// valid, never recursing without bound, and Explain names the nesting.
func FuzzValidDeep(f *testing.F) {
	f.Add(uint16(maxDepth), false, `1`)
	f.Add(uint16(maxDepth+1), true, `"x"`)
	f.Add(uint16(3), true, `[[]]`)
	f.Add(uint16(2*maxDepth), false, `{"a":[1]}`)
	f.Fuzz(func(t *testing.T, depth uint16, objects bool, core string) {
		d := int(depth) % (2*maxDepth + 1)
		if !Valid(core) {
			return
		}
		open, close := "[", "]"
		if objects {
			open, close = `{"k":`, "}"
		}
		s := strings.Repeat(open, d) + core + strings.Repeat(close, d)
		want := d+maxNesting(core) <= maxDepth
		if got := Valid(s); got != want {
			t.Fatalf("Valid at depth %d+%d = %v, want %v", d, maxNesting(core), got, want)
		}
		if !want && !strings.HasPrefix(Explain(s), "JSON nested ") {
			t.Fatalf("Explain at depth %d: %q", d, Explain(s))
		}
	})
}

// FuzzSkipString holds skipString (from quote to quote, counting the
// backslashes before each) to the plain byte loop, on any text after a
// quote.
func FuzzSkipString(f *testing.F) {
	f.Add(`"short"`)
	f.Add(`"` + strings.Repeat(`ab\"c\\`, 30) + `"tail`)
	f.Add(`"` + strings.Repeat("x", 70) + `\\\"` + `y"`)
	f.Add(`"\\\\\\\"\\"x"`)
	f.Add("\"a\x01\\\\\"")
	f.Fuzz(func(t *testing.T, s string) {
		if s == "" || s[0] != '"' {
			s = `"` + s
		}
		want := -1
		for j := 1; j < len(s); j++ {
			if s[j] == '\\' {
				j++
			} else if s[j] == '"' {
				want = j + 1
				break
			}
		}
		if got := skipString(s, 0); got != want {
			t.Fatalf("skipString(%q) = %d, want %d", s, got, want)
		}
	})
}

// TestLone: the cases the codecs' checks were written against.
func TestLone(t *testing.T) {
	for raw, want := range map[string]bool{
		`"abc"`: false, `""`: false, `"QQ=="`: false, `"\ud83d\ude00"`: false, `"\\ud800"`: false, `"\u00e9\/"`: false, `"\uZZZZ"`: false,
		`"\ud800"`: true, `"x\udc00y"`: true, `"\ud83d\u0041"`: true, `"\\\ud800"`: true, `"\u00e9\uD800"`: true,
		`"\uD83D\uDE00\ud800"`: true, `"\ud83d"`: true, `"QQ\uDBFF=="`: true, `"\ud800\ud800"`: true,
	} {
		if got := Lone(raw); got != want {
			t.Errorf("Lone(%s) = %v, want %v", raw, got, want)
		}
	}
}
