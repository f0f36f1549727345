package all_test

import (
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
