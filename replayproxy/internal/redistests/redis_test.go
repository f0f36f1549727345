// Package redistests runs the proxy on Redis as operators run it: two
// instances on one server, a restart, a three-node Cluster.
package redistests_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/reasonreplay/replay/redisstore"
	"github.com/reasonreplay/replay/redisstore/redistest"
	"github.com/reasonreplay/replay/replayproxy"
	"github.com/reasonreplay/replay/replayproxy/internal/proxytest"
	"github.com/stretchr/testify/require"
)

// The fixtures are written for these tests from the documented Anthropic
// Messages shapes; the signature and the tool id differ per call.

func sseEvent(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }

func anthropicSSE(sig, toolID string) string {
	half := len(sig) / 2
	return sseEvent("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":12,"output_tokens":1}}}`) +
		sseEvent("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`) +
		sseEvent("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Call the tool."}}`) +
		sseEvent("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"`+sig[:half]+`"}}`) +
		sseEvent("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"`+sig[half:]+`"}}`) +
		sseEvent("content_block_stop", `{"type":"content_block_stop","index":0}`) +
		sseEvent("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"`+toolID+`","name":"get_weather","input":{}}}`) +
		sseEvent("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Bern\"}"}}`) +
		sseEvent("content_block_stop", `{"type":"content_block_stop","index":1}`) +
		sseEvent("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":40}}`) +
		sseEvent("message_stop", `{"type":"message_stop"}`)
}

const head = `{"model":"claude-sonnet-4-5","max_tokens":2048,"stream":true,"thinking":{"type":"enabled","budget_tokens":1024},` +
	`"tools":[{"name":"get_weather","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"Weather in Bern?"}`

func firstRequest() string { return head + `]}` }

func assistant(sig, toolID string, stripped bool) string {
	use := `{"type":"tool_use","id":"` + toolID + `","name":"get_weather","input":{"city":"Bern"}}`
	if stripped {
		return `{"role":"assistant","content":[` + use + `]}`
	}
	return `{"role":"assistant","content":[{"type":"thinking","thinking":"Call the tool.","signature":"` + sig + `"},` + use + `]}`
}

func nextRequest(sig, toolID string, stripped bool) string {
	return head + `,` + assistant(sig, toolID, stripped) + `,{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + toolID + `","content":"18°C"}]}]}`
}

func sigFor(id string) string { return "EqQBCkgIAhABGAIiQ" + id + "Sig+/=" }

// upstream is a loopback Anthropic: it streams a turn named by the X-Conv
// header and records every body.
type upstream struct {
	*httptest.Server
	mu     sync.Mutex
	bodies map[string][]string
}

func newUpstream(t *testing.T) *upstream {
	u := &upstream{bodies: map[string][]string{}}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		id := r.Header.Get("X-Conv")
		u.mu.Lock()
		u.bodies[id] = append(u.bodies[id], string(body))
		u.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, anthropicSSE(sigFor(id), "toolu_"+id))
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *upstream) got(id string) []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.bodies[id]...)
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer = proxytest.SyncBuffer

// proxyOn starts a proxy instance with its own Redis client.
func proxyOn(t *testing.T, r *redistest.Server, up *upstream, cfg replayproxy.Config) (string, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	store, err := redisstore.Open(r.URL(), redisstore.Options{TTL: time.Hour, Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	require.NoError(t, err)
	return serve(t, store, logs, up, cfg), logs
}

// proxyWith starts a proxy instance on a store.
func proxyWith(t *testing.T, store *redisstore.Store, up *upstream, cfg replayproxy.Config) (string, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	return serve(t, store, logs, up, cfg), logs
}

// serve starts a proxy instance on a store, logging to logs.
func serve(t *testing.T, store *redisstore.Store, logs *syncBuffer, up *upstream, cfg replayproxy.Config) string {
	t.Helper()
	cfg.Store = store
	cfg.Secret = []byte("the secret every instance of this deployment shares")
	cfg.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	cfg.Upstreams = []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}
	srv, err := replayproxy.New(cfg)
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	return hs.URL
}

// turn sends one request of conversation id through a proxy and reads
// the answer; it returns the repairs header.
func turn(t *testing.T, proxyURL, id, body string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, proxyURL+"/anthropic/v1/messages", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Conv", id)
	req.Header.Set("X-Api-Key", "sk-test-tenant-a")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	require.Equal(t, anthropicSSE(sigFor(id), "toolu_"+id), string(b), fmt.Sprintf("conversation %s: the client reads the provider's bytes", id))
	return resp.Header.Get(replayproxy.HeaderRepairs)
}
