package replayproxy

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/replayhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// HeaderRequestID names a request in the proxy's log lines, its trace
// span and the upstream request: the client's own when it sent a usable
// one, else one the proxy mints; the response carries it back.
const HeaderRequestID = "X-Request-Id"

// Close closes the store when it holds resources (a file, a connection
// pool).
func (s *Server) Close() error { return s.store.Close() }

// Upstreams returns the upstreams the server forwards to, sorted by name.
func (s *Server) Upstreams() []Upstream {
	out := make([]Upstream, 0, len(s.names))
	for _, n := range s.names {
		out = append(out, s.routes[n].Upstream)
	}
	return out
}

// WriteMetrics writes the proxy's metrics in the Prometheus text format.
func (s *Server) WriteMetrics(w io.Writer) {
	rec := &bufferWriter{h: http.Header{}, w: w}
	promhttp.HandlerFor(s.m.reg, promhttp.HandlerOpts{}).ServeHTTP(rec, &http.Request{Method: http.MethodGet, Header: http.Header{}, URL: &url.URL{Path: "/metrics"}})
}

type bufferWriter struct {
	h http.Header
	w io.Writer
}

func (b *bufferWriter) Header() http.Header         { return b.h }
func (b *bufferWriter) Write(p []byte) (int, error) { return b.w.Write(p) }
func (b *bufferWriter) WriteHeader(int)             {}

// bufferPool lends the copy buffers of the streams.
type bufferPool struct{ p sync.Pool }

func (b *bufferPool) Get() []byte {
	if v, ok := b.p.Get().(*[]byte); ok {
		return *v
	}
	return make([]byte, 32<<10)
}

func (b *bufferPool) Put(p []byte) { b.p.Put(&p) }

// allowed are the methods the APIs use; every other (CONNECT, TRACE,
// OPTIONS, PUT, ...) is refused with 405 and never forwarded.
var allowed = map[string]bool{http.MethodGet: true, http.MethodHead: true, http.MethodPost: true,
	http.MethodPatch: true, http.MethodDelete: true}

const allowHeader = "GET, HEAD, POST, PATCH, DELETE"

// exchange is what the proxy knows of one request on its way: for its log
// lines, its metrics, its span and its headers.
type exchange struct {
	id         string
	start      time.Time
	log        *slog.Logger
	up         *upstream
	rest       string
	body       []byte
	bodyJSON   bool // body claims to be JSON: refused unless it is
	reserved   int64
	api, model string
	call       *replayhttp.Capture
	span       trace.Span

	status   int
	ttfb     time.Duration
	upStart  time.Time
	upEnd    time.Time
	bytes    int64
	refused  string
	rule     string
	retried  string
	upfront  string
	verdict  string
	rules    []string
	repairs  []replayhttp.Repair
	headers  http.Header // the X-Replay-* headers of the answer
	err      string
	readErr  error
	writeErr error
}

type exchangeKey struct{}

func exchangeOf(ctx context.Context) *exchange {
	x, _ := ctx.Value(exchangeKey{}).(*exchange)
	return x
}

// requestID returns the client's request id when it is usable (printable
// ASCII without spaces, at most 128 bytes), else a new one.
func requestID(h string) string {
	if h != "" && len(h) <= 128 {
		ok := true
		for i := 0; i < len(h) && ok; i++ {
			ok = h[i] > ' ' && h[i] < 0x7f
		}
		if ok {
			return h
		}
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ServeHTTP answers /livez, /healthz, /readyz and /metrics, and proxies
// every other request to the upstream its first path segment names.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/livez", "/healthz":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "ok\n")
		return
	case "/readyz":
		s.ready(w, r)
		return
	case "/metrics":
		promhttp.HandlerFor(s.m.reg, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}).ServeHTTP(w, r)
		return
	}
	x := &exchange{start: time.Now(), id: requestID(r.Header.Get(HeaderRequestID))}
	x.log = s.log.With("request_id", x.id)
	w.Header().Set(HeaderRequestID, x.id)
	defer s.finish(r, x)
	name, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if rest != "" {
		rest = "/" + rest
	}
	x.up, x.rest = s.routes[name], rest
	if !allowed[r.Method] {
		x.refused = "method"
		w.Header().Set("Allow", allowHeader)
		s.fail(w, x, http.StatusMethodNotAllowed, fmt.Sprintf("replay proxy: the method %s is not one the APIs use (%s)", r.Method, allowHeader))
		return
	}
	if x.up == nil {
		x.refused = "unknown_upstream"
		s.fail(w, x, http.StatusNotFound, fmt.Sprintf("replay proxy: no upstream is named %q; the path must start with one of /%s/",
			name, strings.Join(s.names, "/, /")))
		return
	}
	if strings.Contains(rest+"/", "/../") || strings.Contains(rest+"/", "/./") {
		x.refused = "bad_path"
		s.fail(w, x, http.StatusBadRequest, "replay proxy: the path has a dot segment")
		return
	}
	if !s.readBody(w, r, x) {
		return
	}
	select {
	case s.sem <- struct{}{}:
		defer func() { <-s.sem }()
	default:
		x.refused = "too_many_streams"
		w.Header().Set("Retry-After", "1")
		s.fail(w, x, http.StatusServiceUnavailable,
			fmt.Sprintf("replay proxy: %d requests are being proxied, the most it takes at once (--max-streams); retry shortly", s.cfg.MaxStreams))
		return
	}
	s.m.inFlight.Add(1)
	defer s.m.inFlight.Add(-1)
	s.forward(w, r, x)
}

// ready answers /readyz: 200 while the store answers, 503 while it does
// not (the proxy still serves, unrepaired).
func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if err := s.store.ready(r.Context()); err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, "store unavailable\n")
		return
	}
	_, _ = io.WriteString(w, "ok\n")
}

// readBody reads the request body (decoding its Content-Encoding) within
// the size limit, the memory budget and the read timeout, and refuses one
// that claims to be JSON and is not.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, x *exchange) bool {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return true
	}
	if r.ContentLength > s.cfg.MaxBodyBytes {
		x.refused = "too_large"
		s.fail(w, x, http.StatusRequestEntityTooLarge,
			fmt.Sprintf("replay proxy: the request body is larger than %d bytes (--max-body)", s.cfg.MaxBodyBytes))
		return false
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(s.cfg.ReadTimeout))
	body, reserved, err := readBody(r, s.cfg.MaxBodyBytes, s.budget)
	_ = rc.SetReadDeadline(time.Time{})
	x.reserved = reserved
	var ce *errCoding
	var ne interface{ Timeout() bool }
	switch {
	case err == nil:
	case errors.Is(err, errOverBudget):
		x.refused = "over_budget"
		w.Header().Set("Retry-After", "1")
		s.fail(w, x, http.StatusServiceUnavailable,
			fmt.Sprintf("replay proxy: the request bodies in flight hold the most memory the proxy gives them (%d bytes, --max-inflight-bytes); retry shortly", s.cfg.MaxInflightBytes))
		return false
	case errors.Is(err, errTooLarge):
		x.refused = "too_large"
		s.fail(w, x, http.StatusRequestEntityTooLarge,
			fmt.Sprintf("replay proxy: the request body is larger than %d bytes (--max-body)", s.cfg.MaxBodyBytes))
		return false
	case errors.As(err, &ce):
		x.refused = "bad_encoding"
		status := http.StatusBadRequest
		if strings.Contains(ce.msg, "is not one the proxy reads") {
			status = http.StatusUnsupportedMediaType
		}
		s.fail(w, x, status, "replay proxy: "+ce.msg)
		return false
	case errors.As(err, &ne) && ne.Timeout():
		x.refused = "slow_body"
		w.Header().Set("Connection", "close")
		s.fail(w, x, http.StatusRequestTimeout, fmt.Sprintf("replay proxy: the request body did not arrive within %v (--read-timeout)", s.cfg.ReadTimeout))
		return false
	case r.Context().Err() != nil:
		x.status, x.err = 499, "the client went away while sending the body"
		return false
	default:
		x.refused = "unreadable_body"
		s.fail(w, x, http.StatusBadRequest, "replay proxy: reading the request body: "+err.Error())
		return false
	}
	// A POST's body is checked by the middleware, in the pass that reads
	// it (Transport.RefuseMalformed); any other's here.
	if len(body) > 0 && claimsJSON(r) {
		if r.Method != http.MethodPost && !jsonw.ValidBytes(body) {
			s.malformed(w, x)
			return false
		}
		x.bodyJSON = true
	}
	x.body = body
	return true
}

// claimsJSON reports whether a request says its body is JSON.
func claimsJSON(r *http.Request) bool {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// malformed answers a request whose body claims to be JSON and is not.
func (s *Server) malformed(w http.ResponseWriter, x *exchange) {
	x.refused = "malformed_json"
	s.fail(w, x, http.StatusBadRequest, "replay proxy: the request body is not valid JSON; it was not sent")
}

// forward sends the request upstream through the middleware (by
// httputil.ReverseProxy) and streams the answer back.
func (s *Server) forward(w http.ResponseWriter, r *http.Request, x *exchange) {
	up := x.up
	// The API and the model, as the middleware will find them: the model
	// without a validating pass of its own, and, in a conversation one
	// exchange longer than one the middleware has read, without a pass
	// over the body at all (a body that claims to be JSON is refused
	// unless it is, before a byte is sent).
	target := *up.base
	target.Path = strings.TrimSuffix(target.Path, "/") + x.rest
	body := x.body
	if len(body) == 0 || !x.bodyJSON && !jsonw.ValidBytes(body) {
		body = nil
	}
	as := *r // as the middleware sees it: to the upstream
	as.URL = &target
	x.api, x.model, _ = up.tr.Recognise(&as, body)
	ctx := propagation.TraceContext{}.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	spanName := "chat"
	if x.model != "" {
		spanName += " " + x.model
	}
	ctx, x.span = s.tracer.Start(ctx, spanName, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.provider.name", up.provider),
		attribute.String("gen_ai.request.model", x.model),
		attribute.String("replay.api", x.api),
		attribute.String("replay.upstream", up.Name),
		attribute.String("replay.request_id", x.id),
		attribute.String("http.request.method", r.Method),
		attribute.String("server.address", up.base.Host),
	))
	ctx, x.call = replayhttp.WithCapture(ctx)
	ctx = context.WithValue(ctx, exchangeKey{}, x)
	in := r.WithContext(ctx)
	if x.body != nil {
		in.Body, in.ContentLength = &heldBody{Reader: newReader(x.body), b: x.body}, int64(len(x.body))
		in.Header = in.Header.Clone()
		in.Header.Del("Content-Encoding")
		in.Header.Set("Content-Length", strconv.Itoa(len(x.body)))
	} else {
		in.Body, in.ContentLength = http.NoBody, 0
	}
	s.rp.ServeHTTP(&clientWriter{ResponseWriter: w, x: x, timeout: s.cfg.WriteTimeout}, in)
}

// rewrite builds the upstream request: the upstream's URL with the rest
// of the path and the query, the client's headers (authentication
// included, untouched) without the hop-by-hop ones, Accept-Encoding
// narrowed to the codings the capture reads, and the request id.
func (s *Server) rewrite(pr *httputil.ProxyRequest) {
	x := exchangeOf(pr.In.Context())
	up := x.up
	u := *up.base
	u.Path = strings.TrimSuffix(u.Path, "/") + x.rest
	u.RawPath = ""
	if esc := pr.In.URL.EscapedPath(); esc != pr.In.URL.Path {
		_, escRest, _ := strings.Cut(strings.TrimPrefix(esc, "/"), "/")
		u.RawPath = strings.TrimSuffix(up.base.EscapedPath(), "/") + "/" + escRest
	}
	u.RawQuery = pr.In.URL.RawQuery
	pr.Out.URL = &u
	pr.Out.Host = ""
	h := pr.Out.Header
	if ae := acceptEncoding(h.Get("Accept-Encoding")); ae != "" {
		h.Set("Accept-Encoding", ae)
	} else {
		h.Del("Accept-Encoding")
	}
	h.Set(HeaderRequestID, x.id)
	propagation.TraceContext{}.Inject(pr.Out.Context(), propagation.HeaderCarrier(h))
	// net/http adds none when the header is present and empty.
	if _, ok := pr.In.Header["User-Agent"]; !ok {
		h["User-Agent"] = nil
	}
}

// routeTransport sends a request through its upstream's middleware, and
// records what the middleware did.
type routeTransport struct{}

func (routeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	x := exchangeOf(req.Context())
	s := x.server()
	x.upStart = time.Now()
	if x.body != nil {
		// httputil.ReverseProxy wraps the body; the middleware takes the
		// bytes the proxy holds as they are, without a copy.
		req.Body, req.ContentLength = &heldBody{Reader: newReader(x.body), b: x.body}, int64(len(x.body))
	}
	resp, err := x.up.tr.RoundTrip(req)
	// The upstream has the request: its body's memory goes back.
	s.budget.give(x.reserved)
	x.reserved = 0
	s.countRequest(x)
	if err != nil {
		return nil, err
	}
	if _, terr := x.call.Turn(); errors.As(terr, new(*replayhttp.AuditError)) {
		var ae *replayhttp.AuditError
		errors.As(terr, &ae)
		v, _ := firstReject(ae.Report)
		x.refused, x.rule = "audit", v.Rule
		s.m.inc(mRefused, "reason", "audit")
		x.log.Warn("request refused before sending", "upstream", x.up.Name, "rule", v.Rule, "pointer", v.Pointer, "fix", v.Fix)
		return resp, nil
	}
	s.countRetries(x, x.call.Retries())
	if resp.StatusCode >= 400 {
		s.upstreamError(x, resp)
	}
	return resp, nil
}

// server finds the exchange's server through its upstream's transport.
func (x *exchange) server() *Server { return x.up.srv }

// modifyResponse sets the proxy's headers on the answer (replacing any of
// the same names the upstream sent), makes a POST's answer chunked (so
// that the client sees its end only after the turn was stored), and
// watches its body.
func (s *Server) modifyResponse(resp *http.Response) error {
	x := exchangeOf(resp.Request.Context())
	for k := range resp.Header {
		if strings.HasPrefix(http.CanonicalHeaderKey(k), "X-Replay-") {
			delete(resp.Header, k)
		}
	}
	for k, v := range x.headers {
		resp.Header[k] = v
	}
	if x.rule != "" {
		resp.Header.Set(HeaderRefused, x.rule)
	}
	if x.retried != "" {
		resp.Header.Set(HeaderRetried, x.retried)
	}
	if x.upfront != "" {
		resp.Header.Set(HeaderUpfront, x.upfront)
	}
	resp.Header.Del(HeaderRequestID) // the answer carries the proxy's, set already
	if resp.Request.Method == http.MethodPost {
		resp.Header.Del("Content-Length")
		resp.ContentLength = -1
	}
	x.status = resp.StatusCode
	resp.Body = &watchedBody{ReadCloser: resp.Body, x: x}
	return nil
}

// watchedBody records how the upstream's answer ended.
type watchedBody struct {
	io.ReadCloser
	x *exchange
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		if b.x.upEnd.IsZero() {
			b.x.upEnd = time.Now()
		}
		if err != io.EOF && b.x.readErr == nil {
			b.x.readErr = err
		}
	}
	return n, err
}

// proxyError answers a request the upstream could not be asked: the
// client went away (nothing to answer), or the upstream could not be
// reached (a 502 in the provider's shape).
func (s *Server) proxyError(w http.ResponseWriter, r *http.Request, err error) {
	x := exchangeOf(r.Context())
	if errors.Is(err, replayhttp.ErrMalformedBody) {
		x.model = ""
		s.malformed(w, x)
		return
	}
	if r.Context().Err() != nil {
		x.status, x.err = 499, "the client went away before the upstream answered"
		return
	}
	s.m.inc(mUpstreamErrors, "upstream", x.up.Name, "status", "transport", "rule", "unknown")
	x.err = err.Error()
	s.fail(w, x, http.StatusBadGateway, "replay proxy: the upstream "+x.up.Name+" could not be reached: "+err.Error())
}

// clientWriter writes the answer to the client: each write within the
// write timeout, the first byte's time and the bytes counted.
type clientWriter struct {
	http.ResponseWriter
	x       *exchange
	timeout time.Duration
	rc      *http.ResponseController
}

func (c *clientWriter) Write(p []byte) (int, error) {
	if c.rc == nil {
		c.rc = http.NewResponseController(c.ResponseWriter)
	}
	_ = c.rc.SetWriteDeadline(time.Now().Add(c.timeout))
	if c.x.ttfb == 0 && len(p) > 0 {
		c.x.ttfb = time.Since(c.x.start)
	}
	n, err := c.ResponseWriter.Write(p)
	c.x.bytes += int64(n)
	if err != nil && c.x.writeErr == nil {
		c.x.writeErr = err
	}
	return n, err
}

func (c *clientWriter) Flush() {
	if c.rc == nil {
		c.rc = http.NewResponseController(c.ResponseWriter)
	}
	_ = c.rc.Flush()
}

func (c *clientWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// countRequest counts the audit and the repairs of a request and keeps
// the headers that report them.
func (s *Server) countRequest(x *exchange) {
	report, audited := x.call.Report()
	x.repairs = x.call.Repairs()
	x.headers = http.Header{}
	if audited {
		x.verdict = verdictOf(report)
		s.m.inc(mAudits, "verdict", x.verdict)
		seen := map[string]bool{}
		for _, v := range report.Violations {
			s.m.inc(mViolations, "rule", v.Rule, "verdict", string(v.Severity))
			if !seen[v.Rule] {
				seen[v.Rule] = true
				x.rules = append(x.rules, v.Rule)
			}
		}
		hv := x.verdict
		if len(x.rules) > 0 {
			hv += " " + strings.Join(x.rules, ",")
			if s.cfg.Mode == ModeReport {
				x.log.Warn("audit", "upstream", x.up.Name, "verdict", x.verdict, "rules", x.rules)
			}
		}
		x.headers.Set(HeaderAudit, hv)
	}
	if len(x.repairs) > 0 {
		x.headers.Set(HeaderRepairs, repairCounts(x.repairs))
		for _, rp := range x.repairs {
			s.m.inc(mRepairs, "kind", string(rp.Action))
		}
		x.log.Info("repaired", "upstream", x.up.Name, "repairs", repairStrings(x.repairs))
	}
}

// repairCounts renders repairs by action ("restored=2 ambiguous=1").
func repairCounts(rs []replayhttp.Repair) string {
	counts := map[replayhttp.RepairAction]int{}
	for _, rp := range rs {
		counts[rp.Action]++
	}
	var parts []string
	for _, a := range []replayhttp.RepairAction{replayhttp.RepairRestored, replayhttp.RepairRemoved,
		replayhttp.RepairAmbiguous, replayhttp.RepairMismatch, replayhttp.RepairFailed, replayhttp.RepairStoreError, replayhttp.RepairSet} {
		if counts[a] > 0 {
			parts = append(parts, string(a)+"="+strconv.Itoa(counts[a]))
		}
	}
	return strings.Join(parts, " ")
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
func (s *Server) countRetries(x *exchange, retries []replayhttp.Retried) {
	var upfront []string
	for _, rt := range retries {
		c := rt.Class
		switch {
		case rt.Upfront:
			s.m.inc(mUpfront, "rule", c.Rule, "fix", string(c.Fix))
			x.log.Info("fix applied up front", "upstream", x.up.Name, "rule", c.Rule, "fix", string(c.Fix), "changes", repairStrings(rt.Changes))
			upfront = append(upfront, string(c.Fix)+" "+c.Rule)
		case rt.Err != nil:
			x.log.Warn("retry failed", "upstream", x.up.Name, "rule", c.Rule, "fix", string(c.Fix), "error", rt.Err.Error())
		default:
			s.countUpstreamError(x, rt.Status, c)
			x.retried = string(c.Fix) + " " + c.Rule
			s.m.inc(mRetries, "rule", c.Rule, "fix", string(c.Fix))
		}
	}
	x.upfront = strings.Join(upfront, ", ")
}

// upstreamError classifies an error answer from its first MiB (decoded),
// counts it and puts the bytes read back in front of the body.
func (s *Server) upstreamError(x *exchange, resp *http.Response) {
	head, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	s.countUpstreamError(x, resp.StatusCode, replayhttp.ClassifyWith(s.cfg.Registry, x.api, resp.StatusCode, decodedHead(resp.Header, head)))
	resp.Body = readCloser{io.MultiReader(newReader(head), resp.Body), resp.Body}
}

// countUpstreamError counts an error answer by status and rule, and logs
// it when Classify knows it.
func (s *Server) countUpstreamError(x *exchange, status int, c replayhttp.Classification) {
	rule := c.Rule
	if rule == "" {
		rule = "unknown"
	}
	s.m.inc(mUpstreamErrors, "upstream", x.up.Name, "status", strconv.Itoa(status), "rule", rule)
	if c.Known() {
		x.log.Info("upstream error classified", "upstream", x.up.Name, "status", status, "rule", c.Rule, "fix", string(c.Fix), "pointer", c.Pointer)
	}
}

type readCloser struct {
	io.Reader
	io.Closer
}

// fail answers the client with a provider-shaped error of the proxy's own.
func (s *Server) fail(w http.ResponseWriter, x *exchange, status int, msg string) {
	if x.refused != "" {
		s.m.inc(mRefused, "reason", x.refused)
	}
	x.status = status
	if x.err == "" {
		x.err = msg
	}
	// The shape is found only for an answer of the proxy's own.
	writeError(w, s.shape(x.up, x.rest), status, msg)
}

// finish ends a request: its budget returned, its turn counted, its
// timings observed, its span ended and its log line written (with the
// request id, the model, the verdict, this request's repairs and the
// timings). It never logs headers or the query string. A stream cut
// mid-way (the handler aborted) is told apart: the client went away, or
// the upstream failed.
func (s *Server) finish(r *http.Request, x *exchange) {
	p := recover()
	s.budget.give(x.reserved)
	x.reserved = 0
	if p != nil {
		switch {
		case x.writeErr != nil || r.Context().Err() != nil:
			x.err = "the client went away mid-response"
		case x.readErr != nil:
			x.err = "the upstream failed mid-response: " + x.readErr.Error()
			s.m.inc(mUpstreamErrors, "upstream", x.up.Name, "status", "reset", "rule", "unknown")
		default:
			x.err = fmt.Sprint("the response was cut: ", p)
		}
	} else if x.writeErr != nil {
		x.err = "the client went away mid-response: " + x.writeErr.Error()
	}
	up := "none"
	if x.up != nil {
		up = x.up.Name
	}
	took := time.Since(x.start)
	if x.call != nil {
		if tu, terr := x.call.Turn(); !errors.Is(terr, replayhttp.ErrPending) && tu != nil && tu.Provenance.API != "" {
			s.m.inc(mTurns, "upstream", up, "api", tu.Provenance.API, "complete", strconv.FormatBool(terr == nil && tu.Complete))
		}
	}
	s.m.inc(mRequests, "upstream", up, "status", strconv.Itoa(x.status))
	var upTook time.Duration
	if !x.upStart.IsZero() {
		end := x.upEnd
		if end.IsZero() {
			end = time.Now()
		}
		upTook = end.Sub(x.upStart)
	}
	if x.up != nil {
		api := x.api
		if api == "" {
			api = "none"
		}
		s.m.observe(up, api, x.model, took, x.ttfb, upTook)
	}
	attrs := []any{"method", r.Method, "path", r.URL.Path, "upstream", up, "status", x.status,
		"duration_ms", ms(took), "bytes", x.bytes}
	if x.api != "" {
		attrs = append(attrs, "api", x.api)
	}
	if x.model != "" {
		attrs = append(attrs, "model", x.model)
	}
	if x.ttfb > 0 {
		attrs = append(attrs, "ttfb_ms", ms(x.ttfb))
	}
	if upTook > 0 {
		attrs = append(attrs, "upstream_ms", ms(upTook))
	}
	if x.verdict != "" {
		attrs = append(attrs, "verdict", x.verdict)
	}
	if len(x.repairs) > 0 {
		attrs = append(attrs, "repairs", repairCounts(x.repairs))
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
	x.log.Log(r.Context(), level, "request", attrs...)
	if x.span != nil {
		x.span.SetAttributes(attribute.Int("http.response.status_code", x.status),
			attribute.String("replay.audit.verdict", x.verdict),
			attribute.StringSlice("replay.audit.rules", x.rules),
			attribute.Int("replay.repairs", len(x.repairs)),
			attribute.StringSlice("replay.repair.actions", repairActions(x.repairs)))
		if x.refused != "" {
			x.span.SetAttributes(attribute.String("replay.refused", x.refused))
		}
		if x.rule != "" {
			x.span.SetAttributes(attribute.String("replay.refused.rule", x.rule))
		}
		if x.retried != "" {
			x.span.SetAttributes(attribute.String("replay.retried", x.retried))
		}
		if x.status >= 500 || x.err != "" && x.status != http.StatusBadRequest {
			x.span.SetStatus(codes.Error, x.err)
		}
		x.span.End()
	}
	if p != nil {
		panic(p)
	}
}

func repairActions(rs []replayhttp.Repair) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r.Action)
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// shape returns the error shape for a request to rest on up (nil: to no
// upstream): that of the API the path is a request of, as the upstream's
// provider answers, else that of the API the upstream serves.
func (s *Server) shape(up *upstream, rest string) errorShape {
	u := &url.URL{Path: rest}
	provider := ""
	if up != nil {
		v := *up.base
		v.Path = strings.TrimSuffix(v.Path, "/") + rest
		u, provider = &v, up.provider
	}
	if rec, ok := codecs.Recognise(s.cfg.Registry, http.MethodPost, u, provider, ""); ok {
		return errorShape{codec: rec.Codec, provider: rec.Provider}
	}
	if up == nil {
		return errorShape{}
	}
	return errorShape{codec: up.codec, provider: up.provider}
}

// newReader reads b.
func newReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
