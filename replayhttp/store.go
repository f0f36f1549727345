package replayhttp

import (
	"bytes"
	"container/list"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/reasonreplay/replay"
)

// Store keeps captured turns under the keys that the next request will
// carry, so that an assistant message an agent rebuilt without its
// reasoning can get it back. The keys the middleware uses are
//
//	call:<tool call id>           a tool call of the turn (every API)
//	item:<output item id>         an OpenAI Responses message or function_call id
//	pos:<n>:<hash>                the message's position in the next request
//	                              and a hash of its visible text and tool names
//
// Get returns the turns recorded under a key; when two different turns
// share one, the middleware leaves the message alone and says so. A store
// may bound the turns one key holds (a position key is shared by every
// conversation at the same point with the same visible text), provided it
// keeps at least two, the most recently put, so that a key that names
// several live turns still reads as ambiguous. A Store must be safe for
// concurrent use; it may be shared by several Transports.
type Store interface {
	// Put records t under every key. The store keeps its own copy.
	Put(ctx context.Context, keys []string, t *replay.Turn) error
	// Get returns the turns recorded under key, copies the caller may
	// change, none when the key is unknown.
	Get(ctx context.Context, key string) ([]*replay.Turn, error)
}

// MemoryStore is the in-memory [Store]: bounded by the number of turns and
// their total size, each turn forgotten TTL after it was put (or put
// again). The oldest turns go first when a bound is reached. One key holds
// at most MaxPerKey turns, the most recently put, so that a Put or a Get
// costs the same however many conversations share a position key. The
// zero value is ready to use with the defaults. Turns are kept as turn
// documents, so a Get returns a fresh copy.
type MemoryStore struct {
	// MaxTurns bounds the number of turns kept; 0 means 10000.
	MaxTurns int
	// MaxBytes bounds the total size of the turn documents kept; 0 means
	// 256 MiB.
	MaxBytes int
	// TTL is how long a turn is kept; 0 means one hour.
	TTL time.Duration
	// MaxPerKey bounds the turns one key holds; 0 means 8, and less than
	// 2 means 2. A turn put under a key that holds that many takes the
	// place of the key's least recently put turn, which stays in the store
	// under its other keys (and goes back under this one when it is put
	// again). A key that named several turns keeps naming several (and
	// reads as ambiguous) until at most one of them is left: the turns it
	// let go of were put before the ones it keeps, and leave the store
	// first.
	MaxPerKey int

	mu    sync.Mutex
	now   func() time.Time
	order *list.List // of *memEntry, oldest first
	keys  map[string][]*list.Element
	bytes int
}

type memEntry struct {
	doc     []byte
	keys    []string // the keys that find it
	lost    []string // keys it was put under that let it go for newer turns
	expires time.Time
}

func (s *MemoryStore) init() {
	if s.order == nil {
		s.order = list.New()
		s.keys = map[string][]*list.Element{}
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

// Put records t under keys. A turn put again under a key that holds the
// same document is refreshed, not doubled, and becomes the key's most
// recently put turn.
func (s *MemoryStore) Put(_ context.Context, keys []string, t *replay.Turn) error {
	if len(keys) == 0 || t == nil {
		return nil
	}
	doc := t.AppendJSON(nil)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	maxTurns, maxBytes, perKey, ttl := s.limits()
	now := s.now()
	s.expire(now)
	var e *memEntry
	var el *list.Element
	for _, k := range keys {
		for _, x := range s.keys[k] {
			if bytes.Equal(x.Value.(*memEntry).doc, doc) {
				el, e = x, x.Value.(*memEntry)
			}
		}
	}
	if e != nil {
		// Each key's turns stay in the store's order, by when they were
		// last put, and a turn put again goes back under the keys that
		// let it go: a turn a full key lets go of is older than every
		// turn the key keeps, and leaves the store first.
		s.order.MoveToBack(el)
		keys = append(slices.Clip(keys), e.lost...)
		e.lost = nil
		for _, k := range e.keys {
			l := s.keys[k]
			i := slices.Index(l, el)
			copy(l[i:], l[i+1:])
			l[len(l)-1] = el
		}
	} else {
		if len(doc) > maxBytes {
			return nil
		}
		e = &memEntry{doc: doc}
		el = s.order.PushBack(e)
		s.bytes += len(doc)
	}
	e.expires = now.Add(ttl)
	for _, k := range keys {
		l := s.keys[k]
		if slices.Contains(l, el) {
			continue
		}
		if len(l) >= perKey {
			oldEl := l[0]
			old := oldEl.Value.(*memEntry)
			old.keys = slices.DeleteFunc(old.keys, func(x string) bool { return x == k })
			old.lost = append(old.lost, k)
			l = append(l[:0], l[1:]...)
			if len(old.keys) == 0 { // no key finds it any more
				s.bytes -= len(old.doc)
				s.order.Remove(oldEl)
			}
		}
		s.keys[k] = append(l, el)
		e.keys = append(e.keys, k)
	}
	for s.order.Len() > maxTurns || s.bytes > maxBytes {
		s.remove(s.order.Front())
	}
	return nil
}

// Get returns copies of the turns recorded under key that have not
// expired, the least recently put first.
func (s *MemoryStore) Get(_ context.Context, key string) ([]*replay.Turn, error) {
	s.mu.Lock()
	s.init()
	s.expire(s.now())
	var docs [][]byte
	for _, el := range s.keys[key] {
		docs = append(docs, el.Value.(*memEntry).doc)
	}
	s.mu.Unlock()
	out := make([]*replay.Turn, 0, len(docs))
	for _, d := range docs {
		t, err := replay.UnmarshalTurn(d)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// Len returns the number of turns kept.
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
	for _, k := range e.keys {
		l := s.keys[k]
		for i, x := range l {
			if x == el {
				l = append(l[:i], l[i+1:]...)
				break
			}
		}
		if len(l) == 0 {
			delete(s.keys, k)
		} else {
			s.keys[k] = l
		}
	}
	s.bytes -= len(e.doc)
	s.order.Remove(el)
}
