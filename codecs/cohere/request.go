package cohere

import (
	"github.com/reasonreplay/replay/internal/reqread"

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
	err := reqread.Conversation(&h, &t, msgs, "/messages", "assistant", func(dst []byte, m gjson.Result) []byte {
		dst = append(dst, `{"finish_reason":"COMPLETE","message":`...)
		dst = append(dst, m.Raw...)
		return append(dst, '}')
	}, c.Decode)
	return h, t, err
}
