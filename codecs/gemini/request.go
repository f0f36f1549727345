package gemini

import (
	"fmt"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
)

// DecodeRequest reads the model turns of a generateContent request body
// (`{"contents":[...],"tools":[...],"generationConfig":{...}}`) for
// [replay.AuditRequest]: each `contents[i]` with role "model" is read by
// the part reader [Codec.Decode] uses, so that signatures bind to their
// parts as in a response. History.Pointers are "/contents/i".
//
// A turn is complete unless it is structurally cut: a functionCall part
// without a `name` or without `args` is kept as an unfinished call and
// the turn is not complete, so that the core's replay/incomplete-turn
// rule reports it. (An unsigned first call on Gemini 3 is not a cut: the
// gemini/missing-signature rule judges it.)
//
// The body does not name the model (it is in the URL path); a `model`
// member, when present (Vertex batch lines and SDK logs carry one), gives
// Target.Model and the turns' model, which the Gemini 3 rules need. Tools
// is true when `tools` is not empty or a turn calls a function; Thinking is
// true when `generationConfig.thinkingConfig` is present and does not set
// thinkingBudget to 0.
func (c Codec) DecodeRequest(body []byte) (replay.History, replay.Target, error) {
	h := replay.History{Request: body}
	root, contents, err := kit.RequestRoot(API, body, "a generateContent request body", "contents")
	if err != nil {
		return h, replay.Target{}, err
	}
	t := requestTarget(c.Provider, root)
	isTurn := func(m gjson.Result) bool { return m.Get("role").String() == "model" }
	err = kit.RequestTurns(&h, &t, contents, "/contents", isTurn, func(m gjson.Result, ptr string, _ bool) (*replay.Turn, error) {
		return c.requestTurn(m.Raw, ptr, t.Model)
	})
	return h, t, err
}

// requestTarget reads what a request body says about its target.
func requestTarget(provider string, root gjson.Result) replay.Target {
	tc := root.Get("generationConfig.thinkingConfig")
	return replay.Target{API: API, Provider: provider, Model: kit.Clone(root.Get("model").String()),
		Tools:    len(root.Get("tools").Array()) > 0,
		Thinking: tc.IsObject() && (!tc.Get("thinkingBudget").Exists() || tc.Get("thinkingBudget").Int() != 0)}
}

// requestTurn reads one model Content object of a request, the JSON text
// content at pointer ptr.
func (c Codec) requestTurn(content, ptr, model string) (*replay.Turn, error) {
	if !isObject(content) {
		return nil, replay.Malformed(API, -1, ptr, "expected a content object")
	}
	r := responder{provider: c.Provider, model: model}
	bud := kit.NewBudget(API, c.Limits, -1)
	r.b.bud = &bud
	r.b.content, r.b.request = ptr, true
	var ch chunk
	var sc jsonw.Scanner
	sc.Reset(content)
	ok := ch.readContent(&sc)
	if !sc.End() {
		return nil, replay.Malformed(API, -1, ptr, "expected a content object")
	}
	if !ok {
		return nil, replay.Malformed(API, -1, ptr+"/parts", "expected an array")
	}
	if err := r.decodeParts(ch.parts); err != nil {
		return nil, err
	}
	if err := r.b.close(); err != nil {
		return nil, fmt.Errorf("%s: %w", ptr, err)
	}
	t := &replay.Turn{Provenance: replay.Provenance{API: API}}
	r.finishTurn(t)
	t.Complete = !r.b.cut
	return t, nil
}
