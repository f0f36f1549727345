package replay

import (
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/reqtape"
	iview "github.com/reasonreplay/replay/internal/view"
)

// tapeOf returns the tape of h's request when it was read from the bytes
// h.Request holds now, else nil.
func (h *History) tapeOf() *jsonw.Tape {
	t := h.tape
	if t == nil || len(h.Request) == 0 {
		return nil
	}
	s := t.Text()
	if off, ok := iview.Offset(iview.String(h.Request), s); len(s) != len(h.Request) || !ok || off != 0 {
		return nil
	}
	return t
}

// readRequest gives h the tape of its request, read now when it has none
// (one validating pass); an invalid request gets none.
func (h *History) readRequest() {
	if len(h.Request) == 0 || h.tapeOf() != nil {
		return
	}
	t := new(jsonw.Tape)
	if t.ResetBytes(h.Request) {
		h.tape = t
	}
}

func init() {
	reqtape.Get = func(h any) *jsonw.Tape { return h.(*History).tapeOf() }
	reqtape.Set = func(h any, t *jsonw.Tape) { h.(*History).tape = t }
}
