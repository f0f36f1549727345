package replayhttp

import (
	"bytes"
	"container/list"
	"context"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/reasonreplay/replay/codecs"
)

// Retry turns on the one-shot classified retry of a [Transport] and
// remembers its decisions per conversation. When the provider answers a
// request with an error [Classify] recognises, the Transport applies the
// classification's [Fix] to the request body and sends it once more. The
// store has already put back every captured turn before the request was
// sent, so the fix goes only to turns without a capture: all of them from
// the place the error names on (every one when it names none), at once.
// When the retry succeeds the fix is remembered for the tenant's
// conversation and model, and applied up front to the conversation's
// next requests: a setting (drop_block, a beta header) is set again, and
// an edit of turns edits the same turns again, never others. Every retry
// and every fix applied up front is reported (OnRetry,
// [Capture.Retries]).
//
// The zero value is ready to use; a Retry may be shared by several
// Transports. It is safe for concurrent use; set its fields before use.
type Retry struct {
	// MaxConversations bounds the conversations remembered; 0 means
	// 10000. The oldest go first.
	MaxConversations int
	// TTL is how long a decision is remembered after it was last used;
	// 0 means one hour.
	TTL time.Duration
	// OnRetry, when set, receives every retry and every fix applied up
	// front, with the request as sent after the fix.
	OnRetry func(req *http.Request, r Retried)

	mu    sync.Mutex
	now   func() time.Time
	order *list.List // of *decision, least recently used first
	keys  map[memKey]*list.Element
}

// Retried reports one fix the Transport applied: after the provider
// refused the request (Status is its status), or up front, from the
// conversation's remembered decision (Upfront).
type Retried struct {
	// Class is the provider error's classification (for a fix applied up
	// front, the one that decided it).
	Class Classification
	// Status is the status of the refused response; 0 up front.
	Status int
	// Upfront reports a fix applied before sending, from the decision
	// remembered for the conversation.
	Upfront bool
	// Changes are the edits made to the request.
	Changes []Repair
	// RetryStatus is the status of the response to the retried request
	// (0 up front, and when the retry failed to send).
	RetryStatus int
	// Err is the error the retried request failed to send with; the
	// caller then gets the provider's first answer, its body as it came.
	Err error
}

// memKey names a remembered decision: a tenant's conversation, up to the
// end of the request the fix worked for, and the model it was sent to.
type memKey struct{ tenant, model, conv string }

// decision is what a Retry remembers of one conversation.
type decision struct {
	key     memKey
	classes []Classification // the fixes that worked, in order, one per Fix
	turns   map[string]bool  // the conversation digests of the turns they changed
	expires time.Time
}

func (r *Retry) limits() (int, time.Duration) {
	n, ttl := r.MaxConversations, r.TTL
	if n <= 0 {
		n = 10000
	}
	if ttl <= 0 {
		ttl = time.Hour
	}
	return n, ttl
}

func (r *Retry) init() {
	if r.order == nil {
		r.order, r.keys = list.New(), map[memKey]*list.Element{}
	}
	if r.now == nil {
		r.now = time.Now
	}
}

// lookup returns a copy of the decision remembered for the longest
// prefix of the conversation (chain are its digests), or nil.
func (r *Retry) lookup(tenant, model string, chain []string) *decision {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.init()
	_, ttl := r.limits()
	now := r.now()
	for i := len(chain) - 1; i >= 0; i-- {
		el, ok := r.keys[memKey{tenant, model, chain[i]}]
		if !ok {
			continue
		}
		d := el.Value.(*decision)
		if !d.expires.After(now) {
			r.remove(el)
			continue
		}
		d.expires = now.Add(ttl)
		r.order.MoveToBack(el)
		cp := &decision{key: d.key, classes: append([]Classification(nil), d.classes...), turns: make(map[string]bool, len(d.turns))}
		for k := range d.turns {
			cp.turns[k] = true
		}
		return cp
	}
	return nil
}

// remember records that fix c worked for the conversation up to key,
// changing the turns named by their conversation digests; what an
// earlier decision of the conversation (prev) held is carried over.
func (r *Retry) remember(key memKey, prev *decision, c Classification, turns []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.init()
	max, ttl := r.limits()
	d := &decision{key: key, turns: map[string]bool{}}
	if prev != nil {
		d.classes = prev.classes
		for k := range prev.turns {
			d.turns[k] = true
		}
	}
	if el, ok := r.keys[key]; ok {
		old := el.Value.(*decision)
		d.classes = append(d.classes, old.classes...)
		for k := range old.turns {
			d.turns[k] = true
		}
		r.remove(el)
	}
	known := false
	for _, x := range d.classes {
		known = known || x.Fix == c.Fix
	}
	if !known {
		d.classes = append(d.classes, c)
	}
	for _, k := range turns {
		d.turns[k] = true
	}
	d.expires = r.now().Add(ttl)
	r.keys[key] = r.order.PushBack(d)
	for r.order.Len() > max {
		r.remove(r.order.Front())
	}
}

func (r *Retry) remove(el *list.Element) {
	delete(r.keys, el.Value.(*decision).key)
	r.order.Remove(el)
}

// plan applies the fix of cl to the call's request: to its settings, and
// to the turns only reports. It returns the new body (the old one when
// nothing changed), the headers to add, the changes, and the
// conversation digests of the turns it changed.
func (t *Transport) plan(c *call, cl Classification, h http.Header, only func(turn int) bool) ([]byte, http.Header, []Repair, []string) {
	r := c.req
	body, hdr, changes := c.codec.Fix(string(cl.Fix), r, only, h)
	var reps []Repair
	turns := map[string]bool{}
	for _, ch := range changes {
		action := RepairSet
		if ch.Removed {
			action = RepairRemoved
		}
		reps = append(reps, Repair{Pointer: ch.Pointer, Action: action, Detail: ch.Detail})
		if el := elementOf(r, ch.Pointer); el >= 0 && r.Elements[el].Turn >= 0 {
			first, _ := r.TurnSpan(r.Elements[el].Turn)
			turns[c.scope.chain[first]] = true
		}
	}
	return body, hdr, reps, sortedKeys(turns)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// elementOf returns the index of the element a JSON Pointer into the
// request names ("/messages/3/content/0" names 3), or -1.
func elementOf(r *codecs.Request, ptr string) int {
	rest, ok := strings.CutPrefix(ptr, "/"+r.Member+"/")
	if !ok {
		return -1
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 || n >= len(r.Elements) {
		return -1
	}
	return n
}

// upfront applies the conversation's remembered fixes to the call's
// request.
func (t *Transport) upfront(ctx context.Context, c *call, req *http.Request) ([]byte, []Retried) {
	body := c.req.Body
	if c.scope.tenant == "" {
		return body, nil
	}
	d := t.Retry.lookup(c.scope.tenant, c.target.Model, c.scope.chain)
	if d == nil {
		return body, nil
	}
	var out []Retried
	for _, cl := range d.classes {
		if ctx.Err() != nil {
			break
		}
		only := func(ti int) bool {
			first, _ := c.req.TurnSpan(ti)
			return first >= 0 && d.turns[c.scope.chain[first]]
		}
		fixed, hdr, changes, _ := t.plan(c, cl, req.Header, only)
		if len(changes) == 0 {
			continue
		}
		for k, v := range hdr {
			req.Header[k] = append(req.Header[k], v...)
		}
		if !bytes.Equal(fixed, body) {
			body = fixed
			c.read(t, req, body, c.tape())
		}
		out = append(out, Retried{Class: cl, Upfront: true, Changes: changes})
	}
	return body, out
}

// retry reads the error response resp to the request out (whose body is
// body), and when Classify recognises it and its fix changes the request,
// sends the fixed request once with next. It returns the response the
// caller gets (the first one, with its body, when the retry failed to
// send), the body of the request that produced it, and the report of the
// retry (nil when none was made).
func (t *Transport) retry(c *call, out *http.Request, body []byte, resp *http.Response, next func(*http.Request) (*http.Response, error)) (*http.Response, []byte, *Retried, error) {
	max := t.Limits.WithDefaults().MaxEvent
	errBody, err := io.ReadAll(io.LimitReader(resp.Body, int64(max)+1))
	if err != nil || len(errBody) > max {
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(errBody), resp.Body), resp.Body}
		return resp, body, nil, nil
	}
	giveBack := func() {
		resp.Body = io.NopCloser(bytes.NewReader(errBody))
	}
	cl := ClassifyWith(t.registry(), c.codec.API(), resp.StatusCode, decodedHead(resp.Header, errBody, max))
	if !cl.Known() {
		resp.Body.Close()
		giveBack()
		return resp, body, nil, nil
	}
	from := elementOf(c.req, cl.Pointer)
	only := func(ti int) bool {
		first, _ := c.req.TurnSpan(ti)
		return first >= 0 && !c.wasCaptured(ti) && (from < 0 || first >= from || c.req.Elements[from].Turn == ti)
	}
	fixed, hdr, changes, turns := t.plan(c, cl, out.Header, only)
	if len(changes) == 0 || bytes.Equal(fixed, body) && hdr == nil {
		resp.Body.Close()
		giveBack()
		return resp, body, nil, nil
	}
	resp.Body.Close()
	again := out.Clone(out.Context())
	for k, v := range hdr {
		again.Header[k] = append(again.Header[k], v...)
	}
	setBody(again, fixed)
	r := &Retried{Class: cl, Status: resp.StatusCode, Changes: changes}
	resp2, err := next(again)
	if err != nil {
		// The retry did not reach the provider: its refusal is the
		// answer, rather than an error the caller could not act on.
		r.Err = err
		giveBack()
		resp2, fixed = resp, body
	} else {
		r.RetryStatus = resp2.StatusCode
		if resp2.StatusCode < 400 && c.scope.tenant != "" {
			prev := t.Retry.lookup(c.scope.tenant, c.target.Model, c.scope.chain)
			key := memKey{c.scope.tenant, c.target.Model, c.scope.chain[len(c.scope.chain)-1]}
			t.Retry.remember(key, prev, cl, turns)
		}
	}
	if t.Retry.OnRetry != nil {
		t.Retry.OnRetry(again, *r)
	}
	if !bytes.Equal(fixed, body) && err == nil {
		c.read(t, again, fixed, c.tape()) // the turn it answers is captured under the body sent
	}
	return resp2, fixed, r, nil
}
