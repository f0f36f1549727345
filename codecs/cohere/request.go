package cohere

import (
	"fmt"
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/tidwall/gjson"
)

// DecodeRequest reads the assistant turns of a v2 chat request body
// (`{"model":...,"messages":[...],"tools":[...],"thinking":{...}}`) for
// [replay.AuditRequest]: each `messages[i]` with role "assistant" (content
// as an array of blocks or a string, tool_plan, tool_calls) is decoded as
// the message of a chat response. The model is the body's `model` (Cohere
// responses do not name it) unless c.Model is set; Tools is true when
// `tools` is not empty or a turn calls a tool; Thinking is true when
// `thinking.type` is "enabled".
func (c Codec) DecodeRequest(body []byte) (replay.History, replay.Target, error) {
	h := replay.History{Request: body}
	if !gjson.ValidBytes(body) || !gjson.ParseBytes(body).IsObject() {
		return h, replay.Target{}, replay.Malformed(API, -1, "", "expected a v2 chat request body object")
	}
	root := gjson.ParseBytes(body)
	msgs := root.Get("messages")
	if !msgs.IsArray() {
		return h, replay.Target{}, replay.Malformed(API, -1, "/messages", "expected a messages array")
	}
	if c.Model == "" {
		c.Model = root.Get("model").String()
	}
	t := replay.Target{API: API, Provider: c.Provider, Model: c.Model,
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
		resp := make([]byte, 0, len(m.Raw)+40)
		resp = append(resp, `{"finish_reason":"COMPLETE","message":`...)
		resp = append(resp, m.Raw...)
		resp = append(resp, '}')
		var tu *replay.Turn
		if tu, err = c.Decode(resp); err != nil {
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
	return h, t, err
}
