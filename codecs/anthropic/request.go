package anthropic

import (
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
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
	isTurn := func(m gjson.Result) bool { return m.Get("role").String() == "assistant" }
	err := kit.RequestTurns(&h, &t, msgs, "/messages", isTurn, func(m gjson.Result, ptr string, last bool) (*replay.Turn, error) {
		return c.requestTurn(m.Get("content"), ptr, last)
	})
	return h, t, err
}

// requestTurn reads the content of one assistant message of a request; cut
// says it is the last one, which may have been cut off.
func (c Codec) requestTurn(content gjson.Result, ptr string, cut bool) (*replay.Turn, error) {
	tu := &replay.Turn{Provenance: replay.Provenance{API: API, Provider: c.Provider}}
	r := c.reader(cut)
	r.request = true
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
	return tu, nil
}
