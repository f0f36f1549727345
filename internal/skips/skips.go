// Package skips counts the entries a store skips because their data cannot
// be used (a record cut short by a crash, a value of another type, a
// document too large or not valid JSON), and logs the first of each
// reason: an entry's problem, which never makes the store unavailable. The
// file store and the Redis store keep one each.
package skips

import (
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/reasonreplay/replay/replayhttp"
)

// Skips is a count of skipped entries. The zero value is ready to use.
type Skips struct {
	n      atomic.Uint64
	mu     sync.Mutex
	logged map[string]bool
}

// Skip counts one entry of store skipped for reason (a short phrase, the
// same for every entry skipped for it) and logs it with log (nil: not
// logged) the first time, naming the key's tenant and conversation cut
// short.
func (s *Skips) Skip(log *slog.Logger, store, reason string, key replayhttp.Key) {
	s.n.Add(1)
	s.mu.Lock()
	first := !s.logged[reason] && len(s.logged) < 64
	if first {
		if s.logged == nil {
			s.logged = map[string]bool{}
		}
		s.logged[reason] = true
	}
	s.mu.Unlock()
	if first && log != nil {
		log.Warn("store entry skipped: its data cannot be used (counted in replay_proxy_store_entries_skipped_total; logged once per reason)",
			"store", store, "reason", reason, "tenant", clip(key.Tenant), "conversation", clip(key.Conversation))
	}
}

// Count returns the number of entries skipped.
func (s *Skips) Count() uint64 { return s.n.Load() }

func clip(s string) string {
	if len(s) > 16 {
		return s[:16] + "…"
	}
	return s
}
