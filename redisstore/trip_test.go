package redisstore_test

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/reasonreplay/replay"
	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/redisstore"
	"github.com/reasonreplay/replay/replayhttp"
)

// FuzzTripRedis: the document trip (decode -> document -> read -> encode
// is decode -> encode, for the turn as decoded and sealed) through the
// Redis store, for every API's decoders (the input picks one), against a
// redis-server of this process's own.
func FuzzTripRedis(f *testing.F) {
	r := startRedis(f)
	s, err := redisstore.Open(r.url(), redisstore.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	var mu sync.Mutex
	n := 0
	via := codectest.Via{Name: "redis store", Trip: func(t testing.TB, doc []byte) []byte {
		mu.Lock()
		n++
		k := replayhttp.Key{Tenant: "t", Conversation: strconv.Itoa(n)}
		mu.Unlock()
		if err := s.Put(context.Background(), k, doc); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(context.Background(), k)
		if err != nil || len(got) != 1 {
			t.Fatalf("the store gave back %d documents (%v)", len(got), err)
		}
		return got[0]
	}}
	codectest.FuzzTrip(f, "../testdata", replay.Default.APIs(), via)
}
