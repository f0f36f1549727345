package jsonindent

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// indentWhole is what the Writer must reproduce.
func indentWhole(t testing.TB, src []byte, prefix, indent string) []byte {
	var b bytes.Buffer
	require.NoError(t, json.Indent(&b, src, prefix, indent))
	return b.Bytes()
}

// indentCut writes src to a Writer in pieces cut at cuts.
func indentCut(src []byte, cuts []int, prefix, indent string) ([]byte, error) {
	var b bytes.Buffer
	x := NewWriter(&b, prefix, indent)
	last := 0
	for _, c := range cuts {
		if _, err := x.Write(src[last:c]); err != nil {
			return nil, err
		}
		last = c
	}
	if _, err := x.Write(src[last:]); err != nil {
		return nil, err
	}
	err := x.Flush()
	return b.Bytes(), err
}

var samples = []string{
	`{}`, `[]`, `""`, `0`, `-1.5e+30`, `true`, `null`,
	`{"a":1}`, `[1,2,3]`, `{"a":{},"b":[],"c":[{}],"d":[[]]}`,
	`{"version":1,"provenance":{"api":"openrouter"},"complete":true,"blocks":[{"type":"text","text":"a \"quoted\", {braced} [and] \\ slashed: \n"}]}`,
	` { "a" : [ 1 , 2 ] ,	"b":
	"x" } `,
	`"\\"`, `"\\\\"`, `"\"\"\""`, `["\\\"", "\u00e9\ud83d\ude00", "é😀"]`,
	`{"k\"ey":"v\\","":""}`,
	`[[[[[[[[[[{"deep":[[[]]]}]]]]]]]]]]`,
}

func TestWriterMatchesIndent(t *testing.T) {
	for _, s := range samples {
		src := []byte(s)
		for _, pi := range [][2]string{{"", "  "}, {">", "\t"}, {"", ""}} {
			want := indentWhole(t, src, pi[0], pi[1])
			want = bytes.TrimRight(want, " \t\r\n") // the Writer drops trailing whitespace
			got, err := indentCut(src, nil, pi[0], pi[1])
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got), "%q whole", s)
			// Every single cut, and byte by byte.
			for c := 0; c <= len(src); c++ {
				got, err := indentCut(src, []int{c}, pi[0], pi[1])
				require.NoError(t, err)
				assert.Equal(t, string(want), string(got), "%q cut at %d", s, c)
			}
			var all []int
			for c := 1; c < len(src); c++ {
				all = append(all, c)
			}
			got, err = indentCut(src, all, pi[0], pi[1])
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got), "%q byte by byte", s)
		}
	}
}

// TestWriterLongStrings crosses the window and the flush size with strings
// full of escapes, an escape falling on every window edge.
func TestWriterLongStrings(t *testing.T) {
	var parts []string
	for _, unit := range []string{`\"`, `\\`, `ab\n`, `x`, `\u00e9`} {
		for _, n := range []int{flushAt / len(unit), flushAt/len(unit) + 1, 3 * flushAt / len(unit)} {
			for pad := 0; pad < 3; pad++ {
				parts = append(parts, `"`+strings.Repeat("p", pad)+strings.Repeat(unit, n)+`"`)
			}
		}
	}
	src := []byte(`{"s":[` + strings.Join(parts, ",") + `],"end":{"k":"v"}}`)
	want := indentWhole(t, src, "", "  ")
	got, err := indentCut(src, nil, "", "  ")
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 20; round++ {
		var cuts []int
		for c := rng.Intn(flushAt); c < len(src); c += 1 + rng.Intn(3*flushAt) {
			cuts = append(cuts, c)
		}
		got, err := indentCut(src, cuts, "", "  ")
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "round %d", round)
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("disk full")
}

func TestWriterReportsWriteErrors(t *testing.T) {
	fw := &failWriter{}
	x := NewWriter(fw, "", "  ")
	src := []byte(`{"s":"` + strings.Repeat("a", 3*flushAt) + `"}`)
	_, err := x.Write(src)
	require.EqualError(t, err, "disk full")
	_, err = x.Write([]byte(`1`))
	require.EqualError(t, err, "disk full", "the error sticks")
	require.EqualError(t, x.Flush(), "disk full")
	assert.Equal(t, 1, fw.n, "nothing is written after the first error")
}

func FuzzWriter(f *testing.F) {
	for _, s := range samples {
		f.Add([]byte(s), uint16(1), uint16(3))
	}
	f.Fuzz(func(t *testing.T, src []byte, a, b uint16) {
		if !json.Valid(src) {
			return
		}
		want := bytes.TrimRight(indentWhole(t, src, "", "  "), " \t\r\n")
		var cuts []int
		step := int(b)%17 + 1
		for c := int(a) % (len(src) + 1); c <= len(src); c += step {
			cuts = append(cuts, c)
		}
		got, err := indentCut(src, cuts, "", "  ")
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
	})
}

// stringEndRef is stringEnd read one byte at a time.
func stringEndRef(b []byte, escaped bool) (int, bool) {
	for i, c := range b {
		switch {
		case escaped:
			escaped = false
		case c == '"':
			return i, false
		case c == '\\':
			escaped = true
		}
	}
	return len(b), escaped
}

// stringEnd, 64 bytes at a time, finds what a byte-by-byte read finds,
// with and without an escape carried in: for every string of up to 11
// bytes of quotes, backslashes and one other byte (so every run of
// backslashes), alone and placed across the end of a 64-byte block; and
// for long random ones, dense in backslashes, among bytes that differ
// from a quote or a backslash in one bit or lie above 0x80.
func TestStringEnd(t *testing.T) {
	check := func(b []byte) {
		for _, esc := range []bool{false, true} {
			wi, we := stringEndRef(b, esc)
			gi, ge := stringEnd(b, esc)
			if wi != gi || we != ge {
				t.Fatalf("stringEnd(%q, %v) = %d, %v; want %d, %v", b, esc, gi, ge, wi, we)
			}
		}
	}
	alphabet := []byte{'"', '\\', 'a'}
	pads := []int{0, 53, 58, 62, 63, 64, 117, 127}
	b := make([]byte, 0, 11)
	buf := make([]byte, 0, 210)
	var walk func()
	walk = func() {
		for _, pad := range pads {
			for _, tail := range []int{0, 64} { // a tail: the pattern's block is whole
				buf = append(append(buf[:0], strings.Repeat("a", pad)...), b...)
				buf = append(buf, strings.Repeat("a", tail)...)
				check(buf)
				if pad > 0 {
					buf[pad-1] = '\\' // the pattern starts escaped
					check(buf)
				}
			}
		}
		if len(b) == cap(b) {
			return
		}
		for _, c := range alphabet {
			b = append(b, c)
			walk()
			b = b[:len(b)-1]
		}
	}
	walk()

	fill := []byte("\"\\\\\\\\\"a\x02\x5d\x5b\x23\xa2\xdc#|\xff\x00\x22\x5c\x5c")
	rng := rand.New(rand.NewSource(27))
	for range 20000 {
		b := make([]byte, rng.Intn(300))
		for i := range b {
			b[i] = fill[rng.Intn(len(fill))]
		}
		check(b)
		// and with its quotes escaped, so that the end is far
		check(bytes.ReplaceAll(bytes.ReplaceAll(b, []byte(`\`), []byte(`x`)), []byte(`"`), []byte(`\"`)))
	}
}
