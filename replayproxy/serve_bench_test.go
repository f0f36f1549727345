package replayproxy_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"syscall"
	"testing"

	"github.com/reasonreplay/replay/internal/benchreq"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/reasonreplay/replay/replayproxy"
)

// fakeUpstream answers, in process, a request whose X-Turn header says n
// with the streamed answer of turn n, after reading the body.
type fakeUpstream struct{ events sync.Map } // turn -> []byte

func (f *fakeUpstream) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	n, _ := strconv.Atoi(r.Header.Get("X-Turn"))
	v, ok := f.events.Load(n)
	if !ok {
		v, _ = f.events.LoadOrStore(n, bytes.Join(benchreq.StreamEvents(n), nil))
	}
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(v.([]byte))),
		ContentLength: -1, Request: r}, nil
}

func serveOnce(tb testing.TB, h http.Handler, path string, body []byte, turn int) {
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", "sk-ant-bench-tenant")
	req.Header.Set("Anthropic-Version", "2023-06-01")
	req.Header.Set("X-Turn", strconv.Itoa(turn))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK || w.Body.Len() == 0 {
		tb.Fatalf("status %d, %d bytes: %s", w.Code, w.Body.Len(), w.Body.Bytes())
	}
}

// BenchmarkServe is the proxy's handler, in process, against an upstream
// in process (no network): the request path alone, for profiling.
func BenchmarkServe(b *testing.B) {
	type prepared struct {
		h    http.Handler
		path string
		body []byte
		turn int
	}
	ready := map[string]*prepared{}
	for _, s := range proxySizes {
		for _, mode := range []string{"plain", "off", "report"} {
			b.Run(s.name+"/"+mode, func(b *testing.B) {
				if p := ready[s.name+mode]; p != nil {
					b.SetBytes(int64(len(p.body)))
					b.ReportAllocs()
					var r0, r1 syscall.Rusage
					_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
					for i := 0; i < b.N; i++ {
						serveOnce(b, p.h, p.path, p.body, p.turn)
					}
					_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
					b.ReportMetric(float64(r1.Minflt-r0.Minflt)/float64(b.N), "minflt/op")
					b.ReportMetric(float64(r1.Utime.Nano()-r0.Utime.Nano())/float64(b.N), "user-ns/op")
					b.ReportMetric(float64(r1.Stime.Nano()-r0.Stime.Nano())/float64(b.N), "sys-ns/op")
					return
				}
				up := &fakeUpstream{}
				var h http.Handler
				path := "/anthropic/v1/messages"
				if mode == "plain" {
					u, _ := url.Parse("http://upstream.invalid")
					rp := httputil.NewSingleHostReverseProxy(u)
					rp.Transport = up
					h, path = rp, "/v1/messages"
				} else {
					m := map[string]replayproxy.Mode{"off": replayproxy.ModeOff, "report": replayproxy.ModeReport}[mode]
					srv, err := replayproxy.New(replayproxy.Config{Mode: m, Store: &replayhttp.MemoryStore{}, Transport: up,
						Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: "http://upstream.invalid"}}})
					if err != nil {
						b.Fatal(err)
					}
					h = srv
				}
				sh := benchShape()
				sh.Base = 100000
				turn := sh.Turns(s.bytes)
				for k := 0; k <= turn; k++ {
					serveOnce(b, h, path, sh.Request(k), sh.Base+k)
				}
				ready[s.name+mode] = &prepared{h: h, path: path, body: sh.Request(turn), turn: sh.Base + turn}
				b.SetBytes(1)
				b.ReportAllocs()
				for i := 0; i < b.N; i++ { // the first run prepares
				}
			})
		}
	}
}
