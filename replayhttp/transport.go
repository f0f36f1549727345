package replayhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/own"
	"github.com/reasonreplay/replay/internal/readafter"
	"github.com/reasonreplay/replay/internal/view"
)

// AuditMode says what the middleware does with the audit of an outgoing
// request.
type AuditMode uint8

const (
	// AuditOff sends requests unaudited.
	AuditOff AuditMode = iota
	// AuditReport audits the request, reports the result (the call's
	// [Capture]) and sends it.
	AuditReport
	// AuditRefuse audits the request and, when a violation would make the
	// provider reject it, answers it without sending it (not a byte goes
	// out): a 400 response in the provider's own error shape (see
	// [codecs.HTTP].ErrorBody), with the text the provider would have sent
	// and a "replay" member holding the rule id, the place and the fix. An
	// SDK reads it as the provider's own refusal (its typed API error,
	// never retried); the call's [Capture] holds the *[AuditError]. A turn
	// that repair sent as captured is never the reason: what the provider
	// returned is what it is sent back.
	AuditRefuse
)

// AuditError is why the audit refused a request ([AuditRefuse]): the
// call's [Capture.Turn] returns it. Report holds every violation.
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
//     reads it, and completes the call's [Capture] (and calls OnCapture)
//     when the body reaches EOF or is closed;
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
	// Registry picks the codecs; nil means replay.Default() (import
	// github.com/reasonreplay/replay/codecs/all to fill it).
	Registry *replay.Registry
	// Provider, when set, is the provider name used to resolve the codec
	// instead of the one the request's host implies (for a gateway or a
	// test server on another host).
	Provider string
	// Limits bound what the decoders keep; a JSON body is kept up to
	// Limits.MaxEvent, a request body read up to Limits.MaxEvent, and a
	// stored turn read back within the same limits. A request body whose
	// type has a Bytes method returning all of it, unread, is used as it
	// is, without a copy.
	Limits replay.Limits
	// OnCapture, when set, receives every call once it is done (its
	// response body read to the end or closed, or the call refused or
	// failed before a response): the request as the caller made it, and a
	// Capture of that call alone (its turn, audit report, repairs and
	// retries; Done is closed). It is called from the goroutine that ended
	// the call. A call's context may carry a Capture of its own
	// ([WithCapture]) as well: both are filled.
	OnCapture func(req *http.Request, c *Capture)
	// Audit says whether requests are audited before they are sent.
	Audit AuditMode
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
	// Retry, when set, retries once a request the provider refused with
	// an error [Classify] recognises, with the classification's fix
	// applied, and applies the fixes that worked up front to the
	// conversation's next requests (see [Retry]). Nil means off.
	Retry *Retry
	// RefuseMalformed, when set, says which POST requests with a body are
	// refused when the body is not valid JSON: their call fails with an
	// error wrapping [ErrMalformedBody] before a byte is sent. The body is
	// checked in the pass that reads it (a proxy that refuses malformed
	// bodies needs no pass of its own). Nil sends every body as it is.
	RefuseMalformed func(req *http.Request) bool

	secretOnce sync.Once
	randSecret []byte
	docs       storedCache // the stored documents repair read, by their bytes
	chains     chainCache  // the chain states of recent requests, by tenant
	tapes      tapeCache   // the tapes of recent request bodies, by tenant
	codecsSeen atomic.Bool
}

func (t *Transport) registry() *replay.Registry {
	if t.Registry != nil {
		return t.Registry
	}
	return replay.Default()
}

// ErrNoCodecs is wrapped by the error of every call made through a
// [Transport] whose registry holds no codec that speaks HTTP: the
// program did not import the codecs.
var ErrNoCodecs = errors.New(`replayhttp: no codec is registered: import _ "github.com/reasonreplay/replay/codecs/all" (or the codec packages you use)`)

// ErrNotRecognised is the error [Capture.Turn] returns for a call the
// middleware passed through untouched: not a generation request of an API
// some registered codec declares.
var ErrNotRecognised = errors.New("replayhttp: the request is not a generation request of a registered API; passed through")

// hasCodecs reports whether the registry holds a codec that speaks HTTP;
// a registry found to have one is not asked again.
func (t *Transport) hasCodecs() bool {
	if t.codecsSeen.Load() {
		return true
	}
	if len(codecs.All(t.registry())) == 0 {
		return false
	}
	t.codecsSeen.Store(true)
	return true
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
	captured []bool
	// owned says that no one writes the request's body again (readBody),
	// nor the bodies the middleware makes of it: caches keep them as
	// they are.
	owned bool
}

// wasCaptured reports whether repair found a capture of turn ti.
func (c *call) wasCaptured(ti int) bool { return ti >= 0 && ti < len(c.captured) && c.captured[ti] }

// read reads body as the call's API reads it, with what the URL says
// added to the target (the model Gemini and Bedrock name in the path, the
// provider the host names). prev, when set, is the tape of an earlier
// body the read may reuse (it changes the cost only).
func (c *call) read(t *Transport, out *http.Request, body []byte, prev *jsonw.Tape) {
	c.req, c.target = nil, replay.Target{}
	r, err := readafter.Read(c.codec, body, prev)
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
	c.scope.chain, c.scope.vis = t.chainOf(r, c.scope.tenant, c.codec, c.owned)
}

// Middleware is the same logic as RoundTrip in the form the official SDKs
// take (openai-go's and anthropic-sdk-go's option.WithMiddleware): it
// sends the request with next. Base is not used.
func (t *Transport) Middleware(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	capture := captureFrom(req.Context())
	if t.OnCapture != nil {
		capture = capture.forCall(req, t.OnCapture)
	}
	if !t.hasCodecs() {
		if req.Body != nil {
			req.Body.Close()
		}
		if capture != nil {
			capture.setTurn(nil, ErrNoCodecs)
		}
		return nil, ErrNoCodecs
	}
	if req.Method != http.MethodPost || req.Body == nil || req.Body == http.NoBody {
		return passThrough(req, next, capture)
	}
	lim := t.Limits.WithDefaults()
	body, owned, err := readBody(req, lim.MaxEvent)
	if err != nil {
		if capture != nil {
			capture.setTurn(nil, err)
		}
		return nil, err
	}
	out := req.Clone(req.Context())
	setBody(out, body)
	ctx := req.Context()
	// The model picks the codec; the codec's read validates the body (the
	// one validating pass), and a body it could not read is validated here
	// only when that matters: an invalid body has no model, and may be
	// refused.
	c, model := t.recognise(out, body, owned, true)
	if c == nil || c.req == nil {
		refuse := t.RefuseMalformed != nil && t.RefuseMalformed(req)
		if (model != "" || refuse) && !jsonw.ValidBytes(body) {
			if refuse {
				err := fmt.Errorf("replayhttp: %w: %s", ErrMalformedBody, jsonw.Explain(string(body)))
				if capture != nil {
					capture.setTurn(nil, err)
				}
				return nil, err
			}
			c, _ = t.recognise(out, body, owned, false)
		}
	}
	if c == nil {
		return passThrough(out, next, capture)
	}
	rec := c.rec
	var repairs []Repair
	if t.Store != nil && c.req != nil {
		var fixed []byte
		fixed, repairs = t.repair(ctx, c)
		if !bytes.Equal(fixed, body) {
			body = fixed
			setBody(out, body)
			c.read(t, out, body, c.tape())
		}
	}
	var retries []Retried
	if t.Retry != nil && c.req != nil {
		var fixed []byte
		fixed, retries = t.upfront(ctx, c, out)
		if !bytes.Equal(fixed, body) {
			body = fixed
			setBody(out, body)
			c.read(t, out, body, c.tape())
		}
		if t.Retry.OnRetry != nil {
			for _, r := range retries {
				t.Retry.OnRetry(out, r)
			}
		}
	}
	if err := ctx.Err(); err != nil {
		// The caller went away (repair stops then too): nothing more is
		// worth doing for it.
		if capture != nil {
			capture.setRequest(nil, repairs, retries)
			capture.setTurn(nil, err)
		}
		return nil, err
	}
	var rep *replay.Report
	if t.Audit != AuditOff && c.req != nil {
		r := t.registry().AuditReplay(c.req.History, c.target)
		rep = &r
	}
	if capture != nil {
		capture.setRequest(rep, repairs, retries)
	}
	if rep != nil && t.Audit == AuditRefuse && c.refuses(*rep) {
		err := &AuditError{API: c.codec.API(), Report: *rep}
		if capture != nil {
			capture.setTurn(nil, err)
		}
		return c.refusal(out, err), nil
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
			tu.Seal()
			doc := docBufs.get()
			doc = tu.AppendJSON(doc)
			_ = t.Store.Put(context.WithoutCancel(ctx), key, doc) // the store keeps its own copy
			docBufs.put(doc)
		}
		if capture != nil {
			capture.setTurn(tu, err)
		}
	}
	resp.Body = newTeeBody(resp.Body, c.codec, resp.Header, rec.Array, resp.StatusCode, t.Limits, finish)
	return resp, nil
}

// ErrMalformedBody is what a request whose body is not valid JSON fails
// with when [Transport.RefuseMalformed] refuses it.
var ErrMalformedBody = errors.New("the request body is not valid JSON; it was not sent")

// Recognise returns the wire API of a request the Transport reads, and
// the model it is for (the one its route names, else the one body names),
// as RoundTrip finds them; ok is false for a request RoundTrip sends as it
// came (model is then the one body names, if any). body is the request's
// body (req.Body is not read). In a conversation one exchange longer than
// one the Transport has read, the model is found where the two bodies
// share it, without a pass over body; else body is searched. A gateway
// calls it to name what it sends (its metrics, its traces' spans) before
// RoundTrip reads the body.
func (t *Transport) Recognise(req *http.Request, body []byte) (api, model string, ok bool) {
	if req.Method != http.MethodPost || req.URL == nil || !t.hasCodecs() {
		return "", jsonw.RawString(jsonw.RawMember(view.String(body), "model")), false
	}
	raw, _ := t.findModel(req, body)
	model = jsonw.RawString(raw)
	rec, ok := codecs.Recognise(t.registry(), req.Method, req.URL, t.Provider, model)
	if !ok {
		return "", model, false
	}
	return rec.Codec.API(), rec.Model, true
}

// recognise returns the call of a request the registry recognises, its
// body read, and the model that picked its codec; nil for one it does not.
// owned is readBody's: body is kept, when it is, without a copy.
//
// With named, the model is the one body names (its top-level "model"
// member), found without a pass of its own where it can be (findModel).
// Without it, the request is recognised by its route alone.
func (t *Transport) recognise(out *http.Request, body []byte, owned, named bool) (*call, string) {
	var raw string
	var near tenantTapes
	if named {
		raw, near = t.findModel(out, body)
	}
	return t.recogniseAs(out, body, owned, raw, near)
}

// tenantTapes is the tenant a request's route alone points to, and the
// tape of that tenant's that shares the most with its body.
type tenantTapes struct {
	tenant string
	known  bool
	prev   *jsonw.Tape
	shared int
}

// findModel returns the raw text of body's top-level "model" member ("" for
// none), and the tenant its route alone points to with that tenant's
// tapes. The route names an API, and so how the tenant is known; the
// tenant's tape that shares the most with body holds the member where
// body shares it (jsonw.Tape.MemberAfter), which in a conversation one
// exchange longer it does, before the messages or after them (where
// anthropic-sdk-go and openai-go write it). Else body is searched
// (jsonw.RawMember: a step over every value before the member). For a
// valid body both give the member its tape records; an invalid one is
// recognised again by its route alone.
func (t *Transport) findModel(out *http.Request, body []byte) (string, tenantTapes) {
	var near tenantTapes
	if rec, ok := codecs.Recognise(t.registry(), out.Method, out.URL, t.Provider, ""); ok {
		near.tenant, near.known = t.tenantOf(out, rec.Codec), true
		if near.tenant != "" {
			near.prev, near.shared = t.tapes.prevShared(near.tenant, body)
			if near.prev != nil {
				if raw, ok := near.prev.MemberAfter(view.String(body), near.shared, "model"); ok {
					return raw, near
				}
			}
		}
	}
	return jsonw.RawMember(view.String(body), "model"), near
}

// recogniseAs recognises the request as one whose raw model member is raw,
// and reads its body after the tenant's tape that shares the most with it
// (near's, when near is of the same tenant).
func (t *Transport) recogniseAs(out *http.Request, body []byte, owned bool, raw string, near tenantTapes) (*call, string) {
	model := jsonw.RawString(raw)
	rec, ok := codecs.Recognise(t.registry(), out.Method, out.URL, t.Provider, model)
	if !ok {
		return nil, model
	}
	c := &call{codec: rec.Codec, rec: rec, owned: owned}
	c.scope.tenant = t.tenantOf(out, rec.Codec)
	if c.scope.tenant == "" {
		c.read(t, out, body, nil)
		return c, model
	}
	if !near.known || near.tenant != c.scope.tenant {
		near.prev, near.shared = t.tapes.prevShared(c.scope.tenant, body)
	}
	// The tenant's recent bodies lend their tapes to this one's read.
	c.read(t, out, body, near.prev)
	if c.req != nil {
		t.tapes.keepShared(c.scope.tenant, body, c.owned, c.tape(), near.prev, near.shared)
	}
	return c, model
}

// tape returns the tape of the call's request body, nil when it has none.
func (c *call) tape() *jsonw.Tape {
	if c.req == nil {
		return nil
	}
	return c.req.History.RequestTape(c.req.History.Request)
}

// refuses reports whether the audit of the call's request says the
// provider will reject it for a reason the store could not fix: a
// rejection at a turn repair sent as captured is not one (the capture is
// what the provider returned; refusing cannot do better), every other is.
func (c *call) refuses(r replay.Report) bool {
	for _, v := range r.Violations {
		if v.Severity == replay.SeverityReject && (v.Turn < 0 || !c.wasCaptured(v.Turn)) {
			return true
		}
	}
	return false
}

// passThrough sends a request the middleware does not read, and ends its
// capture with ErrNotRecognised once it is sent.
func passThrough(req *http.Request, next func(*http.Request) (*http.Response, error), capture *Capture) (*http.Response, error) {
	resp, err := next(req)
	if capture != nil {
		why := err
		if why == nil {
			why = ErrNotRecognised
		}
		capture.setTurn(nil, why)
	}
	return resp, err
}

// refusalMember is the "replay" member a refusal's body carries beside the
// provider's own error members: the first rejecting violation's rule id,
// where it is, what it says and the fix.
type refusalMember struct {
	Rule    string `json:"rule"`
	Pointer string `json:"pointer,omitempty"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

// refusal is the response a refused request gets: a 400 in the error
// shape of the request's API as its provider answers, with the text the
// provider would have sent (or the violation's message) and a "replay"
// member naming the rule and the fix.
func (c *call) refusal(req *http.Request, ae *AuditError) *http.Response {
	var v replay.Violation
	for _, x := range ae.Report.Violations {
		if x.Severity == replay.SeverityReject && (x.Turn < 0 || !c.wasCaptured(x.Turn)) {
			v = x
			break
		}
	}
	msg := v.Predicted
	if msg == "" {
		msg = "replay: the provider would reject this request: " + v.Message
	}
	const status = http.StatusBadRequest
	var body []byte
	var h http.Header
	if eb := c.codec.HTTP().ErrorBody; eb != nil {
		body, h = eb(c.target.Provider, status, msg)
	}
	if len(body) == 0 || body[len(body)-1] != '}' {
		body, h = codecs.OpenAIErrorBody(status, msg)
	}
	var b bytes.Buffer
	b.Write(body[:len(body)-1])
	b.WriteString(`,"replay":`)
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(refusalMember{Rule: v.Rule, Pointer: v.Pointer, Message: v.Message, Fix: v.Fix}) // strings always encode
	b.Truncate(b.Len() - 1)
	b.WriteString("}\n")
	header := http.Header{}
	for k, vs := range h {
		header[k] = vs
	}
	header.Set("Content-Type", "application/json")
	header.Set("Content-Length", strconv.Itoa(b.Len()))
	// The SDKs that read it never retry a response that says so (a 400
	// is not retried anyway).
	header.Set("X-Should-Retry", "false")
	return &http.Response{
		Status: "400 Bad Request", StatusCode: status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: header, Body: io.NopCloser(bytes.NewReader(b.Bytes())), ContentLength: int64(b.Len()),
		Request: req,
	}
}

// hasItems reports whether a turn holds something worth keeping: a
// reasoning item or a compaction.
func hasItems(t *replay.Turn) bool { return carriesReasoning(t) }

// readBody reads a request body whole, up to max bytes, and closes it:
// into a buffer of the size its Content-Length says. A body that already
// holds its bytes (one with a Bytes method giving them all, unread, as a
// proxy's does) is taken without a copy. owned reports that no one writes
// the bytes again, so that the middleware may keep them without a copy:
// true for the bytes it read itself, and for a body of this module's that
// says so (own.Body, the proxy's); not for the bytes of another Bytes
// method, which their holder may reuse.
func readBody(req *http.Request, max int) (body []byte, owned bool, err error) {
	defer req.Body.Close()
	tooLarge := &replay.LimitError{What: "request size", Limit: max, Event: -1, Block: -1}
	if h, ok := req.Body.(own.Body); ok {
		if b := h.HeldBytes(own.Token{}); req.ContentLength == int64(len(b)) {
			if len(b) <= max {
				return b, true, nil
			}
			return nil, false, tooLarge
		}
	}
	if h, ok := req.Body.(interface{ Bytes() []byte }); ok && req.ContentLength == int64(len(h.Bytes())) {
		if b := h.Bytes(); len(b) <= max {
			return b, false, nil
		}
		return nil, false, tooLarge
	}
	buf := []byte(nil)
	if n := req.ContentLength; n > 0 && n <= int64(max) {
		buf = make([]byte, 0, n+1) // one more byte, to see the end without growing
	}
	body, err = readAll(buf, io.LimitReader(req.Body, int64(max)+1))
	if err != nil {
		return nil, false, fmt.Errorf("replayhttp: reading the request body: %w", err)
	}
	if len(body) > max {
		return nil, false, tooLarge
	}
	return body, true, nil
}

// readAll is io.ReadAll into b.
func readAll(b []byte, r io.Reader) ([]byte, error) {
	if cap(b) == 0 {
		return io.ReadAll(r)
	}
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

func setBody(req *http.Request, body []byte) {
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	req.ContentLength = int64(len(body))
	if req.Header.Get("Content-Length") != "" {
		req.Header.Set("Content-Length", strconv.Itoa(len(body)))
	}
}

// docBufs lend the buffers captured turns' documents are written into
// before the store copies them (see [Store].Put).
var docBufs bufs

// bufs is a pool of byte buffers, each kept only up to maxPooledBuf.
type bufs struct{ p sync.Pool }

// maxPooledBuf bounds a buffer a pool keeps.
const maxPooledBuf = 1 << 20

func (b *bufs) get() []byte {
	if p, ok := b.p.Get().(*[]byte); ok {
		return (*p)[:0]
	}
	return nil
}

func (b *bufs) put(buf []byte) {
	if cap(buf) == 0 || cap(buf) > maxPooledBuf {
		return
	}
	b.p.Put(&buf)
}
