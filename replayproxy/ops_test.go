package replayproxy_test

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/reasonreplay/replay/replayproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// rawRequest sends one request line and headers over a connection of its
// own and returns the status code of the answer.
func rawRequest(t *testing.T, addr, head string) int {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	_, err = io.WriteString(c, head)
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	return resp.StatusCode
}

// Methods no API uses are refused with 405 and never forwarded: CONNECT
// (with a path, or a host), TRACE, OPTIONS, PUT.
func TestMethodsRefused(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {})
	hs, srv, _ := proxy(t, replayproxy.Config{Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	addr := strings.TrimPrefix(hs.URL, "http://")
	for _, head := range []string{
		"CONNECT /anthropic/v1/messages HTTP/1.1\r\nHost: x\r\n\r\n",
		"CONNECT api.anthropic.com:443 HTTP/1.1\r\nHost: api.anthropic.com:443\r\n\r\n",
		"TRACE /anthropic/v1/messages HTTP/1.1\r\nHost: x\r\n\r\n",
		"OPTIONS /anthropic/v1/messages HTTP/1.1\r\nHost: x\r\n\r\n",
		"PUT /anthropic/v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
	} {
		assert.Equal(t, http.StatusMethodNotAllowed, rawRequest(t, addr, head), head)
	}
	req, _ := http.NewRequest(http.MethodTrace, hs.URL+"/anthropic/v1/messages", nil)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	assert.Equal(t, "GET, HEAD, POST, PATCH, DELETE", resp.Header.Get("Allow"))
	assert.Contains(t, readAll(t, resp), `"type":"error","error":{"type":"invalid_request_error","message":"replay proxy: the method TRACE is not one the APIs use`)
	assert.Empty(t, up.received())
	assert.Contains(t, metrics(t, srv), `replay_proxy_refused_total{reason="method"} 6`)
	// GET and DELETE go through.
	req, _ = http.NewRequest(http.MethodDelete, hs.URL+"/anthropic/v1/files/f1", nil)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	readAll(t, resp)
	assert.Len(t, up.received(), 1)
}

// Slow-body clients cannot starve the others: four clients that send
// their bodies one byte at a time hold connections, but neither a stream
// slot nor memory they did not fill; a good client is served at once,
// and each slow one gets 408 once its read timeout is over.
func TestSlowBodiesDoNotStarve(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		writeEvents(w, anthropicEvents(sigFor("good"), "toolu_G"))
	})
	hs, srv, logs := proxy(t, replayproxy.Config{MaxStreams: 2, ReadTimeout: 1500 * time.Millisecond,
		Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	addr := strings.TrimPrefix(hs.URL, "http://")
	body := anthropicRequest(firstUser)
	codes := make(chan int, 4)
	for i := range 4 {
		go func() {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				codes <- -1
				return
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			fmt.Fprintf(c, "POST /anthropic/v1/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Api-Key: slow-%d\r\nContent-Length: %d\r\n\r\n", i, len(body))
			go func() {
				for k := 0; k < len(body); k++ {
					if _, err := c.Write([]byte{body[k]}); err != nil {
						return
					}
					time.Sleep(300 * time.Millisecond)
				}
			}()
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				codes <- -2
				return
			}
			resp.Body.Close()
			codes <- resp.StatusCode
		}()
	}
	time.Sleep(300 * time.Millisecond) // the slow ones are connected and sending
	start := time.Now()
	resp := post(t, hs.URL+"/anthropic/v1/messages", body)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, anthropicSSE(sigFor("good"), "toolu_G"), readAll(t, resp))
	assert.Less(t, time.Since(start), time.Second, "served at once, not after the slow ones")
	for range 4 {
		select {
		case code := <-codes:
			assert.Equal(t, http.StatusRequestTimeout, code)
		case <-time.After(8 * time.Second):
			t.Fatal("a slow client was never answered")
		}
	}
	assert.Len(t, up.received(), 1, "no slow body was forwarded")
	m := metrics(t, srv)
	assert.Contains(t, m, `replay_proxy_refused_total{reason="slow_body"} 4`)
	assert.Contains(t, m, "\nreplay_proxy_inflight_body_bytes 0\n", "every reservation returned")
	assert.Equal(t, 4, strings.Count(logs.String(), `"refused":"slow_body"`))
}

// The bodies in flight share a memory budget: a request that does not fit
// while another body is being received is answered 503 with Retry-After,
// and fits once the other is done.
func TestBodyBudget(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{}`)
	})
	hs, srv, _ := proxy(t, replayproxy.Config{MaxInflightBytes: 1280 << 10, MaxBodyBytes: 400 << 10,
		Upstreams: []replayproxy.Upstream{{Name: "openai", URL: up.URL}}})
	big := func(n int) string { return `{"model":"gpt-5","input":"` + strings.Repeat("x", n) + `"}` }
	// A holds 3 chunks of 64 KiB (reserved four times each): 768 KiB; B
	// needs 800 KiB more.
	pr, pw := io.Pipe()
	aDone := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, hs.URL+"/openai/v1/responses", pr)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			aDone <- -1
			return
		}
		resp.Body.Close()
		aDone <- resp.StatusCode
	}()
	aBody := big(300 << 10)
	_, err := io.WriteString(pw, aBody[:130<<10])
	require.NoError(t, err)
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(metrics(t, srv), "\nreplay_proxy_inflight_body_bytes 786432\n") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	require.Contains(t, metrics(t, srv), "\nreplay_proxy_inflight_body_bytes 786432\n")

	resp := post(t, hs.URL+"/openai/v1/responses", big(200<<10))
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	assert.Contains(t, readAll(t, resp), "--max-inflight-bytes")

	_, err = io.WriteString(pw, aBody[130<<10:])
	require.NoError(t, err)
	require.NoError(t, pw.Close())
	assert.Equal(t, http.StatusOK, <-aDone)
	resp = post(t, hs.URL+"/openai/v1/responses", big(200<<10))
	assert.Equal(t, http.StatusOK, resp.StatusCode, "fits once the other is done")
	readAll(t, resp)
	m := metrics(t, srv)
	assert.Contains(t, m, `replay_proxy_refused_total{reason="over_budget"} 1`)
	assert.Contains(t, m, "\nreplay_proxy_inflight_body_bytes 0\n")
	got := up.received()
	require.Len(t, got, 2)
	assert.Equal(t, aBody, string(got[0].body))
}

func compress(t *testing.T, coding string, b []byte) []byte {
	var buf bytes.Buffer
	var w io.WriteCloser
	switch coding {
	case "gzip":
		w = gzip.NewWriter(&buf)
	case "deflate":
		w = zlib.NewWriter(&buf)
	case "deflate-raw":
		w, _ = flate.NewWriter(&buf, flate.BestSpeed)
	case "br":
		w = brotli.NewWriter(&buf)
	case "zstd":
		zw, err := zstd.NewWriter(&buf)
		require.NoError(t, err)
		w = zw
	}
	_, err := w.Write(b)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// Compressed request bodies are read (gzip, deflate in both its forms, br,
// zstd), repaired and sent decoded; a coding the proxy does not read is a
// 415, bytes that do not decode a 400, and a body whose decoded size
// passes the limit a 413, none of them sent.
func TestCompressedRequestBodies(t *testing.T) {
	sig := sigFor("gz")
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		writeEvents(w, anthropicEvents(sig, "toolu_GZ"))
	})
	hs, _, _ := proxy(t, replayproxy.Config{MaxBodyBytes: 64 << 10, Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	send := func(coding string, body []byte) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, hs.URL+"/anthropic/v1/messages", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Content-Encoding", strings.TrimSuffix(coding, "-raw"))
		req.Header.Set("X-Api-Key", tenantKey)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		return resp
	}
	readAll(t, post(t, hs.URL+"/anthropic/v1/messages", anthropicRequest(firstUser)))
	stripped := followUp(`{"role":"assistant","content":[`+toolUse("toolu_GZ")+`]}`, "toolu_GZ")
	want := followUp(`{"role":"assistant","content":[`+thinkingBlock(sig)+`,`+toolUse("toolu_GZ")+`]}`, "toolu_GZ")
	for _, coding := range []string{"gzip", "deflate", "deflate-raw", "br", "zstd"} {
		resp := send(coding, compress(t, coding, []byte(stripped)))
		assert.Equal(t, http.StatusOK, resp.StatusCode, coding)
		assert.Equal(t, "restored=1", resp.Header.Get(replayproxy.HeaderRepairs), coding)
		readAll(t, resp)
		got := up.received()
		last := got[len(got)-1]
		assert.Equal(t, want, string(last.body), "%s: sent decoded and repaired", coding)
		assert.Empty(t, last.header.Get("Content-Encoding"), coding)
	}
	n := len(up.received())
	resp := send("compress", []byte("x"))
	assert.Equal(t, http.StatusUnsupportedMediaType, resp.StatusCode)
	assert.Contains(t, readAll(t, resp), `the content coding \"compress\" is not one the proxy reads (gzip, deflate, br, zstd)`)
	resp = send("gzip", []byte("not gzip at all"))
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Contains(t, readAll(t, resp), "does not decode as gzip")
	bomb := compress(t, "gzip", []byte(`{"messages":"`+strings.Repeat("a", 1<<20)+`"}`))
	require.Less(t, len(bomb), 64<<10)
	resp = send("gzip", bomb)
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, "the limit is on the decoded bytes")
	readAll(t, resp)
	assert.Len(t, up.received(), n, "none of them sent")
}

// The client may ask for a compressed answer: the upstream is asked with
// the codings the capture reads, the client reads the upstream's bytes as
// they came, and the turn is captured (the next request repaired).
func TestCompressedResponses(t *testing.T) {
	sig := sigFor("zr")
	wire := compress(t, "gzip", []byte(anthropicSSE(sig, "toolu_ZR")))
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		if strings.Contains(string(body), "tool_result") {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"id":"m","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(wire)
	})
	hs, _, _ := proxy(t, replayproxy.Config{Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	resp := post(t, hs.URL+"/anthropic/v1/messages", anthropicRequest(firstUser), "Accept-Encoding", "br, gzip;q=0.9, zstd")
	assert.Equal(t, "gzip", resp.Header.Get("Content-Encoding"))
	assert.Equal(t, string(wire), readAll(t, resp), "the client reads the upstream's bytes")
	assert.Equal(t, "gzip;q=0.9", up.received()[0].header.Get("Accept-Encoding"), "only what the capture reads")
	resp = post(t, hs.URL+"/anthropic/v1/messages", followUp(`{"role":"assistant","content":[`+toolUse("toolu_ZR")+`]}`, "toolu_ZR"))
	readAll(t, resp)
	assert.Equal(t, "restored=1", resp.Header.Get(replayproxy.HeaderRepairs), "the compressed answer's turn was captured")
}

// The X-Replay-* headers of an answer are the proxy's: any the upstream
// (or anything in front of it) sent are replaced or removed.
func TestReplayHeadersAreTheProxys(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		w.Header().Set("X-Replay-Audit", "clean")
		w.Header().Set("X-Replay-Repairs", "restored=9")
		w.Header().Set("X-Replay-Refused", "none")
		w.Header().Set("X-Replay-Other", "x")
		w.Header().Set("X-Request-Id", "upstream-id")
		writeEvents(w, anthropicEvents(sigFor("h"), "toolu_H"))
	})
	hs, _, _ := proxy(t, replayproxy.Config{Mode: replayproxy.ModeReport, Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	resp := post(t, hs.URL+"/anthropic/v1/messages", followUp(`{"role":"assistant","content":[`+toolUse("toolu_H")+`]}`, "toolu_H"), "X-Request-Id", "client-id-1")
	readAll(t, resp)
	assert.Equal(t, "reject anthropic/thinking-first", resp.Header.Get(replayproxy.HeaderAudit))
	assert.Empty(t, resp.Header.Values(replayproxy.HeaderRepairs))
	assert.Empty(t, resp.Header.Values(replayproxy.HeaderRefused))
	assert.Empty(t, resp.Header.Values("X-Replay-Other"))
	assert.Equal(t, []string{"client-id-1"}, resp.Header.Values("X-Request-Id"))

	hs, _, _ = proxy(t, replayproxy.Config{Mode: replayproxy.ModeOff, Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	resp = post(t, hs.URL+"/anthropic/v1/messages", anthropicRequest(firstUser))
	readAll(t, resp)
	assert.Empty(t, resp.Header.Values(replayproxy.HeaderAudit), "not audited: no verdict, not the upstream's")
}

var hexID = regexp.MustCompile(`^[0-9a-f]{32}$`)

// A request id: the client's kept, or one minted; returned, sent
// upstream, and in every log line of the request, which carries the
// model, the verdict, this request's repairs and the timings.
func TestRequestIDs(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		writeEvents(w, anthropicEvents(sigFor("id"), "toolu_ID"))
	})
	hs, _, logs := proxy(t, replayproxy.Config{Mode: replayproxy.ModeReport, Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	resp := post(t, hs.URL+"/anthropic/v1/messages", anthropicRequest(firstUser), "X-Request-Id", "req-abc-1")
	readAll(t, resp)
	assert.Equal(t, "req-abc-1", resp.Header.Get("X-Request-Id"))
	assert.Equal(t, "req-abc-1", up.received()[0].header.Get("X-Request-Id"))

	resp = post(t, hs.URL+"/anthropic/v1/messages", followUp(`{"role":"assistant","content":[`+toolUse("toolu_ID")+`]}`, "toolu_ID"), "X-Request-Id", "has space")
	readAll(t, resp)
	minted := resp.Header.Get("X-Request-Id")
	assert.Regexp(t, hexID, minted, "an unusable id is replaced")
	assert.Equal(t, minted, up.received()[1].header.Get("X-Request-Id"))

	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	var mine []string
	for _, l := range lines {
		if strings.Contains(l, `"request_id":"`+minted+`"`) {
			mine = append(mine, l)
		}
	}
	require.Len(t, mine, 2, "the repair line and the request line: %s", logs.String())
	assert.Contains(t, mine[0], `"msg":"repaired"`)
	last := mine[1]
	for _, want := range []string{`"msg":"request"`, `"model":"claude-sonnet-4-5"`, `"api":"anthropic"`, `"verdict":"clean"`, `"repairs":"restored=1"`, `"duration_ms":`, `"ttfb_ms":`, `"upstream_ms":`} {
		assert.Contains(t, last, want)
	}
	for _, l := range lines {
		assert.Regexp(t, `"request_id":"`, l, "every line of a request names it")
	}
}

// pingStore is a memory store whose Ping fails while down is set.
type pingStore struct {
	replayhttp.MemoryStore
	mu   sync.Mutex
	down bool
}

func (p *pingStore) Ping(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return errors.New("connection refused")
	}
	return nil
}

// /livez says the process serves; /readyz says the store answers.
func TestLivezReadyz(t *testing.T) {
	st := &pingStore{}
	hs, _, _ := proxy(t, replayproxy.Config{Store: st, Secret: []byte("0123456789abcdef0123456789abcdef"),
		Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: "http://127.0.0.1:1"}}})
	get := func(path string) int {
		resp, err := http.Get(hs.URL + path)
		require.NoError(t, err)
		readAll(t, resp)
		return resp.StatusCode
	}
	assert.Equal(t, 200, get("/livez"))
	assert.Equal(t, 200, get("/readyz"))
	st.mu.Lock()
	st.down = true
	st.mu.Unlock()
	assert.Equal(t, 200, get("/livez"))
	assert.Equal(t, 503, get("/readyz"))
	st.mu.Lock()
	st.down = false
	st.mu.Unlock()
	assert.Equal(t, 200, get("/readyz"))
}

// /metrics, scraped: the latency, time-to-first-byte and upstream
// histograms by upstream, API and model; the Go, process and build
// information metrics; the model label bounded.
func TestMetricsScrape(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		writeEvents(w, anthropicEvents(sigFor("m"), "toolu_M"))
	})
	hs, _, _ := proxy(t, replayproxy.Config{Version: "v9.9.9-test", Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	readAll(t, post(t, hs.URL+"/anthropic/v1/messages", anthropicRequest(firstUser)))
	for i := range 70 {
		body := strings.Replace(anthropicRequest(firstUser), "claude-sonnet-4-5", "model-"+strconv.Itoa(i), 1)
		readAll(t, post(t, hs.URL+"/anthropic/v1/messages", body))
	}
	resp, err := http.Get(hs.URL + "/metrics")
	require.NoError(t, err)
	assert.Contains(t, resp.Header.Get("Content-Type"), "text/plain")
	m := readAll(t, resp)
	for _, h := range []string{"replay_proxy_request_duration_seconds", "replay_proxy_time_to_first_byte_seconds", "replay_proxy_upstream_duration_seconds"} {
		assert.Contains(t, m, "# TYPE "+h+" histogram\n")
		assert.Contains(t, m, h+`_bucket{api="anthropic",model="claude-sonnet-4-5",upstream="anthropic",le="0.005"}`)
		assert.Contains(t, m, h+`_count{api="anthropic",model="claude-sonnet-4-5",upstream="anthropic"} 1`+"\n")
		assert.Contains(t, m, h+`_count{api="anthropic",model="other",upstream="anthropic"} 7`+"\n", "past 64 models, other")
	}
	for _, want := range []string{"\ngo_goroutines ", "\nprocess_cpu_seconds_total ", "\nprocess_resident_memory_bytes ", "\ngo_build_info{", `replay_proxy_build_info{version="v9.9.9-test"} 1`,
		`replay_proxy_requests_total{status="200",upstream="anthropic"} 71`} {
		assert.Contains(t, m, want)
	}
}

// Tracing: one span per request, named and attributed by the GenAI
// semantic conventions, with the verdict and the repairs, a child of the
// client's trace, its context sent upstream.
func TestTracing(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		writeEvents(w, anthropicEvents(sigFor("tr"), "toolu_TR"))
	})
	hs, _, _ := proxy(t, replayproxy.Config{Mode: replayproxy.ModeEnforce, TracerProvider: tp,
		Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	parent := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	readAll(t, post(t, hs.URL+"/anthropic/v1/messages", anthropicRequest(firstUser), "Traceparent", parent))
	readAll(t, post(t, hs.URL+"/anthropic/v1/messages", followUp(`{"role":"assistant","content":[`+toolUse("toolu_TR")+`]}`, "toolu_TR"), "X-Request-Id", "r2"))
	readAll(t, post(t, hs.URL+"/anthropic/v1/messages", followUp(`{"role":"assistant","content":[`+toolUse("toolu_none")+`]}`, "toolu_none")))

	spans := exp.GetSpans()
	require.Len(t, spans, 3)
	attrs := func(s tracetest.SpanStub) map[attribute.Key]attribute.Value {
		m := map[attribute.Key]attribute.Value{}
		for _, a := range s.Attributes {
			m[a.Key] = a.Value
		}
		return m
	}
	for _, s := range spans {
		assert.Equal(t, "chat claude-sonnet-4-5", s.Name)
		assert.Equal(t, trace.SpanKindClient, s.SpanKind)
		a := attrs(s)
		assert.Equal(t, "chat", a["gen_ai.operation.name"].AsString())
		assert.Equal(t, "anthropic", a["gen_ai.provider.name"].AsString())
		assert.Equal(t, "claude-sonnet-4-5", a["gen_ai.request.model"].AsString())
		assert.Equal(t, "anthropic", a["replay.upstream"].AsString())
	}
	assert.Equal(t, "0af7651916cd43dd8448eb211c80319c", spans[0].SpanContext.TraceID().String(), "a child of the client's trace")
	assert.Equal(t, "b7ad6b7169203331", spans[0].Parent.SpanID().String())
	assert.Equal(t, "0af7651916cd43dd8448eb211c80319c", strings.Split(up.received()[0].header.Get("Traceparent"), "-")[1], "the context goes upstream")
	assert.Equal(t, "clean", attrs(spans[0])["replay.audit.verdict"].AsString())
	assert.Equal(t, int64(0), attrs(spans[0])["replay.repairs"].AsInt64())
	a := attrs(spans[1])
	assert.Equal(t, "r2", a["replay.request_id"].AsString())
	assert.Equal(t, "clean", a["replay.audit.verdict"].AsString())
	assert.Equal(t, int64(1), a["replay.repairs"].AsInt64())
	assert.Equal(t, []string{"restored"}, a["replay.repair.actions"].AsStringSlice())
	assert.Equal(t, int64(200), a["http.response.status_code"].AsInt64())
	a = attrs(spans[2])
	assert.Equal(t, "reject", a["replay.audit.verdict"].AsString())
	assert.Equal(t, []string{"anthropic/thinking-first"}, a["replay.audit.rules"].AsStringSlice())
	assert.Equal(t, "audit", a["replay.refused"].AsString())
	assert.Equal(t, int64(400), a["http.response.status_code"].AsInt64())
}

// Hop-by-hop headers belong to one connection: those the client sends
// (and those its Connection header names) do not reach the upstream, and
// the upstream's do not reach the client; the others pass both ways.
func TestHopByHopHeaders(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		w.Header().Set("Connection", "X-Up-Hop")
		w.Header().Set("X-Up-Hop", "1")
		w.Header().Set("Proxy-Authenticate", "Basic")
		w.Header().Set("X-Up-End", "2")
		writeEvents(w, anthropicEvents(sigFor("hop"), "toolu_HOP"))
	})
	hs, _, _ := proxy(t, replayproxy.Config{Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	resp := post(t, hs.URL+"/anthropic/v1/messages", anthropicRequest(firstUser),
		"Connection", "X-Client-Hop", "X-Client-Hop", "1", "Proxy-Authorization", "Basic c2VjcmV0", "Upgrade", "websocket",
		"Te", "gzip", "X-Client-End", "2")
	readAll(t, resp)
	got := up.received()[0].header
	for _, h := range []string{"X-Client-Hop", "Proxy-Authorization", "Upgrade"} {
		assert.Empty(t, got.Get(h), h)
	}
	assert.Equal(t, "2", got.Get("X-Client-End"))
	assert.Empty(t, resp.Header.Get("X-Up-Hop"))
	assert.Empty(t, resp.Header.Get("Proxy-Authenticate"))
	assert.Equal(t, "2", resp.Header.Get("X-Up-End"))
}
