package anthropic

import (
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
)

// DecodeRequest reads the assistant turns of a Messages request body
// (`{"model":...,"system":...,"tools":[...],"thinking":{...},"messages":[...]}`)
// for [replay.AuditRequest]: the content of each `messages[i]` with role
// "assistant" is read by the same content reader as a response's (a string
// content as one text block). The target's Model and Tools come from the
// body, and Thinking is true for manual thinking (`thinking.type`
// "enabled").
//
// A turn is Complete unless it is structurally cut: in the last assistant
// message, a thinking block without its signature, or a tool_use without
// its input, is unfinished and its turn is not Complete.
func (c Codec) DecodeRequest(body []byte) (replay.History, replay.Target, error) {
	h := replay.History{Request: body}
	if !jsonw.ValidBytes(body) || !gjson.ParseBytes(body).IsObject() {
		return h, replay.Target{}, bodyErr("", "expected a Messages request body object")
	}
	root := gjson.ParseBytes(body)
	msgs := root.Get("messages")
	if !msgs.IsArray() {
		return h, replay.Target{}, bodyErr("/messages", "expected a messages array")
	}
	t := replay.Target{API: API, Provider: c.Provider, Model: root.Get("model").String(),
		Tools:    len(root.Get("tools").Array()) > 0,
		Thinking: root.Get("thinking.type").String() == "enabled"}
	list := msgs.Array()
	last := -1
	for i, m := range list {
		if m.Get("role").String() == "assistant" {
			last = i
		}
	}
	for i, m := range list {
		if m.Get("role").String() != "assistant" {
			continue
		}
		ptr := "/messages/" + strconv.Itoa(i)
		tu, err := c.requestTurn(m.Get("content"), ptr, i == last)
		if err != nil {
			return h, t, err
		}
		if len(tu.ToolCalls()) > 0 {
			t.Tools = true
		}
		h.Turns = append(h.Turns, tu)
		h.Pointers = append(h.Pointers, ptr)
	}
	return h, t, nil
}

// requestTurn reads the content of one assistant message of a request; cut
// says it is the last one, which may have been cut off.
func (c Codec) requestTurn(content gjson.Result, ptr string, cut bool) (*replay.Turn, error) {
	tu := &replay.Turn{Provenance: replay.Provenance{API: API, Provider: c.Provider}, Complete: true}
	r := c.reader(cut)
	switch {
	case content.Type == gjson.String:
		if err := r.b.Block(0); err != nil {
			return nil, err
		}
		text, err := r.b.Keep(0, content.Str)
		if err != nil {
			return nil, err
		}
		tu.Blocks = append(tu.Blocks, &replay.Text{Text: text})
	case content.IsArray():
		if err := r.content(tu, content, ptr+"/content"); err != nil {
			return nil, err
		}
	default:
		return nil, bodyErr(ptr+"/content", "expected the content array")
	}
	for _, b := range tu.Blocks {
		if unfinished(b) {
			tu.Complete = false
		}
	}
	return tu, nil
}

// unfinished reports whether b is a reasoning item or tool call marked
// unfinished.
func unfinished(b replay.Block) bool {
	switch b := b.(type) {
	case replay.ReasoningItem:
		return b.Meta().Unfinished
	case *replay.ToolCall:
		return b.Unfinished
	}
	return false
}
