package replay

import "github.com/reasonreplay/replay/internal/jsonw"

// readRequest gives h the tape of its request, read now when it has none
// (one validating pass); an invalid request gets none.
func (h *History) readRequest() {
	if len(h.Request) == 0 || h.RequestTape(h.Request) != nil {
		return
	}
	t := new(jsonw.Tape)
	if t.ResetBytes(h.Request) {
		h.SetRequestTape(t)
	}
}
