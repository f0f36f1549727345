package codecs

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
)

// Change is one thing a fix or a strip changed in a request.
type Change struct {
	// Pointer is the JSON Pointer of what changed, in the request body
	// (or, from Strip, in the turn's raw text).
	Pointer string
	// Removed is set when something was taken out (else something was
	// set or added).
	Removed bool
	// Detail says what, in one sentence.
	Detail string
}

// Request is a request body read once by [HTTPCodec.ReadRequest].
type Request struct {
	// Body is the request body.
	Body []byte
	// Target is what the body says of the target (the API is the
	// codec's).
	Target replay.Target
	// History holds the model's turns, in order, each with the pointer of
	// its (first) element; History.Request is Body.
	History replay.History
	// Member is the name of the member holding the conversation
	// ("messages", "input", "contents").
	Member string
	// Elements are the conversation's elements, in order.
	Elements []Element
	// Bound are the spans of the other members the conversation's turns
	// are bound to (the system prompt, the tools), in the codec's order;
	// a member the body does not have is an empty span.
	Bound []Span
	// Runs says a turn may be a run of several elements (OpenAI Responses
	// input items); [Request.TurnRaw] then wraps the run in an array.
	Runs bool
	// Invisible names members that carry nothing of the conversation
	// (cache markers): left out of the conversation's digest.
	Invisible []string

	spans [][2]int // by turn: first element, end; see TurnSpan
}

// Element is one element of a request's conversation.
type Element struct {
	// Start and End are its bytes in the body.
	Start, End int
	// Turn is the index in History.Turns of the turn it belongs to, or
	// -1 for an element that is not the model's.
	Turn int
}

// Span is a range of bytes of a body; Start == End for an absent member.
type Span struct{ Start, End int }

// TurnSpan returns the range of elements of turn ti: the elements from
// first up to (not including) end; first is -1 when the turn has none.
// The spans of all turns are found in one pass, on the first call.
func (r *Request) TurnSpan(ti int) (first, end int) {
	if r.spans == nil {
		r.spans = make([][2]int, len(r.History.Turns))
		for i := range r.spans {
			r.spans[i] = [2]int{-1, 0}
		}
		for i, e := range r.Elements {
			if e.Turn < 0 || e.Turn >= len(r.spans) {
				continue
			}
			if r.spans[e.Turn][0] < 0 {
				r.spans[e.Turn][0] = i
			}
			r.spans[e.Turn][1] = i + 1
		}
	}
	if ti < 0 || ti >= len(r.spans) {
		return -1, 0
	}
	return r.spans[ti][0], r.spans[ti][1]
}

// TurnRaw returns the raw text of the elements from first to end (one
// turn's): the element itself, or, when the request's turns are runs, a
// JSON array of the run's elements.
func (r *Request) TurnRaw(first, end int) []byte {
	a, b := r.Elements[first].Start, r.Elements[end-1].End
	if !r.Runs {
		return r.Body[a:b]
	}
	out := make([]byte, 0, b-a+2)
	out = append(out, '[')
	out = append(out, r.Body[a:b]...)
	return append(out, ']')
}

// Pointer returns the JSON Pointer of element i.
func (r *Request) Pointer(i int) string {
	return "/" + r.Member + "/" + strconv.Itoa(i)
}

// Splice builds r's body with some elements replaced, in one pass: for
// each turn, edit receives the turn's index and raw text ([Request.TurnRaw])
// and returns the text to put in its place, or nil to keep it. A run
// returned for a Runs request is an array whose elements take the run's
// place (an empty array removes the run). It returns r.Body itself when
// nothing changed.
func (r *Request) Splice(edit func(turn int, raw []byte) []byte) []byte {
	// The replacements first, then the body in one buffer of its size.
	type piece struct {
		a, b int // the body's bytes replaced
		repl []byte
	}
	var pieces []piece
	for i := 0; i < len(r.Elements); {
		e := r.Elements[i]
		if e.Turn < 0 {
			i++
			continue
		}
		first, end := i, i+1
		for end < len(r.Elements) && r.Elements[end].Turn == e.Turn {
			end++
		}
		i = end
		repl := edit(e.Turn, r.TurnRaw(first, end))
		if repl == nil {
			continue
		}
		a, b := r.Elements[first].Start, r.Elements[end-1].End
		if r.Runs {
			repl = trimBrackets(repl)
			if len(repl) == 0 {
				// The run goes with one of the commas around it.
				a, b = r.dropSpan(first, end)
			}
		}
		if pieces == nil {
			pieces = make([]piece, 0, 8)
		}
		pieces = append(pieces, piece{a, b, repl})
	}
	if pieces == nil {
		return r.Body
	}
	// Joined, the parts are copied once into a buffer that is not zeroed
	// first.
	parts := make([][]byte, 0, 2*len(pieces)+1)
	at := 0 // body bytes before at are in parts
	for _, p := range pieces {
		parts = append(parts, r.Body[at:p.a], p.repl)
		at = p.b
	}
	return bytes.Join(append(parts, r.Body[at:]), nil)
}

// dropSpan returns the bytes to remove with the run of elements first to
// end: the run and the comma that joins it to its neighbour.
func (r *Request) dropSpan(first, end int) (int, int) {
	a, b := r.Elements[first].Start, r.Elements[end-1].End
	if end < len(r.Elements) {
		return a, r.Elements[end].Start
	}
	if first > 0 {
		return r.Elements[first-1].End, b
	}
	return a, b
}

// trimBrackets returns the inside of a JSON array text, white space
// trimmed.
func trimBrackets(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isSpace(b[i]) {
		i++
	}
	for j > i && isSpace(b[j-1]) {
		j--
	}
	if j-i >= 2 && b[i] == '[' && b[j-1] == ']' {
		i, j = i+1, j-1
	}
	for i < j && isSpace(b[i]) {
		i++
	}
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// ReadWith builds the [Request] of body for a codec: its History and
// Target from decode (the codec's DecodeRequest), its Elements from the
// array member (each belongs to the turn whose History pointer names it,
// and, when cont is set, each element after it that cont reports part of
// the same run), and its Bound from the members named in bound.
func ReadWith(body []byte, member string, bound, invisible []string, cont func(el gjson.Result) bool,
	decode func([]byte) (replay.History, replay.Target, error)) (*Request, error) {
	h, t, err := decode(body)
	if err != nil {
		return nil, err
	}
	r := &Request{Body: body, Target: t, History: h, Member: member, Runs: cont != nil, Invisible: invisible}
	starts := make(map[int]int, len(h.Pointers))
	prefix := "/" + member + "/"
	for ti, p := range h.Pointers {
		if n, err := strconv.Atoi(strings.TrimPrefix(p, prefix)); err == nil && strings.HasPrefix(p, prefix) {
			starts[n] = ti
		}
	}
	// The request's tape, read by decode: the elements and the bound
	// members are where the one pass found them.
	tape := r.History.RequestTape(r.History.Request)
	if tape == nil {
		tape = new(jsonw.Tape)
		if !tape.ResetBytes(body) {
			return r, nil
		}
	}
	root := tape.Root()
	list := root.Get(member)
	r.Elements = make([]Element, 0, list.Len())
	cur := -1
	list.ForEach(func(i int, _ string, el jsonw.Val) bool {
		turn := -1
		if ti, ok := starts[i]; ok {
			turn, cur = ti, ti
		} else if cont != nil && cur >= 0 && cont(el.Result()) {
			turn = cur
		} else {
			cur = -1
		}
		r.Elements = append(r.Elements, Element{Start: el.Start(), End: el.End(), Turn: turn})
		return true
	})
	for _, name := range bound {
		v := root.Get(name)
		if !v.Exists() {
			r.Bound = append(r.Bound, Span{})
			continue
		}
		r.Bound = append(r.Bound, Span{Start: v.Start(), End: v.End()})
	}
	return r, nil
}

// EditTurns is the body of a typical [HTTPCodec.Fix]: it rebuilds r's
// body in one pass, each turn that only reports (every turn when only is
// nil) replaced by what edit makes of its raw text; edit returns nil to
// keep the turn, and its changes with pointers into the raw text, which
// EditTurns makes pointers into the body.
func EditTurns(r *Request, only func(turn int) bool, edit func(turn int, raw []byte) ([]byte, []Change)) ([]byte, []Change) {
	var all []Change
	body := r.Splice(func(ti int, raw []byte) []byte {
		if only != nil && !only(ti) {
			return nil
		}
		out, changes := edit(ti, raw)
		first, _ := r.TurnSpan(ti)
		for _, c := range changes {
			c.Pointer = r.turnPointer(first, c.Pointer)
			all = append(all, c)
		}
		return out
	})
	return body, all
}

// turnPointer makes a pointer into the raw text of the turn that starts at
// element first a pointer into the body.
func (r *Request) turnPointer(first int, ptr string) string {
	if !r.Runs {
		return r.Pointer(first) + ptr
	}
	rest := strings.TrimPrefix(ptr, "/")
	k, tail, _ := strings.Cut(rest, "/")
	n, err := strconv.Atoi(k)
	if err != nil {
		return r.Pointer(first) + ptr
	}
	if tail != "" {
		tail = "/" + tail
	}
	return r.Pointer(first+n) + tail
}
