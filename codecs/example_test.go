package codecs_test

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	_ "github.com/reasonreplay/replay/codecs/all"
)

// Recognise tells the API, the provider and the model of a request by
// what the registered codecs declare: the middleware and the proxy know
// no provider.
func ExampleRecognise() {
	for _, raw := range []string{
		"https://generativelanguage.googleapis.com/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse",
		"https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse",
		"https://api.deepseek.com/chat/completions",
	} {
		u, _ := url.Parse(raw)
		r, ok := codecs.Recognise(replay.Default(), http.MethodPost, u, "", "deepseek-chat")
		fmt.Println(ok, r.Codec.API(), r.Provider, r.Model)
	}
	// Output:
	// true gemini gemini gemini-3-pro-preview
	// true bedrock-converse bedrock us.anthropic.claude-sonnet-4-5-20250929-v1:0
	// true deepseek deepseek deepseek-chat
}
