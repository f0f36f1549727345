package kit

import (
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/tidwall/gjson"
)

// RequestTurns reads the assistant turns of a request's conversation array
// conv (at JSON Pointer base, e.g. "/messages"): read gets each element
// whose `role` is role with its pointer ("/messages/3") and returns the
// turn, read natively by the codec. The turns and their pointers are
// added to h; a turn that calls a tool sets t.Tools. The first error
// stops the reading and is returned as read gave it.
func RequestTurns(h *replay.History, t *replay.Target, conv gjson.Result, base, role string,
	read func(m gjson.Result, ptr string) (*replay.Turn, error)) error {
	var err error
	i := -1
	conv.ForEach(func(_, m gjson.Result) bool {
		i++
		if m.Get("role").String() != role {
			return true
		}
		ptr := base + "/" + strconv.Itoa(i)
		var tu *replay.Turn
		if tu, err = read(m, ptr); err != nil {
			return false
		}
		if len(tu.ToolCalls()) > 0 {
			t.Tools = true
		}
		h.Turns = append(h.Turns, tu)
		h.Pointers = append(h.Pointers, ptr)
		return true
	})
	return err
}
