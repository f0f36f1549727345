package replayproxy_test

import (
	"context"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/reasonreplay/replay/replayproxy"
)

// FuzzTripFileStore is the document trip of every API through the file
// store: each document put, synced and read back; every 64th trip the
// store is closed and opened again, and every document put since the last
// time must read back from the file byte for byte.
func FuzzTripFileStore(f *testing.F) {
	path := filepath.Join(f.TempDir(), "turns")
	var (
		mu   sync.Mutex
		file *replayproxy.FileStore
		n    int
		put  = map[string][]byte{}
	)
	f.Cleanup(func() {
		if file != nil {
			file.Close()
		}
	})
	open := func(t testing.TB) {
		var err error
		if file, err = replayproxy.OpenFileStore(path, replayproxy.StoreOptions{MaxTurns: 256}); err != nil {
			t.Fatal(err)
		}
	}
	codectest.FuzzTrip(f, "../testdata", replay.Default().APIs(), codectest.Via{Name: "file store", Trip: func(t testing.TB, doc []byte) []byte {
		mu.Lock()
		defer mu.Unlock()
		if file == nil {
			open(t)
		}
		n++
		got := codectest.StoreVia("file store "+strconv.Itoa(n)+" ", file).Trip(t, doc)
		put["file store "+strconv.Itoa(n)+" 1"] = doc
		if n%64 == 0 {
			if err := file.Close(); err != nil {
				t.Fatal(err)
			}
			open(t)
			for conv, want := range put {
				back, err := file.Get(context.Background(), replayhttp.Key{Tenant: "t", Conversation: conv})
				if err != nil || len(back) != 1 || string(back[0]) != string(want) {
					t.Fatalf("after a restart of the file store, %s reads %q, want %q (%v)", conv, back, want, err)
				}
			}
			clear(put)
		}
		return got
	}})
}
