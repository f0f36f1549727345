package chatcompat

import (
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/chatstream"
	"github.com/reasonreplay/replay/internal/gemsig"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
)

// reasoningText returns the replayable reasoning text of t for the
// profile's field (the items of the profile's format, joined in order), and
// whether there was any.
func (c Codec) reasoningText(t *replay.Turn) (string, bool) {
	var b strings.Builder
	first, n := "", 0
	for _, blk := range t.Blocks {
		x, ok := blk.(*replay.ReasoningText)
		if !ok || !x.Replayable() || x.Format != c.Profile.Format {
			continue
		}
		switch n {
		case 0:
			first = x.Text
		case 1:
			b.WriteString(first)
			fallthrough
		default:
			b.WriteString(x.Text)
		}
		n++
	}
	if n > 1 {
		return b.String(), true
	}
	return first, n == 1
}

// field returns the reasoning member to write for t: its name and JSON
// value, or "" when the profile sends none.
func (c Codec) field(t *replay.Turn) (name string, value []byte) {
	name, text := c.fieldText(t)
	if name == "" {
		return "", nil
	}
	return name, jsonw.String(nil, text)
}

// fieldText is field with the value's text, not yet written as JSON.
func (c Codec) fieldText(t *replay.Turn) (name, text string) {
	p := c.Profile
	text, ok := c.reasoningText(t)
	switch p.Replay {
	case ReplayToolLoop, ReplayToolCalls, ReplayAll:
		if !ok {
			return "", ""
		}
	case ReplayAllWithTools:
		// V4 wants the key on every assistant turn when tools are in play;
		// "" where the turn had none (null fails).
	default:
		if !c.Preserve || p.Preserve == "" || p.Field == "" || !ok {
			return "", ""
		}
	}
	return p.Field, text
}

// content returns the content to write: the visible text, or for MiniMax
// the raw form with each content-tag reasoning item back inside
// <think>…</think> where it was.
func (c Codec) content(t *replay.Turn) (string, bool) {
	var b strings.Builder
	has := false
	for _, blk := range t.Blocks {
		switch x := blk.(type) {
		case *replay.Text:
			b.WriteString(x.Text)
			has = true
		case *replay.ReasoningText:
			if c.Profile.Replay == ReplayRawContent && fromContent(x) && x.Replayable() {
				b.WriteString("<think>")
				b.WriteString(x.Text)
				b.WriteString("</think>")
				has = true
			}
		}
	}
	return b.String(), has
}

func fromContent(x *replay.ReasoningText) bool {
	return len(x.Extra) > 0 && gjson.GetBytes(x.Extra, "source").Str == "content"
}

// details returns MiniMax's reasoning_details for reasoning that came in
// reasoning_details (reasoning_split), or nil.
func (c Codec) details(t *replay.Turn) []byte {
	if c.Profile.Replay != ReplayRawContent {
		return nil
	}
	var out []byte
	for _, blk := range t.Blocks {
		x, ok := blk.(*replay.ReasoningText)
		if !ok || fromContent(x) || !x.Replayable() {
			continue
		}
		if out == nil {
			out = append(out, '[')
		} else {
			out = append(out, ',')
		}
		out = append(out, `{"type":"reasoning.text","text":`...)
		out = jsonw.String(out, x.Text)
		out = append(out, '}')
	}
	if out != nil {
		out = append(out, ']')
	}
	return out
}

// Encode writes the assistant message for the next request:
//
//	{"role":"assistant","content":...,"reasoning_content":...,"tool_calls":[...]}
//
// The reasoning member follows the profile's [Replay] rule: omitted where
// the host forbids or ignores it, "" back-filled for DeepSeek V4, the
// content with its <think> block (or reasoning_details) for MiniMax.
// Gemini signatures go back onto their tool calls. content is null when the
// turn has only tool calls.
func (c Codec) Encode(t *replay.Turn) ([]byte, error) {
	if t == nil {
		return nil, kit.NoTurn(c.API(), "encode")
	}
	out := append([]byte(nil), `{"role":"assistant","content":`...)
	text, has := c.content(t)
	var calls []int
	for i, b := range t.Blocks {
		if _, ok := b.(*replay.ToolCall); ok {
			calls = append(calls, i)
		}
	}
	if !has && len(calls) > 0 {
		out = append(out, "null"...)
	} else {
		out = jsonw.String(out, text)
	}
	if name, v := c.field(t); name != "" {
		out = jsonw.Key(out, name)
		out = append(out, v...)
	}
	if det := c.details(t); det != nil {
		out = append(out, `,"reasoning_details":`...)
		out = append(out, det...)
	}
	if len(calls) > 0 {
		out = append(out, `,"tool_calls":[`...)
		for k, i := range calls {
			if k > 0 {
				out = append(out, ',')
			}
			call, err := c.appendCall(nil, t.Blocks, i)
			if err != nil {
				return nil, err
			}
			out = append(out, call...)
		}
		out = append(out, ']')
	}
	return append(out, '}'), nil
}

func (c Codec) appendCall(out []byte, blocks []replay.Block, i int) ([]byte, error) {
	out, sig := chatstream.AppendToolCall(out, blocks, i)
	if sig == nil {
		return out, nil
	}
	out, err := gemsig.Put(out, sig.Data, gemsig.At(sig))
	if err != nil {
		return nil, codecs.Malformed(c.API(), -1, "/blocks/"+strconv.Itoa(i), "cannot put the signature on the tool call: %v", err)
	}
	return out, nil
}

// Patch adds the turn's reasoning to an assistant message the caller built,
// by the same rules as Encode: the profile's reasoning member, MiniMax's
// raw content or reasoning_details, Gemini signatures on the tool calls of
// the same id. Every other member is left as it was.
func (c Codec) Patch(msg []byte, t *replay.Turn) ([]byte, error) {
	if t == nil {
		return nil, kit.NoTurn(c.API(), "patch")
	}
	api := c.API()
	if err := kit.CheckBody(api, msg, "an assistant message object to patch"); err != nil {
		return nil, err
	}
	if !chatstream.IsObject(msg) {
		return nil, codecs.Malformed(api, -1, "", "expected an assistant message object to patch")
	}
	var setBuf [3]chatstream.Set
	sets := setBuf[:0]
	if name, text := c.fieldText(t); name != "" {
		sets = append(sets, chatstream.Set{Name: name, Str: text})
	}
	if c.Profile.Replay == ReplayRawContent {
		if text, has := c.content(t); has {
			sets = append(sets, chatstream.Set{Name: "content", Str: text, Quote: true})
		}
		if det := c.details(t); det != nil {
			sets = append(sets, chatstream.Set{Name: "reasoning_details", Raw: det})
		}
	}
	return chatstream.PatchMessage(api, msg, sets, t, true)
}
