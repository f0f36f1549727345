// Package bench compares this module's decoders with the official SDKs on
// the same bytes. See README.md.
package bench

import (
	"bytes"
	"fmt"
	"strings"
)

// OpenRouterStream returns a long Anthropic-upstream OpenRouter stream with
// n reasoning fragments, and its number of SSE events.
func OpenRouterStream(n int) ([]byte, int) {
	var b bytes.Buffer
	events := 0
	write := func(s string) { b.WriteString("data: "); b.WriteString(s); b.WriteString("\n\n"); events++ }
	head := `{"id":"gen-1","provider":"Anthropic","model":"anthropic/claude-sonnet-4.5","object":"chat.completion.chunk","created":1,"choices":[{"index":0,"delta":`
	for i := 0; i < n; i++ {
		tok := fmt.Sprintf("step %d of the plan, considering the \\\"edge\\\" cases;\\n ", i)
		write(head + `{"role":"assistant","content":"","reasoning":"` + tok + `","reasoning_details":[{"type":"reasoning.text","text":"` + tok + `","format":"anthropic-claude-v1","index":0}]},"finish_reason":null}]}`)
		if i%16 == 0 {
			b.WriteString(": OPENROUTER PROCESSING\n\n")
		}
	}
	write(head + `{"role":"assistant","content":"","reasoning_details":[{"type":"reasoning.text","text":"","signature":"` + strings.Repeat("QUJD", 100) + `","format":"anthropic-claude-v1","index":0}]},"finish_reason":null}]}`)
	for i := 0; i < n/4; i++ {
		write(head + `{"role":"assistant","content":"answer token ` + fmt.Sprint(i) + ` "},"finish_reason":null}]}`)
	}
	write(head + `{"role":"assistant","content":""},"finish_reason":"stop"}]}`)
	b.WriteString("data: [DONE]\n\n")
	events++
	return b.Bytes(), events
}
