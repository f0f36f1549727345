// Package engine runs a codec's stream decoder. A codec supplies what is
// its own, the [Codec]: how to read an event in full and apply it, how to
// apply an event the engine matched, and how the turn ends. The engine
// does the rest, the same for every codec:
//
//   - the frame: white space trimmed, read in place (a view valid during
//     the call, see package view), events numbered;
//   - sticky errors: after an error every Decode returns it; Finish once
//     (a second call is refused, with the same turn); a frame after
//     Finish is refused;
//   - the budget ([kit.Budget]) that bounds what the decoder keeps, seeded
//     by the codec and overridden by SetLimits;
//   - the fast path: an event like the last one the codec read in full and
//     learned ([Run.Learn]) is read by matching its shape ([jsonw.Shape]):
//     the bytes around the holes are compared, only the holes are
//     validated (the text a codec keeps decoded in the same pass), and the
//     codec applies it with the same code as a full read ([Codec.Matched]);
//   - text buffers: one [view.Arena] per decoder for kept strings and
//     growing texts, and writers that take a matched hole's decoded value
//     instead of unquoting it again.
//
// A codec's StreamDecoder holds a Run and a type of its own that
// implements Codec, and forwards its three methods:
//
//	func (d *StreamDecoder) Decode(typ, data []byte, dst []stream.Event) ([]stream.Event, error) {
//		return d.run.Decode((*decoder)(d), typ, data, dst)
//	}
//	func (d *StreamDecoder) Finish() (*replay.Turn, error) { return d.run.Finish((*decoder)(d)) }
//	func (d *StreamDecoder) SetLimits(l replay.Limits)      { d.run.SetLimits((*decoder)(d), l) }
//
// where `type decoder StreamDecoder` carries the codec's methods, so that
// the exported type shows only the three.
//
// # What a match proves, and what a codec must keep to
//
// A learned shape is the event's bytes with up to [jsonw.MaxHoles] values
// cut out. A matched event repeats every other byte (and the frame's event
// type) and holds a valid value of the same kind in each hole, so it is
// valid JSON with the same members, names and nesting. A codec chooses as
// holes only values whose meaning it takes from the value alone (text to
// append, a counter, padding), never one that decides what the event is (a
// type, an index, an id, a signature). Any event read in full forgets the
// shape first; a codec forgets it itself ([Run.Forget]) when its own state
// changes so that the same bytes would mean something else, or refuses a
// match with [ReadInFull] before it changes anything. Every codec's tests
// decode each stream again with no two events of one shape
// (codectest.Reshape) and require the same turn, events and error.
package engine

import (
	"errors"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/internal/view"
	"github.com/reasonreplay/replay/stream"
)

// Frame is one framed event: its type (the SSE event type, the event
// stream's :event-type; empty when the stream has none) and its data, both
// valid only during the call they are passed to.
type Frame struct {
	Type, Data []byte
}

// Codec is what a codec supplies to the engine. The engine calls it from
// one goroutine, in stream order.
type Codec interface {
	// Start seeds the decoder once, before its first frame, SetLimits or
	// Finish: at least r.Budget (kit.NewBudget with the codec's API and
	// limits, event 0).
	Start(r *Run)
	// Full reads the event s (the frame's data, JSON white space trimmed;
	// a view of the frame, valid during the call) in full, trusting
	// nothing, and applies it. It may call r.Learn so that the next events
	// like it are read by matching, and r.Stop when no later frame counts.
	// It returns the events appended to dst.
	Full(r *Run, f Frame, s string, dst []stream.Event) ([]stream.Event, error)
	// Matched applies an event that matched the shape Full learned last:
	// m holds its holes (and the views Learn was given hold its values).
	// It applies it as Full would, or returns [ReadInFull], having changed
	// nothing, to have it read in full.
	Matched(r *Run, m *Match, dst []stream.Event) ([]stream.Event, error)
	// End ends the stream and returns the turn (see [Run.Close]); r.Err()
	// is the first error of the stream, nil when none.
	End(r *Run) (*replay.Turn, error)
}

// ReadInFull is what [Codec.Matched] returns to refuse a match: the engine
// forgets the shape and reads the event in full.
var ReadInFull = errors.New("engine: read the event in full")

// Text is a growing text in the decoder's arena ([Run.Texts]).
type Text = view.Text

// Arena is the decoder's arena ([Run.Texts]).
type Arena = view.Arena

// Run is the engine's state for one stream: embed it (as a field) in the
// decoder. Its zero value is ready.
type Run struct {
	// Budget bounds what the decoder keeps; the codec seeds it in Start.
	Budget kit.Budget
	// Texts holds the strings the decoder keeps and the texts it grows.
	Texts view.Arena
	// TypeInData, set by a codec in Start, says that the frame type of an
	// event it learns never changes what the event means: the event's
	// data names its own type, and the codec reads the frame type only of
	// events whose data does not (Anthropic's, where the SSE event name
	// repeats the data's "type"). Matching then compares the data alone.
	// Unset, a matched event must also come with the learned event's
	// frame type.
	TypeInData bool

	n        int // frames seen
	err      error
	started  bool
	finished bool
	stopped  bool
	ready    bool // started, and no error, Finish or Stop since: a frame is read
	turn     *replay.Turn

	// The shape learned last, the holes' places in it by the codec's
	// order (pos), the frame type it came with, and the views to find
	// again after a match.
	sh      jsonw.Shape
	nh      int
	pos     [jsonw.MaxHoles]int8
	value   int8 // the codec's index of the hole decoded while matching, -1 for none
	inOrder bool // the codec's index of every hole is its place
	scan    int8 // the place of the hole scanned for it (the first copy of a twin)
	ftype   []byte
	curType []byte // the frame type of the event being read in full
	views   views
	m       Match
	matched int
}

// Match is an event that matched the learned shape: its holes, by the
// index the codec gave each to [Run.Learn]. It is valid during
// [Codec.Matched].
type Match struct {
	r      *Run
	raws   [jsonw.MaxHoles]string // by the codec's index
	placed [jsonw.MaxHoles]string // by place in the text, when that order differs
	val    []byte
	hasVal bool // val holds the value of raws[r.value]
}

// Decode decodes one frame with c (see [codecs.FrameDecoder]).
func (r *Run) Decode(c Codec, typ, data []byte, dst []stream.Event) ([]stream.Event, error) {
	if !r.ready {
		if r.err != nil {
			return dst, r.err
		}
		r.start(c)
		if r.finished {
			r.err = codecs.Malformed(r.Budget.API, r.n, "", "event after Finish")
			return dst, r.err
		}
		if r.stopped {
			r.Budget.Event = r.n
			r.n++
			return dst, nil
		}
	}
	r.Budget.Event = r.n
	r.n++
	b := data
	if n := len(b); n == 0 || b[0] <= ' ' || b[n-1] <= ' ' {
		b = trimSpace(b) // most frames are '{' ... '}'
	}
	s := view.String(b)
	var err error
	if r.sh.Learned() && (r.TypeInData || len(typ) == len(r.ftype) && (len(typ) == 0 || string(typ) == string(r.ftype))) && r.match(s) {
		dst, err = c.Matched(r, &r.m, dst)
		if err == ReadInFull {
			dst, err = r.full(c, Frame{Type: typ, Data: data}, s, dst)
		} else {
			r.matched++
		}
		r.m.hasVal = false
	} else {
		dst, err = r.full(c, Frame{Type: typ, Data: data}, s, dst)
	}
	if err != nil {
		r.err, r.ready = err, false
	}
	return dst, err
}

func (r *Run) full(c Codec, f Frame, s string, dst []stream.Event) ([]stream.Event, error) {
	r.Forget()
	r.m.hasVal = false
	r.curType = f.Type
	dst, err := c.Full(r, f, s, dst)
	r.curType = nil
	return dst, err
}

func (r *Run) start(c Codec) {
	if !r.started {
		r.started, r.ready = true, true
		c.Start(r)
	}
}

// Finish ends the stream with c's End. It may be called once: a later
// call returns the same turn and an error.
func (r *Run) Finish(c Codec) (*replay.Turn, error) {
	r.start(c)
	if r.finished {
		return r.turn, codecs.Malformed(r.Budget.API, r.n, "", "Finish called twice")
	}
	r.finished, r.ready = true, false
	t, err := c.End(r)
	r.turn = t
	return t, err
}

// SetLimits replaces the decoder's limits with the non-zero fields of l
// (see [codecs.FrameDecoder].SetLimits).
func (r *Run) SetLimits(c Codec, l replay.Limits) {
	r.start(c)
	r.Forget() // a full read checks what a match relies on against the limits
	r.Budget.Override(l)
}

// Err returns the stream's first error, nil while there is none.
func (r *Run) Err() error { return r.err }

// Events returns the number of frames decoded so far.
func (r *Run) Events() int { return r.n }

// Matched returns the number of frames read by matching so far.
func (r *Run) Matched() int { return r.matched }

// Fail records err as the stream's error, unless it has one: every later
// Decode returns it, and End sees it. A codec uses it for an error found
// where it cannot return one (while it closes blocks).
func (r *Run) Fail(err error) {
	if r.err == nil && err != nil {
		r.err, r.ready = err, false
	}
}

// Stop makes every later frame count as an event but be ignored: the
// stream ended (its terminal event, or a provider error that ends it).
func (r *Run) Stop() { r.stopped, r.ready = true, false }

// Malformed returns the error for input that is not what the API sends,
// located at the event being decoded and the JSON Pointer ptr.
func (r *Run) Malformed(ptr, format string, args ...any) error {
	return codecs.Malformed(r.Budget.API, r.Budget.Event, ptr, format, args...)
}

// Close returns the turn t as Finish reports it: with the stream's first
// error, or, when the stream did not reach its terminal event (done
// false), with an error saying it ended before what (wrapping
// io.ErrUnexpectedEOF); in both cases t is marked unfinished. Otherwise t
// is complete.
func (r *Run) Close(t *replay.Turn, done bool, what string) (*replay.Turn, error) {
	switch {
	case r.err != nil:
		t.MarkUnfinished()
		return t, r.err
	case !done:
		t.MarkUnfinished()
		return t, kit.EndedBefore(r.Budget.API, r.n, what)
	}
	t.Complete = true
	return t, nil
}

// Forget makes the learned shape match nothing until Full learns again.
func (r *Run) Forget() { r.sh.Forget() }

// Learn learns the shape of s, the event Full is reading (in full, and
// applied without error, or about to be), so that the next event like it
// is read by matching. holes are values in s (views of it, as a
// [jsonw.Scanner] returns them), string literals or numbers, in any order:
// a match hands them back by their index in holes. value is the index of
// the string hole whose value a match decodes as it validates it (see
// [Match.Value]), -1 for none. views, when not nil, are the codec's own
// fields holding views of s (or ""): after a match the engine puts each at
// its place in the matched event, so they hold what a full read of it
// would put there; none may cut a hole. Learn reports false, and nothing is
// learned, when a hole is not a value of s or the holes are more than
// [jsonw.MaxHoles].
func (r *Run) Learn(s string, holes []string, value int, views []*string) bool {
	r.sh.Forget()
	n := len(holes)
	if n > jsonw.MaxHoles || value >= n {
		return false
	}
	// The holes in the order they lie in s.
	var at [jsonw.MaxHoles]int
	var order [jsonw.MaxHoles]int8 // order[p] is the codec's index of the hole at place p
	for i, x := range holes {
		off, ok := view.Offset(s, x)
		if !ok {
			return false
		}
		p := i
		for ; p > 0 && at[p-1] > off; p-- {
			at[p], order[p] = at[p-1], order[p-1]
		}
		at[p], order[p] = off, int8(i)
	}
	var placed [jsonw.MaxHoles]string
	for p := 0; p < n; p++ {
		placed[p] = holes[order[p]]
		r.pos[order[p]] = int8(p)
	}
	if !r.sh.Learn(s, placed[:n]) {
		return false
	}
	r.views.at = r.views.at[:0]
	if views != nil && !r.views.learn(s, at[:n], placed[:n], views) {
		r.sh.Forget()
		return false
	}
	r.nh = n
	r.inOrder = true
	for i := 0; i < n; i++ {
		r.inOrder = r.inOrder && int(r.pos[i]) == i
	}
	r.value, r.scan = -1, -1
	if value >= 0 {
		r.value, r.scan = int8(value), r.pos[value]
	}
	r.ftype = append(r.ftype[:0], r.curType...)
	r.m.r = r
	return true
}

// Twin records that string hole i of the learned shape repeats hole j
// byte for byte (a host that mirrors one text in two members; the codec
// saw them equal): a match then requires the same of each event and
// validates the bytes once (see [jsonw.Shape.Twin]). It reports whether it
// was recorded.
func (r *Run) Twin(i, j int) bool {
	if i < 0 || j < 0 || i >= r.nh || j >= r.nh {
		return false
	}
	g, h := r.pos[i], r.pos[j]
	if !r.sh.Twin(int(max(g, h)), int(min(g, h))) {
		return false
	}
	if r.scan == max(g, h) {
		r.scan = min(g, h) // a twin is compared, not scanned: its first copy is decoded
	}
	return true
}

// match matches s against the learned shape (the frame type matched).
func (r *Run) match(s string) bool {
	m := &r.m
	placed := m.raws[:] // the holes by place
	if !r.inOrder {
		placed = m.placed[:]
	}
	val, ok := r.sh.MatchValue(s, placed, int(r.scan), m.val[:0])
	m.val = val
	if !ok {
		return false
	}
	m.hasVal = r.scan >= 0 && !r.sh.Surrogate(int(r.scan))
	if !r.inOrder {
		for i := 0; i < r.nh; i++ {
			m.raws[i] = placed[r.pos[i]]
		}
	}
	if len(r.views.at) > 0 {
		r.views.find(s, placed[:r.nh])
	}
	return true
}

// Len returns the number of holes.
func (m *Match) Len() int { return m.r.nh }

// Raw returns hole i's value in the matched event: the raw literal (quotes
// included), a view of the frame.
func (m *Match) Raw(i int) string { return m.raws[i] }

// Escaped reports whether string hole i holds any escape: without one,
// its value is its text between the quotes.
func (m *Match) Escaped(i int) bool { return m.r.sh.Escaped(int(m.r.pos[i])) }

// Unicode reports whether string hole i holds a \u escape.
func (m *Match) Unicode(i int) bool { return m.r.sh.Unicode(int(m.r.pos[i])) }

// Surrogate reports whether string hole i holds a \u escape of a
// surrogate half, the only kind of string that can hold a lone one (see
// [jsonw.LoneAt]).
func (m *Match) Surrogate(i int) bool { return m.r.sh.Surrogate(int(m.r.pos[i])) }

// Value returns the value of the hole Learn named value, decoded as it was
// matched (what jsonw.WriteUnquoted writes for it), and true; or false
// when there is none or it holds a \u escape of a surrogate half (to be
// decoded by the codec's own unescaper, which joins or refuses halves).
// The string views a buffer reused by the next frame: copy what is kept.
func (m *Match) Value() (string, bool) {
	if !m.hasVal {
		return "", false
	}
	return view.String(m.val), true
}

// Decoded returns the value of the JSON string literal raw decoded while
// the event was matched, when raw is the hole it was decoded from (the
// same bytes: the same value); else false. It lets code shared by the full
// and the matched path write a hole's value without unquoting it again.
// The string views a buffer reused by the next frame.
func (r *Run) Decoded(raw string) (string, bool) {
	if !r.m.hasVal || raw != r.m.raws[r.value] {
		return "", false
	}
	return view.String(r.m.val), true
}

// Unquote writes the value of the JSON string literal raw (valid JSON) to
// b, as jsonw.WriteUnquoted does: the decoded value when the match has it
// (see [Run.Decoded]).
func (r *Run) Unquote(b *strings.Builder, raw string) {
	if v, ok := r.Decoded(raw); ok {
		b.Grow(len(v)) // doubling, as WriteUnquoted grows it
		b.WriteString(v)
		return
	}
	jsonw.WriteUnquoted(b, raw)
}

// WriteRaw appends to t, in the decoder's arena, the value of the JSON
// string literal raw (valid JSON), as [Run.Unquote] writes it.
func (r *Run) WriteRaw(t *Text, raw string) {
	if v, ok := r.Decoded(raw); ok {
		t.Set(append(r.Texts.Tail(t, len(v)), v...))
		return
	}
	b := r.Texts.Tail(t, len(raw)-2) // the value is never longer
	b, _ = jsonw.AppendUnquoted(b, raw)
	t.Set(b)
}

// Keep returns a copy of s in the decoder's arena after counting it
// against the budget as a string of the block at pos.
func (r *Run) Keep(pos int, s string) (string, error) {
	if err := r.Budget.Item(pos, len(s), len(s)); err != nil {
		return "", err
	}
	return r.Texts.Clone(s), nil
}

// trimSpace trims JSON white space.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
