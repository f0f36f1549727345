package bench

import (
	"bytes"
	"fmt"
)

// BedrockStream returns a ConverseStream of n reasoning deltas (with
// escaped quotes and newlines), a signature, n text deltas and a tool call,
// as JSON Lines of decoded events, and the number of events.
func BedrockStream(n int) ([]byte, int) {
	var b bytes.Buffer
	b.WriteString(`{"messageStart":{"role":"assistant"}}` + "\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"step %d: the value \"doubles\" again,\n"}}}}`+"\n", i)
	}
	fmt.Fprintf(&b, `{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"reasoningContent":{"signature":"%s"}}}}`+"\n", bytes.Repeat([]byte("EqQB"), 100))
	b.WriteString(`{"contentBlockStop":{"contentBlockIndex":0}}` + "\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"contentBlockDelta":{"contentBlockIndex":1,"delta":{"text":"word%d "}}}`+"\n", i)
	}
	b.WriteString(`{"contentBlockStop":{"contentBlockIndex":1}}` + "\n")
	b.WriteString(`{"contentBlockStart":{"contentBlockIndex":2,"start":{"toolUse":{"toolUseId":"tooluse_1","name":"f"}}}}` + "\n")
	b.WriteString(`{"contentBlockDelta":{"contentBlockIndex":2,"delta":{"toolUse":{"input":"{\"a\":1}"}}}}` + "\n")
	b.WriteString(`{"contentBlockStop":{"contentBlockIndex":2}}` + "\n")
	b.WriteString(`{"messageStop":{"stopReason":"tool_use"}}` + "\n")
	b.WriteString(`{"metadata":{"usage":{"inputTokens":1,"outputTokens":2,"totalTokens":3}}}` + "\n")
	return b.Bytes(), 2*n + 9
}

// MistralStream returns a Mistral SSE stream of n thinking chunks (with
// `closed`, padding and escapes, as Mistral Small sends them) and n string
// text deltas, and the number of events.
func MistralStream(n int) ([]byte, int) {
	var b bytes.Buffer
	pre := `data: {"id":"0f3c","object":"chat.completion.chunk","created":1790000000,"model":"mistral-small-2603","choices":[{"index":0,"delta":`
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%s{\"content\":[{\"type\":\"thinking\",\"thinking\":[{\"type\":\"text\",\"text\":\"step %d: \\\"double\\\" it,\\n\"}],\"closed\":true}]},\"finish_reason\":null}],\"p\":\"abcdefgh\"}\n\n", pre, i)
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%s{\"content\":\"word%d \"},\"finish_reason\":null}]}\n\n", pre, i)
	}
	fmt.Fprintf(&b, "%s{\"content\":\"\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":1,\"total_tokens\":2,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n", pre)
	return b.Bytes(), 2*n + 2
}

// CohereStream returns a Cohere v2 chat SSE stream of n thinking deltas
// (with escapes) and n text deltas, and the number of events. It has only
// `data:` lines: cohere-go's line reader does not skip `event:` lines that
// straddle its read buffer.
func CohereStream(n int) ([]byte, int) {
	var b bytes.Buffer
	b.WriteString("data: {\"id\":\"x\",\"type\":\"message-start\",\"delta\":{\"message\":{\"role\":\"assistant\"}}}\n\n")
	b.WriteString("data: {\"type\":\"content-start\",\"index\":0,\"delta\":{\"message\":{\"content\":{\"type\":\"thinking\",\"thinking\":\"\"}}}}\n\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "data: {\"type\":\"content-delta\",\"index\":0,\"delta\":{\"message\":{\"content\":{\"thinking\":\"step %d: \\\"double\\\" it,\\n\"}}}}\n\n", i)
	}
	b.WriteString("data: {\"type\":\"content-end\",\"index\":0}\n\n")
	b.WriteString("data: {\"type\":\"content-start\",\"index\":1,\"delta\":{\"message\":{\"content\":{\"type\":\"text\",\"text\":\"\"}}}}\n\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "data: {\"type\":\"content-delta\",\"index\":1,\"delta\":{\"message\":{\"content\":{\"text\":\"word%d \"}}}}\n\n", i)
	}
	b.WriteString("data: {\"type\":\"content-end\",\"index\":1}\n\n")
	b.WriteString("data: {\"type\":\"message-end\",\"delta\":{\"finish_reason\":\"COMPLETE\"}}\n\n")
	// cohere-go's ChatStream reads until this terminator.
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes(), 2*n + 7
}
