package interop

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// server is a loopback server: respond answers each request, and every
// request body is recorded for the byte checks.
type server struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
}

func newServer(t *testing.T, respond func(w http.ResponseWriter, r *http.Request, body []byte)) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, body)
		s.mu.Unlock()
		respond(w, r, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) received() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.bodies...)
}

func (s *server) last() []byte {
	b := s.received()
	if len(b) == 0 {
		return nil
	}
	return b[len(b)-1]
}

func writeSSE(w http.ResponseWriter, stream string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for len(stream) > 0 { // in pieces, flushed, as a provider streams
		n := min(61, len(stream))
		_, _ = io.WriteString(w, stream[:n])
		w.(http.Flusher).Flush()
		stream = stream[n:]
	}
}

func writeJSON(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, body)
}

// The fixtures are written for these tests; signatures and blobs are
// invented, generated per call so that concurrent calls are told apart.

func anthropicStream(sig, toolID string) string {
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	half := len(sig) / 2
	var b strings.Builder
	b.WriteString(ev("message_start", `{"type":"message_start","message":{"id":"msg_01I","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":1}}}`))
	b.WriteString(ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`))
	b.WriteString(ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Weather in Z\u00fcrich: call the tool."}}`))
	b.WriteString(ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"`+sig[:half]+`"}}`))
	b.WriteString(ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"`+sig[half:]+`"}}`))
	b.WriteString(ev("content_block_stop", `{"type":"content_block_stop","index":0}`))
	b.WriteString(ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"`+toolID+`","name":"get_weather","input":{}}}`))
	b.WriteString(ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\":\"Z\u00fcrich\"}"}}`))
	b.WriteString(ev("content_block_stop", `{"type":"content_block_stop","index":1}`))
	b.WriteString(ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":30}}`))
	b.WriteString(ev("message_stop", `{"type":"message_stop"}`))
	return b.String()
}

func anthropicMessage(sig, toolID string) string {
	return `{"id":"msg_01I","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[` +
		`{"type":"thinking","thinking":"Weather in Zürich: call the tool.","signature":"` + sig + `"},` +
		`{"type":"tool_use","id":"` + toolID + `","name":"get_weather","input":{"city":"Zürich"}}],` +
		`"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":30}}`
}

func responsesBody(blob, callID string) string {
	return `{"id":"resp_` + callID + `","object":"response","created_at":1,"status":"completed","model":"gpt-5","output":[` +
		`{"type":"reasoning","id":"rs_` + callID + `","summary":[],"encrypted_content":"` + blob + `"},` +
		`{"type":"function_call","id":"fc_` + callID + `","call_id":"` + callID + `","name":"get_weather","arguments":"{\"city\":\"Zürich\"}","status":"completed"}],` +
		`"parallel_tool_calls":true,"tool_choice":"auto","tools":[],"usage":{"input_tokens":5,"output_tokens":7,"total_tokens":12,"input_tokens_details":{"cached_tokens":0},"output_tokens_details":{"reasoning_tokens":4}}}`
}

func geminiBody(sig string) string {
	return `{"candidates":[{"content":{"role":"model","parts":[` +
		`{"functionCall":{"name":"get_weather","args":{"city":"Zürich"}},"thoughtSignature":"` + sig + `"},` +
		`{"functionCall":{"name":"get_weather","args":{"city":"Bern"}}}]},"finishReason":"STOP","index":0}],` +
		`"modelVersion":"gemini-3-pro-preview","usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":8,"totalTokenCount":18}}`
}

func openrouterBody(sig, toolID string) string {
	return `{"id":"gen-1","object":"chat.completion","created":1,"model":"anthropic/claude-sonnet-4.5","provider":"Anthropic","choices":[{"index":0,"finish_reason":"tool_calls",` +
		`"message":{"role":"assistant","content":"Let me check.","reasoning":"Weather lookup.",` +
		`"reasoning_details":[{"type":"reasoning.text","text":"Weather lookup.","signature":"` + sig + `","format":"anthropic-claude-v1","index":0}],` +
		`"tool_calls":[{"id":"` + toolID + `","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Zürich\"}"}}]}}]}`
}

func deepseekBody(reasoning, toolID string) string {
	return `{"id":"ds-1","object":"chat.completion","created":1,"model":"deepseek-chat","choices":[{"index":0,"finish_reason":"tool_calls",` +
		`"message":{"role":"assistant","content":"","reasoning_content":"` + reasoning + `",` +
		`"tool_calls":[{"id":"` + toolID + `","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Zürich\"}"}}]}}]}`
}
