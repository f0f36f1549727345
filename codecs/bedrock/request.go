package bedrock

import (
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
)

// DecodeRequest reads the assistant turns of a Converse request body
// (`{"messages":[...],"system":[...],"toolConfig":{...},
// "additionalModelRequestFields":{...}}`) for [replay.AuditRequest]: the
// content of each `messages[i]` with role "assistant" is read by the same
// content reader as a response's. The HTTP body does not name the model (it
// is in the URL path); the model is c.Model, else the body's `modelId` (the
// SDK and CLI input form, `aws bedrock-runtime converse --cli-input-json`),
// and it selects the format of the items as in [Codec.Decode]. Tools is
// true when `toolConfig.tools` is not empty or a turn calls a tool;
// Thinking is true when `additionalModelRequestFields` turns Claude
// thinking on (`thinking.type` or `reasoning_config.type` "enabled").
//
// A turn is Complete unless it is structurally cut: in the last assistant
// message, a Claude reasoningText without its signature, or a toolUse
// without its input, is unfinished and its turn is not Complete.
func (c Codec) DecodeRequest(body []byte) (replay.History, replay.Target, error) {
	h := replay.History{Request: body}
	if !jsonw.ValidBytes(body) || !gjson.ParseBytes(body).IsObject() {
		return h, replay.Target{}, replay.Malformed(API, -1, "", "expected a Converse request body object")
	}
	root := gjson.ParseBytes(body)
	msgs := root.Get("messages")
	if !msgs.IsArray() {
		return h, replay.Target{}, replay.Malformed(API, -1, "/messages", "expected a messages array")
	}
	if c.Model == "" {
		c.Model = root.Get("modelId").String()
	}
	amrf := root.Get("additionalModelRequestFields")
	t := replay.Target{API: API, Provider: c.Provider, Model: c.Model,
		Tools: len(root.Get("toolConfig.tools").Array()) > 0,
		Thinking: amrf.Get("thinking.type").String() == "enabled" ||
			amrf.Get("reasoning_config.type").String() == "enabled"}
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
		tu, err := c.requestTurn(m, ptr, i == last)
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

// requestTurn reads one assistant message of a request; cut says it is the
// last one, which may have been cut off.
func (c Codec) requestTurn(m gjson.Result, ptr string, cut bool) (*replay.Turn, error) {
	content := m.Get("content")
	if !content.IsArray() {
		return nil, replay.Malformed(API, -1, ptr+"/content", "expected an array")
	}
	tu := &replay.Turn{Provenance: c.provenance(), Complete: true}
	r := c.reader()
	r.cut = cut
	if err := r.content(tu, content, ptr+"/content"); err != nil {
		return nil, err
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
