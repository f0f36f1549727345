package replayproxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/reasonreplay/replay/internal/own"
	"github.com/reasonreplay/replay/replayhttp"
)

// StoreOptions bound a store: how many turns, how many bytes of turn
// documents, and for how long.
type StoreOptions struct {
	// MaxTurns bounds the number of turns kept; 0 means 10000.
	MaxTurns int
	// MaxBytes bounds the total size of the turn documents kept; 0 means
	// 256 MiB.
	MaxBytes int
	// TTL is how long a turn is kept; 0 means one hour.
	TTL time.Duration
	// MaxPerKey bounds the turns kept under one key (the regenerations of
	// one point of a conversation), the most recently put; 0 means 8.
	MaxPerKey int
	// MaxEntryBytes bounds one document, as the proxy bounds a request
	// body (--max-body): a larger one is refused at Put, and an entry read
	// back larger than it, or not valid JSON within the depth a request
	// body may have, is skipped as untrusted input; 0 means 32 MiB.
	MaxEntryBytes int
	// Secret, when set, is the secret that keys the tenant digests (see
	// [Config].Secret): a [FileStore] then keeps none of its own.
	Secret []byte
	// Logger receives the store's log lines (an entry skipped, once per
	// reason); nil discards them.
	Logger *slog.Logger
}

func (o StoreOptions) withDefaults() StoreOptions {
	if o.MaxTurns <= 0 {
		o.MaxTurns = 10000
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 256 << 20
	}
	if o.TTL <= 0 {
		o.TTL = time.Hour
	}
	if o.MaxPerKey <= 0 {
		o.MaxPerKey = 8
	}
	if o.MaxEntryBytes <= 0 {
		o.MaxEntryBytes = 32 << 20
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// ErrStoreUnavailable is returned by the proxy's guard around a store
// while the store is failing: for a short while after a failure the store
// is not asked at all, and requests pass through unrepaired.
var ErrStoreUnavailable = errors.New("replayproxy: store unavailable")

// guardedStore keeps a request from ever waiting on a slow or failing
// store: each call is bounded by timeout (and not cancelled with the
// client's request), and after a failure the store is skipped for backoff
// before it is tried again. The transitions are logged once each. A store
// in the proxy's own memory (local) is called directly: it has no network
// to wait on, and a machine too busy to schedule it within the timeout
// must not turn repair off.
//
// Only a failure of the store opens it (an error of the transport, a
// timeout): an [*replayhttp.EntryError] (one entry refused, a document too
// large) is that entry's problem, counted and returned, and the store
// stays in use; stores skip the entries they cannot read rather than
// fail (see [FileStore.SkippedEntries]).
type guardedStore struct {
	inner   replayhttp.Store
	local   bool
	timeout time.Duration
	backoff time.Duration
	log     *slog.Logger
	m       *metrics

	mu        sync.Mutex
	down      bool
	downUntil time.Time
}

func (g *guardedStore) Put(ctx context.Context, key replayhttp.Key, doc []byte) error {
	if !g.local {
		// A Put that outlives its timeout still reads doc after this one
		// has returned, and the caller may by then have reused doc.
		doc = bytes.Clone(doc)
	}
	return g.do(ctx, "put", func(ctx context.Context) error { return g.inner.Put(ctx, key, doc) })
}

func (g *guardedStore) Get(ctx context.Context, key replayhttp.Key) ([][]byte, error) {
	var got [][]byte
	err := g.do(ctx, "get", func(ctx context.Context) error {
		var err error
		got, err = g.inner.Get(ctx, key)
		return err
	})
	if err != nil {
		return nil, err
	}
	return got, nil
}

// OwnStore declares, for a MemoryStore in the proxy's memory, that Get is
// the MemoryStore's (internal/own): it never fails, so the guard has
// nothing to count or skip, and the middleware reads the store's own bytes
// directly.
func (g *guardedStore) OwnStore(own.Token) any {
	if m, ok := g.inner.(*replayhttp.MemoryStore); ok && g.local {
		return m
	}
	return nil
}

func (g *guardedStore) do(ctx context.Context, op string, f func(context.Context) error) error {
	g.mu.Lock()
	if g.down && time.Now().Before(g.downUntil) {
		g.mu.Unlock()
		g.m.inc(mStoreErrors, "op", op, "result", "skipped")
		return ErrStoreUnavailable
	}
	g.mu.Unlock()
	var err error
	if g.local {
		err = f(context.WithoutCancel(ctx))
	} else {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), g.timeout)
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- f(ctx) }()
		select {
		case err = <-done:
		case <-ctx.Done(): // a store that does not honour its context
			err = fmt.Errorf("%w: no answer within %v", ErrStoreUnavailable, g.timeout)
		}
	}
	var ee *replayhttp.EntryError
	entry := errors.As(err, &ee)
	if entry {
		g.m.inc(mStoreErrors, "op", op, "result", "entry")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err != nil && !entry {
		g.m.inc(mStoreErrors, "op", op, "result", "failed")
		if !g.down {
			g.log.Warn("store unavailable: requests pass through unrepaired and turns are not kept until it answers again",
				"op", op, "error", err.Error(), "retry_after", g.backoff.String())
			g.m.storeUp.Store(false)
		}
		g.down = true
		if !g.local {
			g.downUntil = time.Now().Add(g.backoff)
		}
		return err
	}
	if g.down {
		g.down = false
		g.m.storeUp.Store(true)
		g.log.Info("store recovered: repairing and keeping turns again", "op", op)
	}
	return err
}

// Close closes the store when it holds resources.
func (g *guardedStore) Close() error {
	if c, ok := g.inner.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
