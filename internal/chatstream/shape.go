package chatstream

import (
	"unsafe"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
)

// A stream repeats one chunk shape hundreds of times: the same envelope
// (id, model, created, object), the same delta members, only the strings
// carrying text differ. The decoder reads a chunk in full (validating
// everything, deciding everything) and, while the host's Delta runs,
// records the calls that took strings of the chunk (AppendRaw, TextRaw,
// Content, Ignore): those strings are the chunk's holes. When the chunk
// opened no block, ended nothing and did nothing a shape cannot repeat,
// its shape is learned (see [jsonw.Shape]). The next chunk that matches it
// (the same bytes outside the holes, valid strings in them, each empty or
// not as before) and finds the turn's blocks as they were, is read by
// making the recorded calls again with its strings: the same code, the
// same checks (budget, lone surrogates, events) as the full path, which
// would take every other decision as it took it for the learned chunk.

// op kinds: the calls a shape repeats.
const (
	opItem   = iota + 1 // AppendRaw to item
	opText              // TextRaw
	opHost              // the host's Content
	opIgnore            // a string read and ignored
)

// op is one recorded call, for the string in hole hole; an AppendRaw's
// item, emit and member location (a Loc without its event, kept small).
type op struct {
	item               *Item
	base, list, member string
	k                  int32
	kind, hole         uint8
	emit               bool
}

// loc returns the AppendRaw's location.
func (o *op) loc() Loc { return Loc{Base: o.base, List: o.list, K: int(o.k), Member: o.member} }

// fast is a stream decoder's shape of the last chunk it read in full, and
// the recording of the chunk being read.
type fast struct {
	sh     jsonw.Shape
	ops    [jsonw.MaxHoles]op
	raws   [jsonw.MaxHoles]string
	blocks int32 // the turn's blocks when learned
	n      int8  // ops recorded (more than MaxHoles: not learnable)
	full   uint8 // bit h: hole h held more than ""
	rec    bool  // recording the chunk being read in full
	spoilt bool  // the chunk did what a shape cannot repeat
	// vop is the op whose string a match decodes as it validates it, from
	// hole vh (the op's own, or the one it is a twin of); -1 for none.
	vop, vh int8
	val     []byte // the decoded value, reused
	shaped  int    // chunks read by their shape
}

// record starts (on) or skips the recording of a chunk read in full.
func (f *fast) record(on bool) { f.rec, f.spoilt, f.n = on, !on, 0 }

// stop ends the recording of the chunk s, and learns it when it may be
// learned and ok says the core agrees (the turn having blocks blocks).
func (f *fast) stop(s string, blocks int, ok bool) {
	if f.rec && !f.spoilt && f.n <= jsonw.MaxHoles && ok {
		f.learn(s, blocks)
	}
	f.rec = false
	clear(f.raws[:]) // views of s
}

// add records a call taking raw, a string of the chunk.
func (f *fast) add(o op, raw string) {
	if f.n < jsonw.MaxHoles {
		f.ops[f.n], f.raws[f.n] = o, raw
	}
	if f.n <= jsonw.MaxHoles {
		f.n++
	}
}

// learn learns the chunk s (the turn having blocks blocks) with the
// recorded strings as its holes, in the order they appear in s.
func (f *fast) learn(s string, blocks int) {
	base := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	off := func(v string) uintptr { return uintptr(unsafe.Pointer(unsafe.StringData(v))) - base }
	var order [jsonw.MaxHoles]int // hole h is the string of ops[order[h]]
	for k := 0; k < int(f.n); k++ {
		if len(f.raws[k]) == 0 {
			return
		}
		h := k
		for ; h > 0 && off(f.raws[order[h-1]]) > off(f.raws[k]); h-- {
			order[h] = order[h-1]
		}
		order[h] = k
	}
	var holes [jsonw.MaxHoles]string
	f.full = 0
	for h := 0; h < int(f.n); h++ {
		k := order[h]
		holes[h] = f.raws[k]
		f.ops[k].hole = uint8(h)
		if len(holes[h]) > 2 {
			f.full |= 1 << h
		}
	}
	f.vop, f.vh = -1, -1
	if !f.sh.Learn(s, holes[:int(f.n)]) {
		return
	}
	f.blocks = int32(blocks)
	var twin [jsonw.MaxHoles]int8 // 1 + the hole a hole is a twin of
	// A string ignored because it mirrors another (OpenRouter's reasoning
	// and its reasoning_details text) is matched as that one's twin: the
	// same bytes, validated once.
	for k := 0; k < int(f.n); k++ {
		if f.ops[k].kind != opIgnore || f.full&(1<<f.ops[k].hole) == 0 {
			continue
		}
		for j := 0; j < int(f.n); j++ {
			g, h := int(f.ops[k].hole), int(f.ops[j].hole)
			if j != k && holes[g] == holes[h] {
				if f.sh.Twin(max(g, h), min(g, h)) {
					twin[max(g, h)] = int8(min(g, h)) + 1
				}
				break
			}
		}
	}
	// The first string kept is decoded as the match validates it.
	for k := 0; k < int(f.n); k++ {
		if o := &f.ops[k]; o.kind == opItem || o.kind == opText {
			f.vop, f.vh = int8(k), int8(o.hole)
			for twin[f.vh] != 0 {
				f.vh = twin[f.vh] - 1 // a twin is not scanned: its first copy is
			}
			break
		}
	}
}

// learnable reports whether the chunk read into sc may be learned as far
// as the core reads it: a first choice with a delta object read, no tool
// calls, no finish_reason, no usage, nothing ended yet.
func (d *Decoder) learnable(sc *scanned) bool {
	if d.ended || !sc.object || !sc.choiceObject || !sc.deltaRead || isString(sc.finish) {
		return false
	}
	if u := sc.c.Usage; len(u) > 0 && u[0] == '{' {
		return false
	}
	tcs := d.vals[len(d.host.Keys)]
	return tcs == "" || tcs == "null"
}

// matched reads the chunk s by the learned shape when s has it; ok is
// false (and nothing was done) when it has not.
func (d *Decoder) matched(s string, dst []replay.Event) (_ []replay.Event, ok bool, err error) {
	f := d.fast
	var raws [jsonw.MaxHoles]string
	if d.ended || len(d.turn.Blocks) != int(f.blocks) {
		return dst, false, nil
	}
	val, ok := f.sh.MatchValue(s, raws[:], int(f.vh), f.val[:0])
	f.val = val[:0]
	if !ok {
		return dst, false, nil
	}
	for h := 0; h < int(f.n); h++ {
		if (len(raws[h]) > 2) != (f.full&(1<<h) != 0) {
			return dst, false, nil
		}
	}
	for k := 0; k < int(f.n) && err == nil; k++ {
		o := &f.ops[k]
		raw, unicode := raws[o.hole], f.sh.Unicode(int(o.hole))
		var v []byte // the value of raw, when decoded by the match
		if k == int(f.vop) && !f.sh.Surrogate(int(o.hole)) {
			// Decoded whole (a \u escape that is no surrogate half
			// included): what the unescapers would write.
			v, unicode = val, false
		}
		switch o.kind {
		case opItem:
			dst, err = d.appendRaw(raw, v, o, unicode, dst)
		case opText:
			dst, err = d.textRaw(raw, v, unicode, dst)
		case opHost:
			dst, err = d.host.Content(d, raw, dst)
		}
	}
	if len(d.turn.Blocks) != int(f.blocks) {
		f.sh.Forget() // a block opened: the next chunk is decided afresh
	}
	f.shaped++
	return dst, true, err
}

// Shaped returns the number of chunks read by their shape so far.
func (d *Decoder) Shaped() int {
	if d.fast == nil {
		return 0
	}
	return d.fast.shaped
}

// Content reads the JSON string raw, a string of the delta, with the
// host's Content hook. A chunk read by its shape calls the hook again
// with its own string.
func (d *Decoder) Content(raw string, dst []replay.Event) ([]replay.Event, error) {
	f := d.fast
	if f == nil || !f.rec {
		return d.host.Content(d, raw, dst)
	}
	f.add(op{kind: opHost}, raw)
	f.rec = false // what the hook does is repeated by calling it again
	dst, err := d.host.Content(d, raw, dst)
	f.rec = true
	return dst, err
}

// Ignore records raw, a string of the delta that the host reads and
// does not keep (OpenRouter's `reasoning` mirrored in its
// reasoning_details): a chunk read by its shape may hold any string there.
func (d *Decoder) Ignore(raw string) {
	if f := d.fast; f != nil && f.rec {
		f.add(op{kind: opIgnore}, raw)
	}
}

// Unshaped says the chunk being read did what reading a next chunk by its
// shape would not repeat: it is not learned.
func (d *Decoder) Unshaped() {
	if f := d.fast; f != nil && f.rec {
		f.spoilt = true
	}
}
