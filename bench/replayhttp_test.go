package bench

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/replayhttp"
)

// fixedTransport answers every request with the same SSE body from memory,
// so that the benchmarks measure reading, not the network.
type fixedTransport struct{ body []byte }

func (f fixedTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(f.body))}, nil
}

const middlewareRequest = `{"model":"anthropic/claude-sonnet-4.5","stream":true,"messages":[{"role":"user","content":"Think long."}]}`

func readThrough(b *testing.B, rt http.RoundTripper, capture bool) *replay.Turn {
	client := &http.Client{Transport: rt}
	buf := make([]byte, 32<<10)
	ctx, call := context.Background(), (*replayhttp.Capture)(nil)
	if capture {
		ctx, call = replayhttp.WithCapture(ctx)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "https://openrouter.ai/api/v1/chat/completions", strings.NewReader(middlewareRequest))
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.CopyBuffer(io.Discard, resp.Body, buf); err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	if call == nil {
		return nil
	}
	t, err := call.Turn()
	if err != nil || !t.Complete {
		b.Fatal("turn not captured: ", err)
	}
	return t
}

// BenchmarkMiddlewarePlain reads a long OpenRouter stream through a plain
// transport: the cost of reading the body, the baseline.
func BenchmarkMiddlewarePlain(b *testing.B) {
	body, _ := OpenRouterStream(2000)
	rt := fixedTransport{body}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		readThrough(b, rt, false)
	}
}

// BenchmarkMiddleware reads the same bytes through replayhttp.Transport,
// which decodes them into the call's turn as they are read. turn-B is the
// size of the turn document, for the memory comparison.
func BenchmarkMiddleware(b *testing.B) {
	body, _ := OpenRouterStream(2000)
	rt := &replayhttp.Transport{Base: fixedTransport{body}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	var t *replay.Turn
	for b.Loop() {
		t = readThrough(b, rt, true)
	}
	b.ReportMetric(float64(len(t.AppendJSON(nil))), "turn-B")
}

func loopback(b *testing.B, body []byte) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for p := body; len(p) > 0; { // as a provider streams: 4 KiB pieces, flushed
			n := min(4096, len(p))
			w.Write(p[:n])
			w.(http.Flusher).Flush()
			p = p[n:]
		}
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

func readURL(b *testing.B, client *http.Client, url string, capture bool) {
	ctx, call := context.Background(), (*replayhttp.Capture)(nil)
	if capture {
		ctx, call = replayhttp.WithCapture(ctx)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/api/v1/chat/completions", strings.NewReader(middlewareRequest))
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if call != nil {
		if t, err := call.Turn(); err != nil || !t.Complete {
			b.Fatal("turn not captured: ", err)
		}
	}
}

// BenchmarkMiddlewareLoopbackPlain reads the long stream from a loopback
// server through http.DefaultTransport.
func BenchmarkMiddlewareLoopbackPlain(b *testing.B) {
	body, _ := OpenRouterStream(2000)
	url := loopback(b, body)
	client := &http.Client{Transport: http.DefaultTransport}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		readURL(b, client, url, false)
	}
}

// BenchmarkMiddlewareLoopback reads it through replayhttp.Transport over
// http.DefaultTransport.
func BenchmarkMiddlewareLoopback(b *testing.B) {
	body, _ := OpenRouterStream(2000)
	url := loopback(b, body)
	client := &http.Client{Transport: &replayhttp.Transport{Provider: "openrouter"}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		readURL(b, client, url, true)
	}
}
