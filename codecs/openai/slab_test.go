package openai

import (
	"testing"

	"github.com/stretchr/testify/require"
)

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
