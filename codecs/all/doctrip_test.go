package all_test

import (
	"path/filepath"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/replayhttp"
)

// tripVias are the stores a document goes through in the trip: the
// memory store here; the file store's trip is FuzzTripFileStore in the
// replayproxy module, the Redis store's FuzzTripRedis in its own.
func tripVias(*testing.F) []codectest.Via {
	return []codectest.Via{codectest.StoreVia("memory store", &replayhttp.MemoryStore{})}
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
func FuzzTripOllama(f *testing.F)           { fuzzTrip(f, "ollama") }
func FuzzTripOpenAICompatible(f *testing.F) { fuzzTrip(f, "openai-compatible") }
func FuzzTripOpenAIResponses(f *testing.F)  { fuzzTrip(f, "openai-responses") }
func FuzzTripOpenRouter(f *testing.F)       { fuzzTrip(f, "openrouter") }
func FuzzTripXAI(f *testing.F)              { fuzzTrip(f, "xai") }

// TestTripEveryAPI makes sure every registered API's trip target has
// captures to start from: a testdata directory of its own, or the
// directories codectest.TripDirs names for it.
func TestTripEveryAPI(t *testing.T) {
	for _, api := range replay.Default().APIs() {
		n := 0
		for _, dir := range codectest.TripDirsOf(api) {
			files, _ := filepath.Glob(filepath.Join("../../testdata", dir, "*.*"))
			n += len(files)
		}
		if n == 0 {
			t.Errorf("%s has no captures for its document trip fuzz target (testdata/%s, or codectest.TripDirs)", api, api)
		}
	}
}
