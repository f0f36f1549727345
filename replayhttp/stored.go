package replayhttp

import (
	"bytes"
	"strings"
	"sync"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/turnfn"
	"github.com/reasonreplay/replay/internal/view"
)

// stored is a stored turn document as repair reads it, read once: what a
// store returns is untrusted input, checked (limits, item digests) and
// parsed the first time its bytes are seen, and whatever repair derives
// from the turn (its visible digest, what Carry makes of it for a target)
// is kept with it. The same bytes read the same wherever they come from,
// so one stored serves every request, tenant and key that holds them; its
// turn is never changed once read.
type stored struct {
	turn *replay.Turn // nil when err is set
	err  error

	mu      sync.Mutex
	vis     slots[string, [32]byte]   // visible digest, by the skipped names (joined by NUL)
	carried slots[carryKey, *carried] // what Carry makes of the turn, by target
	first   carried                   // the first target's, which carried points to

	// Its entry in a storedCache, under the cache's lock: its document
	// (the key), the slice that document was last returned in, and its
	// neighbours in the order of use.
	doc        string
	src        []byte
	prev, next *stored
}

// slots keeps values by key: the first in its own fields (one Transport
// mostly sees one key), the others in a map made when a second key comes.
type slots[K comparable, V any] struct {
	k   K
	v   V
	set bool
	m   map[K]V
}

// get returns the value kept for k.
func (s *slots[K, V]) get(k K) (V, bool) {
	if s.set && s.k == k {
		return s.v, true
	}
	v, ok := s.m[k]
	return v, ok
}

// put keeps v for k unless max values are kept already (max 0: no
// bound), or k's value is.
func (s *slots[K, V]) put(k K, v V, max int) {
	switch {
	case !s.set:
		s.k, s.v, s.set = k, v, true
	case s.k == k:
	case max == 0 || 1+len(s.m) < max:
		if s.m == nil {
			s.m = map[K]V{}
		}
		if _, ok := s.m[k]; !ok {
			s.m[k] = v
		}
	}
}

// len returns the number of values kept.
func (s *slots[K, V]) len() int {
	if !s.set {
		return 0
	}
	return 1 + len(s.m)
}

// carried is what Carry makes of a stored turn for one target, and what
// repair last made, with it, of a request's turn.
type carried struct {
	want    *replay.Turn
	notices []replay.Notice

	wireOnce sync.Once
	wire     [][]byte // see wires

	mu     sync.Mutex
	memo   repaired
	memoed bool
}

// repaired is what repair made of a request's turn (raw, the last turn of
// its request or not) with a capture, for a target.
type repaired struct {
	raw  string
	last bool
	out  []byte
	reps []Repair
}

// recall returns what repair made of the turn raw (last: the request's
// last) when it met these bytes last.
func (c *carried) recall(raw []byte, last bool) ([]byte, []Repair, bool) {
	c.mu.Lock()
	m, ok := c.memo, c.memoed
	c.mu.Unlock()
	if !ok || m.last != last || m.raw != string(raw) {
		return nil, nil, false
	}
	return m.out, m.reps, true
}

// remember keeps what repair made of the turn raw.
func (c *carried) remember(raw []byte, last bool, out []byte, reps []Repair) {
	m := repaired{raw: string(raw), last: last, out: out, reps: reps}
	c.mu.Lock()
	c.memo, c.memoed = m, true
	c.mu.Unlock()
}

// carryKey is what Carry reads of a target (its codec's contract comes
// from API, Provider and Model): the turn it makes of a stored turn is the
// same for two targets with the same key, under one Transport's registry
// and policy.
type carryKey struct {
	api, provider, model, account string
}

func keyOfTarget(t replay.Target) carryKey {
	return carryKey{api: t.API, provider: t.Provider, model: t.Model, account: t.Account}
}

// visibleOf returns the visible digest of the stored turn (in hex) for
// the names skip leaves out (named by invisible), computed once.
func (s *stored) visibleOf(dg *digester, invisible []string) [32]byte {
	k := strings.Join(invisible, "\x00")
	s.mu.Lock()
	v, ok := s.vis.get(k)
	s.mu.Unlock()
	if ok {
		return v
	}
	dg.visibleHex(s.turn, v[:])
	s.mu.Lock()
	s.vis.put(k, v, 0)
	s.mu.Unlock()
	return v
}

// carry returns what Carry makes of the stored turn for target, computed
// once per target key with carry (repair's, for target).
func (s *stored) carry(target replay.Target, carry func(*replay.Turn) (*replay.Turn, []replay.Notice)) *carried {
	k := keyOfTarget(target)
	s.mu.Lock()
	c, ok := s.carried.get(k)
	s.mu.Unlock()
	if ok {
		return c
	}
	want, notices := carry(s.turn)
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.carried.get(k); ok { // carried meanwhile by another request
		return c
	}
	if s.carried.len() == 0 {
		c = &s.first
	} else {
		c = &carried{}
	}
	c.want, c.notices = want, notices
	s.carried.put(k, c, maxCarried)
	return c
}

// wires returns each block's wire form for sameBlocks (an item's, else
// nil), written the first time a comparison needs one.
func (c *carried) wires() [][]byte {
	c.wireOnce.Do(func() { c.wire = wireOf(c.want) })
	return c.wire
}

// carryStored returns Carry to a target of one turn at a time, each never
// changed, into turns that are never changed either (see
// turnfn.CarryStored): a stored turn, and what the target gets of it, are
// only read.
var carryStored = turnfn.CarryStored.(func(*replay.Registry, replay.Target, replay.Policy) func(*replay.Turn) (*replay.Turn, []replay.Notice))

// readTurnShared is replay.UnmarshalTurn of a document that never changes,
// whose turn may share its memory (see turnfn.ReadTurnShared).
var readTurnShared = turnfn.ReadTurnShared.(func(string) (*replay.Turn, error))

// maxCarried bounds the targets a stored turn keeps Carry's turn for.
const maxCarried = 8

// wireOf returns the wire form of each reasoning item of t (nil for the
// other blocks).
func wireOf(t *replay.Turn) [][]byte {
	out := make([][]byte, len(t.Blocks))
	// The wire forms are written into one buffer, each taken as a slice
	// of it once all are written (capped: nothing appended to one writes
	// over the next).
	var buf []byte
	ends := make([]int, len(t.Blocks))
	for i, b := range t.Blocks {
		if it, ok := b.(replay.ReasoningItem); ok {
			buf = it.AppendWire(buf)
		}
		ends[i] = len(buf)
	}
	start := 0
	for i, b := range t.Blocks {
		if _, ok := b.(replay.ReasoningItem); ok {
			out[i] = buf[start:ends[i]:ends[i]]
		}
		start = ends[i]
	}
	return out
}

// sameBlocks reports whether the request's turn got sends exactly the
// blocks of want (whose items' wire forms wire returns), as far as repair
// compares them: the same blocks in the same order, each reasoning item
// with the same replay bytes, each text with the same text and id, each
// tool call with the same ids, name and arguments, each other block the
// same element. Such a turn has no differences from want; any other goes
// through differences. buf is scratch space, returned grown.
func sameBlocks(got, want *replay.Turn, wire func() [][]byte, buf []byte) (bool, []byte) {
	return compareBlocks(got, want, wire, buf, true)
}

// compareBlocks is sameBlocks; with byFields unset it compares every
// reasoning item by its wire form alone, never by sameWire first (the
// tests hold the two ways to the same answers).
func compareBlocks(got, want *replay.Turn, wire func() [][]byte, buf []byte, byFields bool) (bool, []byte) {
	if len(got.Blocks) != len(want.Blocks) {
		return false, buf
	}
	for i, g := range got.Blocks {
		switch w := want.Blocks[i].(type) {
		case replay.ReasoningItem:
			x, ok := g.(replay.ReasoningItem)
			if !ok {
				return false, buf
			}
			if byFields && sameWire(x, w) {
				continue
			}
			buf = x.AppendWire(buf[:0])
			if !bytes.Equal(buf, wire()[i]) {
				return false, buf
			}
		case *replay.Text:
			x, ok := g.(*replay.Text)
			if !ok || x.Text != w.Text || x.ID != w.ID {
				return false, buf
			}
		case *replay.ToolCall:
			x, ok := g.(*replay.ToolCall)
			if !ok || x.ID != w.ID || x.ItemID != w.ItemID || x.Name != w.Name || x.Arguments != w.Arguments {
				return false, buf
			}
		case *replay.Native:
			x, ok := g.(*replay.Native)
			if !ok || x.Kind != w.Kind || !bytes.Equal(x.Raw, w.Raw) {
				return false, buf
			}
		default:
			return false, buf
		}
	}
	return true, buf
}

// sameWire reports whether two reasoning items certainly have the same
// wire form ([replay.ReasoningItem].AppendWire), without writing it: the same type
// and the same values of every field the wire form is written from. False
// says nothing (two items may write the same bytes from other values):
// the caller compares their wire forms then.
func sameWire(x, w replay.ReasoningItem) bool {
	switch w := w.(type) {
	case *replay.Opaque:
		x, ok := x.(*replay.Opaque)
		return ok && bytes.Equal(x.Raw, w.Raw)
	case *replay.ReasoningText:
		x, ok := x.(*replay.ReasoningText)
		return ok && x.Text == w.Text && x.Signature == w.Signature && sameWireMeta(&x.ItemMeta, &w.ItemMeta)
	case *replay.Summary:
		x, ok := x.(*replay.Summary)
		return ok && x.Summary == w.Summary && sameWireMeta(&x.ItemMeta, &w.ItemMeta)
	case *replay.Encrypted:
		x, ok := x.(*replay.Encrypted)
		return ok && x.Data == w.Data && sameWireMeta(&x.ItemMeta, &w.ItemMeta)
	}
	return false
}

// sameWireMeta reports whether two items' metadata write the same wire
// members: id, format, index and the members kept verbatim.
func sameWireMeta(x, w *replay.ItemMeta) bool {
	return x.ID == w.ID && x.Format == w.Format && x.Index == w.Index && bytes.Equal(x.Extra, w.Extra)
}

// storedCache keeps the stored documents repair read, by their bytes, the
// least recently used first out once they hold more than maxBytes of
// documents or maxEntries of them. The zero value is ready.
//
// A MemoryStore returns the bytes it keeps, which it copied in and never
// changes: the slice such a document was last returned in is kept with
// its entry, and the same slice returned again (the same address and
// length, which no other bytes can have while the entry holds it) is
// found by its address, without reading the document again to hash and
// compare it. Any other store's documents are found by their content
// alone: a store that broke its contract and wrote new bytes into a slice
// it had returned must not be served the document those bytes held
// before, which may be another tenant's.
type storedCache struct {
	mu     sync.Mutex
	m      map[string]*stored
	byAddr map[docAddr]*stored // the same, by the slice last seen
	// The entries in the order of use, the least recent first.
	oldest, newest *stored
	n, bytes       int // entries, and their documents' bytes
}

// docAddr names a returned slice, not empty, by the address of its first
// byte and its length.
type docAddr struct {
	p *byte
	n int
}

func addrOf(doc []byte) docAddr { return docAddr{&doc[0], len(doc)} }

// push makes s the newest entry. Under c.mu.
func (c *storedCache) push(s *stored) {
	s.prev, s.next = c.newest, nil
	if c.newest != nil {
		c.newest.next = s
	} else {
		c.oldest = s
	}
	c.newest = s
	c.n++
}

// unlink takes s out of the order of use. Under c.mu.
func (c *storedCache) unlink(s *stored) {
	if s.prev != nil {
		s.prev.next = s.next
	} else {
		c.oldest = s.next
	}
	if s.next != nil {
		s.next.prev = s.prev
	} else {
		c.newest = s.prev
	}
	s.prev, s.next = nil, nil
	c.n--
}

// used makes s, an entry, the newest. Under c.mu.
func (c *storedCache) used(s *stored) {
	if c.newest != s {
		c.unlink(s)
		c.push(s)
	}
}

// seen records that s's document was returned in doc. Under c.mu.
func (c *storedCache) seen(s *stored, doc []byte) {
	if len(doc) == 0 || len(s.src) > 0 && addrOf(s.src) == addrOf(doc) {
		return
	}
	if len(s.src) > 0 {
		delete(c.byAddr, addrOf(s.src))
	}
	if c.byAddr == nil {
		c.byAddr = map[docAddr]*stored{}
	}
	s.src = doc
	c.byAddr[addrOf(doc)] = s
}

const (
	storedCacheBytes   = 32 << 20
	storedCacheEntries = 16384
)

// read returns the stored turn of doc: from the cache when these bytes
// were read before, else read now with read and kept. read is given the
// document as the string the entry keeps (a view of doc's bytes when own,
// which the store never changes, else a copy), which the turn may share.
func (c *storedCache) read(doc []byte, own bool, read func(string) (*replay.Turn, error)) *stored {
	c.mu.Lock()
	if own && len(doc) > 0 {
		if s, ok := c.byAddr[addrOf(doc)]; ok {
			c.used(s)
			c.mu.Unlock()
			return s
		}
	}
	if s, ok := c.m[string(doc)]; ok {
		c.used(s)
		if own {
			c.seen(s, doc)
		}
		c.mu.Unlock()
		return s
	}
	c.mu.Unlock()
	key := ""
	if own {
		key = view.String(doc) // bytes the store never changes: kept, not copied
	} else {
		key = string(doc)
	}
	tu, err := read(key)
	s := &stored{turn: tu, err: err, doc: key}
	if len(doc) > storedCacheBytes/16 {
		return s
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[string(doc)]; ok { // read meanwhile by another request
		if own {
			c.seen(e, doc)
		}
		return e
	}
	if c.m == nil {
		c.m = map[string]*stored{}
	}
	for c.n > 0 && (c.bytes+len(doc) > storedCacheBytes || c.n >= storedCacheEntries) {
		old := c.oldest
		c.unlink(old)
		delete(c.m, old.doc)
		if len(old.src) > 0 {
			delete(c.byAddr, addrOf(old.src))
		}
		c.bytes -= len(old.doc)
	}
	c.push(s)
	c.m[s.doc] = s
	if own {
		c.seen(s, doc)
	}
	c.bytes += len(s.doc)
	return s
}
