package ollama

import (
	"net/http"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
)

// DecodeRequest reads the assistant messages of an /api/chat request body
// with the reader Decode uses for a response's message (thinking, content
// with its <think> tags split out, tool calls), and the target facts the
// body states: the model, tools (declared, or called in the history) and
// `think` (true, or a level; false and "" leave it off). The last
// assistant message is incomplete when one of its tool calls lacks a
// function name or arguments.
func (c Codec) DecodeRequest(body []byte) (replay.History, replay.Target, error) {
	h := replay.History{Request: body}
	root, msgs, tape, err := kit.ReadRequest(API, body, "an /api/chat request body", "messages")
	if tape != nil {
		kit.SetTape(&h, tape)
	}
	if err != nil {
		return h, replay.Target{}, err
	}
	t := replay.Target{API: API, Provider: c.provider(), Model: kit.Clone(root.Get("model").Result().String())}
	t.Tools = kit.Items(root.Get("tools")) > 0
	switch th := root.Get("think").Result(); th.Type {
	case gjson.True:
		t.Thinking = true
	case gjson.String:
		t.Thinking = th.Str != ""
	}
	isTurn := func(m jsonw.Val) bool { return m.Get("role").Is("assistant") }
	var al kit.Alloc
	err = kit.ConvTurns(&h, &t, msgs, "/messages", &al, isTurn, nil, func(m jsonw.Val, ptr string, _ bool) (*replay.Turn, error) {
		var ev event
		ev.scan(`{"message":` + m.Raw() + `}`) // valid: part of a validated body
		bud := kit.NewBudget(API, c.Limits, -1)
		tu := &replay.Turn{Provenance: replay.Provenance{API: API, Provider: c.provider(), Model: t.Model}}
		b := builder{bud: &bud, turn: tu}
		if err := b.message(&ev, ptr); err != nil {
			return nil, err
		}
		return tu, b.end()
	})
	return h, t, err
}

// ReadRequest reads an /api/chat request body once for the middleware:
// the turns as [Codec.DecodeRequest] reads them, the `messages` elements,
// and the `tools` the turns are bound to.
func (c Codec) ReadRequest(body []byte) (*codecs.Request, error) {
	return codecs.ReadWith(body, "messages", []string{"tools"}, nil, nil, c.DecodeRequest)
}

// Strip removes the reasoning of an assistant message: its `thinking`
// member (tags left in content are the caller's text).
func (Codec) Strip(raw []byte) ([]byte, []codecs.Change) {
	out, v := kit.DeleteMember(raw, "thinking")
	if !v.Exists() {
		return raw, nil
	}
	return out, []codecs.Change{{Pointer: "/thinking", Removed: true, Detail: "thinking removed"}}
}

// Fix applies drop-reasoning (Strip) to the assistant messages of the
// turns only reports; Ollama answers no replay error, so no other fix
// applies.
func (c Codec) Fix(fix string, r *codecs.Request, only func(int) bool, _ http.Header) ([]byte, http.Header, []codecs.Change) {
	if fix != codecs.FixDropReasoning {
		return r.Body, nil, nil
	}
	body, changes := codecs.EditTurns(r, only, func(_ int, raw []byte) ([]byte, []codecs.Change) {
		out, ch := c.Strip(raw)
		if len(ch) == 0 {
			return nil, nil
		}
		return out, ch
	})
	return body, nil, changes
}
