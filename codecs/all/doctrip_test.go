package all_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/codectest"
)

// fixtureDirs are the testdata directories whose captures each API's
// decoders read.
var fixtureDirs = map[string][]string{
	"anthropic":         {"anthropic"},
	"bedrock-converse":  {"bedrock-converse"},
	"cohere":            {"cohere"},
	"deepseek":          {"chatcompat"},
	"gemini":            {"gemini"},
	"mistral":           {"mistral"},
	"openai-compatible": {"chatcompat"},
	"openai-responses":  {"openai"},
	"openrouter":        {"openrouter"},
	"xai":               {"chatcompat"},
}

// tripVias are what a document goes through besides being read back:
// nothing here (the stores' own tests add theirs).
var tripVias []codectest.Via

// fuzzTrip seeds f with api's fixtures (bodies and streams) and checks the
// document round trip of whatever its decoders make of any input:
// decode -> document -> read -> encode gives the bytes decode -> encode
// gives, for the turn as decoded and sealed, directly and through
// tripVias.
func fuzzTrip(f *testing.F, api string) {
	for _, dir := range fixtureDirs[api] {
		files, _ := filepath.Glob(filepath.Join("../../testdata", dir, "*"))
		for _, name := range files {
			if strings.HasSuffix(name, ".golden.json") || strings.HasSuffix(name, ".request") {
				continue
			}
			data, err := os.ReadFile(name)
			if err != nil || len(data) > 64<<10 {
				continue
			}
			f.Add(data, !strings.HasSuffix(name, ".json"))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, stream bool) {
		c, err := replay.Lookup(api, "", "")
		if err != nil {
			t.Fatal(err)
		}
		var tu *replay.Turn
		if stream {
			opts := replay.StreamOptions{Framing: replay.FramingAuto, Limits: replay.Limits{MaxEvent: 1 << 16, MaxItem: 1 << 16, MaxBlocks: 64}}
			tu, _ = replay.DecodeStream(bytes.NewReader(data), c.NewStream(), opts)
		} else {
			tu, _ = c.Decode(data)
		}
		if tu == nil {
			return
		}
		codectest.DocumentTrip(t, c, tu, tripVias...)
	})
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
		if len(fixtureDirs[api]) == 0 {
			t.Errorf("%s has no document trip fuzz target", api)
		}
	}
}
