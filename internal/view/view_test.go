package view

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A string from String reads the bytes as they are now: written over,
// they change under it. That is why a decoder copies what it keeps, and
// why the tests that write over every chunk they fed catch one that
// does not.
func TestStringViewsTheBytes(t *testing.T) {
	b := []byte(`{"a":"b"}`)
	s := String(b)
	require.Equal(t, `{"a":"b"}`, s)
	for i := range b {
		b[i] = 0xAA
	}
	require.Equal(t, strings.Repeat("\xAA", 9), s, "a view sees the poisoned bytes")
	require.Equal(t, "", String(nil))
	require.Equal(t, "", String([]byte{}))
}

func TestBytes(t *testing.T) {
	s := "hello"
	b := Bytes(s)
	require.Equal(t, []byte("hello"), b)
	require.Equal(t, len(s), cap(b))
	require.Nil(t, Bytes(""))
}

func TestOffset(t *testing.T) {
	s := `{"text":"abc","n":12}`
	for _, c := range []struct {
		x    string
		off  int
		view bool
	}{
		{s[9:14], 9, true},
		{s[0:1], 0, true},
		{s[len(s)-1:], len(s) - 1, true},
		{s, 0, true},
		{s[3:3], 0, false},                 // empty: no place
		{strings.Clone(s[9:14]), 0, false}, // the same bytes elsewhere
		{"", 0, false},
	} {
		off, ok := Offset(s, c.x)
		require.Equal(t, c.view, ok, "%q", c.x)
		require.Equal(t, c.view, Within(s, c.x))
		if ok {
			require.Equal(t, c.off, off)
		}
	}
	// A view of a longer text that starts inside s but ends past it is
	// not a view of s.
	long := s + "tail"
	_, ok := Offset(long[:len(s)], long[len(s)-2:])
	require.False(t, ok)
	_, ok = Offset("", "x")
	require.False(t, ok)
}

// Texts grown in turns, reset, truncated and strings cloned between them:
// every string handed out keeps its bytes whatever is written after it.
func TestArenaKeepsWhatItHandsOut(t *testing.T) {
	var a Arena
	texts := make([]Text, 5)
	want := make([]string, 5) // each text's bytes, as plain Go strings
	type held struct{ got, want string }
	var hold []held
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		k := r.Intn(len(texts))
		switch op := r.Intn(20); {
		case op == 0:
			texts[k].Reset()
			want[k] = ""
		case op == 1:
			s := strings.Repeat(fmt.Sprint(i%10), r.Intn(40000))
			hold = append(hold, held{a.Clone(s), s})
		case op == 2:
			// Written, then cut back before anything saw it.
			n := texts[k].Len()
			a.Write(&texts[k], "refused")
			texts[k].Truncate(n)
		case op == 3:
			// Appended by the caller through Tail and Set.
			s := strings.Repeat("t", 1+r.Intn(100))
			start := texts[k].Len()
			b := a.Tail(&texts[k], len(s))
			texts[k].Set(append(b, s...))
			want[k] += s
			hold = append(hold, held{texts[k].String()[start:], s})
		default:
			s := strings.Repeat(string(rune('a'+k)), 1+r.Intn(300))
			start := texts[k].Len()
			a.Write(&texts[k], s)
			want[k] += s
			hold = append(hold, held{texts[k].String()[start:], s})
		}
		require.Equal(t, len(want[k]), texts[k].Len())
		require.Equal(t, want[k], texts[k].String())
	}
	for i, h := range hold {
		require.Equal(t, h.want, h.got, "string %d", i)
	}
	require.Equal(t, "", a.Clone(""))
	var empty Text
	require.Equal(t, "", empty.String())
}

// A text written alone grows where it is, without copies, while its
// chunk has room; strings cloned after it do not overlap it.
func TestArenaTextGrowsInPlace(t *testing.T) {
	var a Arena
	var x Text
	a.Write(&x, "0123456789")
	at := &x.b[0]
	var want strings.Builder
	want.WriteString("0123456789")
	for i := 0; i < 40; i++ { // 410 bytes: the first chunk holds them
		a.Write(&x, "abcdefghij")
		want.WriteString("abcdefghij")
	}
	require.Same(t, at, &x.b[0])
	require.Equal(t, want.String(), x.String())
	for i := 0; i < 200; i++ { // past it: moved once, then in place again
		a.Write(&x, "klmnopqrst")
		want.WriteString("klmnopqrst")
	}
	require.Equal(t, want.String(), x.String())
	c := a.Clone("after")
	a.Write(&x, "tail")
	require.Equal(t, "after", c)
	require.Equal(t, want.String()+"tail", x.String())
}

// A text that another was written after does not grow over it.
func TestArenaTextsDoNotOverlap(t *testing.T) {
	var a Arena
	var x, y Text
	a.Write(&x, "xx")
	a.Write(&y, "yy")
	xs, ys := x.String(), y.String()
	for i := 0; i < 100; i++ {
		a.Write(&x, "XXXXXXXX")
	}
	require.Equal(t, "yy", y.String())
	require.Equal(t, "yy", ys)
	require.Equal(t, "xx", xs)
	require.Equal(t, "xx"+strings.Repeat("XXXXXXXX", 100), x.String())
}

func TestTextSetRefusesShrinking(t *testing.T) {
	var a Arena
	var x Text
	a.Write(&x, "abc")
	require.Panics(t, func() { x.Set(a.Tail(&x, 1)[:1]) })
}
