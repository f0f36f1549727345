package cohere

import (
	"net/http"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/chatstream"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
)

// DecodeRequest reads the assistant turns of a v2 chat request body
// (`{"model":...,"messages":[...],"tools":[...],"thinking":{...}}`) for
// [replay.AuditRequest]: each `messages[i]` with role "assistant" (content
// as an array of blocks or a string, tool_plan, tool_calls) is read by the
// message reader [Codec.Decode] uses. History.Pointers are "/messages/i".
//
// A turn is complete unless it is structurally cut: a tool call without
// `function.name` or without `function.arguments` is kept as an
// unfinished call and the turn is not complete, so that the core's
// replay/incomplete-turn rule reports it.
//
// The model is the body's `model` (Cohere responses do not name it) unless
// c.Model is set; Tools is true when `tools` is not empty or a turn calls a
// tool; Thinking is true when `thinking.type` is "enabled".
func (c Codec) DecodeRequest(body []byte) (replay.History, replay.Target, error) {
	h := replay.History{Request: body}
	root, msgs, tape, err := kit.ReadRequest(API, body, "a v2 chat request body", "messages")
	if tape != nil {
		kit.SetTape(&h, tape)
	}
	if err != nil {
		return h, replay.Target{}, err
	}
	if c.Model == "" {
		c.Model = kit.Clone(root.Get("model").Result().String())
	}
	t := replay.Target{API: API, Provider: c.Provider, Model: c.Model,
		Tools:    kit.Items(root.Get("tools")) > 0,
		Thinking: root.Path("thinking.type").Is("enabled")}
	isTurn := func(m jsonw.Val) bool { return m.Get("role").Is("assistant") }
	al := kit.ConvAlloc(msgs, isTurn)
	err = kit.ConvTurns(&h, &t, msgs, "/messages", al, isTurn, nil, func(m jsonw.Val, ptr string, _ bool) (*replay.Turn, error) {
		return c.requestTurn(m, ptr, al)
	})
	return h, t, err
}

// requestTurn reads one assistant message of a request (on its tape), at
// pointer ptr, into memory of al.
func (c Codec) requestTurn(m jsonw.Val, ptr string, al *kit.Alloc) (*replay.Turn, error) {
	t := al.Turn()
	*t = replay.Turn{Provenance: c.provenance()}
	r := messageReader{t: t, bud: kit.NewBudget(API, c.Limits, -1), ptr: ptr, request: true, al: al}
	if err := r.message(m); err != nil {
		return nil, err
	}
	t.Complete = !r.cut
	return t, nil
}

// ReadRequest reads a v2 chat request body once for the middleware: the
// turns as [Codec.DecodeRequest] reads them, the `messages` elements, and
// the `tools` the turns are bound to.
func (c Codec) ReadRequest(body []byte) (*codecs.Request, error) {
	return codecs.ReadWith(body, "messages", []string{"tools"}, nil, nil, c.DecodeRequest)
}

// Strip removes the thinking blocks of an assistant message's content.
func (Codec) Strip(raw []byte) ([]byte, []codecs.Change) {
	return chatstream.StripContent(raw)
}

// Fix applies drop-reasoning, the one fix of the API: the turns lose
// their thinking blocks.
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

// RenameResults renames the call ids the tool results of a conversation
// element name (see [codecs.ResultRenamer]).
func (Codec) RenameResults(el []byte, rename func(string) (string, bool)) []byte {
	return kit.RenameIn(el, "", func(b gjson.Result) bool { return b.Get("role").Str == "tool" }, "tool_call_id", rename)
}
