package replayhttp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
)

// AuditMode says what the middleware does with the audit of an outgoing
// request.
type AuditMode uint8

const (
	// AuditOff sends requests unaudited.
	AuditOff AuditMode = iota
	// AuditReport audits the request, reports the result (OnAudit, the
	// call's [Capture]) and sends it.
	AuditReport
	// AuditRefuse audits the request and, when a violation would make the
	// provider reject it, returns an *[AuditError] instead of sending it:
	// not a byte goes out. A turn that repair sent as captured is never
	// the reason: what the provider returned is what it is sent back.
	AuditRefuse
)

// AuditError is the error a request refused by the audit ([AuditRefuse])
// fails with. Report holds every violation.
type AuditError struct {
	// API is the API the request was read as.
	API string
	// Report is the audit of the request, with every violation.
	Report replay.Report
}

// Error names the first rejecting violation. The text is not API.
func (e *AuditError) Error() string {
	for _, v := range e.Report.Violations {
		if v.Severity == replay.SeverityReject {
			return "replayhttp: request refused before sending: " + e.API + ": " + v.Error()
		}
	}
	return "replayhttp: request refused before sending: " + e.API
}

// Unwrap returns the report's violations.
func (e *AuditError) Unwrap() error { return e.Report.Err() }

// Transport is an [http.RoundTripper] that reads the reasoning of every
// LLM call passing through it. For each request it recognises (a POST to
// a generation endpoint of an API some registered codec declares; see
// [codecs.Recognise]) it
//
//   - optionally repairs the request from Store, then audits it;
//   - tees the response body through the API's decoder as the caller
//     reads it, and delivers the turn of that request to OnTurn and to the
//     call's [Capture] when the body reaches EOF or is closed;
//   - puts every complete turn into Store, under the request's tenant and
//     conversation, for the next request.
//
// # Tenants and conversations
//
// What Store keeps belongs to one tenant and one point of one
// conversation. The tenant is a digest, keyed by Secret, of the upstream
// (the request's scheme and host) and of the caller: what Tenant returns,
// or else the credential the request carries where its API says (an API
// key header, a bearer token, an AWS access key id). A request that names
// no tenant is neither repaired from the store nor captured into it. The
// conversation is a chained digest of the request's visible content up to
// each model turn: the members the turn is bound to (system prompt,
// tools), then every earlier element, each model turn by its text and tool
// calls only (reasoning, signatures, item ids and cache markers left out,
// so that a client that dropped or damaged its reasoning still names its
// conversation). A lookup never crosses tenants, and two conversations
// share a key only when everything they showed up to that turn is the
// same.
//
// # Repair
//
// Each model turn of an outgoing request is compared with the turn
// captured at the same point of the same tenant's conversation, if its
// visible content is the capture's: whatever reasoning differs (an edited
// text, a truncated or altered signature or ciphertext, a deleted or
// missing item, an item out of place, a lost item id that pairs a
// reasoning item with its follower) is put back byte for byte, after
// [replay.Carry] for the request's target (a turn sent to another model or
// provider gets what the policy gives that target). A turn without a
// capture is judged by the request alone: only what the policy keeps from
// the target by origin is removed. Nothing is ever invented. The request
// body is rebuilt in one pass, then audited.
//
// Requests it does not recognise pass through untouched. The zero value
// sends with [http.DefaultTransport] and the [replay.Default] registry, and
// only captures. A Transport is safe for concurrent use; do not change its
// fields once it is in use.
type Transport struct {
	// Base sends the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	// Registry picks the codecs; nil means replay.Default (import
	// github.com/reasonreplay/replay/codecs/all to fill it).
	Registry *replay.Registry
	// Provider, when set, is the provider name used to resolve the codec
	// instead of the one the request's host implies (for a gateway or a
	// test server on another host).
	Provider string
	// Limits bound what the decoders keep; a JSON body is kept up to
	// Limits.MaxEvent, a request body read up to Limits.MaxEvent, and a
	// stored turn read back within the same limits.
	Limits replay.Limits
	// OnTurn, when set, receives each recognised request (its body already
	// consumed), the turn of its response and the error that came with it.
	// It is called once per response, from the goroutine that read the
	// body's end or closed it.
	OnTurn func(req *http.Request, t *replay.Turn, err error)
	// Audit says whether requests are audited before they are sent.
	Audit AuditMode
	// OnAudit, when set, receives the report of each audited request.
	OnAudit func(req *http.Request, r replay.Report)
	// Store, when set, keeps the turns captured and repairs outgoing
	// requests from them (see [Store] and "Repair" above).
	Store Store
	// Tenant, when set, names the tenant of a request (the caller's user
	// or account id) in place of the credential it carries; "" means the
	// request has none, and is neither repaired from nor captured into
	// Store.
	Tenant func(req *http.Request) string
	// Secret keys the tenant digests. Set it to the same value on every
	// process that shares a Store; nil means a random secret for this
	// Transport, which is enough for a store in its own memory.
	Secret []byte
	// Policy decides what a repaired message may get back when the
	// request goes to another issuer or model than the stored turn's (see
	// [replay.Carry]); nil means [replay.DefaultPolicy].
	Policy replay.Policy
	// OnRepair, when set, receives the repairs made to (or refused on)
	// each request.
	OnRepair func(req *http.Request, repairs []Repair)
	// Retry, when set, retries once a request the provider refused with
	// an error [Classify] recognises, with the classification's fix
	// applied, and applies the fixes that worked up front to the
	// conversation's next requests (see [Retry]). Nil means off.
	Retry *Retry

	secretOnce sync.Once
	randSecret []byte
}

func (t *Transport) registry() *replay.Registry {
	if t.Registry != nil {
		return t.Registry
	}
	return replay.Default
}

// RoundTrip implements [http.RoundTripper].
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	return t.Middleware(req, base.RoundTrip)
}

// call is one recognised request on its way through the middleware.
type call struct {
	codec  codecs.HTTPCodec
	rec    codecs.Recognised
	req    *codecs.Request // nil when the body did not read
	target replay.Target
	scope  scope
	// captured holds the turns (by index) that repair found a capture
	// of: they went out as captured, and a retry leaves them alone.
	captured map[int]bool
}

// read reads body as the call's API reads it, with what the URL says
// added to the target (the model Gemini and Bedrock name in the path, the
// provider the host names).
func (c *call) read(t *Transport, out *http.Request, body []byte) {
	c.req, c.target = nil, replay.Target{}
	r, err := c.codec.ReadRequest(body)
	if err != nil {
		return
	}
	c.req, c.target = r, r.Target
	if c.target.API == "" {
		c.target.API = c.codec.API()
	}
	if c.rec.Model != "" && c.target.Model == "" {
		c.target.Model = c.rec.Model
	}
	if c.target.Provider == "" {
		c.target.Provider = c.rec.Provider
	}
	c.scope.chain = chain(r)
}

// Middleware is the same logic as RoundTrip in the form the official SDKs
// take (openai-go's and anthropic-sdk-go's option.WithMiddleware): it
// sends the request with next. Base is not used.
func (t *Transport) Middleware(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	if req.Method != http.MethodPost || req.Body == nil || req.Body == http.NoBody {
		return next(req)
	}
	lim := t.Limits.WithDefaults()
	body, err := readBody(req, lim.MaxEvent)
	if err != nil {
		return nil, err
	}
	out := req.Clone(req.Context())
	setBody(out, body)
	model := ""
	if jsonw.ValidBytes(body) {
		model = gjson.GetBytes(body, "model").String()
	}
	rec, ok := codecs.Recognise(t.registry(), out.Method, out.URL, t.Provider, model)
	if !ok {
		return next(out)
	}
	ctx := req.Context()
	c := &call{codec: rec.Codec, rec: rec}
	c.scope.tenant = t.tenantOf(out, rec.Codec)
	c.read(t, out, body)
	capture := captureFrom(ctx)
	var repairs []Repair
	if t.Store != nil && c.req != nil {
		var fixed []byte
		fixed, repairs = t.repair(ctx, c)
		if !bytes.Equal(fixed, body) {
			body = fixed
			setBody(out, body)
			c.read(t, out, body)
		}
		if t.OnRepair != nil && len(repairs) > 0 {
			t.OnRepair(out, repairs)
		}
	}
	var retries []Retried
	if t.Retry != nil && c.req != nil {
		var fixed []byte
		fixed, retries = t.upfront(ctx, c, out)
		if !bytes.Equal(fixed, body) {
			body = fixed
			setBody(out, body)
			c.read(t, out, body)
		}
		if t.Retry.OnRetry != nil {
			for _, r := range retries {
				t.Retry.OnRetry(out, r)
			}
		}
	}
	var rep *replay.Report
	if t.Audit != AuditOff && c.req != nil {
		r := t.registry().AuditReplay(c.req.History, c.target)
		rep = &r
		if t.OnAudit != nil {
			t.OnAudit(out, r)
		}
	}
	if capture != nil {
		capture.setRequest(rep, repairs, retries)
	}
	if rep != nil && t.Audit == AuditRefuse && c.refuses(*rep) {
		err := &AuditError{API: c.codec.API(), Report: *rep}
		if capture != nil {
			capture.setTurn(nil, err)
		}
		return nil, err
	}
	resp, err := next(out)
	if err == nil && t.Retry != nil && resp.StatusCode >= 400 && c.req != nil {
		var r *Retried
		resp, body, r, err = t.retry(c, out, body, resp, next)
		if r != nil && capture != nil {
			capture.addRetry(*r)
		}
	}
	if err != nil {
		if capture != nil {
			capture.setTurn(nil, err)
		}
		return resp, err
	}
	key, keyed := Key{}, false
	if c.req != nil && c.scope.tenant != "" {
		key, keyed = c.scope.key(len(c.req.Elements)), true
	}
	finish := func(tu *replay.Turn, err error) {
		if err == nil && tu != nil && tu.Complete && t.Store != nil && keyed && hasItems(tu) {
			replay.Seal(tu)
			_ = t.Store.Put(context.WithoutCancel(ctx), key, tu.AppendJSON(nil))
		}
		if t.OnTurn != nil {
			t.OnTurn(out, tu, err)
		}
		if capture != nil {
			capture.setTurn(tu, err)
		}
	}
	resp.Body = newTeeBody(resp.Body, c.codec, resp.Header.Get("Content-Type"), rec.Array, resp.StatusCode, t.Limits, finish)
	return resp, nil
}

// refuses reports whether the audit of the call's request says the
// provider will reject it for a reason the store could not fix: a
// rejection at a turn repair sent as captured is not one (the capture is
// what the provider returned; refusing cannot do better), every other is.
func (c *call) refuses(r replay.Report) bool {
	for _, v := range r.Violations {
		if v.Severity == replay.SeverityReject && (v.Turn < 0 || !c.captured[v.Turn]) {
			return true
		}
	}
	return false
}

// hasItems reports whether a turn holds something worth keeping: a
// reasoning item or a compaction.
func hasItems(t *replay.Turn) bool { return carriesReasoning(t) }

// readBody reads a request body whole, up to max bytes, and closes it.
func readBody(req *http.Request, max int) ([]byte, error) {
	defer req.Body.Close()
	body, err := io.ReadAll(io.LimitReader(req.Body, int64(max)+1))
	if err != nil {
		return nil, fmt.Errorf("replayhttp: reading the request body: %w", err)
	}
	if len(body) > max {
		return nil, &replay.LimitError{What: "request size", Limit: max, Event: -1, Block: -1}
	}
	return body, nil
}

func setBody(req *http.Request, body []byte) {
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	req.ContentLength = int64(len(body))
	if req.Header.Get("Content-Length") != "" {
		req.Header.Set("Content-Length", strconv.Itoa(len(body)))
	}
}
