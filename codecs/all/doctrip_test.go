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
// document put since the last time must read back from the file byte for
// byte). The Redis store's trip is in its module's tests.
func tripVias(f *testing.F) []codectest.Via {
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
	return []codectest.Via{
		codectest.StoreVia("memory store", &replayhttp.MemoryStore{}),
		{Name: "file store", Trip: func(t testing.TB, doc []byte) []byte {
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
