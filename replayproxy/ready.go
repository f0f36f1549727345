package replayproxy

import "context"

// ready reports whether the store answers: a store that can be pinged (a
// Redis store) is asked, within the store timeout; any other is ready
// unless its last operation failed.
func (g *guardedStore) ready(ctx context.Context) error {
	if p, ok := g.inner.(interface{ Ping(context.Context) error }); ok {
		ctx, cancel := context.WithTimeout(ctx, g.timeout)
		defer cancel()
		return p.Ping(ctx)
	}
	g.mu.Lock()
	down := g.down
	g.mu.Unlock()
	if down {
		return ErrStoreUnavailable
	}
	return nil
}
