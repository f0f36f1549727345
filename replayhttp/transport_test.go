package replayhttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reasonreplay/replay"
	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// server is a loopback server that answers each request with respond and
// records the bodies it received.
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

func serveSSE(w http.ResponseWriter, stream string) {
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = io.WriteString(w, stream)
}

func serveJSON(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, body)
}

// tenantA is the credential post sends: every API finds it where it
// looks for one.
const tenantA = "sk-test-tenant-a"

func post(t *testing.T, c *http.Client, ctx context.Context, url, body string) *http.Response {
	t.Helper()
	return postAs(t, c, ctx, url, body, tenantA)
}

// postAs posts body with the credential key in every header an API reads
// one from (none when key is "").
func postAs(t *testing.T, c *http.Client, ctx context.Context, url, body, key string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("X-Api-Key", key)
		req.Header.Set("X-Goog-Api-Key", key)
	}
	resp, err := c.Do(req)
	require.NoError(t, err)
	return resp
}

func thinkingOf(t *testing.T, tu *replay.Turn) *replay.ReasoningText {
	t.Helper()
	require.NotNil(t, tu)
	items := tu.Items()
	require.Len(t, items, 1)
	x, ok := items[0].(*replay.ReasoningText)
	require.True(t, ok, "item is %T", items[0])
	return x
}

func TestStreamCaptureLeavesBytesAlone(t *testing.T) {
	stream := anthropicSSE(sigFor(1), "toolu_01A")
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) { serveSSE(w, stream) })
	var got []*replay.Turn
	tr := &replayhttp.Transport{OnCapture: func(req *http.Request, c *replayhttp.Capture) {
		tu, err := c.Turn()
		assert.NoError(t, err)
		assert.Equal(t, "/v1/messages", req.URL.Path)
		got = append(got, tu)
	}}
	c := &http.Client{Transport: tr}
	ctx, call := replayhttp.WithCapture(context.Background())
	resp := post(t, c, ctx, srv.URL+"/v1/messages", anthropicFirst)
	_, pending := call.Turn()
	assert.ErrorIs(t, pending, replayhttp.ErrPending)
	read, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, stream, string(read), "the caller reads the provider's bytes")

	tu, err := call.Turn()
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Same(t, got[0], tu)
	assert.True(t, tu.Complete)
	assert.Equal(t, "anthropic", tu.Provenance.API)
	x := thinkingOf(t, tu)
	assert.Equal(t, sigFor(1), x.Signature.Value())
	assert.Equal(t, "The user asks for the weather in Zürich. I will call the tool.", x.Text)
	require.Len(t, tu.ToolCalls(), 1)
	assert.Equal(t, "toolu_01A", tu.ToolCalls()[0].ID)
	assert.Equal(t, `{"city": "Zürich"}`, tu.ToolCalls()[0].Arguments)
	assert.Equal(t, [][]byte{[]byte(anthropicFirst)}, srv.received(), "the request goes out as it was")
}

func TestJSONCapture(t *testing.T) {
	body := responsesJSON("gAAAAB-blob_1==", "call_1")
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) { serveJSON(w, body) })
	c := &http.Client{Transport: &replayhttp.Transport{}}
	ctx, call := replayhttp.WithCapture(context.Background())
	resp := post(t, c, ctx, srv.URL+"/v1/responses", `{"model":"gpt-5","store":false,"input":"hi"}`)
	read, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, body, string(read))
	tu, err := call.Turn()
	require.NoError(t, err)
	require.Len(t, tu.Items(), 2) // summary and encrypted content
	enc, ok := tu.Items()[1].(*replay.Encrypted)
	require.True(t, ok, "%T", tu.Items()[1])
	assert.Equal(t, "gAAAAB-blob_1==", enc.Data)
	assert.Equal(t, "rs_call_1", enc.ID.Value())
}

func TestErrorBodyIsAProviderError(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.0.type: Expected `+"`thinking`"+` or `+"`redacted_thinking`"+`, but found `+"`tool_use`"+`."}}`)
	})
	c := &http.Client{Transport: &replayhttp.Transport{}}
	ctx, call := replayhttp.WithCapture(context.Background())
	resp := post(t, c, ctx, srv.URL+"/v1/messages", anthropicFirst)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	_, err := call.Turn()
	var pe *replay.ProviderError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, 400, pe.Status)
	assert.Equal(t, "invalid_request_error", pe.Type)
}

func TestEarlyCloseIsIncomplete(t *testing.T) {
	stream := anthropicSSE(sigFor(2), "toolu_02")
	cut := strings.Index(stream, "signature_delta")
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) { serveSSE(w, stream) })
	c := &http.Client{Transport: &replayhttp.Transport{}}
	ctx, call := replayhttp.WithCapture(context.Background())
	resp := post(t, c, ctx, srv.URL+"/v1/messages", anthropicFirst)
	buf := make([]byte, cut)
	_, err := io.ReadFull(resp.Body, buf)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	tu, err := call.Turn()
	assert.ErrorIs(t, err, replayhttp.ErrClosedEarly)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	require.NotNil(t, tu)
	assert.False(t, tu.Complete)
	x := thinkingOf(t, tu)
	assert.True(t, x.Unfinished)
	assert.False(t, x.Replayable())
}

// The middleware reads nothing ahead of the caller: the server sends the
// first events, then waits until the caller has read them.
func TestNoReadAhead(t *testing.T) {
	stream := anthropicSSE(sigFor(3), "toolu_03")
	cut := strings.Index(stream, "event: content_block_stop")
	release := make(chan struct{})
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, stream[:cut])
		w.(http.Flusher).Flush()
		<-release
		_, _ = io.WriteString(w, stream[cut:])
	})
	c := &http.Client{Transport: &replayhttp.Transport{}}
	ctx, call := replayhttp.WithCapture(context.Background())
	resp := post(t, c, ctx, srv.URL+"/v1/messages", anthropicFirst)
	first := make([]byte, cut)
	_, err := io.ReadFull(resp.Body, first) // would block if the middleware read ahead to the end
	require.NoError(t, err)
	assert.Equal(t, stream[:cut], string(first))
	_, pending := call.Turn()
	assert.ErrorIs(t, pending, replayhttp.ErrPending)
	close(release)
	rest, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, stream[cut:], string(rest))
	tu, err := call.Turn()
	require.NoError(t, err)
	assert.Equal(t, sigFor(3), thinkingOf(t, tu).Signature.Value())
}

// Many concurrent streams through one Transport: each call gets its own
// turn, the callback sees each request with its own turn.
func TestConcurrentStreams(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		var i int
		fmt.Sscan(r.Header.Get("X-Call"), &i)
		w.Header().Set("Content-Type", "text/event-stream")
		stream := anthropicSSE(sigFor(i), fmt.Sprintf("toolu_%04d", i))
		for len(stream) > 0 { // in small pieces, flushed, so reads interleave
			n := min(97, len(stream))
			_, _ = io.WriteString(w, stream[:n])
			w.(http.Flusher).Flush()
			stream = stream[n:]
		}
	})
	var mu sync.Mutex
	byCall := map[string]string{}
	tr := &replayhttp.Transport{OnCapture: func(req *http.Request, c *replayhttp.Capture) {
		tu, err := c.Turn()
		mu.Lock()
		defer mu.Unlock()
		if err != nil || len(tu.Items()) != 1 {
			byCall[req.Header.Get("X-Call")] = fmt.Sprint("error: ", err)
			return
		}
		byCall[req.Header.Get("X-Call")] = tu.Items()[0].(*replay.ReasoningText).Signature.Value()
	}}
	c := &http.Client{Transport: tr}
	const n = 64
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, call := replayhttp.WithCapture(context.Background())
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(anthropicFirst))
			req.Header.Set("X-Call", fmt.Sprint(i))
			resp, err := c.Do(req)
			if err != nil {
				errs[i] = err
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			tu, err := call.Turn()
			switch {
			case err != nil:
				errs[i] = err
			case len(tu.Items()) != 1:
				errs[i] = fmt.Errorf("call %d: %d items", i, len(tu.Items()))
			case tu.Items()[0].(*replay.ReasoningText).Signature.Value() != sigFor(i):
				errs[i] = fmt.Errorf("call %d got signature %q", i, tu.Items()[0].(*replay.ReasoningText).Signature.Value())
			case tu.ToolCalls()[0].ID != fmt.Sprintf("toolu_%04d", i):
				errs[i] = fmt.Errorf("call %d got tool call %q", i, tu.ToolCalls()[0].ID)
			}
		}()
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	require.Len(t, byCall, n)
	for i := range n {
		assert.Equal(t, sigFor(i), byCall[fmt.Sprint(i)], "call %d", i)
	}
}

func TestUnrecognisedPassesThrough(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) { serveJSON(w, `{"ok":true}`) })
	var ended error
	c := &http.Client{Transport: &replayhttp.Transport{OnCapture: func(_ *http.Request, c *replayhttp.Capture) { _, ended = c.Turn() }}}
	resp := post(t, c, context.Background(), srv.URL+"/v1/embeddings", `{"model":"x","input":"y"}`)
	read, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, `{"ok":true}`, string(read))
	assert.ErrorIs(t, ended, replayhttp.ErrNotRecognised, "the call ends as one the middleware did not read")
	assert.Equal(t, [][]byte{[]byte(`{"model":"x","input":"y"}`)}, srv.received())
}

// A request whose assistant message lost its thinking block is refused
// before a byte is sent.
func TestAuditRefuses(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		serveJSON(w, anthropicJSON(sigFor(4), "toolu_04"))
	})
	var reported []replay.Report
	tr := &replayhttp.Transport{Audit: replayhttp.AuditRefuse, OnCapture: func(_ *http.Request, c *replayhttp.Capture) {
		if r, ok := c.Report(); ok {
			reported = append(reported, r)
		}
	}}
	c := &http.Client{Transport: tr}
	stripped := `{"role":"assistant","content":[{"type":"text","text":"Let me check."},{"type":"tool_use","id":"toolu_04","name":"get_weather","input":{"city":"Zürich"}}]}`
	ctx, call := replayhttp.WithCapture(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(anthropicFollowUp(stripped, "toolu_04")))
	resp, err := c.Do(req)
	require.NoError(t, err, "the refusal is a response, as the provider's would be")
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, strconv.Itoa(len(b)), resp.Header.Get("Content-Length"))
	assert.Equal(t, "error", gjson.GetBytes(b, "type").String(), "Anthropic's error shape: %s", b)
	assert.Equal(t, "invalid_request_error", gjson.GetBytes(b, "error.type").String())
	assert.True(t, strings.HasPrefix(gjson.GetBytes(b, "error.message").String(), "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`."), "the provider's own text: %s", b)
	assert.Equal(t, "anthropic/thinking-first", gjson.GetBytes(b, "replay.rule").String())
	assert.Equal(t, "/messages/1/content/0/type", gjson.GetBytes(b, "replay.pointer").String())
	assert.NotEmpty(t, gjson.GetBytes(b, "replay.fix").String())
	select {
	case <-call.Done():
	default:
		t.Fatal("the capture of a refused call is done")
	}
	var ae *replayhttp.AuditError
	_, err = call.Turn()
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "anthropic", ae.API)
	require.NotEmpty(t, ae.Report.Violations)
	assert.Equal(t, "anthropic/thinking-first", ae.Report.Violations[0].Rule)
	assert.Equal(t, "/messages/1/content/0/type", ae.Report.Violations[0].Pointer)
	assert.Empty(t, srv.received(), "nothing was sent")
	require.Len(t, reported, 1)
	rep, ok := call.Report()
	require.True(t, ok)
	assert.True(t, rep.Rejects())

	// Report mode sends it anyway.
	tr.Audit = replayhttp.AuditReport
	resp = post(t, c, context.Background(), srv.URL+"/v1/messages", anthropicFollowUp(stripped, "toolu_04"))
	resp.Body.Close()
	assert.Len(t, srv.received(), 1)
	assert.Len(t, reported, 2)
}

func TestMiddlewareForm(t *testing.T) {
	body := anthropicJSON(sigFor(5), "toolu_05")
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) { serveJSON(w, body) })
	tr := &replayhttp.Transport{}
	next := http.DefaultTransport.RoundTrip
	ctx, call := replayhttp.WithCapture(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/messages", bytes.NewReader([]byte(anthropicFirst)))
	resp, err := tr.Middleware(req, next)
	require.NoError(t, err)
	read, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, body, string(read))
	tu, err := call.Turn()
	require.NoError(t, err)
	assert.Equal(t, sigFor(5), thinkingOf(t, tu).Signature.Value())
}

// A JSON reader stops after the value and closes the body before its EOF:
// the turn is whole all the same. A body cut inside the value is not.
func TestJSONClosedAfterValue(t *testing.T) {
	body := anthropicJSON(sigFor(6), "toolu_06")
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) { serveJSON(w, body+"\n") })
	c := &http.Client{Transport: &replayhttp.Transport{}}
	ctx, call := replayhttp.WithCapture(context.Background())
	resp := post(t, c, ctx, srv.URL+"/v1/messages", anthropicFirst)
	var v map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&v))
	resp.Body.Close()
	tu, err := call.Turn()
	require.NoError(t, err)
	assert.Equal(t, sigFor(6), thinkingOf(t, tu).Signature.Value())

	ctx, call = replayhttp.WithCapture(context.Background())
	resp = post(t, c, ctx, srv.URL+"/v1/messages", anthropicFirst)
	_, _ = io.ReadFull(resp.Body, make([]byte, 40))
	resp.Body.Close()
	tu, err = call.Turn()
	assert.ErrorIs(t, err, replayhttp.ErrClosedEarly)
	assert.False(t, tu.Complete)
}

// A Transport whose registry holds no codec fails every call with an
// error that names the import, and its capture is done: a program that
// forgot the codecs learns it on its first call.
func TestNoCodecsRegistered(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) { serveJSON(w, `{}`) })
	c := &http.Client{Transport: &replayhttp.Transport{Registry: &replay.Registry{}}}
	for _, method := range []string{http.MethodPost, http.MethodGet} {
		ctx, call := replayhttp.WithCapture(context.Background())
		req, _ := http.NewRequestWithContext(ctx, method, srv.URL+"/v1/messages", strings.NewReader(anthropicFirst))
		_, err := c.Do(req)
		require.ErrorIs(t, err, replayhttp.ErrNoCodecs, method)
		assert.Contains(t, err.Error(), `import _ "github.com/reasonreplay/replay/codecs/all"`)
		select {
		case <-call.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("Done did not close")
		}
		_, err = call.Turn()
		assert.ErrorIs(t, err, replayhttp.ErrNoCodecs)
	}
	assert.Empty(t, srv.received(), "nothing was sent")
}

// A call the middleware passes through (another method, a path no API
// reads, no body) ends its capture once it is sent: Done closes, and
// Turn says why there is no turn.
func TestCaptureDoneOnPassThrough(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) { serveJSON(w, `{"data":[]}`) })
	c := &http.Client{Transport: &replayhttp.Transport{}}
	for _, tc := range []struct{ method, path, body string }{
		{http.MethodGet, "/v1/models", ""},
		{http.MethodPost, "/v1/files", `{"purpose":"batch"}`},
		{http.MethodPost, "/v1/messages", ""},
	} {
		ctx, call := replayhttp.WithCapture(context.Background())
		req, _ := http.NewRequestWithContext(ctx, tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
		resp, err := c.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, `{"data":[]}`, string(b))
		select {
		case <-call.Done():
		case <-time.After(5 * time.Second):
			t.Fatalf("%s %s: Done did not close", tc.method, tc.path)
		}
		tu, err := call.Turn()
		assert.Nil(t, tu)
		assert.ErrorIs(t, err, replayhttp.ErrNotRecognised, tc.path)
	}
	// An upstream that cannot be reached ends the capture with its error.
	ctx, call := replayhttp.WithCapture(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:1/v1/messages", strings.NewReader(anthropicFirst))
	_, err := c.Do(req)
	require.Error(t, err)
	<-call.Done()
	_, terr := call.Turn()
	assert.Error(t, terr)
	assert.NotErrorIs(t, terr, replayhttp.ErrNotRecognised)
}

// OnCapture receives each call once it is done, with a Capture of that
// call alone; a Capture in the calls' context is filled as well (the
// later call's turn replacing the earlier's, as an SDK's retry does).
func TestOnCapture(t *testing.T) {
	var n atomic.Int64
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		i := int(n.Add(1))
		serveSSE(w, anthropicSSE(sigFor(i), fmt.Sprintf("toolu_%02d", i)))
	})
	var mu sync.Mutex
	var sigs []string
	tr := &replayhttp.Transport{Audit: replayhttp.AuditReport, OnCapture: func(req *http.Request, c *replayhttp.Capture) {
		select {
		case <-c.Done():
		default:
			t.Error("OnCapture before the call was done")
		}
		tu, err := c.Turn()
		require.NoError(t, err)
		rep, audited := c.Report()
		assert.True(t, audited)
		assert.Empty(t, rep.Violations)
		mu.Lock()
		sigs = append(sigs, tu.Items()[0].(*replay.ReasoningText).Signature.Value())
		mu.Unlock()
	}}
	client := &http.Client{Transport: tr}
	ctx, call := replayhttp.WithCapture(context.Background())
	for range 2 {
		resp := post(t, client, ctx, srv.URL+"/v1/messages", anthropicFirst)
		_, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		resp.Body.Close()
	}
	assert.Equal(t, []string{sigFor(1), sigFor(2)}, sigs, "each call its own capture, once")
	tu, err := call.Turn()
	require.NoError(t, err)
	assert.Equal(t, sigFor(2), tu.Items()[0].(*replay.ReasoningText).Signature.Value(), "the context's capture holds the latest call")
}
