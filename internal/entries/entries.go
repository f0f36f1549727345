// Package entries is the bounded table of documents per key under the
// stores of packages replayhttp (MemoryStore) and replayproxy (FileStore,
// which loads its file into one and rewrites its file from one).
package entries

import (
	"bytes"
	"container/list"
	"slices"
	"time"
)

// Bounds bound a Table. Zero fields take the defaults of [Bounds.WithDefaults].
type Bounds struct {
	// Entries bounds the entries kept (10000).
	Entries int
	// Bytes bounds the total size of the documents kept (256 MiB); a
	// document larger than that is not kept.
	Bytes int
	// PerKey bounds the documents one key holds (8; at least 2).
	PerKey int
	// TTL is how long an entry is kept after it was put (one hour).
	TTL time.Duration
}

// WithDefaults fills the zero fields.
func (b Bounds) WithDefaults() Bounds {
	if b.Entries <= 0 {
		b.Entries = 10000
	}
	if b.Bytes <= 0 {
		b.Bytes = 256 << 20
	}
	switch {
	case b.PerKey == 0:
		b.PerKey = 8
	case b.PerKey < 2:
		b.PerKey = 2
	}
	if b.TTL <= 0 {
		b.TTL = time.Hour
	}
	return b
}

// Table holds documents per key: bounded by the number of entries, their
// total size and the documents per key (the least recently put go first),
// each entry forgotten when it expires. It is not safe for concurrent
// use; the stores hold a lock around it.
type Table[K comparable] struct {
	b     Bounds
	order *list.List // of *entry[K], least recently put first
	keys  map[K][]*list.Element
	bytes int
}

type entry[K comparable] struct {
	key     K
	doc     []byte
	expires time.Time
}

// New returns an empty table with bounds b (defaults filled).
func New[K comparable](b Bounds) *Table[K] {
	return &Table[K]{b: b.WithDefaults(), order: list.New(), keys: map[K][]*list.Element{}}
}

// Bounds returns the table's bounds.
func (t *Table[K]) Bounds() Bounds { return t.b }

// Put records a copy of doc under key until expires (which a caller
// gives as the put time plus the TTL, or a loaded record's own expiry) and
// reports whether it was kept: a document larger than the size bound is
// not. The same bytes put again under the same key are refreshed: they
// become the key's most recently put and take the new expiry. Expired
// entries (at now) go first.
func (t *Table[K]) Put(key K, doc []byte, now, expires time.Time) bool {
	if len(doc) > t.b.Bytes {
		return false
	}
	t.Expire(now)
	l := t.keys[key]
	for i, el := range l {
		if e := el.Value.(*entry[K]); bytes.Equal(e.doc, doc) {
			e.expires = expires
			t.order.MoveToBack(el)
			t.keys[key] = append(slices.Delete(l, i, i+1), el)
			return true
		}
	}
	if len(l) >= t.b.PerKey {
		t.remove(l[0])
	}
	e := &entry[K]{key: key, doc: bytes.Clone(doc), expires: expires}
	el := t.order.PushBack(e)
	t.keys[key] = append(t.keys[key], el)
	t.bytes += len(e.doc)
	for t.order.Len() > t.b.Entries || t.bytes > t.b.Bytes {
		t.remove(t.order.Front())
	}
	return true
}

// Get returns the documents under key that have not expired at now, the
// least recently put first. They are the table's own copies, which it
// never changes (an entry refreshed or removed leaves its bytes as they
// were): the caller must not change them, and may keep them. Each has
// its length as its capacity, so that an append copies.
func (t *Table[K]) Get(key K, now time.Time) [][]byte { return t.AppendGet(nil, key, now) }

// AppendGet appends to dst the documents Get returns, and returns the
// extended slice: a caller that looks up many keys in a row reuses one
// slice.
func (t *Table[K]) AppendGet(dst [][]byte, key K, now time.Time) [][]byte {
	t.Expire(now)
	for _, el := range t.keys[key] {
		if e := el.Value.(*entry[K]); e.expires.After(now) {
			dst = append(dst, e.doc[:len(e.doc):len(e.doc)])
		}
	}
	return dst
}

// Len returns the number of entries kept (those not yet expired at now).
func (t *Table[K]) Len(now time.Time) int {
	t.Expire(now)
	return t.order.Len()
}

// Size returns the total size of the documents kept.
func (t *Table[K]) Size() int { return t.bytes }

// Each calls f with every entry not expired at now, the least recently put
// first; the document is the table's own, not to be changed or kept.
func (t *Table[K]) Each(now time.Time, f func(key K, doc []byte, expires time.Time)) {
	t.Expire(now)
	for el := t.order.Front(); el != nil; el = el.Next() {
		if e := el.Value.(*entry[K]); e.expires.After(now) {
			f(e.key, e.doc, e.expires)
		}
	}
}

// Expire drops the entries expired at now from the front of the put order
// (where expiries given as the put time plus one TTL are the soonest; an
// entry with a later one in front of an expired entry holds it until it
// expires, though Get never returns it).
func (t *Table[K]) Expire(now time.Time) {
	for el := t.order.Front(); el != nil; el = t.order.Front() {
		if el.Value.(*entry[K]).expires.After(now) {
			return
		}
		t.remove(el)
	}
}

func (t *Table[K]) remove(el *list.Element) {
	e := el.Value.(*entry[K])
	l := t.keys[e.key]
	if i := slices.Index(l, el); i >= 0 {
		l = slices.Delete(l, i, i+1)
	}
	if len(l) == 0 {
		delete(t.keys, e.key)
	} else {
		t.keys[e.key] = l
	}
	t.bytes -= len(e.doc)
	t.order.Remove(el)
}

// Keys returns the number of keys that hold entries.
func (t *Table[K]) Keys() int { return len(t.keys) }
