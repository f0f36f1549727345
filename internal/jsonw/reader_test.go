package jsonw

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// walk reads the value at r's cursor entering every container, and
// appends what it read to out in a canonical form (names and leaves as
// written).
func walkReader(r *Reader, out *strings.Builder) {
	switch {
	case r.Object():
		out.WriteByte('{')
		for {
			name, ok := r.Member()
			if !ok {
				break
			}
			out.WriteString(`"` + name + `":`)
			walkReader(r, out)
			out.WriteByte(',')
		}
		out.WriteByte('}')
	case r.Array():
		out.WriteByte('[')
		for r.Elem() {
			walkReader(r, out)
			out.WriteByte(',')
		}
		out.WriteByte(']')
	default:
		out.WriteString(r.Raw())
	}
}

// readerCases adds repeated names, deep nesting and invalid UTF-8 in and
// out of strings to validCases.
var readerCases = append([]string{
	`{"a":1,"a":2}`, `{"a":{"b":1,"b":1}}`, `[{"x":1},{"x":1}]`, `{"a\u0062":1,"ab":2}`, `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"a":0}`,
	`{,}`, `{"a":1,,"b":2}`, `[,1]`, `[1,,2]`, `{"a":}`, `{"a"}`, `{"a":1 "b":2}`, ` [ ] `, ` { } `, `{"a":[]}`, `[[],{}]`,
	"{\"a\":\"\xc3\xa9\"}", "{\"a\":\"\xc3\"}", "{\"\xff\":1}", "[1,\xff]", "\"ok\" \xff",
	strings.Repeat("[", 512) + strings.Repeat("]", 512), strings.Repeat("[", 511) + "{}" + strings.Repeat("]", 511),
	strings.Repeat(`{"a":`, 513) + "1" + strings.Repeat("}", 513),
}, validCases...)

func TestReaderValidatesAsValid(t *testing.T) {
	var r Reader
	for _, c := range readerCases {
		want := Valid(c)
		var out strings.Builder
		r.Reset(c)
		walkReader(&r, &out)
		assert.Equal(t, want, r.End(), "walked %q", c)
		r.Reset(c)
		assert.Equal(t, want, r.End(), "unread %q", c)
		r.Reset(c)
		if r.Object() {
			if _, ok := r.Member(); ok {
				r.Skip()
			}
		} else if r.Array() && r.Elem() {
			r.Skip()
		}
		assert.Equal(t, want, r.End(), "partly read %q", c)
	}
}

func TestReaderMembers(t *testing.T) {
	var r Reader
	r.ResetBytes([]byte(` {"a" : [1, {"b":"x\"y"}], "c\u0064": true, "e":{}} `))
	var got []string
	assert.True(t, r.Object())
	for {
		name, ok := r.Member()
		if !ok {
			break
		}
		switch Name(name) {
		case "a":
			assert.True(t, r.Array())
			assert.True(t, r.Elem())
			assert.Equal(t, byte('1'), r.Peek())
			got = append(got, r.Raw())
			assert.True(t, r.Elem())
			assert.True(t, r.Object())
			n, ok := r.Member()
			assert.True(t, ok)
			assert.Equal(t, "b", n)
			got = append(got, r.Raw())
			_, ok = r.Member()
			assert.False(t, ok)
			assert.False(t, r.Elem())
		case "cd":
			assert.Equal(t, `c\u0064`, name)
			got = append(got, r.Raw())
		default:
			assert.False(t, r.Array())
			r.Skip()
		}
	}
	assert.True(t, r.End())
	assert.Equal(t, []string{`1`, `"x\"y"`, `true`}, got)

	r.Reset(`{"a":1,"a":2}`)
	assert.True(t, r.Object())
	_, ok := r.Member()
	assert.True(t, ok)
	assert.Equal(t, "1", r.Raw())
	_, ok = r.Member()
	assert.False(t, ok, "a repeated name fails the read")
	assert.Equal(t, "", r.Raw())
	assert.False(t, r.End())

	r.Reset("")
	assert.False(t, r.End(), "the empty text is not JSON")
}

func FuzzReader(f *testing.F) {
	for _, c := range readerCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := Valid(s)
		var r Reader
		var out strings.Builder
		r.Reset(s)
		walkReader(&r, &out)
		if got := r.End(); got != want {
			t.Fatalf("Reader walking %q: %v, Valid says %v", s, got, want)
		}
		r.Reset(s)
		if r.Object() {
			if _, ok := r.Member(); ok {
				r.Skip()
			}
		}
		if got := r.End(); got != want {
			t.Fatalf("Reader partly reading %q: %v, Valid says %v", s, got, want)
		}
	})
}

// TestValidStringBoundaries puts escapes, UTF-8 sequences, invalid bytes
// and control characters at every offset around the 64 bytes where
// validString leaves its byte loop for IndexByte, against encoding/json.
func TestValidStringBoundaries(t *testing.T) {
	for _, piece := range []string{`\"`, `\\`, `\u00e9`, `\ud83d\ude00`, "é", "😀", "\xff", "\xe2\x82", "\x01", `\x`, `\u12`, `"`} {
		for n := 55; n < 75; n++ {
			for _, s := range []string{`"` + strings.Repeat("a", n) + piece + `b"`, `"` + strings.Repeat("a", n) + piece + `"`, `["` + strings.Repeat("a", n) + piece} {
				want := json.Valid([]byte(s)) && utf8.ValidString(s)
				assert.Equal(t, want, Valid(s), "%q", s)
			}
		}
	}
}
