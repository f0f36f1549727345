package replayhttp

import (
	"context"
	"strconv"
	"testing"
)

// BenchmarkMemoryStorePut puts one more entry into a full store per
// iteration: the cost of a Put must not grow with the entries kept.
func BenchmarkMemoryStorePut(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			ctx := context.Background()
			s := &MemoryStore{MaxTurns: n}
			doc := []byte(`{"version":1,"complete":true,"blocks":[{"type":"text","text":"Let me check."}]}`)
			for i := 0; i < n; i++ {
				if err := s.Put(ctx, Key{Tenant: "t", Conversation: strconv.Itoa(i)}, doc); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := s.Put(ctx, Key{Tenant: "t", Conversation: strconv.Itoa(n + i)}, doc); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if s.Len() != n {
				b.Fatalf("%d entries kept, want %d", s.Len(), n)
			}
		})
	}
}
