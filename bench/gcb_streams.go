package bench

import (
	"bytes"
	"encoding/base64"
	"fmt"
)

// GeminiToolLoop returns a streamGenerateContent?alt=sse body in the
// multi-block tool-loop shape of issue 16: blocks thought summaries of
// deltas chunks each, each followed by a signed functionCall, then deltas
// chunks of visible text and the final empty signed part. Every chunk
// repeats usageMetadata, modelVersion and responseId, as the API does.
// It returns the body and its number of events. Text, ids and signatures
// are invented.
func GeminiToolLoop(blocks, deltas int) ([]byte, int) {
	var b bytes.Buffer
	raw := make([]byte, 300)
	for i := range raw {
		raw[i] = byte(i * 7)
	}
	sig := base64.StdEncoding.EncodeToString(raw)
	n := 0
	chunk := func(parts, extra string) {
		fmt.Fprintf(&b, `data: {"candidates":[{"content":{"parts":[%s],"role":"model"}%s,"index":0}],"usageMetadata":{"promptTokenCount":812,"candidatesTokenCount":%d,"thoughtsTokenCount":%d,"totalTokenCount":%d},"modelVersion":"gemini-3-flash-preview","responseId":"c3ludGhldGljTG9vcDAx"}`+"\n\n",
			parts, extra, n*3, 300+n, 1112+n*4)
		n++
	}
	for i := 0; i < blocks; i++ {
		for d := 0; d < deltas; d++ {
			chunk(fmt.Sprintf(`{"text":"step %d: the value \"doubles\",\n","thought":true}`, d%97), "")
		}
		chunk(fmt.Sprintf(`{"functionCall":{"name":"read_file","args":{"path":"src/f%d.go"},"id":"call%06d"},"thoughtSignature":"%s"}`, i, i, sig), "")
	}
	for d := 0; d < deltas; d++ {
		chunk(fmt.Sprintf(`{"text":"word%d "}`, d), "")
	}
	chunk(`{"text":"","thoughtSignature":"`+sig+`"}`, `,"finishReason":"STOP"`)
	return b.Bytes(), n
}

// CohereToolLoop returns a Cohere v2 chat SSE stream in the multi-block
// tool-loop shape: blocks thinking blocks of deltas deltas, each followed
// by a tool call in two argument pieces, then deltas text deltas, and the
// number of events (the [DONE] frame included). Cohere signs nothing.
func CohereToolLoop(blocks, deltas int) ([]byte, int) {
	var b bytes.Buffer
	n := 0
	ev := func(s string) { b.WriteString("data: "); b.WriteString(s); b.WriteString("\n\n"); n++ }
	ev(`{"id":"x","type":"message-start","delta":{"message":{"role":"assistant"}}}`)
	ci := 0
	for i := 0; i < blocks; i++ {
		ev(fmt.Sprintf(`{"type":"content-start","index":%d,"delta":{"message":{"content":{"type":"thinking","thinking":""}}}}`, ci))
		for d := 0; d < deltas; d++ {
			ev(fmt.Sprintf(`{"type":"content-delta","index":%d,"delta":{"message":{"content":{"thinking":"step %d: the value \"doubles\",\n"}}}}`, ci, d%97))
		}
		ev(fmt.Sprintf(`{"type":"content-end","index":%d}`, ci))
		ci++
		ev(fmt.Sprintf(`{"type":"tool-call-start","index":%d,"delta":{"message":{"tool_calls":{"id":"read_file_%06d","type":"function","function":{"name":"read_file","arguments":""}}}}}`, i, i))
		ev(fmt.Sprintf(`{"type":"tool-call-delta","index":%d,"delta":{"message":{"tool_calls":{"function":{"arguments":"{\"path\": "}}}}}`, i))
		ev(fmt.Sprintf(`{"type":"tool-call-delta","index":%d,"delta":{"message":{"tool_calls":{"function":{"arguments":"\"src/f%d.go\"}"}}}}}`, i, i))
		ev(fmt.Sprintf(`{"type":"tool-call-end","index":%d}`, i))
	}
	ev(fmt.Sprintf(`{"type":"content-start","index":%d,"delta":{"message":{"content":{"type":"text","text":""}}}}`, ci))
	for d := 0; d < deltas; d++ {
		ev(fmt.Sprintf(`{"type":"content-delta","index":%d,"delta":{"message":{"content":{"text":"word%d "}}}}`, ci, d))
	}
	ev(fmt.Sprintf(`{"type":"content-end","index":%d}`, ci))
	ev(`{"type":"message-end","delta":{"finish_reason":"TOOL_CALL","usage":{"billed_units":{"input_tokens":9,"output_tokens":41},"tokens":{"input_tokens":820,"output_tokens":45}}}}`)
	ev(`[DONE]`)
	return b.Bytes(), n
}
