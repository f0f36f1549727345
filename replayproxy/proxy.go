package replayproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"crypto/rand"
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/replayhttp"
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

// ParseMode reads "off", "report" or "enforce".
func ParseMode(s string) (Mode, error) {
	for i, n := range modeNames {
		if n == s {
			return Mode(i), nil
		}
	}
	return 0, &ConfigError{Where: "--mode " + s, Problem: "want off, report or enforce"}
}

// Config configures a [Server]. Only Upstreams is required.
type Config struct {
	// Upstreams are the providers requests are forwarded to, by the first
	// segment of the request's path.
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
	// MaxStreams bounds the requests proxied at once; 0 means 1024. One
	// more is answered with 503 and a Retry-After header.
	MaxStreams int
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
	// Registry picks the codecs; nil means replay.Default.
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
	sem    chan struct{}
	log    *slog.Logger
	bufs   sync.Pool
}

// upstream is a configured Upstream with what the proxy built for it.
type upstream struct {
	Upstream
	base  *url.URL
	shape string
	// tr repairs, audits, captures and retries.
	tr *replayhttp.Transport
}

// New checks cfg and builds the server.
func New(cfg Config) (*Server, error) {
	if len(cfg.Upstreams) == 0 {
		return nil, &ConfigError{Where: "upstreams", Problem: "none configured"}
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 32 << 20
	}
	if cfg.MaxStreams <= 0 {
		cfg.MaxStreams = 1024
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
	s := &Server{cfg: cfg, routes: map[string]*upstream{}, m: newMetrics(), log: cfg.Logger,
		sem: make(chan struct{}, cfg.MaxStreams)}
	s.bufs.New = func() any { b := make([]byte, 32<<10); return &b }
	s.store = &guardedStore{inner: cfg.Store, timeout: cfg.StoreTimeout, backoff: cfg.StoreBackoff, log: cfg.Logger, m: s.m}
	switch cfg.Store.(type) {
	case *replayhttp.MemoryStore, *FileStore:
		s.store.local = true
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
		up := &upstream{Upstream: u, base: p, shape: errorShapes[u.provider()]}
		if up.shape == "" {
			up.shape = "openai"
		}
		up.tr = &replayhttp.Transport{Base: base, Registry: cfg.Registry, Provider: u.provider(), Limits: lim,
			Audit: audit[cfg.Mode], Store: s.store, Policy: cfg.Policy, Retry: cfg.Retry, Secret: secret}
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

// Close closes the store when it holds resources (a file, a connection
// pool).
func (s *Server) Close() error { return s.store.Close() }

// WriteMetrics writes the proxy's metrics in the Prometheus text format.
func (s *Server) WriteMetrics(w io.Writer) { s.m.writeTo(w) }

// hopHeaders are the headers that belong to one connection, not to the
// request (RFC 9110, section 7.6.1).
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func removeHop(h http.Header) {
	for _, f := range h.Values("Connection") {
		for _, name := range strings.Split(f, ",") {
			h.Del(strings.TrimSpace(name))
		}
	}
	for _, name := range hopHeaders {
		h.Del(name)
	}
}

// exchange is what the proxy records of one request for its log line and
// metrics.
type exchange struct {
	start   time.Time
	up      string
	status  int
	ttfb    time.Duration
	bytes   int64
	refused string
	retried string
	err     string
}

// ServeHTTP answers /healthz and /metrics, and proxies every other request
// to the upstream its first path segment names.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/healthz":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "ok\n")
		return
	case "/metrics":
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		s.m.writeTo(w)
		return
	}
	x := &exchange{start: time.Now()}
	defer s.logExchange(r, x)
	name, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	up := s.routes[name]
	if up == nil {
		x.refused = "unknown_upstream"
		s.fail(w, x, "openai", http.StatusNotFound, fmt.Sprintf("replay proxy: no upstream is named %q; the path must start with one of /%s/",
			name, strings.Join(s.names, "/, /")))
		return
	}
	x.up = up.Name
	if rest != "" {
		rest = "/" + rest
	}
	if strings.Contains(rest+"/", "/../") || strings.Contains(rest+"/", "/./") {
		x.refused = "bad_path"
		s.fail(w, x, up.shape, http.StatusBadRequest, "replay proxy: the path has a dot segment")
		return
	}
	select {
	case s.sem <- struct{}{}:
		defer func() { <-s.sem }()
	default:
		x.refused = "too_many_streams"
		w.Header().Set("Retry-After", "1")
		s.fail(w, x, up.shape, http.StatusServiceUnavailable,
			fmt.Sprintf("replay proxy: %d requests are being proxied, the most it takes at once (--max-streams); retry shortly", s.cfg.MaxStreams))
		return
	}
	s.m.inFlight.Add(1)
	defer s.m.inFlight.Add(-1)

	body, ok := s.readBody(w, r, x, up)
	if !ok {
		return
	}
	s.forward(w, r, x, up, rest, body)
}

// readBody reads the request body within the size limit and refuses one
// that claims to be JSON and is not.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, x *exchange, up *upstream) ([]byte, bool) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, true
	}
	tooLarge := func() ([]byte, bool) {
		x.refused = "too_large"
		s.fail(w, x, up.shape, http.StatusRequestEntityTooLarge,
			fmt.Sprintf("replay proxy: the request body is larger than %d bytes (--max-body)", s.cfg.MaxBodyBytes))
		return nil, false
	}
	if r.ContentLength > s.cfg.MaxBodyBytes {
		return tooLarge()
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return tooLarge()
	}
	if err != nil {
		x.refused = "unreadable_body"
		s.fail(w, x, up.shape, http.StatusBadRequest, "replay proxy: reading the request body: "+err.Error())
		return nil, false
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); len(body) > 0 &&
		(mt == "application/json" || strings.HasSuffix(mt, "+json")) && !jsonw.ValidBytes(body) {
		x.refused = "malformed_json"
		s.fail(w, x, up.shape, http.StatusBadRequest, "replay proxy: the request body is not valid JSON; it was not sent")
		return nil, false
	}
	return body, true
}

// outgoing builds the upstream request: the upstream's URL with the rest
// of the path and the query, the client's headers (authentication
// included, untouched) without the hop-by-hop ones and without
// Accept-Encoding, so that the provider streams plain bytes.
func (s *Server) outgoing(ctx context.Context, r *http.Request, up *upstream, rest string, body []byte) (*http.Request, error) {
	u := *up.base
	u.Path = strings.TrimSuffix(u.Path, "/") + rest
	u.RawPath = ""
	if esc := r.URL.EscapedPath(); esc != r.URL.Path {
		_, escRest, _ := strings.Cut(strings.TrimPrefix(esc, "/"), "/")
		u.RawPath = strings.TrimSuffix(up.base.EscapedPath(), "/") + "/" + escRest
	}
	u.RawQuery = r.URL.RawQuery
	var rd io.Reader
	if body != nil {
		rd = strings.NewReader(string(body))
	}
	out, err := http.NewRequestWithContext(ctx, r.Method, u.String(), rd)
	if err != nil {
		return nil, err
	}
	out.Header = r.Header.Clone()
	removeHop(out.Header)
	out.Header.Del("Accept-Encoding")
	if body == nil {
		out.Body, out.ContentLength = http.NoBody, 0
	}
	return out, nil
}

// forward sends the request upstream through the middleware and streams
// the answer back.
func (s *Server) forward(w http.ResponseWriter, r *http.Request, x *exchange, up *upstream, rest string, body []byte) {
	ctx, call := replayhttp.WithCapture(r.Context())
	out, err := s.outgoing(ctx, r, up, rest, body)
	if err != nil {
		x.refused = "bad_request"
		s.fail(w, x, up.shape, http.StatusBadRequest, "replay proxy: "+err.Error())
		return
	}
	resp, err := up.tr.RoundTrip(out)
	report, audited := call.Report()
	repairs := call.Repairs()
	s.countRequest(w, up, report, audited, repairs)
	var ae *replayhttp.AuditError
	switch {
	case errors.As(err, &ae):
		v, _ := firstReject(ae.Report)
		msg := v.Predicted
		if msg == "" {
			msg = "replay proxy: the provider would reject this request: " + v.Message
		}
		x.refused = "audit"
		s.m.inc(mRefused, "reason", "audit")
		s.log.Warn("request refused before sending", "upstream", up.Name, "rule", v.Rule, "pointer", v.Pointer, "fix", v.Fix)
		x.status = http.StatusBadRequest
		writeError(w, up.shape, http.StatusBadRequest, msg, &refusal{Rule: v.Rule, Pointer: v.Pointer, Message: v.Message, Fix: v.Fix})
		return
	case err != nil && r.Context().Err() != nil:
		x.status, x.err = 499, "the client went away before the upstream answered"
		return
	case err != nil:
		s.m.inc(mUpstreamErrors, "upstream", up.Name, "status", "transport", "rule", "unknown")
		x.err = err.Error()
		s.fail(w, x, up.shape, http.StatusBadGateway, "replay proxy: the upstream "+up.Name+" could not be reached: "+err.Error())
		return
	}
	s.countRetries(x, up, resp, call.Retries())
	if resp.StatusCode >= 400 {
		s.upstreamError(up, resp)
	}
	defer func() { // also when stream aborts the response
		if tu, terr := call.Turn(); !errors.Is(terr, replayhttp.ErrPending) && tu != nil && tu.Provenance.API != "" {
			s.m.inc(mTurns, "upstream", up.Name, "api", tu.Provenance.API, "complete", strconv.FormatBool(terr == nil && tu.Complete))
		}
	}()
	s.stream(w, r, x, up, resp)
}

// countRequest counts the audit and the repairs of a request and reports
// them in the response headers.
func (s *Server) countRequest(w http.ResponseWriter, up *upstream, report replay.Report, audited bool, repairs []replayhttp.Repair) {
	if audited {
		verdict := verdictOf(report)
		s.m.inc(mAudits, "verdict", verdict)
		var rules []string
		seen := map[string]bool{}
		for _, v := range report.Violations {
			s.m.inc(mViolations, "rule", v.Rule, "verdict", string(v.Severity))
			if !seen[v.Rule] {
				seen[v.Rule] = true
				rules = append(rules, v.Rule)
			}
		}
		hv := verdict
		if len(rules) > 0 {
			hv += " " + strings.Join(rules, ",")
			if s.cfg.Mode == ModeReport {
				s.log.Warn("audit", "upstream", up.Name, "verdict", verdict, "rules", rules)
			}
		}
		w.Header().Set(HeaderAudit, hv)
	}
	if len(repairs) > 0 {
		counts := map[replayhttp.RepairAction]int{}
		for _, rp := range repairs {
			counts[rp.Action]++
			s.m.inc(mRepairs, "kind", string(rp.Action))
		}
		var parts []string
		for _, a := range []replayhttp.RepairAction{replayhttp.RepairRestored, replayhttp.RepairRemoved,
			replayhttp.RepairAmbiguous, replayhttp.RepairMismatch, replayhttp.RepairFailed, replayhttp.RepairStoreError} {
			if counts[a] > 0 {
				parts = append(parts, string(a)+"="+strconv.Itoa(counts[a]))
			}
		}
		w.Header().Set(HeaderRepairs, strings.Join(parts, " "))
		s.log.Info("repaired", "upstream", up.Name, "repairs", repairStrings(repairs))
	}
}

func repairStrings(rs []replayhttp.Repair) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.String()
	}
	return out
}

// verdictOf names a report's worst severity, or "clean".
func verdictOf(r replay.Report) string {
	worst := "clean"
	rank := map[string]int{"clean": 0, string(replay.SeverityRisk): 1, string(replay.SeverityDegrade): 2, string(replay.SeverityReject): 3}
	for _, v := range r.Violations {
		if rank[string(v.Severity)] > rank[worst] {
			worst = string(v.Severity)
		}
	}
	return worst
}

// countRetries counts and logs the fixes the retry applied to a request:
// up front, from the conversation's remembered decision (named in the
// X-Replay-Upfront header), and after the upstream refused it (the
// refusal counted as an upstream error, the retry named in the
// X-Replay-Retried header). A retry that could not be sent is logged; the
// client gets the refusal.
func (s *Server) countRetries(x *exchange, up *upstream, resp *http.Response, retries []replayhttp.Retried) {
	var upfront []string
	for _, rt := range retries {
		c := rt.Class
		switch {
		case rt.Upfront:
			s.m.inc(mUpfront, "rule", c.Rule, "fix", string(c.Fix))
			s.log.Info("fix applied up front", "upstream", up.Name, "rule", c.Rule, "fix", string(c.Fix), "changes", repairStrings(rt.Changes))
			upfront = append(upfront, string(c.Fix)+" "+c.Rule)
		case rt.Err != nil:
			s.log.Warn("retry failed", "upstream", up.Name, "rule", c.Rule, "fix", string(c.Fix), "error", rt.Err.Error())
		default:
			s.countUpstreamError(up, rt.Status, c)
			x.retried = string(c.Fix) + " " + c.Rule
			s.m.inc(mRetries, "rule", c.Rule, "fix", string(c.Fix))
			resp.Header.Set(HeaderRetried, x.retried)
		}
	}
	if len(upfront) > 0 {
		resp.Header.Set(HeaderUpfront, strings.Join(upfront, ", "))
	}
}

// upstreamError classifies an error answer from its first MiB, counts it
// and puts the bytes read back in front of the body.
func (s *Server) upstreamError(up *upstream, resp *http.Response) {
	head, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	s.countUpstreamError(up, resp.StatusCode, replayhttp.Classify(resp.StatusCode, head))
	resp.Body = readCloser{io.MultiReader(strings.NewReader(string(head)), resp.Body), resp.Body}
}

// countUpstreamError counts an error answer by status and rule, and logs
// it when Classify knows it.
func (s *Server) countUpstreamError(up *upstream, status int, c replayhttp.Classification) {
	rule := c.Rule
	if rule == "" {
		rule = "unknown"
	}
	s.m.inc(mUpstreamErrors, "upstream", up.Name, "status", strconv.Itoa(status), "rule", rule)
	if c.Known() {
		s.log.Info("upstream error classified", "upstream", up.Name, "status", status, "rule", c.Rule, "fix", string(c.Fix), "pointer", c.Pointer)
	}
}

type readCloser struct {
	io.Reader
	io.Closer
}

// stream writes the upstream's answer to the client as it arrives: each
// read is written and flushed at once (an SSE event is never held back).
// An upstream that fails mid-stream makes the proxy abort the client's
// response, so that the client sees the error too.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, x *exchange, up *upstream, resp *http.Response) {
	defer resp.Body.Close()
	h := w.Header()
	for k, v := range resp.Header {
		h[k] = v
	}
	removeHop(h)
	if r.Method == http.MethodPost {
		// Chunked: the client sees the end of the body only once the
		// handler has returned, after the turn was stored.
		h.Del("Content-Length")
	}
	x.status = resp.StatusCode
	w.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(w)
	bp := s.bufs.Get().(*[]byte)
	defer s.bufs.Put(bp)
	buf := *bp
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if x.ttfb == 0 {
				x.ttfb = time.Since(x.start)
			}
			if _, werr := w.Write(buf[:n]); werr != nil {
				x.err = "the client went away mid-response: " + werr.Error()
				return
			}
			_ = rc.Flush()
			x.bytes += int64(n)
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			if r.Context().Err() != nil {
				x.err = "the client went away mid-response"
				return
			}
			x.err = "the upstream failed mid-response: " + err.Error()
			s.m.inc(mUpstreamErrors, "upstream", up.Name, "status", "reset", "rule", "unknown")
			resp.Body.Close()
			s.logExchange(r, x)
			x.up = "" // logged
			panic(http.ErrAbortHandler)
		}
	}
}

// fail answers the client with a provider-shaped error of the proxy's own.
func (s *Server) fail(w http.ResponseWriter, x *exchange, shape string, status int, msg string) {
	if x.refused != "" {
		s.m.inc(mRefused, "reason", x.refused)
	}
	x.status = status
	if x.err == "" {
		x.err = msg
	}
	writeError(w, shape, status, msg, nil)
}

// logExchange writes the request's log line and counts it. It never logs
// headers or the query string.
func (s *Server) logExchange(r *http.Request, x *exchange) {
	if x.up == "" && x.refused == "" && x.status == 0 {
		return
	}
	up := x.up
	if up == "" {
		up = "none"
	}
	s.m.inc(mRequests, "upstream", up, "status", strconv.Itoa(x.status))
	attrs := []any{"method", r.Method, "path", r.URL.Path, "upstream", up, "status", x.status,
		"duration_ms", float64(time.Since(x.start).Microseconds()) / 1000, "bytes", x.bytes}
	if x.ttfb > 0 {
		attrs = append(attrs, "ttfb_ms", float64(x.ttfb.Microseconds())/1000)
	}
	if x.refused != "" {
		attrs = append(attrs, "refused", x.refused)
	}
	if x.retried != "" {
		attrs = append(attrs, "retried", x.retried)
	}
	level := slog.LevelInfo
	if x.err != "" {
		attrs = append(attrs, "error", x.err)
		if x.status >= 500 || x.status == 0 || x.status == 200 {
			level = slog.LevelWarn
		}
	}
	s.log.Log(r.Context(), level, "request", attrs...)
	x.status, x.up, x.refused = 0, "", ""
}
