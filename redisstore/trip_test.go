package redisstore_test

import (
	"testing"

	"github.com/reasonreplay/replay"
	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/redisstore"
	"github.com/reasonreplay/replay/redisstore/redistest"
)

// FuzzTripRedis: the document trip (decode -> document -> read -> encode
// is decode -> encode, for the turn as decoded and sealed) through the
// Redis store, for every API's decoders (the input picks one), against a
// redis-server of this process's own.
func FuzzTripRedis(f *testing.F) {
	r := redistest.Start(f)
	s, err := redisstore.Open(r.URL(), redisstore.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	via := codectest.StoreVia("redis store", s)
	codectest.FuzzTrip(f, "../testdata", replay.Default().APIs(), via)
}
