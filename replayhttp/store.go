package replayhttp

import (
	"bytes"
	"container/list"
	"context"
	"slices"
	"sync"
	"time"
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
	// own copy. Putting the same bytes again under the same key refreshes
	// the entry, never doubles it.
	Put(ctx context.Context, key Key, doc []byte) error
	// Get returns the documents recorded under key, the least recently
	// put first; none when the key is unknown. The caller may keep and
	// change them.
	Get(ctx context.Context, key Key) ([][]byte, error)
}

// MemoryStore is the in-memory [Store]: bounded by the number of entries
// and their total size, each entry forgotten TTL after it was put (or put
// again). The oldest entries go first when a bound is reached. One key
// holds at most MaxPerKey documents, the most recently put. The zero
// value is ready to use with the defaults.
type MemoryStore struct {
	// MaxTurns bounds the number of entries kept; 0 means 10000.
	MaxTurns int
	// MaxBytes bounds the total size of the documents kept; 0 means
	// 256 MiB. A document larger than that is not kept.
	MaxBytes int
	// TTL is how long an entry is kept; 0 means one hour.
	TTL time.Duration
	// MaxPerKey bounds the documents one key holds; 0 means 8, and less
	// than 2 means 2.
	MaxPerKey int

	mu    sync.Mutex
	now   func() time.Time
	order *list.List // of *memEntry, oldest first (and so soonest to expire)
	keys  map[Key][]*list.Element
	bytes int
}

type memEntry struct {
	key     Key
	doc     []byte
	expires time.Time
}

func (s *MemoryStore) init() {
	if s.order == nil {
		s.order = list.New()
		s.keys = map[Key][]*list.Element{}
	}
	if s.now == nil {
		s.now = time.Now
	}
}

func (s *MemoryStore) limits() (turns, size, perKey int, ttl time.Duration) {
	turns, size, perKey, ttl = s.MaxTurns, s.MaxBytes, s.MaxPerKey, s.TTL
	if turns <= 0 {
		turns = 10000
	}
	switch {
	case perKey == 0:
		perKey = 8
	case perKey < 2:
		perKey = 2
	}
	if size <= 0 {
		size = 256 << 20
	}
	if ttl <= 0 {
		ttl = time.Hour
	}
	return
}

// Put records a copy of doc under key. The same bytes put again under the
// same key are refreshed: they become the key's most recently put and
// expire TTL from now.
func (s *MemoryStore) Put(_ context.Context, key Key, doc []byte) error {
	if len(doc) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	maxTurns, maxBytes, perKey, ttl := s.limits()
	if len(doc) > maxBytes {
		return nil
	}
	now := s.now()
	s.expire(now)
	l := s.keys[key]
	for i, el := range l {
		if e := el.Value.(*memEntry); bytes.Equal(e.doc, doc) {
			e.expires = now.Add(ttl)
			s.order.MoveToBack(el)
			s.keys[key] = append(slices.Delete(l, i, i+1), el)
			return nil
		}
	}
	if len(l) >= perKey {
		s.remove(l[0])
	}
	e := &memEntry{key: key, doc: bytes.Clone(doc), expires: now.Add(ttl)}
	el := s.order.PushBack(e)
	s.keys[key] = append(s.keys[key], el)
	s.bytes += len(e.doc)
	for s.order.Len() > maxTurns || s.bytes > maxBytes {
		s.remove(s.order.Front())
	}
	return nil
}

// Get returns copies of the documents recorded under key that have not
// expired, the least recently put first.
func (s *MemoryStore) Get(_ context.Context, key Key) ([][]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	s.expire(s.now())
	l := s.keys[key]
	if len(l) == 0 {
		return nil, nil
	}
	out := make([][]byte, len(l))
	for i, el := range l {
		out[i] = bytes.Clone(el.Value.(*memEntry).doc)
	}
	return out, nil
}

// Len returns the number of entries kept.
func (s *MemoryStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	s.expire(s.now())
	return s.order.Len()
}

// expire drops the entries whose time is up. Entries are in put order and
// share one TTL, so the expired ones are at the front.
func (s *MemoryStore) expire(now time.Time) {
	for el := s.order.Front(); el != nil; el = s.order.Front() {
		if el.Value.(*memEntry).expires.After(now) {
			return
		}
		s.remove(el)
	}
}

func (s *MemoryStore) remove(el *list.Element) {
	e := el.Value.(*memEntry)
	l := s.keys[e.key]
	if i := slices.Index(l, el); i >= 0 {
		l = slices.Delete(l, i, i+1)
	}
	if len(l) == 0 {
		delete(s.keys, e.key)
	} else {
		s.keys[e.key] = l
	}
	s.bytes -= len(e.doc)
	s.order.Remove(el)
}
