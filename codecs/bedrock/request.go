package bedrock

import (
	"github.com/reasonreplay/replay/internal/reqread"

	"github.com/reasonreplay/replay"
	"github.com/tidwall/gjson"
)

// DecodeRequest reads the assistant turns of a Converse request body
// (`{"messages":[...],"system":[...],"toolConfig":{...},
// "additionalModelRequestFields":{...}}`) for [replay.AuditRequest]: each
// `messages[i]` with role "assistant" is decoded as the message of a
// Converse response. The HTTP body does not name the model (it is in the
// URL path); the model is c.Model, else the body's `modelId` (the SDK and
// CLI input form, `aws bedrock-runtime converse --cli-input-json`), and it
// selects the format of the items as in [Codec.Decode]. Tools is true when
// `toolConfig.tools` is not empty or a turn calls a tool; Thinking is true
// when `additionalModelRequestFields` turns Claude thinking on
// (`thinking.type` or `reasoning_config.type` "enabled").
func (c Codec) DecodeRequest(body []byte) (replay.History, replay.Target, error) {
	h := replay.History{Request: body}
	if !gjson.ValidBytes(body) || !gjson.ParseBytes(body).IsObject() {
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
	err := reqread.Conversation(&h, &t, msgs, "/messages", "assistant", func(dst []byte, m gjson.Result) []byte {
		dst = append(dst, `{"stopReason":"end_turn","output":{"message":{"role":"assistant","content":`...)
		if content := m.Get("content"); content.Exists() {
			dst = append(dst, content.Raw...)
		} else {
			dst = append(dst, "null"...)
		}
		return append(dst, "}}}"...)
	}, c.Decode)
	return h, t, err
}
