package kit

import (
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/reqtape"
)

// CheckBody refuses data (a body of api) unless it is JSON that
// [jsonw.Valid] accepts, with an error that says what was expected (what)
// and why the bytes are not it: empty, invalid UTF-8, nested too deep, a
// repeated member name, not JSON.
func CheckBody(api string, data []byte, what string) error {
	if jsonw.ValidBytes(data) {
		return nil
	}
	return codecs.Malformed(api, -1, "", "expected %s: %s", what, jsonw.Explain(string(data)))
}

// NoTurn is the error of an Encode or Patch of api given a nil turn (verb
// is "encode" or "patch").
func NoTurn(api, verb string) error {
	if verb == "patch" {
		return codecs.Malformed(api, -1, "", "no turn to patch from")
	}
	return codecs.Malformed(api, -1, "", "no turn to %s", verb)
}

// ReadRequest checks a request body of api (what names it, "a Converse
// request body") in one validating pass (see jsonw.Tape) and returns its
// root object, the conversation array named member, and the tape, each
// refusal a malformed-input error that says why. The caller gives the tape
// to the History it reads (SetTape), so that the audit's rules and the
// middleware walk it instead of reading the body again.
func ReadRequest(api string, body []byte, what, member string) (root, conv jsonw.Val, tape *jsonw.Tape, err error) {
	tape, ok := reqtape.Read(body)
	if !ok {
		return root, conv, nil, CheckBody(api, body, what)
	}
	root = tape.Root()
	if !root.IsObject() {
		return root, conv, tape, codecs.Malformed(api, -1, "", "expected %s: a JSON object", what)
	}
	conv = root.Get(member)
	if !conv.IsArray() {
		return root, conv, tape, codecs.Malformed(api, -1, "/"+member, "expected a %s array", member)
	}
	return root, conv, tape, nil
}

// SetTape gives h the tape its request (h.Request) was read with.
func SetTape(h *replay.History, t *jsonw.Tape) { h.SetRequestTape(t) }

// Body returns the root of h's request as the pass that read it found it
// (absent when h has no request or it is not valid JSON): how a rule
// reaches the request's values without reading it again. A History the
// audit hands a rule has its tape; any other is read now.
func Body(h *replay.History) jsonw.Val {
	if len(h.Request) == 0 {
		return jsonw.Val{}
	}
	if t := h.RequestTape(h.Request); t != nil {
		return t.Root()
	}
	t := new(jsonw.Tape)
	if !t.ResetBytes(h.Request) {
		return jsonw.Val{}
	}
	return t.Root()
}

// Memo returns what derive makes of the root of h's request (as [Body]
// finds it): made once for key (a pointer that names the derivation) per
// reading of the request when h has the tape it was read with, so that
// the audit's rules that each walk the same values share one walk. What
// derive returns must not be changed by those it is handed to.
func Memo(h *replay.History, key any, derive func(root jsonw.Val) any) any {
	if len(h.Request) > 0 {
		if t := h.RequestTape(h.Request); t != nil {
			return t.Memo(key, func() any { return derive(t.Root()) })
		}
	}
	return derive(Body(h))
}

// ConvTurns reads the assistant turns of a request's conversation array
// conv (at JSON Pointer base, on a tape): each element of conv for which
// isTurn reports true is a turn, read by read with its pointer (base
// "/messages" and its index, kept in al) and whether it is the last such
// element. When reuse (nil: none) returns a turn for element i, that turn
// is taken, as it is, in place of reading it: one read and settled before,
// never changed again.
func ConvTurns(h *replay.History, t *replay.Target, conv jsonw.Val, base string, al *Alloc,
	isTurn func(jsonw.Val) bool, reuse func(i int, m jsonw.Val, last bool) *replay.Turn,
	read func(m jsonw.Val, ptr string, last bool) (*replay.Turn, error)) error {
	last, n := -1, 0
	conv.ForEach(func(i int, _ string, m jsonw.Val) bool {
		if isTurn(m) {
			last = i
			n++
		}
		return true
	})
	h.Turns, h.Pointers = make([]*replay.Turn, 0, n), make([]string, 0, n)
	var err error
	conv.ForEach(func(i int, _ string, m jsonw.Val) bool {
		if !isTurn(m) {
			return true
		}
		ptr := al.Pointer(base, i)
		var tu *replay.Turn
		if reuse != nil {
			tu = reuse(i, m, i == last)
		}
		if tu == nil {
			if tu, err = read(m, ptr, i == last); err != nil {
				return false
			}
			Settle(tu)
		}
		if calls(tu) {
			t.Tools = true
		}
		h.Turns = append(h.Turns, tu)
		h.Pointers = append(h.Pointers, ptr)
		return true
	})
	return err
}

// calls reports whether t holds a tool call.
func calls(t *replay.Turn) bool {
	for _, b := range t.Blocks {
		if _, ok := b.(*replay.ToolCall); ok {
			return true
		}
	}
	return false
}

// Items is len(gjson's Array()) of v: an array's element count, 0 for
// null or an absent value, 1 for any other value.
func Items(v jsonw.Val) int {
	switch {
	case !v.Exists() || v.IsNull():
		return 0
	case v.IsArray():
		return v.Len()
	}
	return 1
}
