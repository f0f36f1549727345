package chatstream

import (
	"github.com/reasonreplay/replay/internal/engine"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/stream"
)

// A stream repeats one chunk shape hundreds of times: the same envelope
// (id, model, created, object), the same delta members, only the strings
// carrying text differ. The decoder reads a chunk in full (validating
// everything, deciding everything) and, while the host's Delta runs,
// records the calls that took strings of the chunk (AppendRaw, TextRaw,
// Content, Ignore): those strings are the chunk's holes. When the chunk
// opened no block, ended nothing and did nothing a shape cannot repeat,
// its shape is learned (see [engine.Run.Learn]). The next chunk that matches it
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

// op is one recorded call, for the string of hole k (the op's own index);
// an AppendRaw's item, emit and member location (a Loc without its event,
// kept small).
type op struct {
	item               *Item
	base, list, member string
	k                  int32
	kind               uint8
	emit               bool
}

// loc returns the AppendRaw's location.
func (o *op) loc() Loc { return Loc{Base: o.base, List: o.list, K: int(o.k), Member: o.member} }

// fast is the recording of the chunk a stream decoder reads in full, and
// the calls of the last one it learned (the shape itself is the
// engine's).
type fast struct {
	ops    [jsonw.MaxHoles]op
	raws   [jsonw.MaxHoles]string // the recorded calls' strings, views of the chunk
	blocks int32                  // the turn's blocks when learned
	n      int8                   // ops recorded (more than MaxHoles: not learnable)
	full   uint8                  // bit k: op k's string held more than ""
	rec    bool                   // recording the chunk being read in full
	spoilt bool                   // the chunk did what a shape cannot repeat
	// vop is the op whose string a match decodes as it validates it; -1
	// for none.
	vop int8
}

// record starts (on) or skips the recording of a chunk read in full.
func (f *fast) record(on bool) { f.rec, f.spoilt, f.n = on, !on, 0 }

// stop ends the recording of the chunk s, and learns it when it may be
// learned and ok says the core agrees (the turn having blocks blocks).
func (f *fast) stop(r *engine.Run, s string, blocks int, ok bool) {
	if f.rec && !f.spoilt && f.n <= jsonw.MaxHoles && ok {
		f.learn(r, s, blocks)
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
// recorded strings as its holes. The first string kept is decoded as the
// match validates it. A string ignored because it mirrors another
// (OpenRouter's reasoning and its reasoning_details text) is matched as
// that one's twin: the same bytes, validated once.
func (f *fast) learn(r *engine.Run, s string, blocks int) {
	n := int(f.n)
	f.full, f.vop = 0, -1
	for k := 0; k < n; k++ {
		if len(f.raws[k]) > 2 {
			f.full |= 1 << k
		}
		if o := &f.ops[k]; f.vop < 0 && (o.kind == opItem || o.kind == opText) {
			f.vop = int8(k)
		}
	}
	if !r.Learn(s, f.raws[:n], int(f.vop), nil) {
		return
	}
	f.blocks = int32(blocks)
	for k := 0; k < n; k++ {
		if f.ops[k].kind != opIgnore || f.full&(1<<k) == 0 {
			continue
		}
		for j := 0; j < n; j++ {
			if j != k && f.raws[k] == f.raws[j] {
				r.Twin(k, j)
				break
			}
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

// Matched reads the chunk m by the learned shape, by making the recorded
// calls again with its strings; it refuses the match (engine.ReadInFull),
// having done nothing, when the turn moved on or a string is empty where
// the learned one was not, or the other way round.
func (c *core) Matched(_ *engine.Run, m *engine.Match, dst []stream.Event) (_ []stream.Event, err error) {
	d, f := (*Decoder)(c), c.fast
	if d.ended || len(d.turn.Blocks) != int(f.blocks) {
		return dst, engine.ReadInFull
	}
	for k := 0; k < int(f.n); k++ {
		if (len(m.Raw(k)) > 2) != (f.full&(1<<k) != 0) {
			return dst, engine.ReadInFull
		}
	}
	for k := 0; k < int(f.n) && err == nil; k++ {
		o := &f.ops[k]
		raw, unicode := m.Raw(k), m.Unicode(k)
		val, decoded := "", false
		if k == int(f.vop) {
			// Decoded whole (a \u escape that is no surrogate half
			// included): what the unescapers would write.
			if val, decoded = m.Value(); decoded {
				unicode = false
			}
		}
		switch o.kind {
		case opItem:
			dst, err = d.appendRaw(raw, val, decoded, o, unicode, dst)
		case opText:
			dst, err = d.textRaw(raw, val, decoded, unicode, dst)
		case opHost:
			dst, err = d.host.Content(d, raw, dst)
		}
	}
	if len(d.turn.Blocks) != int(f.blocks) {
		d.eng.Forget() // a block opened: the next chunk is decided afresh
	}
	return dst, err
}

// Shaped returns the number of chunks read by their shape so far.
func (d *Decoder) Shaped() int { return d.eng.Matched() }

// Content reads the JSON string raw, a string of the delta, with the
// host's Content hook. A chunk read by its shape calls the hook again
// with its own string.
func (d *Decoder) Content(raw string, dst []stream.Event) ([]stream.Event, error) {
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
