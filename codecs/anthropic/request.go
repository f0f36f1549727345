package anthropic

import (
	"net/http"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
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

// bindingBeta is the anthropic-beta value the block_binding setting needs.
const bindingBeta = "thinking-binding-controls-2026-08-01"

// ReadRequest reads a Messages request body once for the middleware: the
// turns as [Codec.DecodeRequest] reads them, the `messages` elements, and
// the `system` and `tools` members the turns are bound to; `cache_control`
// markers are no part of the conversation.
func (c Codec) ReadRequest(body []byte) (*codecs.Request, error) {
	return codecs.ReadWith(body, "messages", []string{"system", "tools"}, []string{"cache_control"}, nil, c.DecodeRequest)
}

// Strip removes the thinking and redacted_thinking blocks of an assistant
// message.
func (Codec) Strip(raw []byte) ([]byte, []codecs.Change) {
	out, removed := kit.FilterArray(raw, "content", func(b gjson.Result) bool {
		t := b.Get("type").Str
		return t == "thinking" || t == "redacted_thinking"
	})
	return out, kit.Removed(removed, "thinking block removed")
}

// Fix applies a one-shot fix: drop-reasoning strips the turns' thinking
// blocks; drop-block asks Anthropic to drop the blocks bound to another
// conversation (`thinking.block_binding.prefix_mismatch_behavior:
// "drop_block"`, with the beta header it needs).
func (c Codec) Fix(fix string, r *codecs.Request, only func(int) bool, h http.Header) ([]byte, http.Header, []codecs.Change) {
	switch fix {
	case codecs.FixDropReasoning:
		body, changes := codecs.EditTurns(r, only, func(_ int, raw []byte) ([]byte, []codecs.Change) {
			out, ch := c.Strip(raw)
			if len(ch) == 0 {
				return nil, nil
			}
			return out, ch
		})
		return body, nil, changes
	case codecs.FixDropBlock:
		const path = "thinking.block_binding.prefix_mismatch_behavior"
		if gjson.GetBytes(r.Body, path).Str == "drop_block" || !gjson.GetBytes(r.Body, "thinking").IsObject() {
			return r.Body, nil, nil
		}
		out, ok := kit.SetMember(r.Body, path, []byte(`"drop_block"`))
		if !ok {
			return r.Body, nil, nil
		}
		changes := []codecs.Change{{Pointer: "/thinking/block_binding/prefix_mismatch_behavior",
			Detail: `set to "drop_block": thinking blocks bound to another conversation are dropped by the provider`}}
		var hdr http.Header
		if !strings.Contains(strings.Join(h.Values("anthropic-beta"), ","), bindingBeta) {
			hdr = http.Header{"Anthropic-Beta": {bindingBeta}}
			changes = append(changes, codecs.Change{Detail: "anthropic-beta: " + bindingBeta + " added (the setting requires it)"})
		}
		return out, hdr, changes
	}
	return r.Body, nil, nil
}

// RenameResults renames the call ids the tool results of a conversation
// element name (see [codecs.ResultRenamer]).
func (Codec) RenameResults(el []byte, rename func(string) (string, bool)) []byte {
	return kit.RenameIn(el, "content", func(b gjson.Result) bool { return b.Get("type").Str == "tool_result" }, "tool_use_id", rename)
}
