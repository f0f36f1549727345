package canon

import (
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var tapeForms = []string{
	`{"a":1,"b":[true,null,"x"]}`, `"Z\u00fcrich"`, `[{"b":2,"a":{"c":"\/"}}]`, `1e3`, `{"":""}`,
	`{"system":[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}],"tools":[{"name":"t"},{"cache_control":{"type":"ephemeral"}}]}`,
	`{"messages":[{"role":"user","content":[{"type":"tool_result","content":"` + strings.Repeat(`line \"one\"\n\t`, 100) + `","cache_control":{}}]}]}`,
	`{"deep":{"a":{"b":{"c":{"d":{"e":{"f":[1,{"cache_control":1},"` + strings.Repeat("z", 600) + `"]}}}}}}}`,
	`{"\u0061":1,"b\"":{"cache_control":{"x":1}},"c":[{"cache_control":1},{}]}`,
	`[]`, `{}`, `[[],[{}],{"a":[]}]`, `-0.0`, `12345678901234567890`,
}

// formOf is the digest Value writes for s, and the one Val writes for its
// tape's root.
func formOf(t *testing.T, s string, skip func(string) bool) (raw, tape []byte) {
	t.Helper()
	w1 := New(sha256.New(), skip)
	require.True(t, w1.Value(s), s)
	var tp jsonw.Tape
	require.True(t, tp.Reset(s), s)
	w2 := New(sha256.New(), skip)
	require.True(t, w2.Val(tp.Root()), s)
	return w1.Sum(nil), w2.Sum(nil)
}

// Val writes exactly the form Value writes, on every value (long strings,
// escapes, values deeper than the tape records, skipped members).
func TestValIsValue(t *testing.T) {
	skip := func(n string) bool { return n == "cache_control" }
	for _, s := range tapeForms {
		a, b := formOf(t, s, nil)
		assert.Equal(t, a, b, s)
		a, b = formOf(t, s, skip)
		assert.Equal(t, a, b, "%s (skipping cache_control)", s)
	}
	w := New(sha256.New(), nil)
	assert.False(t, w.Val(jsonw.Val{}))
}

// A Writer reset writes what a new one writes.
func TestReset(t *testing.T) {
	w := New(sha256.New(), nil)
	w.Tag('x', strings.Repeat("y", 1000))
	w.Reset(sha256.New())
	w.Tag('p', "q")
	fresh := New(sha256.New(), nil)
	fresh.Tag('p', "q")
	assert.Equal(t, fresh.Sum(nil), w.Sum(nil))
}

func FuzzValIsValue(f *testing.F) {
	for _, s := range tapeForms {
		f.Add(s)
	}
	skip := func(n string) bool { return n == "cache_control" || n == "b" }
	f.Fuzz(func(t *testing.T, s string) {
		if !jsonw.Valid(s) {
			return
		}
		a, b := formOf(t, s, skip)
		if string(a) != string(b) {
			t.Fatalf("Val and Value write different forms of %q", s)
		}
	})
}

// A string written in pieces is the string written whole.
func TestPieces(t *testing.T) {
	for _, parts := range [][]string{nil, {""}, {"a", "", "bc"}, {strings.Repeat("x", 700), "y", strings.Repeat("z", 5000)}} {
		whole := New(sha256.New(), nil)
		whole.Tag('t', strings.Join(parts, ""))
		pieced := New(sha256.New(), nil)
		n := 0
		for _, p := range parts {
			n += len(p)
		}
		pieced.TagLen('t', n)
		for _, p := range parts {
			pieced.Piece(p)
		}
		assert.Equal(t, whole.Sum(nil), pieced.Sum(nil), "%q", parts)
	}
}
