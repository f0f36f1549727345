package shapeview

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fields is what a decoder might read of an event: the raw values of
// typ, index, delta (an object holding the text), text, n and a member
// absent from every event.
type fields struct{ typ, index, delta, text, n, absent string }

func (f *fields) views() []*string {
	return []*string{&f.typ, &f.index, &f.delta, &f.text, &f.n, &f.absent}
}

// read reads s in full with a Scanner, as a decoder's full path does.
func read(t *testing.T, s string) fields {
	t.Helper()
	var f fields
	var sc jsonw.Scanner
	require.True(t, sc.Reset(s))
	var top jsonw.Object
	require.True(t, sc.Object(&top))
	for name, ok := sc.Member(&top); ok; name, ok = sc.Member(&top) {
		switch name {
		case "type":
			f.typ = sc.Value()
		case "index":
			f.index = sc.Value()
		case "n":
			f.n = sc.Value()
		case "delta":
			mark := sc.Mark()
			var d jsonw.Object
			require.True(t, sc.Object(&d))
			for name, ok := sc.Member(&d); ok; name, ok = sc.Member(&d) {
				if name == "text" {
					f.text = sc.Value()
				}
			}
			f.delta = sc.Since(mark)
		}
	}
	require.True(t, sc.End())
	return f
}

func TestViewsFindWhatAFullReadFinds(t *testing.T) {
	learned := `{"type":"delta","n":7,"index":2,"delta":{"text":"one","k":1},"p":"abc"}`
	f := read(t, learned)
	var pad string
	{
		i := strings.Index(learned, `"abc"`)
		pad = learned[i : i+5]
	}
	holes := []string{f.n, f.text, pad}
	var sh jsonw.Shape
	require.True(t, sh.Learn(learned, holes))
	var v Views
	require.True(t, v.Learn(learned, holes, f.views()))

	for _, s := range []string{
		`{"type":"delta","n":7,"index":2,"delta":{"text":"one","k":1},"p":"abc"}`,
		`{"type":"delta","n":123456,"index":2,"delta":{"text":"a longer \"text\" \u00e9","k":1},"p":""}`,
		`{"type":"delta","n":-1.5e3,"index":2,"delta":{"text":"","k":1},"p":"abcdefghijkl"}`,
	} {
		var raws [jsonw.MaxHoles]string
		require.True(t, sh.Match(s, raws[:]), s)
		got := f // the struct still holds the learned event's fields
		v.Find(s, raws[:], got.views())
		assert.Equal(t, read(t, s), got, s)
		assert.Equal(t, "", got.absent)
	}
}

func TestViewsLearnRefuses(t *testing.T) {
	s := `{"type":"delta","delta":{"text":"one two"}}`
	f := read(t, s)
	var v Views
	other := strings.Clone(f.typ)
	assert.False(t, v.Learn(s, []string{f.text}, []*string{&other}), "a view of another text")
	cut := f.text[1:4]
	assert.False(t, v.Learn(s, []string{f.text}, []*string{&cut}), "a view inside a hole")
	over := s[strings.Index(s, `delta":{`)-1 : strings.Index(s, "two")]
	assert.False(t, v.Learn(s, []string{f.text}, []*string{&over}), "a view ending inside a hole")
	assert.False(t, v.Learn(s, []string{f.text, f.text, f.text, f.text, f.text}, nil), "too many holes")
	assert.False(t, v.Learn(s, []string{strings.Clone(f.text)}, nil), "a hole of another text")
	assert.True(t, v.Learn(s, []string{f.text}, []*string{&f.delta, &f.typ, &f.text}))
}

func TestViewsFindOtherViewsPanics(t *testing.T) {
	s := `{"type":"delta","delta":{"text":"one"}}`
	f := read(t, s)
	var v Views
	require.True(t, v.Learn(s, []string{f.text}, f.views()))
	assert.Panics(t, func() { v.Find(s, []string{f.text}, f.views()[:2]) })
}

func TestOrder(t *testing.T) {
	s := `{"a":"x","b":12,"c":"yz"}`
	a, b, c := s[5:8], s[13:15], s[20:24]
	require.Equal(t, []string{`"x"`, `12`, `"yz"`}, []string{a, b, c})
	holes := []string{c, a, b}
	Order(holes)
	assert.Equal(t, []string{`"x"`, `12`, `"yz"`}, holes)
	for i, h := range []string{a, b, c} {
		assert.Same(t, unsafeData(h), unsafeData(holes[i]), "hole %d is the view of s", i)
	}
}

func unsafeData(s string) *byte { return unsafe.StringData(s) }
