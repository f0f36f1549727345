package openrouter

import (
	"fmt"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Encode writes the assistant message for the next request:
//
//	{"role":"assistant","content":...,"tool_calls":[...],"reasoning_details":[...]}
//
// reasoning_details holds the turn's replayable items unmodified and in
// order (unknown members and unknown item types verbatim). content is the
// visible text, or null when the turn has only tool calls. Native blocks
// have no place in this shape and are left out.
func (Codec) Encode(t *replay.Turn) ([]byte, error) {
	out := append([]byte(nil), `{"role":"assistant","content":`...)
	text, hasText := "", false
	var calls []*replay.ToolCall
	for _, b := range t.Blocks {
		switch b := b.(type) {
		case *replay.Text:
			text += b.Text
			hasText = true
		case *replay.ToolCall:
			calls = append(calls, b)
		}
	}
	if !hasText && len(calls) > 0 {
		out = append(out, "null"...)
	} else {
		out = jsonw.String(out, text)
	}
	if len(calls) > 0 {
		out = append(out, `,"tool_calls":[`...)
		for i, c := range calls {
			if i > 0 {
				out = append(out, ',')
			}
			out = appendToolCall(out, c)
		}
		out = append(out, ']')
	}
	if details := appendDetails(nil, t); details != nil {
		out = append(out, `,"reasoning_details":`...)
		out = append(out, details...)
	}
	return append(out, '}'), nil
}

func appendToolCall(out []byte, c *replay.ToolCall) []byte {
	out = append(out, `{"id":`...)
	out = jsonw.String(out, c.ID)
	out = append(out, `,"type":"function","function":{"name":`...)
	out = jsonw.String(out, c.Name)
	out = append(out, `,"arguments":`...)
	out = jsonw.String(out, c.Arguments)
	out = append(out, '}')
	out = jsonw.Members(out, c.Extra)
	return append(out, '}')
}

// appendDetails appends the reasoning_details array of t's replayable
// items, or returns dst unchanged (nil when dst is nil) when there are none.
func appendDetails(dst []byte, t *replay.Turn) []byte {
	n := 0
	for _, b := range t.Blocks {
		it, ok := b.(replay.ReasoningItem)
		if !ok || !replay.Replayable(it) {
			continue
		}
		if n == 0 {
			dst = append(dst, '[')
		} else {
			dst = append(dst, ',')
		}
		dst = replay.AppendItemWire(dst, it)
		n++
	}
	if n > 0 {
		dst = append(dst, ']')
	}
	return dst
}

// Patch sets `reasoning_details` on an assistant message the caller built
// to the turn's replayable items, leaving every other member as it was. A
// turn with no replayable item leaves msg unchanged.
func (Codec) Patch(msg []byte, t *replay.Turn) ([]byte, error) {
	if !jsonw.ValidBytes(msg) || !gjson.ParseBytes(msg).IsObject() {
		return nil, replay.Malformed(API, -1, "", "expected an assistant message object to patch")
	}
	details := appendDetails(nil, t)
	if details == nil {
		return msg, nil
	}
	out, err := sjson.SetRawBytes(append([]byte(nil), msg...), "reasoning_details", details)
	if err != nil {
		return nil, fmt.Errorf("replay: openrouter: patch: %w", err)
	}
	return out, nil
}
