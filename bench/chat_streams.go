package bench

import (
	"bytes"
	"fmt"
	"strings"
)

// Tool-loop shaped chat streams: blocks reasoning blocks of deltas deltas
// each, every block followed by a tool call (arguments in two fragments),
// then a text answer of deltas deltas. They return the stream and its
// number of SSE events.

type chatWriter struct {
	b      bytes.Buffer
	events int
	head   string
}

func (w *chatWriter) delta(delta, finish string) {
	w.b.WriteString("data: ")
	w.b.WriteString(w.head)
	w.b.WriteString(delta)
	w.b.WriteString(`,"finish_reason":`)
	w.b.WriteString(finish)
	w.b.WriteString("}]}\n\n")
	w.events++
}

func (w *chatWriter) call(k int) {
	w.delta(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":"call_%04d","type":"function","function":{"name":"read_file","arguments":"{\"path\":"}}]}`, k, k), "null")
	w.delta(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":"\"src/f%d.go\"}"}}]}`, k, k), "null")
}

func (w *chatWriter) done(finish string) ([]byte, int) {
	w.delta(`{}`, finish)
	w.b.WriteString("data: [DONE]\n\n")
	return w.b.Bytes(), w.events + 1
}

// OpenRouterToolLoop: an Anthropic upstream's interleaved thinking through
// OpenRouter: reasoning_details text fragments (mirrored in `reasoning`)
// at a new index per block, each block signed.
func OpenRouterToolLoop(blocks, deltas int) ([]byte, int) {
	w := &chatWriter{head: `{"id":"gen-2","provider":"Anthropic","model":"anthropic/claude-sonnet-4.5","object":"chat.completion.chunk","created":1,"choices":[{"index":0,"delta":`}
	for k := 0; k < blocks; k++ {
		for i := 0; i < deltas; i++ {
			tok := fmt.Sprintf(`token %d of step %d, the \"edge\" case;\n `, i, k)
			w.delta(fmt.Sprintf(`{"role":"assistant","content":"","reasoning":"%s","reasoning_details":[{"type":"reasoning.text","text":"%s","format":"anthropic-claude-v1","index":%d}]}`, tok, tok, k), "null")
		}
		w.delta(fmt.Sprintf(`{"role":"assistant","content":"","reasoning_details":[{"type":"reasoning.text","text":"","signature":"%s","format":"anthropic-claude-v1","index":%d}]}`, strings.Repeat("RXFv", 80), k), "null")
		w.call(k)
	}
	for i := 0; i < deltas; i++ {
		w.delta(fmt.Sprintf(`{"role":"assistant","content":"answer %d "}`, i), "null")
	}
	return w.done(`"tool_calls"`)
}

// DeepSeekStream: a long DeepSeek V4 thinking stream (reasoning_content
// deltas), one tool call, and n/4 content deltas.
func DeepSeekStream(n int) ([]byte, int) {
	w := &chatWriter{head: `{"id":"9c1e","object":"chat.completion.chunk","created":1790000000,"model":"deepseek-v4-flash","system_fingerprint":"fp_1","choices":[{"index":0,"logprobs":null,"delta":`}
	for i := 0; i < n; i++ {
		w.delta(fmt.Sprintf(`{"content":null,"reasoning_content":"step %d: check the \"edge\" case,\n "}`, i), "null")
	}
	w.call(0)
	for i := 0; i < n/4; i++ {
		w.delta(fmt.Sprintf(`{"content":"word%d "}`, i), "null")
	}
	return w.done(`"tool_calls"`)
}

// DeepSeekToolLoop: DeepSeek V4 thinking with tools: reasoning_content
// runs, each followed by a tool call.
func DeepSeekToolLoop(blocks, deltas int) ([]byte, int) {
	w := &chatWriter{head: `{"id":"9c1f","object":"chat.completion.chunk","created":1790000000,"model":"deepseek-v4-flash","system_fingerprint":"fp_1","choices":[{"index":0,"logprobs":null,"delta":`}
	for k := 0; k < blocks; k++ {
		for i := 0; i < deltas; i++ {
			w.delta(fmt.Sprintf(`{"content":null,"reasoning_content":"token %d of step %d, the \"edge\" case;\n "}`, i, k), "null")
		}
		w.call(k)
	}
	for i := 0; i < deltas; i++ {
		w.delta(fmt.Sprintf(`{"content":"answer %d "}`, i), "null")
	}
	return w.done(`"tool_calls"`)
}

// MistralToolLoop: Magistral thinking chunks, each run followed by a tool
// call.
func MistralToolLoop(blocks, deltas int) ([]byte, int) {
	w := &chatWriter{head: `{"id":"0f3d","object":"chat.completion.chunk","created":1790000000,"model":"magistral-medium-2609","choices":[{"index":0,"delta":`}
	for k := 0; k < blocks; k++ {
		for i := 0; i < deltas; i++ {
			w.delta(fmt.Sprintf(`{"content":[{"type":"thinking","thinking":[{"type":"text","text":"token %d of step %d, the \"edge\" case;\n "}],"closed":true}]}`, i, k), "null")
		}
		w.call(k)
	}
	for i := 0; i < deltas; i++ {
		w.delta(fmt.Sprintf(`{"content":"answer %d "}`, i), "null")
	}
	return w.done(`"tool_calls"`)
}
