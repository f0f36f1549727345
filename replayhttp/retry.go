package replayhttp

import (
	"bytes"
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/tidwall/gjson"
)

// Retry turns on the one-shot classified retry of a [Transport] and
// remembers its decisions per conversation. When the provider answers a
// request with an error [Classify] recognises, the Transport applies the
// classification's [Fix] to the request body and sends it once more; when
// that succeeds, the fix is remembered for the conversation (keyed by the
// tool-call ids and item ids the request carries, and by its system prompt
// and first message), and applied up front to the conversation's next
// requests: a setting (drop_block, the Gemini sentinel, reasoning_content)
// is set again, and a removal removes the same elements again, never
// others. Every retry and every fix applied up front is reported
// (OnRetry, [Capture.Retries]).
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
	keys  map[string]*list.Element
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

// decision is what a Retry remembers of one conversation.
type decision struct {
	keys    []string
	classes []Classification // the fixes that worked, in order, one per Fix
	removed map[string]bool  // fingerprints of elements removed
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
		r.order, r.keys = list.New(), map[string]*list.Element{}
	}
	if r.now == nil {
		r.now = time.Now
	}
}

// lookup returns a copy of the decision any of keys names, or nil.
func (r *Retry) lookup(keys []string) *decision {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.init()
	_, ttl := r.limits()
	now := r.now()
	for _, k := range keys {
		el, ok := r.keys[k]
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
		cp := &decision{classes: append([]Classification(nil), d.classes...), removed: make(map[string]bool, len(d.removed))}
		for f := range d.removed {
			cp.removed[f] = true
		}
		return cp
	}
	return nil
}

// remember records that fix c worked for the conversation keys name,
// with the fingerprints of what it removed.
func (r *Retry) remember(keys []string, c Classification, removed []string) {
	if len(keys) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.init()
	max, ttl := r.limits()
	var el *list.Element
	for _, k := range keys {
		if x, ok := r.keys[k]; ok {
			el = x
			break
		}
	}
	if el == nil {
		el = r.order.PushBack(&decision{removed: map[string]bool{}})
	}
	d := el.Value.(*decision)
	d.expires = r.now().Add(ttl)
	r.order.MoveToBack(el)
	for _, k := range keys {
		if x, ok := r.keys[k]; ok && x != el {
			continue // another conversation's key: leave it to that one
		}
		if _, ok := r.keys[k]; !ok {
			r.keys[k] = el
			d.keys = append(d.keys, k)
		}
	}
	known := false
	for _, x := range d.classes {
		known = known || x.Fix == c.Fix
	}
	if !known {
		d.classes = append(d.classes, c)
	}
	for _, f := range removed {
		d.removed[f] = true
	}
	for r.order.Len() > max {
		r.remove(r.order.Front())
	}
}

func (r *Retry) remove(el *list.Element) {
	for _, k := range el.Value.(*decision).keys {
		if r.keys[k] == el {
			delete(r.keys, k)
		}
	}
	r.order.Remove(el)
}

// conversationKeys are the keys a request's conversation is remembered
// under: the tool-call ids and item ids of its model elements (the next
// request of the conversation carries them again), and a hash of its API,
// system prompt and first element.
func conversationKeys(rt route, body []byte) []string {
	var keys []string
	gjson.GetBytes(body, rt.list).ForEach(func(_, el gjson.Result) bool {
		if rt.api == "openai-responses" {
			if id := el.Get("call_id").Str; id != "" && el.Get("type").Str == "function_call" {
				keys = append(keys, "call:"+id)
			}
			return true
		}
		if msg, ok := readMessage(rt.api, el); ok {
			for _, id := range msg.calls {
				if id != "" {
					keys = append(keys, "call:"+id)
				}
			}
		}
		return true
	})
	h := sha256.New()
	h.Write([]byte(rt.api))
	for _, p := range []string{"system", "instructions", "systemInstruction", rt.list + ".0"} {
		h.Write([]byte{0})
		h.Write([]byte(gjson.GetBytes(body, p).Raw))
	}
	return append(keys, "head:"+hex.EncodeToString(h.Sum(nil)[:16]))
}

// plan applies the fix of c to body. It returns the edit, empty when the
// fix changes nothing (then no retry is worth making). keep, for a fix
// applied up front, holds the fingerprints of the elements to remove.
func (t *Transport) plan(ctx context.Context, rt route, body []byte, h http.Header, c Classification, keep map[string]bool) edit {
	switch c.Fix {
	case FixDropBlock:
		if rt.api == "anthropic" {
			return dropBlock(body, h)
		}
	case FixDropReasoning:
		if keep != nil && len(keep) == 0 {
			return edit{body: body}
		}
		return dropReasoning(rt.api, rt.list, body, from(c.Pointer), -1, c.Item, keep, true)
	case FixSentinel:
		if rt.api == "gemini" {
			return addSentinels(rt.list, body)
		}
	case FixBackfillReasoningContent:
		if chatLike(rt.api) {
			e := edit{body: body}
			if t.Store != nil && keep == nil { // the turns' own reasoning first
				e.body, e.changes = t.repair(ctx, rt, body)
				e.changes = restored(e.changes)
			}
			b := backfillReasoningContent(rt.list, e.body)
			b.changes = append(e.changes, b.changes...)
			return b
		}
	case FixRemoveReasoningContent:
		if chatLike(rt.api) {
			return removeReasoningContent(rt.list, body)
		}
	case FixDropDuplicates:
		return dropDuplicates(rt.api, rt.list, body)
	case FixRestore:
		if keep != nil {
			break // the store repairs every request by itself
		}
		if t.Store != nil {
			out, reps := t.repair(ctx, rt, body)
			if reps = restored(reps); len(reps) > 0 {
				return edit{body: out, changes: reps}
			}
			// The element the error names kept reasoning the provider
			// refused (altered): put the captured reasoning in its place.
			if c.Pointer != "" {
				n := from(c.Pointer)
				d := dropReasoning(rt.api, rt.list, body, n, n, "", nil, false)
				out, reps := t.repair(ctx, rt, d.body)
				if reps = restored(reps); len(reps) > 0 {
					return edit{body: out, changes: append(d.changes, reps...)}
				}
			}
		}
		// What the store could not restore, the documented fallbacks
		// handle: the Gemini sentinel, an OpenAI item without its
		// reasoning item sent without the id that pairs them.
		switch {
		case rt.api == "gemini":
			return addSentinels(rt.list, body)
		case rt.api == "openai-responses" && c.Item != "":
			if c.Rule == "openai/store-false-without-encrypted" {
				return dropReasoning(rt.api, rt.list, body, 0, -1, c.Item, nil, true)
			}
			return removeItemID(rt.list, body, c.Item)
		}
	}
	return edit{body: body}
}

// restored keeps the repairs that changed the request.
func restored(reps []Repair) []Repair {
	var out []Repair
	for _, r := range reps {
		if r.Action == RepairRestored || r.Action == RepairRemoved {
			out = append(out, r)
		}
	}
	return out
}

// upfront applies the conversation's remembered fixes to body.
func (t *Transport) upfront(ctx context.Context, rt route, req *http.Request, body []byte) ([]byte, []Retried) {
	d := t.Retry.lookup(conversationKeys(rt, body))
	if d == nil {
		return body, nil
	}
	var out []Retried
	for _, c := range d.classes {
		keep := map[string]bool{}
		if c.Fix == FixDropReasoning || c.Fix == FixRestore {
			keep = d.removed
		}
		e := t.plan(ctx, rt, body, req.Header, c, keep)
		if len(e.changes) == 0 {
			continue
		}
		body = e.body
		for k, v := range e.header {
			req.Header[k] = append(req.Header[k], v...)
		}
		out = append(out, Retried{Class: c, Upfront: true, Changes: e.changes})
	}
	return body, out
}

// retry reads the error response resp to the request out (whose body is
// body), and when Classify recognises it and its fix changes the request,
// sends the fixed request once with next. It returns the response the
// caller gets (the first one, with its body, when the retry failed to
// send), the body of the request that produced it, and the report of the
// retry (nil when none was made).
func (t *Transport) retry(rt route, out *http.Request, body []byte, resp *http.Response, next func(*http.Request) (*http.Response, error)) (*http.Response, []byte, *Retried, error) {
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
	c := Classify(resp.StatusCode, errBody)
	if !c.Known() {
		resp.Body.Close()
		giveBack()
		return resp, body, nil, nil
	}
	e := t.plan(out.Context(), rt, body, out.Header, c, nil)
	if len(e.changes) == 0 || bytes.Equal(e.body, body) && e.header == nil {
		resp.Body.Close()
		giveBack()
		return resp, body, nil, nil
	}
	resp.Body.Close()
	again := out.Clone(out.Context())
	for k, v := range e.header {
		again.Header[k] = append(again.Header[k], v...)
	}
	setBody(again, e.body)
	r := &Retried{Class: c, Status: resp.StatusCode, Changes: e.changes}
	resp2, err := next(again)
	if err != nil {
		// The retry did not reach the provider: its refusal is the
		// answer, rather than an error the caller could not act on.
		r.Err = err
		giveBack()
		resp2, e.body = resp, body
	} else {
		r.RetryStatus = resp2.StatusCode
		if resp2.StatusCode < 400 {
			t.Retry.remember(conversationKeys(rt, body), c, e.removed)
		}
	}
	if t.Retry.OnRetry != nil {
		t.Retry.OnRetry(again, *r)
	}
	return resp2, e.body, r, nil
}
