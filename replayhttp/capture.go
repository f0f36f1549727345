package replayhttp

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/reasonreplay/replay"
)

// Capture collects what the middleware saw of one call: the turn of its
// response, the audit report of its request, and the repairs made to it.
// Put one in the call's context with [WithCapture]; the middleware fills
// it for every request made with that context (an SDK's retry replaces the
// earlier attempt's turn). A Capture is safe for concurrent use.
type Capture struct {
	mu      sync.Mutex
	done    chan struct{}
	closed  bool
	turn    *replay.Turn
	err     error
	report  *replay.Report
	repairs []Repair
	retries []Retried
	// next is the context's Capture, filled with this one (a call's own
	// Capture for Transport.OnCapture); onDone runs once, when this one is
	// done.
	next   *Capture
	onDone func(*Capture)
}

// forCall returns a Capture of one call that fills c too (c may be nil)
// and hands itself to done once it is done.
func (c *Capture) forCall(req *http.Request, done func(*http.Request, *Capture)) *Capture {
	return &Capture{done: make(chan struct{}), next: c, onDone: func(own *Capture) { done(req, own) }}
}

type captureKey struct{}

// WithCapture returns a context carrying a new [Capture], and the Capture.
// Make the call with the returned context; after its response body is read
// to the end or closed, [Capture.Turn] returns the call's turn.
func WithCapture(ctx context.Context) (context.Context, *Capture) {
	c := &Capture{done: make(chan struct{})}
	return context.WithValue(ctx, captureKey{}, c), c
}

func captureFrom(ctx context.Context) *Capture {
	c, _ := ctx.Value(captureKey{}).(*Capture)
	return c
}

// ErrPending is returned by [Capture.Turn] while the call's response body
// is still open (or no response came).
var ErrPending = errors.New("replayhttp: the call's response has not ended")

// Done is closed when a response of the call has ended.
func (c *Capture) Done() <-chan struct{} { return c.done }

// Turn returns the turn of the call's response and the error that came
// with it (the decoder's, the provider's, or one wrapping [ErrClosedEarly]).
// On error the turn is the partial turn, marked incomplete. Before the
// response has ended it returns nil and [ErrPending].
func (c *Capture) Turn() (*replay.Turn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		return nil, ErrPending
	}
	return c.turn, c.err
}

// Report returns the audit report of the call's request, and false when
// the request was not audited.
func (c *Capture) Report() (replay.Report, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.report == nil {
		return replay.Report{}, false
	}
	return *c.report, true
}

// Repairs returns what repair changed, or left alone and why, in the
// call's request.
func (c *Capture) Repairs() []Repair {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Repair(nil), c.repairs...)
}

func (c *Capture) setTurn(t *replay.Turn, err error) {
	c.mu.Lock()
	c.turn, c.err = t, err
	first := !c.closed
	if first {
		c.closed = true
		close(c.done)
	}
	c.mu.Unlock()
	if c.next != nil {
		c.next.setTurn(t, err)
	}
	if first && c.onDone != nil {
		c.onDone(c)
	}
}

func (c *Capture) setRequest(rep *replay.Report, repairs []Repair, retries []Retried) {
	c.mu.Lock()
	c.report, c.repairs, c.retries = rep, repairs, retries
	c.mu.Unlock()
	if c.next != nil {
		c.next.setRequest(rep, repairs, retries)
	}
}

func (c *Capture) addRetry(r Retried) {
	c.mu.Lock()
	c.retries = append(c.retries, r)
	c.mu.Unlock()
	if c.next != nil {
		c.next.addRetry(r)
	}
}

// Retries returns the fixes a [Retry] applied to the call's request: up
// front, from the conversation's remembered decision, and after the
// provider refused it.
func (c *Capture) Retries() []Retried {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Retried(nil), c.retries...)
}
