package anthropic

import (
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/tidwall/gjson"
)

// DecodeRequest reads the assistant turns of a Messages request body
// (`{"model":...,"system":...,"tools":[...],"thinking":{...},"messages":[...]}`)
// for [replay.AuditRequest]: each `messages[i]` with role "assistant" is
// decoded as the content of a response message (a string content as one
// text block). The target's Model and Tools come from the body, and
// Thinking is true for manual thinking (`thinking.type` "enabled").
func (c Codec) DecodeRequest(body []byte) (replay.History, replay.Target, error) {
	h := replay.History{Request: body}
	if !gjson.ValidBytes(body) || !gjson.ParseBytes(body).IsObject() {
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
	var err error
	i := -1
	msgs.ForEach(func(_, m gjson.Result) bool {
		i++
		if m.Get("role").String() != "assistant" {
			return true
		}
		ptr := "/messages/" + strconv.Itoa(i)
		content := m.Get("content")
		resp := []byte(`{"type":"message","role":"assistant","stop_reason":"end_turn","content":`)
		if content.Type == gjson.String {
			resp = append(resp, `[{"type":"text","text":`...)
			resp = append(resp, content.Raw...)
			resp = append(resp, "}]"...)
		} else {
			resp = append(resp, content.Raw...)
		}
		resp = append(resp, '}')
		var tu *replay.Turn
		if tu, err = c.Decode(resp); err != nil {
			err = bodyErr(ptr, "%v", err)
			return false
		}
		for _, b := range tu.Blocks {
			if _, ok := b.(*replay.ToolCall); ok {
				t.Tools = true
			}
		}
		h.Turns = append(h.Turns, tu)
		h.Pointers = append(h.Pointers, ptr)
		return true
	})
	return h, t, err
}
