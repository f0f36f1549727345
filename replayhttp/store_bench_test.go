package replayhttp

import (
	"context"
	"strconv"
	"testing"

	"github.com/reasonreplay/replay/internal/benchreq"
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

// BenchmarkMemoryStoreGet reads back, per iteration, the captures of the
// 76 model turns of a 540 KB Anthropic request, as repair does for each
// request of the conversation.
func BenchmarkMemoryStoreGet(b *testing.B) {
	pc := newPathCase(b, benchreq.Anthropic(), 540<<10)
	c := pc.call(pc.body)
	var keys []Key
	for ti := range c.req.History.Turns {
		first, _ := c.req.TurnSpan(ti)
		keys = append(keys, c.scope.key(first))
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		for _, k := range keys {
			if docs, err := pc.tr.Store.Get(ctx, k); err != nil || len(docs) != 1 {
				b.Fatal(len(docs), err)
			}
		}
	}
}
