package replayproxy_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/reasonreplay/replay/replayproxy"
	"github.com/reasonreplay/replay/replayproxy/internal/proxytest"
	"github.com/stretchr/testify/require"
)

// The fixtures are written for these tests from the documented shapes;
// signatures and ids are generated per call so that calls are told apart.

func sseEvent(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }

// anthropicEvents is a Messages stream, one string per event: a thinking
// block whose signature comes in two deltas, and a tool_use block.
func anthropicEvents(sig, toolID string) []string {
	half := len(sig) / 2
	return []string{
		sseEvent("message_start", `{"type":"message_start","message":{"id":"msg_`+toolID+`","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":12,"output_tokens":1}}}`),
		sseEvent("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`),
		sseEvent("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"The user asks for the weather in Z\u00fcrich. "}}`),
		sseEvent("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"I will call the tool."}}`),
		sseEvent("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"`+sig[:half]+`"}}`),
		sseEvent("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"`+sig[half:]+`"}}`),
		sseEvent("content_block_stop", `{"type":"content_block_stop","index":0}`),
		sseEvent("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"`+toolID+`","name":"get_weather","input":{}}}`),
		sseEvent("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Z\u00fcrich\"}"}}`),
		sseEvent("content_block_stop", `{"type":"content_block_stop","index":1}`),
		sseEvent("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":40}}`),
		sseEvent("message_stop", `{"type":"message_stop"}`),
	}
}

func anthropicSSE(sig, toolID string) string { return strings.Join(anthropicEvents(sig, toolID), "") }

// thinkingBlock is the thinking block the stream above carries, as the
// next request must send it back.
func thinkingBlock(sig string) string {
	return `{"type":"thinking","thinking":"The user asks for the weather in Zürich. I will call the tool.","signature":"` + sig + `"}`
}

func toolUse(toolID string) string {
	return `{"type":"tool_use","id":"` + toolID + `","name":"get_weather","input":{"city":"Zürich"}}`
}

const anthropicHead = `{"model":"claude-sonnet-4-5","max_tokens":2048,"stream":true,"thinking":{"type":"enabled","budget_tokens":1024},` +
	`"tools":[{"name":"get_weather","input_schema":{"type":"object"}}],"messages":[`

const firstUser = `{"role":"user","content":"Weather in Zürich?"}`

// anthropicRequest is a Messages request with the given messages.
func anthropicRequest(msgs ...string) string { return anthropicHead + strings.Join(msgs, ",") + `]}` }

// followUp is the request after a turn: the assistant message (as the
// agent gives it) and the tool result.
func followUp(assistant, toolID string) string {
	return anthropicRequest(firstUser, assistant,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+toolID+`","content":"18°C"}]}`)
}

func sigFor(s string) string { return "EqQBCkgIAhABGAIiQ" + s + "Sig+/=" }

// upstream is a loopback provider: respond answers, every request is
// recorded.
type upstream struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	path, query string
	header      http.Header
	body        []byte
}

func newUpstream(t *testing.T, respond func(w http.ResponseWriter, r *http.Request, body []byte)) *upstream {
	u := &upstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.reqs = append(u.reqs, recorded{r.URL.Path, r.URL.RawQuery, r.Header.Clone(), body})
		u.mu.Unlock()
		respond(w, r, body)
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *upstream) received() []recorded {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]recorded(nil), u.reqs...)
}

// writeEvents writes each event and flushes it, as a provider streams.
func writeEvents(w http.ResponseWriter, events []string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		_, _ = io.WriteString(w, e)
		w.(http.Flusher).Flush()
	}
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer = proxytest.SyncBuffer

// proxy starts a proxy in front of the upstreams with cfg; the log goes
// to the returned buffer.
func proxy(t *testing.T, cfg replayproxy.Config) (*httptest.Server, *replayproxy.Server, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	cfg.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv, err := replayproxy.New(cfg)
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	return hs, srv, logs
}

// tenantKey is the credential post sends when the call names none: the
// proxy keeps turns per tenant, and a request without a credential has
// none.
const tenantKey = "sk-test-tenant-a"

func post(t *testing.T, url, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if req.Header.Get("X-Api-Key") == "" && req.Header.Get("Authorization") == "" && req.Header.Get("X-Goog-Api-Key") == "" {
		req.Header.Set("X-Api-Key", tenantKey)
		req.Header.Set("Authorization", "Bearer "+tenantKey)
		req.Header.Set("X-Goog-Api-Key", tenantKey)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	return resp
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	return string(b)
}

func metrics(t *testing.T, srv *replayproxy.Server) string {
	var b strings.Builder
	srv.WriteMetrics(&b)
	return b.String()
}

var requestIDs = regexp.MustCompile(`"request_id":"[^"]*",`)

// stripIDs removes the request ids from log lines, for comparing them.
func stripIDs(log string) string { return requestIDs.ReplaceAllString(log, "") }
