package replayproxy_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/reasonreplay/replay/replayhttp"
	"github.com/reasonreplay/replay/replayproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHealthz(t *testing.T) {
	hs, _, _ := proxy(t, replayproxy.Config{Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: "http://127.0.0.1:1"}}})
	resp, err := http.Get(hs.URL + "/healthz")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "ok\n", readAll(t, resp))
}

// A tool loop through the proxy: the stream reaches the client byte for
// byte, the authentication headers and the query reach the upstream
// untouched (and never the log), and the next request, whose assistant
// message the agent rebuilt without its thinking block, reaches the
// upstream with the block restored byte for byte.
func TestToolLoopRepairsAndPassesAuth(t *testing.T) {
	sig := sigFor("loop")
	events := anthropicEvents(sig, "toolu_L1")
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request, body []byte) {
		if strings.Contains(string(body), "tool_result") {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"id":"msg_2","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"18°C."}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`)
			return
		}
		writeEvents(w, events)
	})
	store := &replayhttp.MemoryStore{}
	hs, srv, logs := proxy(t, replayproxy.Config{Mode: replayproxy.ModeReport, Store: store,
		Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL + "/base"}}})

	auth := []string{"X-Api-Key", "sk-ant-secret-0123", "Authorization", "Bearer sk-secret-4567", "Anthropic-Version", "2023-06-01", "Accept-Encoding", "gzip"}
	first := anthropicRequest(firstUser)
	resp := post(t, hs.URL+"/anthropic/v1/messages?beta=true", first, auth...)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	assert.Equal(t, "clean", resp.Header.Get(replayproxy.HeaderAudit))
	assert.Equal(t, strings.Join(events, ""), readAll(t, resp), "the client reads the provider's bytes")
	assert.Equal(t, 1, store.Len())

	stripped := `{"role":"assistant","content":[` + toolUse("toolu_L1") + `]}`
	resp = post(t, hs.URL+"/anthropic/v1/messages", followUp(stripped, "toolu_L1"), auth...)
	assert.Equal(t, "restored=1", resp.Header.Get(replayproxy.HeaderRepairs))
	assert.Equal(t, "clean", resp.Header.Get(replayproxy.HeaderAudit))
	readAll(t, resp)

	got := up.received()
	require.Len(t, got, 2)
	assert.Equal(t, "/base/v1/messages", got[0].path)
	assert.Equal(t, "beta=true", got[0].query)
	assert.Equal(t, first, string(got[0].body))
	want := `{"role":"assistant","content":[` + thinkingBlock(sig) + `,` + toolUse("toolu_L1") + `]}`
	assert.Equal(t, followUp(want, "toolu_L1"), string(got[1].body))
	for _, g := range got {
		assert.Equal(t, "sk-ant-secret-0123", g.header.Get("X-Api-Key"))
		assert.Equal(t, "Bearer sk-secret-4567", g.header.Get("Authorization"))
		assert.Equal(t, "2023-06-01", g.header.Get("Anthropic-Version"))
		assert.Equal(t, "gzip", g.header.Get("Accept-Encoding"), "the client's compression is kept")
	}
	log := stripIDs(logs.String())
	assert.NotContains(t, log, "secret")
	assert.NotContains(t, log, "beta=true")
	assert.Contains(t, log, `"msg":"repaired","upstream":"anthropic","repairs":["restored /messages/1: put back as captured: reasoning.text 0 was missing"]`)

	m := metrics(t, srv)
	assert.Contains(t, m, `replay_proxy_turns_captured_total{api="anthropic",complete="true",upstream="anthropic"} 2`+"\n")
	assert.Contains(t, m, `replay_proxy_repairs_total{kind="restored"} 1`+"\n")
	assert.Contains(t, m, `replay_proxy_audits_total{verdict="clean"} 2`+"\n")
	assert.Contains(t, m, `replay_proxy_requests_total{status="200",upstream="anthropic"} 2`+"\n")
	assert.Contains(t, m, "\nreplay_proxy_streams_in_flight 0\n")
	assert.Contains(t, m, "\nreplay_proxy_store_up 1\n")
}

// Each SSE event reaches the client before the upstream writes the next:
// the upstream waits for the client to have read an event before it
// sends the following one, so any buffering in the proxy would stall the
// stream (bounded by a timeout).
func TestSSEFlushedPerEvent(t *testing.T) {
	events := anthropicEvents(sigFor("flush"), "toolu_F")
	read := make(chan int, len(events))
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i, e := range events {
			_, _ = io.WriteString(w, e)
			w.(http.Flusher).Flush()
			select {
			case got := <-read:
				if got != i {
					return
				}
			case <-time.After(5 * time.Second):
				return // the proxy held the event back
			}
		}
	})
	hs, _, _ := proxy(t, replayproxy.Config{Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	resp := post(t, hs.URL+"/anthropic/v1/messages", anthropicRequest(firstUser))
	defer resp.Body.Close()
	var got strings.Builder
	for i, e := range events {
		buf := make([]byte, len(e))
		start := time.Now()
		_, err := io.ReadFull(resp.Body, buf)
		require.NoError(t, err, "event %d", i)
		assert.Less(t, time.Since(start), 4*time.Second, "event %d came late", i)
		got.Write(buf)
		read <- i
	}
	assert.Equal(t, strings.Join(events, ""), got.String())
}

// In enforce mode a request the provider would reject is answered by the
// proxy with the provider-shaped 400, the rule and the fix, and nothing
// reaches the upstream; in report mode it is sent with the verdict in a
// header.
func TestModes(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		writeEvents(w, anthropicEvents(sigFor("m"), "toolu_M"))
	})
	stripped := `{"role":"assistant","content":[` + toolUse("toolu_M") + `]}`
	broken := followUp(stripped, "toolu_M")

	hs, srv, _ := proxy(t, replayproxy.Config{Mode: replayproxy.ModeEnforce, Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	resp := post(t, hs.URL+"/anthropic/v1/messages", broken)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Equal(t, "anthropic/thinking-first", resp.Header.Get(replayproxy.HeaderRefused))
	assert.Equal(t, "reject anthropic/thinking-first", resp.Header.Get(replayproxy.HeaderAudit))
	assert.Equal(t, `{"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.0.type: Expected `+"`thinking` or `redacted_thinking`, but found `tool_use`"+`. When `+"`thinking`"+` is enabled, a final `+"`assistant`"+` message must start with a thinking block (preceeding the lastmost set of `+"`tool_use` and `tool_result`"+` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `+"`thinking`"+`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"},"replay":{"rule":"anthropic/thinking-first","pointer":"/messages/1/content/0/type","message":"manual thinking is on and the in-progress tool turn (message 1) starts with tool_use, not thinking","fix":"put the turn's captured thinking blocks back at their original positions (Patch or Encode), or disable thinking for this request"}}`+"\n", readAll(t, resp))
	assert.Empty(t, up.received(), "the upstream call is not spent")
	assert.Contains(t, metrics(t, srv), `replay_proxy_refused_total{reason="audit"} 1`+"\n")
	assert.Contains(t, metrics(t, srv), `replay_proxy_audit_violations_total{rule="anthropic/thinking-first",verdict="reject"} 1`+"\n")

	hs, _, logs := proxy(t, replayproxy.Config{Mode: replayproxy.ModeReport, Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	resp = post(t, hs.URL+"/anthropic/v1/messages", broken)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "reject anthropic/thinking-first", resp.Header.Get(replayproxy.HeaderAudit))
	readAll(t, resp)
	require.Len(t, up.received(), 1)
	assert.Equal(t, broken, string(up.received()[0].body))
	assert.Contains(t, stripIDs(logs.String()), `"level":"WARN","msg":"audit","upstream":"anthropic","verdict":"reject","rules":["anthropic/thinking-first"]`)

	hs, _, _ = proxy(t, replayproxy.Config{Mode: replayproxy.ModeOff, Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	resp = post(t, hs.URL+"/anthropic/v1/messages", broken)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Empty(t, resp.Header.Get(replayproxy.HeaderAudit))
	readAll(t, resp)
}

// Malformed JSON, bodies over the limit (announced or not), unknown
// upstreams and dot segments get clear errors and never reach the
// upstream.
func TestBadInput(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) { w.WriteHeader(http.StatusTeapot) })
	hs, srv, _ := proxy(t, replayproxy.Config{MaxBodyBytes: 1024, Upstreams: []replayproxy.Upstream{
		{Name: "anthropic", URL: up.URL}, {Name: "openai", URL: up.URL}, {Name: "gemini", URL: up.URL}}})

	resp := post(t, hs.URL+"/anthropic/v1/messages", `{"model":"claude-sonnet-4-5","messages":[`)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Equal(t, `{"type":"error","error":{"type":"invalid_request_error","message":"replay proxy: the request body is not valid JSON; it was not sent"}}`+"\n", readAll(t, resp))

	resp = post(t, hs.URL+"/openai/v1/responses", `{"input":"`+strings.Repeat("x", 2000)+`"}`)
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	assert.Equal(t, `{"error":{"message":"replay proxy: the request body is larger than 1024 bytes (--max-body)","type":"invalid_request_error","param":null,"code":null}}`+"\n", readAll(t, resp))

	// Chunked, so the size is known only while reading.
	req, _ := http.NewRequest(http.MethodPost, hs.URL+"/gemini/v1beta/models/gemini-3-pro-preview:generateContent",
		io.MultiReader(strings.NewReader(`{"contents":"`), strings.NewReader(strings.Repeat("y", 5000)), strings.NewReader(`"}`)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	assert.Equal(t, `{"error":{"code":413,"message":"replay proxy: the request body is larger than 1024 bytes (--max-body)","status":"INVALID_ARGUMENT"}}`+"\n", readAll(t, resp))

	resp = post(t, hs.URL+"/nowhere/v1/messages", `{}`)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Equal(t, `{"type":"error","error":{"type":"not_found_error","message":"replay proxy: no upstream is named \"nowhere\"; the path must start with one of /anthropic/, /gemini/, /openai/"}}`+"\n",
		readAll(t, resp), "a Messages path gets the Messages API's error shape")
	resp = post(t, hs.URL+"/nowhere/v1/other", `{}`)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Equal(t, `{"error":{"message":"replay proxy: no upstream is named \"nowhere\"; the path must start with one of /anthropic/, /gemini/, /openai/","type":"invalid_request_error","param":null,"code":null}}`+"\n",
		readAll(t, resp), "a path no API reads gets OpenAI's shape")

	req, _ = http.NewRequest(http.MethodGet, hs.URL+"/openai/v1/../../admin", nil)
	req.URL.Opaque = "/openai/v1/../../admin" // as sent, not cleaned by the client
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	readAll(t, resp)

	assert.Empty(t, up.received())
	m := metrics(t, srv)
	for _, reason := range []string{"malformed_json", "too_large", "unknown_upstream", "bad_path"} {
		assert.Contains(t, m, `replay_proxy_refused_total{reason="`+reason+`"}`)
	}
}

// A request beyond MaxStreams is answered 503 with Retry-After while the
// others stream.
func TestMaxStreams(t *testing.T) {
	release := make(chan struct{})
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		writeEvents(w, anthropicEvents(sigFor("s"), "toolu_S")[:2])
		select {
		case <-release:
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	hs, _, _ := proxy(t, replayproxy.Config{MaxStreams: 1, Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	held := post(t, hs.URL+"/anthropic/v1/messages", anthropicRequest(firstUser))
	buf := make([]byte, 10)
	_, err := io.ReadFull(held.Body, buf) // the stream is open
	require.NoError(t, err)
	resp := post(t, hs.URL+"/anthropic/v1/messages", anthropicRequest(firstUser))
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	assert.Equal(t, `{"type":"error","error":{"type":"overloaded_error","message":"replay proxy: 1 requests are being proxied, the most it takes at once (--max-streams); retry shortly"}}`+"\n", readAll(t, resp))
	close(release)
	readAll(t, held)
	assert.Len(t, up.received(), 1)
}

// The upstream resets the connection mid-stream: the client's read fails,
// and the partial turn is not stored.
func TestUpstreamResetMidStream(t *testing.T) {
	events := anthropicEvents(sigFor("reset"), "toolu_R")
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		writeEvents(w, events[:5])
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	})
	store := &replayhttp.MemoryStore{}
	hs, srv, logs := proxy(t, replayproxy.Config{Store: store, Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	resp := post(t, hs.URL+"/anthropic/v1/messages", anthropicRequest(firstUser))
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Error(t, err, "the client sees the stream fail")
	assert.Equal(t, strings.Join(events[:5], ""), string(got), "what came before the reset came through")
	assert.Equal(t, 0, store.Len(), "the partial turn is not replayable")
	assert.Contains(t, metrics(t, srv), `replay_proxy_upstream_errors_total{rule="unknown",status="reset",upstream="anthropic"} 1`)
	assert.Contains(t, metrics(t, srv), `replay_proxy_turns_captured_total{api="anthropic",complete="false",upstream="anthropic"} 1`)
	assert.Contains(t, logs.String(), `"error":"the upstream failed mid-response: `)
}

// The client goes away mid-stream: the upstream request is cancelled.
func TestClientDisconnectCancelsUpstream(t *testing.T) {
	cancelled := make(chan struct{})
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		writeEvents(w, anthropicEvents(sigFor("gone"), "toolu_G")[:3])
		select {
		case <-r.Context().Done():
			close(cancelled)
		case <-time.After(10 * time.Second):
		}
	})
	store := &replayhttp.MemoryStore{}
	hs, srv, logs := proxy(t, replayproxy.Config{Store: store, Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, hs.URL+"/anthropic/v1/messages", strings.NewReader(anthropicRequest(firstUser)))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_, err = io.ReadFull(resp.Body, make([]byte, 20))
	require.NoError(t, err)
	cancel()
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream request was not cancelled")
	}
	assert.Equal(t, 0, store.Len())
	// Its work stopped: the stream is no longer in flight, its partial
	// turn was ended (not kept), and it is logged as the client's doing.
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(metrics(t, srv), "\nreplay_proxy_streams_in_flight 0\n") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	m := metrics(t, srv)
	assert.Contains(t, m, "\nreplay_proxy_streams_in_flight 0\n")
	assert.Contains(t, m, `replay_proxy_turns_captured_total{api="anthropic",complete="false",upstream="anthropic"} 1`)
	assert.Contains(t, m, "\nreplay_proxy_inflight_body_bytes 0\n")
	assert.Contains(t, logs.String(), `"error":"the client went away mid-response`)
}

// refusal is Anthropic's answer to a forged signature.
const refusal = `{"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.0: Invalid ` + "`signature`" + ` in ` + "`thinking`" + ` block"}}`

// refusingUpstream answers a request that carries a forged signature with
// refusal, and any other with ok.
func refusingUpstream(t *testing.T, ok func(w http.ResponseWriter)) *upstream {
	return newUpstream(t, func(w http.ResponseWriter, _ *http.Request, body []byte) {
		if strings.Contains(string(body), `"signature":"forged"`) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, refusal)
			return
		}
		ok(w)
	})
}

// With retry on, an upstream refusal Classify knows is retried once with
// its fix, and the conversation's next request gets the fix up front;
// without, the client gets the provider's error byte for byte.
func TestRetry(t *testing.T) {
	up := refusingUpstream(t, func(w http.ResponseWriter) { writeEvents(w, anthropicEvents(sigFor("after"), "toolu_B")) })
	foreign := `{"role":"assistant","content":[{"type":"thinking","thinking":"x","signature":"forged"},` + toolUse("toolu_A") + `]}`
	stripped := `{"role":"assistant","content":[` + toolUse("toolu_A") + `]}`
	body := followUp(foreign, "toolu_A")

	hs, srv, _ := proxy(t, replayproxy.Config{Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	resp := post(t, hs.URL+"/anthropic/v1/messages", body)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Equal(t, refusal, readAll(t, resp))
	assert.Contains(t, metrics(t, srv), `replay_proxy_upstream_errors_total{rule="anthropic/foreign-signature",status="400",upstream="anthropic"} 1`)
	require.Len(t, up.received(), 1)

	hs, srv, logs := proxy(t, replayproxy.Config{Retry: &replayhttp.Retry{}, Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	resp = post(t, hs.URL+"/anthropic/v1/messages", body)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "drop-reasoning anthropic/foreign-signature", resp.Header.Get(replayproxy.HeaderRetried))
	assert.Empty(t, resp.Header.Get(replayproxy.HeaderUpfront))
	assert.Equal(t, anthropicSSE(sigFor("after"), "toolu_B"), readAll(t, resp))
	got := up.received()
	require.Len(t, got, 3)
	assert.Equal(t, body, string(got[1].body))
	assert.Equal(t, followUp(stripped, "toolu_A"), string(got[2].body))
	m := metrics(t, srv)
	assert.Contains(t, m, `replay_proxy_upstream_errors_total{rule="anthropic/foreign-signature",status="400",upstream="anthropic"} 1`+"\n")
	assert.Contains(t, m, `replay_proxy_retries_total{fix="drop-reasoning",rule="anthropic/foreign-signature"} 1`+"\n")
	assert.Contains(t, m, `replay_proxy_turns_captured_total{api="anthropic",complete="true",upstream="anthropic"} 1`+"\n")
	assert.Contains(t, logs.String(), `"retried":"drop-reasoning anthropic/foreign-signature"`)

	// The agent sends the conversation on with the forged block again:
	// the same block goes before sending, the provider's own stays, and
	// the provider is asked once.
	next := anthropicRequest(firstUser, foreign,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_A","content":"18°C"}]}`,
		`{"role":"assistant","content":[`+thinkingBlock(sigFor("after"))+`,`+toolUse("toolu_B")+`]}`,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_B","content":"17°C"}]}`)
	resp = post(t, hs.URL+"/anthropic/v1/messages", next)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "drop-reasoning anthropic/foreign-signature", resp.Header.Get(replayproxy.HeaderUpfront))
	assert.Empty(t, resp.Header.Get(replayproxy.HeaderRetried))
	readAll(t, resp)
	got = up.received()
	require.Len(t, got, 4)
	assert.Equal(t, strings.Replace(next, foreign, stripped, 1), string(got[3].body))
	m = metrics(t, srv)
	assert.Contains(t, m, `replay_proxy_upfront_fixes_total{fix="drop-reasoning",rule="anthropic/foreign-signature"} 1`+"\n")
	assert.Contains(t, m, `replay_proxy_retries_total{fix="drop-reasoning",rule="anthropic/foreign-signature"} 1`+"\n")
	assert.Contains(t, stripIDs(logs.String()), `"msg":"fix applied up front","upstream":"anthropic","rule":"anthropic/foreign-signature","fix":"drop-reasoning","changes":["removed /messages/1/content/0: thinking block removed"]}`)
}

// A retry the upstream drops the connection on leaves the client the
// provider's refusal, byte for byte, with a log line.
func TestRetryThatFailsGivesTheRefusal(t *testing.T) {
	up := refusingUpstream(t, func(w http.ResponseWriter) {
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
	})
	body := followUp(`{"role":"assistant","content":[{"type":"thinking","thinking":"x","signature":"forged"},`+toolUse("toolu_A")+`]}`, "toolu_A")
	hs, srv, logs := proxy(t, replayproxy.Config{Retry: &replayhttp.Retry{}, Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	resp := post(t, hs.URL+"/anthropic/v1/messages", body)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Empty(t, resp.Header.Get(replayproxy.HeaderRetried))
	assert.Equal(t, refusal, readAll(t, resp))
	require.Len(t, up.received(), 2)
	m := metrics(t, srv)
	assert.Contains(t, m, `replay_proxy_upstream_errors_total{rule="anthropic/foreign-signature",status="400",upstream="anthropic"} 1`+"\n")
	assert.NotContains(t, m, `replay_proxy_retries_total{`)
	assert.Contains(t, stripIDs(logs.String()), `"msg":"retry failed","upstream":"anthropic","rule":"anthropic/foreign-signature","fix":"drop-reasoning","error":"EOF"}`)
}

// An upstream that cannot be reached is a 502 in the provider's shape.
func TestUpstreamUnreachable(t *testing.T) {
	hs, srv, _ := proxy(t, replayproxy.Config{Upstreams: []replayproxy.Upstream{{Name: "gemini", URL: "http://127.0.0.1:1"}}})
	resp := post(t, hs.URL+"/gemini/v1beta/models/gemini-3-pro-preview:generateContent", `{"contents":[]}`)
	assert.Equal(t, http.StatusBadGateway, resp.StatusCode)
	body := readAll(t, resp)
	assert.True(t, strings.HasPrefix(body, `{"error":{"code":502,"message":"replay proxy: the upstream gemini could not be reached: `), body)
	assert.True(t, strings.HasSuffix(body, `","status":"UNAVAILABLE"}}`+"\n"), body)
	assert.Contains(t, metrics(t, srv), `replay_proxy_upstream_errors_total{rule="unknown",status="transport",upstream="gemini"} 1`)
}
