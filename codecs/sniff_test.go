package codecs_test

import (
	"fmt"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/stretchr/testify/assert"
)

// Each rule of each codec's Sniff, and the order between them where bytes
// carry the marks of several: the API, provider, model and event flag.
func TestSniff(t *testing.T) {
	chat := func(extra, model, content string) string {
		return `{"id":"chatcmpl-1","object":"chat.completion","model":"` + model + `",` + extra +
			`"choices":[{"index":0,"message":{"role":"assistant","content":` + content + `}}]}`
	}
	chunk := `{"id":"c","object":"chat.completion.chunk","model":"deepseek-v4-flash","choices":[{"index":0,"delta":{"content":"x"}}]}`
	for _, tc := range []struct {
		name, typ, data string
		want            string // api/provider/model/event
	}{
		{"anthropic event type", "message_start", `{"anything":1}`, "anthropic///true"},
		{"converse event type", "contentBlockDelta", `{"anything":1}`, "bedrock-converse///true"},
		{"anthropic type member", "", `{"type":"message_start","message":{"model":"claude-sonnet-5"}}`, "anthropic//claude-sonnet-5/true"},
		{"anthropic on bedrock", "", `{"chunk":{"bytes":"eyJ9"}}`, "anthropic/bedrock//true"},
		{"anthropic message", "", `{"type":"message","model":"claude-opus-5","content":[]}`, "anthropic//claude-opus-5/false"},
		{"anthropic error", "", `{"type":"error","error":{"type":"overloaded_error","message":"x"}}`, "anthropic///false"},
		{"cohere event", "", `{"type":"content-delta","index":0}`, "cohere///true"},
		{"responses event", "", `{"type":"response.created","response":{"model":"gpt-5"}}`, "openai-responses//gpt-5/true"},
		{"responses body", "", `{"object":"response","model":"gpt-5.5","output":[]}`, "openai-responses//gpt-5.5/false"},
		{"gemini chunk", "", `{"candidates":[],"modelVersion":"gemini-3-pro-preview"}`, "gemini//gemini-3-pro-preview/false"},
		{"gemini error", "", `{"error":{"code":400,"message":"x","status":"INVALID_ARGUMENT"}}`, "gemini///false"},
		{"converse body", "", `{"output":{"message":{"role":"assistant","content":[]}},"stopReason":"end_turn"}`, "bedrock-converse///false"},
		{"converse event object", "", `{"contentBlockDelta":{"delta":{"text":"x"}}}`, "bedrock-converse///true"},
		{"cohere body", "", `{"id":"1","message":{"role":"assistant","content":[]},"finish_reason":"COMPLETE"}`, "cohere///false"},
		{"generic chat", "", chat("", "my-model", `"x"`), "openai-compatible//my-model/false"},
		{"generic chunk", "", `{"choices":[{"delta":{}}],"model":"m"}`, "openai-compatible//m/true"},
		{"a body with a leftover delta", "", `{"object":"chat.completion","model":"sonar","choices":[{"message":{"role":"assistant","content":"x"},"delta":{}}]}`, "openai-compatible//sonar/false"},
		{"a body with a delta beside its message", "", `{"model":"sonar","choices":[{"message":{"content":"x"},"delta":{"content":""}}]}`, "openai-compatible//sonar/false"},
		{"deepseek by model", "", chunk, "deepseek//deepseek-v4-flash/true"},
		{"distilled deepseek is not deepseek's", "", chat("", "deepseek-r1-distill-llama-70b", `"x"`), "openai-compatible//deepseek-r1-distill-llama-70b/false"},
		{"a router's slug is not the vendor's", "", chat("", "deepseek-ai/DeepSeek-R1", `"x"`), "openai-compatible//deepseek-ai/DeepSeek-R1/false"},
		{"xai by model", "", chat("", "grok-3-mini", `"x"`), "xai//grok-3-mini/false"},
		{"mistral by model", "", chat("", "magistral-medium-latest", `"x"`), "mistral//magistral-medium-latest/false"},
		{"mistral by typed content", "", chat("", "some-model", `[{"type":"thinking","thinking":[]}]`), "mistral//some-model/false"},
		{"groq over a model name", "", chat(`"x_groq":{"id":"r"},`, "mistral-saba-24b", `"x"`), "openai-compatible/groq/mistral-saba-24b/false"},
		{"ollama's fingerprint", "", chat(`"system_fingerprint":"fp_ollama",`, "deepseek-r1", `"x"`), "openai-compatible/ollama/deepseek-r1/false"},
		{"openrouter over everything chat", "", chat(`"provider":"Groq","x_groq":{},`, "mistralai/magistral", `[]`), "openrouter//mistralai/magistral/false"},
		{"openrouter by id", "", `{"id":"gen-1","choices":[],"model":"m"}`, "openrouter//m/false"},
		{"mistral error", "", `{"object":"error","message":"x","type":"invalid_request_error"}`, "mistral///false"},
		{"openrouter error", "", `{"error":{"code":400,"message":"x","metadata":{}},"user_id":"u"}`, "openrouter///false"},
		{"openai-shaped error", "", `{"error":{"message":"x","type":"invalid_request_error","param":null,"code":null}}`, "openai-compatible///false"},
		{"cohere error", "", `{"id":"1","message":"invalid request"}`, "cohere///false"},
		{"aws error", "", `{"message":"The security token is invalid"}`, "bedrock-converse///false"},
		{"aws error, capitalised", "", `{"Message":"x"}`, "bedrock-converse///false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var typ []byte
			if tc.typ != "" {
				typ = []byte(tc.typ)
			}
			c, s, ok := codecs.Sniff(replay.Default(), typ, []byte(tc.data))
			if assert.True(t, ok) {
				assert.Equal(t, tc.want, fmt.Sprintf("%s/%s/%s/%v", c.API(), s.Provider, s.Model, s.Event))
			}
		})
	}
	for _, data := range []string{`{"runs":[],"stats":{}}`, `[1,2]`, `"message_start"`, `{"type":"message_start"`, ``} {
		_, _, ok := codecs.Sniff(replay.Default(), nil, []byte(data))
		assert.False(t, ok, data)
	}
}

// Every codec of the module says how its bodies are recognised, and within
// the bands.
func TestEveryCodecSniffs(t *testing.T) {
	all := codecs.All(replay.Default())
	assert.Len(t, all, len(replay.Default().APIs()))
	for _, c := range all {
		assert.NotNil(t, c.HTTP().Sniff, c.API())
	}
}

// Sniff tells the API of a response from its bytes alone.
func ExampleSniff() {
	for _, body := range []string{
		`{"type":"message_start","message":{"model":"claude-sonnet-5","content":[]}}`,
		`{"id":"gen-1","provider":"Anthropic","model":"anthropic/claude-sonnet-5","choices":[{"delta":{"content":"hi"}}]}`,
		`{"candidates":[{"content":{"parts":[]}}],"modelVersion":"gemini-3-pro-preview"}`,
	} {
		c, s, _ := codecs.Sniff(replay.Default(), nil, []byte(body))
		fmt.Println(c.API(), s.Model, s.Event)
	}
	// Output:
	// anthropic claude-sonnet-5 true
	// openrouter anthropic/claude-sonnet-5 true
	// gemini gemini-3-pro-preview false
}
