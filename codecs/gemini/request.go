package gemini

import (
	"github.com/reasonreplay/replay/internal/reqread"

	"github.com/reasonreplay/replay"
	"github.com/tidwall/gjson"
)

// DecodeRequest reads the model turns of a generateContent request body
// (`{"contents":[...],"tools":[...],"generationConfig":{...}}`) for
// [replay.AuditRequest]: each `contents[i]` with role "model" is decoded as
// the content of candidate 0 of a response, so that signatures bind to
// their parts as in [Codec.Decode]. The body does not name the model (it is
// in the URL path); a `model` member, when present (Vertex batch lines and
// SDK logs carry one), gives Target.Model and the turns' model, which the
// Gemini 3 rules need. Tools is true when `tools` is not empty or a turn
// calls a function; Thinking is true when
// `generationConfig.thinkingConfig` is present and does not set
// thinkingBudget to 0.
func (c Codec) DecodeRequest(body []byte) (replay.History, replay.Target, error) {
	h := replay.History{Request: body}
	if !gjson.ValidBytes(body) || !gjson.ParseBytes(body).IsObject() {
		return h, replay.Target{}, replay.Malformed(API, -1, "", "expected a generateContent request body object")
	}
	root := gjson.ParseBytes(body)
	contents := root.Get("contents")
	if !contents.IsArray() {
		return h, replay.Target{}, replay.Malformed(API, -1, "/contents", "expected a contents array")
	}
	model := root.Get("model")
	tc := root.Get("generationConfig.thinkingConfig")
	t := replay.Target{API: API, Provider: c.Provider, Model: model.String(),
		Tools:    len(root.Get("tools").Array()) > 0,
		Thinking: tc.IsObject() && (!tc.Get("thinkingBudget").Exists() || tc.Get("thinkingBudget").Int() != 0)}
	c.Candidate = 0
	err := reqread.Conversation(&h, &t, contents, "/contents", "model", func(dst []byte, m gjson.Result) []byte {
		dst = append(dst, `{"candidates":[{"index":0,"finishReason":"STOP","content":`...)
		dst = append(dst, m.Raw...)
		dst = append(dst, "}]"...)
		if model.Type == gjson.String {
			dst = append(dst, `,"modelVersion":`...)
			dst = append(dst, model.Raw...)
		}
		return append(dst, '}')
	}, c.Decode)
	return h, t, err
}
