package replayhttp

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/reasonreplay/replay/internal/entries"
	"github.com/reasonreplay/replay/internal/own"
)

// Key names what one tenant captured at one point of one conversation.
// Both fields are digests the middleware computes; a [Store] treats them
// as opaque, and never serves an entry of one Key for another.
type Key struct {
	// Tenant names the tenant: a digest of the credential the request
	// carried (keyed by the deployment's secret) and the upstream, or of
	// what [Transport.Tenant] returned.
	Tenant string
	// Conversation is the chained digest of the conversation's visible
	// prefix up to the turn: what a provider binds the turn's reasoning
	// to.
	Conversation string
}

// Store keeps captured turn documents, byte for byte, per [Key], so that
// the next request of the same tenant's conversation can be checked
// against what was captured and repaired from it. A key normally holds
// one turn; regenerations of one prefix put several under one key, and a
// store may bound them (keeping the most recently put) provided it keeps
// at least two, so that an ambiguous key still reads as ambiguous.
//
// What Get returns is untrusted input: the middleware reads it with the
// limits it applies to a request body. A Store must be safe for
// concurrent use; it may be shared by several Transports.
type Store interface {
	// Put records doc (a turn document) under key; the store keeps its
	// own copy, and neither keeps nor reads doc once Put returns (the
	// caller may write its next document into the same buffer). Putting
	// the same bytes again under the same key refreshes the entry, never
	// doubles it.
	Put(ctx context.Context, key Key, doc []byte) error
	// Get returns the documents recorded under key, the least recently
	// put first; none when the key is unknown. The caller may keep them
	// but must not change them: a store may return the bytes it keeps
	// (which it never changes once put) rather than copies.
	Get(ctx context.Context, key Key) ([][]byte, error)
}

// EntryError is a store's refusal of one entry, not a failure of the
// store: a document larger than the store keeps, say. A guard around a
// store (the proxy's) never takes it for the store being down. A store
// skips an entry it cannot use when it reads (a record cut short, a value
// of another type or over its bounds) rather than fail the read.
type EntryError struct {
	// Key is the entry's key.
	Key Key
	// Reason says why, in a sentence.
	Reason string
}

func (e *EntryError) Error() string { return "replayhttp: store entry refused: " + e.Reason }

// MemoryStore is the in-memory [Store]: bounded by the number of entries
// and their total size, each entry forgotten TTL after it was put (or put
// again). The oldest entries go first when a bound is reached. One key
// holds at most MaxPerKey documents, the most recently put. The zero
// value is ready to use with the defaults; the bounds are read at the
// first call.
type MemoryStore struct {
	// MaxTurns bounds the number of entries kept; 0 means 10000.
	MaxTurns int
	// MaxBytes bounds the total size of the documents kept; 0 means
	// 256 MiB. A larger document is refused with an [*EntryError].
	MaxBytes int
	// TTL is how long an entry is kept; 0 means one hour.
	TTL time.Duration
	// MaxPerKey bounds the documents one key holds; 0 means 8, and less
	// than 2 means 2.
	MaxPerKey int

	mu  sync.Mutex
	now func() time.Time
	t   *entries.Table[Key]
}

func (s *MemoryStore) init() {
	if s.t == nil {
		s.t = entries.New[Key](entries.Bounds{Entries: s.MaxTurns, Bytes: s.MaxBytes, PerKey: s.MaxPerKey, TTL: s.TTL})
	}
	if s.now == nil {
		s.now = time.Now
	}
}

// Put records a copy of doc under key. The same bytes put again under the
// same key are refreshed: they become the key's most recently put and
// expire TTL from now. A document larger than MaxBytes is refused with an
// [*EntryError].
func (s *MemoryStore) Put(_ context.Context, key Key, doc []byte) error {
	if len(doc) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	now := s.now()
	if !s.t.Put(key, doc, now, now.Add(s.t.Bounds().TTL)) {
		return &EntryError{Key: key, Reason: fmt.Sprintf("a document of %d bytes is larger than the store keeps (%d)", len(doc), s.t.Bounds().Bytes)}
	}
	return nil
}

// Get returns the documents recorded under key that have not expired,
// the least recently put first. They are the store's own bytes, not
// copies (see [Store]): the caller must not change them. The store never
// changes them either, even when the entry is refreshed, evicted or
// expires, so they may be kept.
func (s *MemoryStore) Get(_ context.Context, key Key) ([][]byte, error) {
	return s.appendGet(nil, key), nil
}

// appendGet appends what Get returns to dst.
func (s *MemoryStore) appendGet(dst [][]byte, key Key) [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	return s.t.AppendGet(dst, key, s.now())
}

// storeGet is store.Get, appending to dst (its elements overwritten)
// where the store is a MemoryStore itself: repair, which reads the store
// once per turn, reuses one slice. (Not a MemoryStore embedded in another
// type, whose Get may do otherwise; but a store of this module's that
// declares its Get to be a MemoryStore's, as the proxy's guard does for a
// store in memory, see internal/own.) mine reports that the documents are
// a MemoryStore's own bytes, which it copied in and never changes: the
// same slice is then the same document. Any other store's bytes are read
// by their content.
func storeGet(ctx context.Context, store Store, dst [][]byte, key Key) (docs [][]byte, mine bool, err error) {
	m, ok := store.(*MemoryStore)
	if w, wraps := store.(own.Store); wraps && !ok {
		m, ok = w.OwnStore(own.Token{}).(*MemoryStore)
	}
	if ok && m != nil {
		return m.appendGet(dst[:0], key), true, nil
	}
	docs, err = store.Get(ctx, key)
	return docs, false, err
}

// Len returns the number of entries kept.
func (s *MemoryStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	return s.t.Len(s.now())
}
