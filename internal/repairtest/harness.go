package repairtest

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	_ "github.com/reasonreplay/replay/codecs/all" // every API's codec
	"github.com/reasonreplay/replay/replayhttp"
)

// The headers a call carries to the loopback provider: which case, which
// conversation, which shape of turn it wants, and the call's number (what
// the provider received is recorded under it).
const (
	hdrAPI   = "X-Test-Api"
	hdrConv  = "X-Test-Conv"
	hdrShape = "X-Test-Shape"
	hdrCall  = "X-Test-Call"
)

// Provider is a loopback provider of every API, on two hosts (two
// upstreams): it answers each call with the reasoning it mints for the
// credential the call carries (as the API reads it) and the call's
// conversation, and records every body it receives.
type Provider struct {
	servers [2]*httptest.Server
	calls   atomic.Int64
	mu      sync.Mutex
	got     map[string][]byte
	count   int
}

// NewProvider starts the provider; it stops when the test ends.
func NewProvider(t testing.TB) *Provider {
	p := &Provider{got: map[string][]byte{}}
	for i := range p.servers {
		p.servers[i] = httptest.NewServer(http.HandlerFunc(p.serve))
		t.Cleanup(p.servers[i].Close)
	}
	return p
}

// URL returns the base URL of host i (0 or 1).
func (p *Provider) URL(i int) string { return p.servers[i].URL }

// Count returns the number of requests the provider received.
func (p *Provider) Count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.count
}

func (p *Provider) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	p.got[r.Header.Get(hdrCall)] = body
	p.count++
	p.mu.Unlock()
	api := ByName(r.Header.Get(hdrAPI))
	if api == nil {
		http.Error(w, "no such case", http.StatusNotFound)
		return
	}
	shape := Tool
	if r.Header.Get(hdrShape) == Text.String() {
		shape = Text
	}
	out, ct := api.Respond(Reasoning{Tenant: Credential(api, r), Conv: r.Header.Get(hdrConv)}, shape)
	w.Header().Set("Content-Type", ct)
	_, _ = io.WriteString(w, out)
}

// Credential returns the credential a request carries, as the API's codec
// reads it.
func Credential(api *API, r *http.Request) string {
	if f := Codec(api).HTTP().Credential; f != nil {
		return f(r)
	}
	return ""
}

// Codec returns the API's codec.
func Codec(api *API) codecs.HTTPCodec {
	c, err := replay.Default().Lookup(api.Codec, api.Provider, api.Model)
	if err != nil {
		panic(err)
	}
	return c.(codecs.HTTPCodec)
}

// Strip returns the echo without its reasoning, as the API's codec strips
// it: what a client that drops reasoning sends.
func Strip(api *API, echo string) string {
	out, _ := Codec(api).Strip([]byte(echo))
	return string(out)
}

// Bare returns the echo without any reasoning: api.Bare's, else Strip's.
func Bare(api *API, echo string) string {
	if api.Bare != nil {
		return api.Bare(echo)
	}
	return Strip(api, echo)
}

// Call is one request of a test.
type Call struct {
	API   *API
	Key   string // the credential; "" sends none
	Conv  string
	Shape Shape
	Body  string
	// Upstream is the provider's host the call goes to (0 or 1).
	Upstream int
}

// Seen is what a call showed its caller, and what reached the provider.
type Seen struct {
	Status int
	// Refused is the refusal the middleware answered with instead of
	// sending (the library's AuditError; the proxy answers a 400).
	Refused string
	// Headers are the proxy's X-Replay-* response headers.
	Headers map[string]string
	// Repairs are the call's Capture.Repairs() (the library's).
	Repairs []string
	// Audit is the verdict of the call's Capture.Report() (the
	// library's): "" when not audited.
	Audit string
	// Body is the response body the caller read.
	Body string
	// Received is the body the provider received; nil when nothing
	// reached it.
	Received []byte
}

// Restored reports whether the call's request was reported restored.
func (s Seen) Restored() bool {
	if strings.Contains(s.Headers[HeaderRepairs], "restored=") {
		return true
	}
	for _, r := range s.Repairs {
		if strings.HasPrefix(r, string(replayhttp.RepairRestored)+" ") {
			return true
		}
	}
	return false
}

// Deployment is what a test's requests go through.
type Deployment struct {
	// Base returns the base URL of the calls of api to the provider's
	// host upstream.
	Base func(api *API, upstream int) string
	// Client returns the client the calls of api are sent with.
	Client func(api *API) *http.Client
}

// Send sends c through d and returns what it showed.
func (p *Provider) Send(t testing.TB, d Deployment, c Call) Seen {
	t.Helper()
	return p.SendContext(t, context.Background(), d, c)
}

// SendContext is Send with a context.
func (p *Provider) SendContext(t testing.TB, ctx context.Context, d Deployment, c Call) Seen {
	t.Helper()
	id := strconv.FormatInt(p.calls.Add(1), 10)
	ctx, capture := replayhttp.WithCapture(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.Base(c.API, c.Upstream)+c.API.Path, strings.NewReader(c.Body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(hdrAPI, c.API.Name)
	req.Header.Set(hdrConv, c.Conv)
	req.Header.Set(hdrShape, c.Shape.String())
	req.Header.Set(hdrCall, id)
	if c.Key != "" {
		c.API.Auth(req.Header, c.Key)
	}
	var s Seen
	resp, err := d.Client(c.API).Do(req)
	var ae *replayhttp.AuditError
	switch {
	case errors.As(err, &ae):
		s.Refused = ae.Error()
	case err != nil:
		t.Fatalf("%s: %v", c.API.Name, err)
	default:
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("%s: reading the response: %v", c.API.Name, err)
		}
		s.Status, s.Body = resp.StatusCode, string(b)
		for _, h := range []string{HeaderRepairs, HeaderAudit, HeaderRefused,
			HeaderRetried, HeaderUpfront} {
			if v := resp.Header.Get(h); v != "" {
				if s.Headers == nil {
					s.Headers = map[string]string{}
				}
				s.Headers[h] = v
			}
		}
		if v := resp.Header.Get(HeaderRefused); v != "" {
			s.Refused = v
		}
		// The middleware's refuse mode answers as the provider would (a
		// 400 in the API's shape); the capture holds its AuditError.
		if _, err := capture.Turn(); errors.As(err, &ae) {
			s.Refused = ae.Error()
		}
	}
	for _, r := range capture.Repairs() {
		s.Repairs = append(s.Repairs, r.String())
	}
	if rep, ok := capture.Report(); ok {
		s.Audit = verdict(rep)
	}
	p.mu.Lock()
	s.Received = p.got[id]
	p.mu.Unlock()
	return s
}

// The proxy's response headers: replayproxy's Header* constants, which
// this package cannot import (the proxy is a module of its own); a test of
// the proxy holds them equal.
const (
	HeaderAudit   = "X-Replay-Audit"
	HeaderRepairs = "X-Replay-Repairs"
	HeaderRefused = "X-Replay-Refused"
	HeaderRetried = "X-Replay-Retried"
	HeaderUpfront = "X-Replay-Upfront"
)

// verdict renders a report as the proxy's X-Replay-Audit header does:
// every violation, by severity and rule.
func verdict(r replay.Report) string {
	if len(r.Violations) == 0 {
		return "clean"
	}
	var parts []string
	for _, v := range r.Violations {
		parts = append(parts, string(v.Severity)+" "+v.Rule+" "+v.Pointer)
	}
	return strings.Join(parts, "; ")
}

// Library is a deployment of the middleware: one Transport per API (each
// told its API's provider, as a caller whose base URL names none would),
// all of them sharing store and one secret.
func Library(p *Provider, store replayhttp.Store, audit replayhttp.AuditMode) Deployment {
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	var mu sync.Mutex
	clients := map[string]*http.Client{}
	return Deployment{
		Base: func(_ *API, up int) string { return p.URL(up) },
		Client: func(api *API) *http.Client {
			mu.Lock()
			defer mu.Unlock()
			c := clients[api.Name]
			if c == nil {
				c = &http.Client{Transport: &replayhttp.Transport{Provider: api.Provider, Store: store, Audit: audit, Secret: secret}}
				clients[api.Name] = c
			}
			return c
		},
	}
}

// Upstream is one of the proxy's upstreams for an API: its name, the
// provider's host, and the provider.
type Upstream struct{ Name, URL, Provider string }

// Upstreams returns the proxy's upstreams for every API: its upstream
// name on the provider's first host, and the name with "-2" on its
// second.
func Upstreams(p *Provider) []Upstream {
	var out []Upstream
	for _, a := range APIs() {
		out = append(out, Upstream{a.Upstream, p.URL(0), a.Provider}, Upstream{a.Upstream + "-2", p.URL(1), a.Provider})
	}
	return out
}

// Proxy is a deployment of a proxy h serving Upstreams(p) under their
// names; it stops (and h is closed) when the test ends.
func Proxy(t testing.TB, h http.Handler, closer io.Closer) Deployment {
	hs := httptest.NewServer(h)
	t.Cleanup(func() { hs.Close(); closer.Close() })
	client := hs.Client()
	return Deployment{
		Base: func(api *API, up int) string {
			if up == 1 {
				return hs.URL + "/" + api.Upstream + "-2"
			}
			return hs.URL + "/" + api.Upstream
		},
		Client: func(*API) *http.Client { return client },
	}
}
