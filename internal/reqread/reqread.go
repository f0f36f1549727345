// Package reqread reads the assistant turns out of a native request body,
// for codecs whose request carries each assistant turn as one element of a
// conversation array: each element of the model's role is wrapped as the
// API's response and decoded by the codec, so that a request reads exactly
// as the response it replays.
package reqread

import (
	"fmt"
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/tidwall/gjson"
)

// Conversation decodes the elements of conv (the array at JSON Pointer
// base in the request) whose `role` is role: wrap appends the element as a
// response body to dst, and decode reads it. The turns and their pointers
// are added to h; a turn that calls a tool sets t.Tools.
func Conversation(h *replay.History, t *replay.Target, conv gjson.Result, base, role string,
	wrap func(dst []byte, m gjson.Result) []byte, decode func([]byte) (*replay.Turn, error)) error {
	var err error
	i := -1
	conv.ForEach(func(_, m gjson.Result) bool {
		i++
		if m.Get("role").String() != role {
			return true
		}
		ptr := base + "/" + strconv.Itoa(i)
		// A fresh buffer each time: the turns must not share bytes.
		var tu *replay.Turn
		if tu, err = decode(wrap(nil, m)); err != nil {
			err = fmt.Errorf("%s: %w", ptr, err)
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
