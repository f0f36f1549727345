package openrouter

import (
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/chatstream"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
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
	if t == nil {
		return nil, kit.NoTurn(API, "encode")
	}
	out := append([]byte(nil), `{"role":"assistant","content":`...)
	text, hasText := "", false
	var calls []int
	for i, b := range t.Blocks {
		switch b := b.(type) {
		case *replay.Text:
			text += b.Text
			hasText = true
		case *replay.ToolCall:
			calls = append(calls, i)
		}
	}
	if !hasText && len(calls) > 0 {
		out = append(out, "null"...)
	} else {
		out = jsonw.String(out, text)
	}
	if len(calls) > 0 {
		out = append(out, `,"tool_calls":[`...)
		for k, i := range calls {
			if k > 0 {
				out = append(out, ',')
			}
			out = appendToolCall(out, t.Blocks, i)
		}
		out = append(out, ']')
	}
	if details := appendDetails(nil, t); details != nil {
		out = append(out, `,"reasoning_details":`...)
		out = append(out, details...)
	}
	return append(out, '}'), nil
}

// appendToolCall writes the tool call blocks[i]; a Gemini signature bound
// to it that did not come on the call travels in reasoning_details.
func appendToolCall(out []byte, blocks []replay.Block, i int) []byte {
	out, _ = chatstream.AppendToolCall(out, blocks, i)
	return out
}

// onCall reports whether it is a signature that travels on its tool call,
// not in reasoning_details.
func onCall(it replay.ReasoningItem) bool {
	e, ok := it.(*replay.Encrypted)
	if !ok {
		return false
	}
	_, raw := chatstream.RawSigKey(e)
	return raw
}

// appendDetails appends the reasoning_details array of t's replayable
// items, or returns dst unchanged (nil when dst is nil) when there are none.
func appendDetails(dst []byte, t *replay.Turn) []byte {
	n := 0
	for _, b := range t.Blocks {
		it, ok := b.(replay.ReasoningItem)
		if !ok || !it.Replayable() || onCall(it) {
			continue
		}
		if n == 0 {
			dst = append(dst, '[')
		} else {
			dst = append(dst, ',')
		}
		dst = it.AppendWire(dst)
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
	if t == nil {
		return nil, kit.NoTurn(API, "patch")
	}
	if err := kit.CheckBody(API, msg, "an assistant message object to patch"); err != nil {
		return nil, err
	}
	if !chatstream.IsObject(msg) {
		return nil, codecs.Malformed(API, -1, "", "expected an assistant message object to patch")
	}
	var setBuf [1]chatstream.Set
	sets := setBuf[:0]
	if n, ok := detailsSize(t); ok {
		sets = append(sets, chatstream.Set{Name: "reasoning_details", Write: appendDetails, Size: n})
	}
	return chatstream.PatchMessage(API, msg, sets, t, false)
}

// detailsSize returns about the size appendDetails writes for t, and
// whether it writes anything.
func detailsSize(t *replay.Turn) (int, bool) {
	n, any := 2, false
	for _, b := range t.Blocks {
		it, ok := b.(replay.ReasoningItem)
		if !ok || !it.Replayable() || onCall(it) {
			continue
		}
		any = true
		m := it.Meta()
		n += 96 + len(m.Extra)
		switch x := it.(type) {
		case *replay.ReasoningText:
			n += len(x.Text) + len(x.Text)/8 + len(x.Signature.Value())
		case *replay.Summary:
			n += len(x.Summary) + len(x.Summary)/8
		case *replay.Encrypted:
			n += len(x.Data)
		case *replay.Opaque:
			n += len(x.Raw)
		}
	}
	return n, any
}
