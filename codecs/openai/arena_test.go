package openai

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Texts grown in turns, reset, and strings cloned between them: every
// string handed out keeps its bytes whatever is written after it.
func TestArenaKeepsWhatItHandsOut(t *testing.T) {
	var a arena
	texts := make([]text, 5)
	want := make([]string, 5) // each text's bytes, as plain Go strings
	type held struct{ got, want string }
	var hold []held
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		k := r.Intn(len(texts))
		switch op := r.Intn(20); {
		case op == 0:
			texts[k].reset()
			want[k] = ""
		case op == 1:
			s := strings.Repeat(fmt.Sprint(i%10), r.Intn(40000))
			hold = append(hold, held{a.clone(s), s})
		default:
			s := strings.Repeat(string(rune('a'+k)), 1+r.Intn(300))
			start := texts[k].Len()
			a.write(&texts[k], s)
			want[k] += s
			hold = append(hold, held{texts[k].String()[start:], s})
		}
		require.Equal(t, len(want[k]), texts[k].Len())
		require.Equal(t, want[k], texts[k].String())
	}
	for i, h := range hold {
		require.Equal(t, h.want, h.got, "string %d", i)
	}
	require.Equal(t, "", a.clone(""))
	var empty text
	require.Equal(t, "", empty.String())
}

func TestSlabHandsOutZeroedDistinctValues(t *testing.T) {
	var s slab[outItem]
	seen := map[*outItem]bool{}
	for i := 0; i < 300; i++ {
		p := s.new()
		require.Equal(t, outItem{}, *p)
		require.False(t, seen[p])
		seen[p] = true
		p.typ, p.call = "x", i
	}
	for p := range seen {
		require.Equal(t, "x", p.typ)
	}
}

func TestInternType(t *testing.T) {
	for _, s := range []string{"reasoning", "message", "function_call", "custom_tool_call", "compaction", "web_search_call", ""} {
		b := []byte(s)
		got := internType(string(b))
		require.Equal(t, s, got)
	}
}

// A text written alone grows where it is, without copies, while its
// chunk has room; strings cloned after it do not overlap it.
func TestArenaTextGrowsInPlace(t *testing.T) {
	var a arena
	var x text
	a.write(&x, "0123456789")
	at := &x.b[0]
	var want strings.Builder
	want.WriteString("0123456789")
	for i := 0; i < 40; i++ { // 410 bytes: the first chunk holds them
		a.write(&x, "abcdefghij")
		want.WriteString("abcdefghij")
	}
	require.Same(t, at, &x.b[0])
	require.Equal(t, want.String(), x.String())
	for i := 0; i < 200; i++ { // past it: moved once, then in place again
		a.write(&x, "klmnopqrst")
		want.WriteString("klmnopqrst")
	}
	require.Equal(t, want.String(), x.String())
	c := a.clone("after")
	a.write(&x, "tail")
	require.Equal(t, "after", c)
	require.Equal(t, want.String()+"tail", x.String())
}
