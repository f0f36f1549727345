package all_test

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

// tripVias are the stores a document goes through in the trip: the
// memory store, and the file store (each document put, synced and read
// back; every 64th trip the store is closed and opened again, and every
// document put so far must read back from the file byte for byte). The
// Redis store's trip is in its module's tests.
func tripVias(f *testing.F) []codectest.Via {
	mem := &replayhttp.MemoryStore{}
	dir := f.TempDir()
	var (
		mu    sync.Mutex
		file  *replayproxy.FileStore
		n     int
		put   = map[replayhttp.Key]string{}
		fileT = filepath.Join(dir, "turns")
	)
	f.Cleanup(func() {
		if file != nil {
			file.Close()
		}
	})
	through := func(t testing.TB, s replayhttp.Store, k replayhttp.Key, doc []byte) []byte {
		t.Helper()
		if err := s.Put(context.Background(), k, doc); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(context.Background(), k)
		if err != nil || len(got) != 1 {
			t.Fatalf("the store gave back %d documents (%v)", len(got), err)
		}
		return got[0]
	}
	return []codectest.Via{
		{Name: "memory store", Trip: func(t testing.TB, doc []byte) []byte {
			mu.Lock()
			defer mu.Unlock()
			n++
			return through(t, mem, replayhttp.Key{Tenant: "t", Conversation: strconv.Itoa(n)}, doc)
		}},
		{Name: "file store", Trip: func(t testing.TB, doc []byte) []byte {
			mu.Lock()
			defer mu.Unlock()
			var err error
			if file == nil {
				if file, err = replayproxy.OpenFileStore(fileT, replayproxy.StoreOptions{MaxTurns: 256}); err != nil {
					t.Fatal(err)
				}
				clear(put)
			}
			n++
			k := replayhttp.Key{Tenant: "t", Conversation: strconv.Itoa(n)}
			got := through(t, file, k, doc)
			put[k] = string(doc)
			if n%64 == 0 {
				if err := file.Close(); err != nil {
					t.Fatal(err)
				}
				if file, err = replayproxy.OpenFileStore(fileT, replayproxy.StoreOptions{MaxTurns: 256}); err != nil {
					t.Fatal(err)
				}
				for k, want := range put {
					back, err := file.Get(context.Background(), k)
					if err != nil || len(back) != 1 || string(back[0]) != want {
						t.Fatalf("after a restart of the file store, %v reads %q, want %q (%v)", k, back, want, err)
					}
				}
				if file.Len() > 256 {
					t.Fatalf("%d entries", file.Len())
				}
				clear(put) // those not yet let go of were checked
			}
			return got
		}},
	}
}

func fuzzTrip(f *testing.F, api string) {
	codectest.FuzzTrip(f, "../../testdata", []string{api}, tripVias(f)...)
}

func FuzzTripAnthropic(f *testing.F)        { fuzzTrip(f, "anthropic") }
func FuzzTripBedrockConverse(f *testing.F)  { fuzzTrip(f, "bedrock-converse") }
func FuzzTripCohere(f *testing.F)           { fuzzTrip(f, "cohere") }
func FuzzTripDeepSeek(f *testing.F)         { fuzzTrip(f, "deepseek") }
func FuzzTripGemini(f *testing.F)           { fuzzTrip(f, "gemini") }
func FuzzTripMistral(f *testing.F)          { fuzzTrip(f, "mistral") }
func FuzzTripOpenAICompatible(f *testing.F) { fuzzTrip(f, "openai-compatible") }
func FuzzTripOpenAIResponses(f *testing.F)  { fuzzTrip(f, "openai-responses") }
func FuzzTripOpenRouter(f *testing.F)       { fuzzTrip(f, "openrouter") }
func FuzzTripXAI(f *testing.F)              { fuzzTrip(f, "xai") }

// TestTripEveryAPI makes sure every registered API has a trip target.
func TestTripEveryAPI(t *testing.T) {
	for _, api := range replay.Default.APIs() {
		if len(codectest.TripDirs[api]) == 0 {
			t.Errorf("%s has no document trip fuzz target", api)
		}
	}
}
