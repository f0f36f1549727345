package replayhttp

import (
	"context"
	"strconv"
	"testing"

	"github.com/reasonreplay/replay"
)

// BenchmarkMemoryStoreSharedPosition puts n turns that share one position
// key (every conversation at the same point with the same visible text),
// each under its own tool-call id, then one more per iteration: the cost of
// a Put must not grow with the turns behind the shared key.
func BenchmarkMemoryStoreSharedPosition(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			ctx := context.Background()
			s := &MemoryStore{MaxTurns: n}
			turn := func(i int) *replay.Turn {
				return &replay.Turn{Complete: true, Blocks: []replay.Block{
					&replay.Text{Text: "Let me check."},
					&replay.ToolCall{ID: "toolu_" + strconv.Itoa(i), Name: "get_weather"},
				}}
			}
			for i := 0; i < n; i++ {
				if err := s.Put(ctx, []string{"call:toolu_" + strconv.Itoa(i), "pos:1:shared"}, turn(i)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				j := n + i
				if err := s.Put(ctx, []string{"call:toolu_" + strconv.Itoa(j), "pos:1:shared"}, turn(j)); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if s.Len() != n {
				b.Fatalf("%d turns kept, want %d", s.Len(), n)
			}
		})
	}
}
