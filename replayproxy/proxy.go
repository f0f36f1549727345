package replayproxy

import (
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sort"
	"strconv"
	"time"

	"crypto/rand"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/replayhttp"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Mode says what the proxy does with the audit of a request.
type Mode uint8

const (
	// ModeOff sends requests unaudited (they are still repaired).
	ModeOff Mode = iota
	// ModeReport audits each request, sends it anyway, and reports the
	// verdict in the X-Replay-Audit response header and a log line.
	ModeReport
	// ModeEnforce answers a request the provider would reject with the
	// provider-shaped 400 it would have sent, plus the rule id and the
	// fix, without calling the upstream.
	ModeEnforce
)

var modeNames = []string{"off", "report", "enforce"}

// String returns the mode's name.
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return "mode(" + strconv.Itoa(int(m)) + ")"
}

// Config configures a [Server]. The zero value serves the public endpoint
// of every API the registry declares.
type Config struct {
	// Upstreams are the providers requests are forwarded to, by the first
	// segment of the request's path. None means the public endpoint of
	// every API of the registry that declares one ([codecs.HTTP].Endpoint),
	// each under its name.
	Upstreams []Upstream
	// Store keeps the captured turns; nil means a [replayhttp.MemoryStore]
	// with its default bounds. The proxy never waits on it longer than
	// StoreTimeout: a failing store is skipped (requests pass through
	// unrepaired) until it answers again.
	Store replayhttp.Store
	// Mode is the audit mode; the zero value is ModeOff.
	Mode Mode
	// Retry, when set, retries once a request the upstream refused with an
	// error [replayhttp.Classify] knows, with the fix it names applied to
	// the body that was sent, and applies the fixes that worked up front
	// to the conversation's next requests (see [replayhttp.Retry]). Nil
	// means off, the default: the retry spends a second upstream call.
	// The proxy reports through the call's [replayhttp.Capture]; OnRetry
	// is left to the caller.
	Retry *replayhttp.Retry
	// MaxBodyBytes bounds a request body; 0 means 32 MiB. A larger body is
	// answered with 413 and never sent.
	MaxBodyBytes int64
	// MaxInflightBytes bounds the memory the request bodies in flight
	// hold, all requests together; 0 means 1 GiB. A request counts four
	// times its (decoded) body, from its first byte read until the
	// upstream has it: the body, held once, and the working copies the
	// middleware makes while it reads, repairs and audits it. A request
	// that does not fit is answered with 503 and Retry-After.
	MaxInflightBytes int64
	// MaxStreams bounds the requests proxied at once (after their bodies
	// were read); 0 means 1024. One more is answered with 503 and a
	// Retry-After header.
	MaxStreams int
	// ReadTimeout bounds the time a client takes to send a request's body;
	// 0 means one minute. A slow client is answered with 408 and holds
	// only the bytes it sent meanwhile: no stream slot, no memory it did
	// not fill.
	ReadTimeout time.Duration
	// WriteTimeout bounds each write of an answer to the client; 0 means
	// one minute. A client that stops reading its stream is cut, and its
	// upstream request cancelled.
	WriteTimeout time.Duration
	// TracerProvider, when set, gets one span per proxied request (see
	// "Tracing" in the package documentation); nil means none.
	TracerProvider trace.TracerProvider
	// Version names the build in the replay_proxy_build_info metric and
	// the spans.
	Version string
	// StoreTimeout bounds each operation of a store outside the proxy's
	// memory (not a MemoryStore or a FileStore); 0 means 250ms.
	StoreTimeout time.Duration
	// StoreBackoff is how long a failing store is skipped before it is
	// tried again; 0 means one second.
	StoreBackoff time.Duration
	// Logger receives the JSON log lines; nil discards them. Headers and
	// query strings are never logged.
	Logger *slog.Logger
	// Transport sends the requests upstream; nil means a transport tuned
	// for many concurrent streams to few hosts, without compression (so
	// that the proxy reads the bytes the provider streams).
	Transport http.RoundTripper
	// Registry picks the codecs; nil means replay.Default().
	Registry *replay.Registry
	// Policy decides what a repaired message may carry to another issuer;
	// nil means replay.DefaultPolicy().
	Policy replay.Policy
	// Secret keys the tenant digests that scope what the store keeps (see
	// [replayhttp.Transport]): every proxy sharing a store needs the same
	// one. Nil means the store's own (a [FileStore] keeps one beside its
	// file), else a random secret for this process, which a store in its
	// memory needs no more than.
	Secret []byte
}

// Server is the proxy: an [http.Handler]. Create it with [New].
type Server struct {
	cfg    Config
	routes map[string]*upstream
	names  []string
	store  *guardedStore
	m      *metrics
	budget *budget
	sem    chan struct{}
	log    *slog.Logger
	tracer trace.Tracer
	rp     *httputil.ReverseProxy
	bufs   bufferPool
}

// upstream is a configured Upstream with what the proxy built for it.
type upstream struct {
	Upstream
	base     *url.URL
	provider string
	// codec is the API the upstream serves, for the errors the proxy
	// answers itself on a path no API reads (nil: OpenAI's shape).
	codec codecs.HTTPCodec
	// tr repairs, audits, captures and retries.
	tr  *replayhttp.Transport
	srv *Server
}

// New checks cfg and builds the server.
func New(cfg Config) (*Server, error) {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 32 << 20
	}
	if cfg.MaxStreams <= 0 {
		cfg.MaxStreams = 1024
	}
	if cfg.MaxInflightBytes <= 0 {
		cfg.MaxInflightBytes = 1 << 30
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = time.Minute
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = time.Minute
	}
	if cfg.Version == "" {
		cfg.Version = "(devel)"
	}
	if cfg.StoreTimeout <= 0 {
		cfg.StoreTimeout = 250 * time.Millisecond
	}
	if cfg.StoreBackoff <= 0 {
		cfg.StoreBackoff = time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Store == nil {
		cfg.Store = &replayhttp.MemoryStore{}
	}
	base := cfg.Transport
	if base == nil {
		base = newTransport()
	}
	if cfg.Registry == nil {
		cfg.Registry = replay.Default()
	}
	if len(cfg.Upstreams) == 0 {
		cfg.Upstreams = defaultUpstreams(cfg.Registry)
		if len(cfg.Upstreams) == 0 {
			return nil, &ConfigError{Where: "upstreams", Problem: "none configured, and no registered codec declares a public endpoint (import github.com/reasonreplay/replay/codecs/all)"}
		}
	}
	s := &Server{cfg: cfg, routes: map[string]*upstream{}, m: newMetrics(cfg.Version), log: cfg.Logger,
		sem: make(chan struct{}, cfg.MaxStreams)}
	s.budget = &budget{limit: cfg.MaxInflightBytes, g: s.m.inBytes}
	tp := cfg.TracerProvider
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	s.tracer = tp.Tracer("github.com/reasonreplay/replay/replayproxy", trace.WithInstrumentationVersion(cfg.Version))
	s.rp = &httputil.ReverseProxy{Rewrite: s.rewrite, Transport: routeTransport{}, FlushInterval: -1,
		BufferPool: &s.bufs, ModifyResponse: s.modifyResponse, ErrorHandler: s.proxyError,
		// The request's own log line says what went wrong, with its id.
		ErrorLog: log.New(io.Discard, "", 0)}
	s.store = &guardedStore{inner: cfg.Store, timeout: cfg.StoreTimeout, backoff: cfg.StoreBackoff, log: cfg.Logger, m: s.m}
	switch cfg.Store.(type) {
	case *replayhttp.MemoryStore, *FileStore:
		s.store.local = true
	}
	if sk, ok := cfg.Store.(interface{ SkippedEntries() uint64 }); ok {
		s.m.countSkipped(sk.SkippedEntries)
	}
	secret := cfg.Secret
	if len(secret) == 0 {
		if ss, ok := cfg.Store.(interface{ Secret() []byte }); ok {
			secret = ss.Secret()
		}
	}
	if len(secret) == 0 {
		secret = make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			return nil, err
		}
	}
	audit := [...]replayhttp.AuditMode{ModeOff: replayhttp.AuditOff, ModeReport: replayhttp.AuditReport, ModeEnforce: replayhttp.AuditRefuse}
	if int(cfg.Mode) >= len(audit) {
		return nil, &ConfigError{Where: "mode", Problem: cfg.Mode.String() + " is not a mode"}
	}
	lim := replay.Limits{MaxEvent: max(int(cfg.MaxBodyBytes), replay.Limits{}.WithDefaults().MaxEvent)}
	for _, u := range cfg.Upstreams {
		p, err := u.check()
		if err != nil {
			return nil, err
		}
		if s.routes[u.Name] != nil {
			return nil, &ConfigError{Where: "upstream " + u.Name, Problem: "configured twice"}
		}
		up := &upstream{Upstream: u, base: p, provider: u.provider(cfg.Registry), codec: upstreamCodec(cfg.Registry, u, p), srv: s}
		up.tr = &replayhttp.Transport{Base: base, Registry: cfg.Registry, Provider: up.provider, Limits: lim,
			Audit: audit[cfg.Mode], Store: s.store, Policy: cfg.Policy, Retry: cfg.Retry, Secret: secret,
			RefuseMalformed: claimsJSON}
		s.routes[u.Name] = up
		s.names = append(s.names, u.Name)
	}
	sort.Strings(s.names)
	return s, nil
}

// newTransport is the default upstream transport: keep-alive connections
// for many concurrent streams, no transparent compression.
func newTransport() *http.Transport {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
	}
}
