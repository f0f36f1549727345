package replayhttp

import (
	"bytes"
	"encoding"
	"encoding/hex"
	"hash"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/view"
)

// A conversation grows by an exchange or two per request, and every
// request carries all of it: the chain of a request whose leading elements
// write what a recent request's wrote continues from that request's hash
// state, and only the rest is canonicalised and hashed. The chain is a
// running hash: its state after element i depends on nothing but the
// sequence of what was written into it up to there (the bound members'
// canonical forms, then per element either its canonical form, the visible
// digest of the model turn it begins, or nothing). A cached request is
// reused up to the first element whose write could differ: an element
// written by its canonical form must have the same bytes (the same bytes
// have the same form under the same skipped names, which are part of the
// cache key), a model turn the same visible digest (computed for the new
// request as the cold path does), the bound members the same bytes. The
// digests are thus exactly those a cold computation gives.
//
// A model turn's visible digest is itself taken from the entry, not
// computed, when the request's codec promises that its turns are read
// from their own bytes alone (readafter.OwnBytes: the same element bytes,
// lastness and codec configuration make the same turn) and the element
// has the bytes, lastness and codec key of the entry's element, whose
// digest was computed from those bytes (or taken, by the same rule).

// chainCache keeps, per tenant and set of skipped names, the last few
// requests' chain states, the least recently used key first out once the
// kept bodies exceed chainCacheBytes or the keys chainCacheKeys. The zero
// value is ready. One tenant's entries are never read for another's
// request.
type chainCache struct{ recent[*chainEntry] }

// chainEntry is what continues the chain of one request: the bytes of
// its bound members and of each element written by its bytes (views of
// its body), what each element wrote, and the hash state and digest at
// each mark. It is never changed once made; an entry made by continuing
// another shares that one's leading states and digests.
type chainEntry struct {
	codec  any    // the codec key its turns' raw bytes were read under (readafter.TurnKey); nil: none
	src    string // the request body all its bytes are views of
	bound  [][]byte
	els    []chainEl
	states [][]byte // the marshalled hash state at mark i (len(els)+1)
	d      []string // the digests (len(els)+1)
	size   int      // the bytes it refers to
}

// chainEl is what one element wrote into the chain.
type chainEl struct {
	kind byte   // 'm': its canonical form; 'a': the visible digest of the turn it begins; 0: nothing
	raw  []byte // its bytes ('m'; 'a' when the entry has a codec key: the turn's, vis computed from them)
	last bool   // 'a' with raw: the turn was its request's last
	vis  string // the visible digest ('a')
}

const (
	chainCacheBytes = 64 << 20
	chainCacheKeys  = 4096
	chainPerKey     = 4
	// chainCacheMaxBody is the largest request whose chain is kept.
	chainCacheMaxBody = chainCacheBytes / 8
)

func chainKey(tenant string, invisible []string) string {
	return strconv.Itoa(len(tenant)) + ":" + tenant + "\x00" + strings.Join(invisible, "\x00")
}

var chainLimits = recentLimits[*chainEntry]{bytes: chainCacheBytes, keys: chainCacheKeys, perKey: chainPerKey,
	size: func(e *chainEntry) int { return e.size }}

// put keeps ent under key, in place of replaced (an entry ent continues
// or nil).
func (c *chainCache) put(key string, ent, replaced *chainEntry) {
	if ent.size <= chainCacheMaxBody {
		c.recent.put(key, ent, replaced, chainLimits)
	}
}

// chainer computes a request's chain, from a cached state where one
// applies.
type chainer struct {
	r     *codecs.Request
	dg    *digester
	vis   []string // the visible digest of each turn, by index, once computed
	hexes []byte   // vis's bytes, each written once
	key   any      // the codec's key when its turns are read from their own bytes (readafter.TurnKey)
	// owned says that no one writes the request's body again: an entry
	// keeps it as it is.
	owned bool
	// after is the text the request's tape was read after, and prefix
	// how many leading bytes the body shares with it (jsonw.Tape.Prefix):
	// an entry's bytes that are after's, at the place of the request's
	// own within those bytes, are the request's, uncompared.
	after  string
	prefix int
}

// same reports whether the body's bytes [start, end) are raw, an entry's.
func (ch *chainer) same(start, end int, raw []byte) bool {
	if end-start != len(raw) {
		return false
	}
	if end <= ch.prefix && len(raw) > 0 {
		if off, ok := view.Offset(ch.after, view.String(raw)); ok && off == start {
			return true
		}
	}
	return bytes.Equal(ch.r.Body[start:end], raw)
}

// ownRaw returns the bytes of the turn that element i begins, when the
// codec reads it from them alone (one element, a codec key): nil else.
func (ch *chainer) ownRaw(i int) []byte {
	r := ch.r
	e := r.Elements[i]
	if ch.key == nil || r.Runs || e.Turn < 0 {
		return nil
	}
	if first, end := r.TurnSpan(e.Turn); first != i || end != i+1 {
		return nil
	}
	return r.Body[e.Start:e.End]
}

// lastTurn reports whether turn ti is the request's last.
func (ch *chainer) lastTurn(ti int) bool { return ti == len(ch.r.History.Turns)-1 }

func (ch *chainer) visible(ti int) string {
	if ch.vis[ti] == "" {
		if ch.hexes == nil { // the turns' digests, in one buffer
			ch.hexes = make([]byte, 32*len(ch.vis))
		}
		x := ch.hexes[32*ti : 32*ti+32 : 32*ti+32]
		ch.vis[ti] = view.String(ch.dg.visibleHex(ch.r.History.Turns[ti], x))
	}
	return ch.vis[ti]
}

// write returns what element i of the request writes into the chain.
func (ch *chainer) write(i int) (kind byte, vis string) {
	e := ch.r.Elements[i]
	switch {
	case e.Turn < 0:
		return 'm', ""
	case i == 0 || ch.r.Elements[i-1].Turn != e.Turn:
		return 'a', ch.visible(e.Turn)
	}
	return 0, ""
}

// match returns how many leading elements of the request write what
// ent's did, or -1 when its bound members differ from ent's.
func (ch *chainer) match(ent *chainEntry) int {
	r := ch.r
	if len(r.Bound) != len(ent.bound) {
		return -1
	}
	for i, b := range r.Bound {
		if !ch.same(b.Start, max(b.Start, b.End), ent.bound[i]) {
			return -1
		}
	}
	n := min(len(r.Elements), len(ent.els))
	own := ch.key != nil && ent.codec == ch.key
	for i := 0; i < n; i++ {
		if o := ent.els[i]; own && o.kind == 'a' && o.raw != nil {
			// The same bytes read by the same codec, as the last turn or
			// not, make the same turn: its digest is the entry's.
			if e := r.Elements[i]; ch.ownRaw(i) != nil && o.last == ch.lastTurn(e.Turn) && ch.same(e.Start, e.End, o.raw) {
				if ti := r.Elements[i].Turn; ch.vis[ti] == "" {
					ch.vis[ti] = o.vis
				}
				continue
			}
		}
		kind, vis := ch.write(i)
		o := ent.els[i]
		if kind != o.kind {
			return i
		}
		switch kind {
		case 'm':
			if e := r.Elements[i]; !ch.same(e.Start, e.End, o.raw) {
				return i
			}
		case 'a':
			if vis != o.vis {
				return i
			}
		}
	}
	return n
}

// run computes the chain, continuing from the entry of prevs that shares
// the most leading elements (if any does). When keep is set and the
// request is not all in that entry, it returns the request's own entry,
// and the entry it replaces (the one it continues whole) if any.
func (ch *chainer) run(prevs []*chainEntry, keep bool) (d []string, ent, replaced *chainEntry) {
	r := ch.r
	dg := ch.dg
	w := dg.w
	n := len(r.Elements)
	if keep || len(prevs) > 0 {
		if !resumable(newDigest()) {
			keep, prevs = false, nil
		}
	}
	k, from := -1, (*chainEntry)(nil)
	for _, p := range prevs {
		// An entry matches at most its own elements and the request's:
		// one that cannot match more than the best so far is not
		// compared (the first of the best is taken either way).
		if min(len(r.Elements), len(p.els)) <= k {
			continue
		}
		if m := ch.match(p); m > k {
			k, from = m, p
		}
	}
	d = make([]string, n+1)
	var h hash.Hash
	first, start := 0, 0 // the first element to write, the first digest to compute
	if from != nil {
		h = newDigest()
		if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(from.states[k]); err != nil {
			from = nil
		} else {
			copy(d, from.d[:k+1])
			first, start = k, k+1
			if k == n {
				return d, nil, nil // all of it is in from
			}
			if k == len(from.els) {
				replaced = from
			}
		}
	}
	if from == nil {
		h = newDigest()
		k = -1
	}
	w.Reset(h)
	var states [][]byte
	if keep {
		states = make([][]byte, n+1)
		if from != nil {
			copy(states, from.states[:k+1])
		}
	}
	var root, conv jsonw.Val
	if t := r.History.RequestTape(r.History.Request); t != nil {
		root = t.Root()
		conv = root.Get(r.Member)
	}
	if from == nil {
		w.Tag('v', "replay conversation v1")
		for _, b := range r.Bound {
			w.Tag('b', "")
			if b.End > b.Start {
				dg.value(r.Body, root.At(b.Start, b.End), b.Start, b.End)
			}
		}
	}
	// The digests, as hex, in one buffer; the states likewise.
	const hn = 2 * 16
	hx := make([]byte, hn*(n+1-start))
	var sb []byte
	var sum [32]byte
	mark := func(i int) {
		x := hx[(i-start)*hn : (i-start+1)*hn]
		hex.Encode(x, w.Sum(sum[:0])[:16])
		d[i] = view.String(x)
		if keep {
			at := len(sb)
			var err error
			if a, ok := h.(encoding.BinaryAppender); ok && sb != nil {
				sb, err = a.AppendBinary(sb)
			} else {
				var st []byte
				if st, err = h.(encoding.BinaryMarshaler).MarshalBinary(); err == nil {
					if sb == nil {
						sb = make([]byte, 0, len(st)*(n+1-start))
					}
					at = len(sb)
					sb = append(sb, st...)
				}
			}
			if err != nil {
				keep = false
				return
			}
			states[i] = sb[at:len(sb):len(sb)]
		}
	}
	if from == nil {
		mark(0)
	}
	for i := first; i < n; i++ {
		e := r.Elements[i]
		switch kind, vis := ch.write(i); kind {
		case 'm':
			w.Tag('m', "")
			el := conv.Index(i)
			if el.Start() != e.Start {
				el = jsonw.Val{}
			}
			dg.value(r.Body, el, e.Start, e.End)
		case 'a':
			w.Tag('a', vis)
		}
		mark(i + 1)
	}
	if !keep {
		return d, nil, nil
	}
	ent = &chainEntry{codec: ch.key, states: states, d: d, els: make([]chainEl, n)}
	// What each element wrote, and whether it has bytes: an element
	// written by its canonical form, and a model turn read from its own
	// bytes.
	for i := range ent.els {
		el := &ent.els[i]
		if i < k {
			el.kind, el.vis = from.els[i].kind, from.els[i].vis
		} else {
			el.kind, el.vis = ch.write(i)
		}
	}
	hasRaw := func(i int) bool {
		return ent.els[i].kind == 'm' || ent.els[i].kind == 'a' && ch.ownRaw(i) != nil
	}
	if ch.owned {
		// The body is never written again: every element's bytes are
		// views of it, those taken from from included (they wrote what
		// this request's write: that is what matching them found), with
		// this request's lastness, so that a later request read after
		// this body finds them at its own places (chainer.same). Else a
		// conversation walked request by request would hold every model
		// turn as the last of some request, and no later request could
		// take a digest from it.
		src := view.String(r.Body)
		at := func(start, end int) []byte { return view.Bytes(src[start:max(start, end)]) }
		ent.bound = make([][]byte, len(r.Bound))
		for i, b := range r.Bound {
			ent.bound[i] = at(b.Start, b.End)
		}
		for i, e := range r.Elements {
			if hasRaw(i) {
				ent.els[i].raw = at(e.Start, e.End)
				ent.els[i].last = ent.els[i].kind == 'a' && ch.lastTurn(e.Turn)
			}
		}
		ent.src, ent.size = src, len(src)
		return d, ent, replaced
	}
	// Another's body: what from holds is shared, the rest copied, into
	// one buffer. A model turn from holds with its bytes read by another
	// codec, or with another lastness (from's last turn, which this
	// request follows with more), takes this request's bytes and
	// lastness, as above.
	own := func(i int) bool { // element i takes this request's bytes
		if !hasRaw(i) {
			return false
		}
		if i >= k {
			return true
		}
		o := from.els[i]
		return o.kind == 'a' && (o.raw == nil || from.codec != ch.key || o.last != ch.lastTurn(r.Elements[i].Turn))
	}
	size := 0
	if from == nil {
		for _, b := range r.Bound {
			size += max(b.End-b.Start, 0)
		}
	}
	for i, e := range r.Elements {
		if own(i) {
			size += e.End - e.Start
		}
	}
	buf := make([]byte, 0, size)
	cp := func(start, end int) []byte {
		buf = append(buf, r.Body[start:max(start, end)]...)
		return buf[len(buf)-(max(start, end)-start) : len(buf) : len(buf)]
	}
	if from != nil {
		ent.bound = from.bound
	} else {
		ent.bound = make([][]byte, len(r.Bound))
		for i, b := range r.Bound {
			ent.bound[i] = cp(b.Start, b.End)
		}
	}
	for i, e := range r.Elements {
		el := &ent.els[i]
		switch {
		case own(i):
			el.raw = cp(e.Start, e.End)
			el.last = el.kind == 'a' && ch.lastTurn(e.Turn)
		case i < k && hasRaw(i):
			el.raw, el.last = from.els[i].raw, from.els[i].last
		}
	}
	for _, b := range ent.bound {
		ent.size += len(b)
	}
	for _, el := range ent.els {
		ent.size += len(el.raw)
	}
	return d, ent, replaced
}

// resumable reports whether h's state can be saved and restored.
func resumable(h hash.Hash) bool {
	_, m := h.(encoding.BinaryMarshaler)
	_, u := h.(encoding.BinaryUnmarshaler)
	return m && u
}
