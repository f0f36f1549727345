package anthropic

import (
	"net/http"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/internal/readafter"
	"github.com/reasonreplay/replay/internal/reqtape"
	"github.com/tidwall/gjson"
)

// DecodeRequest reads the assistant turns of a Messages request body
// (`{"model":...,"system":...,"tools":[...],"thinking":{...},"messages":[...]}`)
// for [replay.AuditRequest]: the content of each `messages[i]` with role
// "assistant" is read by the same content reader as a response's (a string
// content as one text block). The target's Model and Tools come from the
// body, and Thinking is true when the request thinks (`thinking.type`
// "enabled", "adaptive" or "between_tools"; not when it is "disabled" or
// absent).
//
// A turn is Complete unless it is structurally cut: in the last assistant
// message, a thinking block without its signature, or a tool_use without
// its input, is unfinished and its turn is not Complete.
func (c Codec) DecodeRequest(body []byte) (replay.History, replay.Target, error) {
	return c.decodeRequest(body)
}

// decodeRequest is DecodeRequest, its validating pass reading body after
// the tape lent for it (reqtape.Lent: one of the same bytes, or of an
// earlier body; see jsonw.Tape.ResetAfter), when one is.
func (c Codec) decodeRequest(body []byte) (replay.History, replay.Target, error) {
	h := replay.History{Request: body}
	prev := reqtape.Lent(body)
	tape := new(jsonw.Tape)
	root := tape.Root()
	if tape.ResetBytesAfter(body, prev) {
		root = tape.Root()
	}
	if !root.IsObject() {
		return h, replay.Target{}, bodyErr("", "expected a Messages request body object")
	}
	kit.SetTape(&h, tape)
	msgs := root.Get("messages")
	if !msgs.IsArray() {
		return h, replay.Target{}, bodyErr("/messages", "expected a messages array")
	}
	t := replay.Target{API: API, Provider: c.Provider, Model: strings.Clone(root.Get("model").Result().String()),
		Tools:    kit.Items(root.Get("tools")) > 0,
		Thinking: thinkingOn(root.Path("thinking.type"))}
	isTurn := func(m jsonw.Val) bool { return m.Get("role").Is("assistant") }
	// The turns of the messages the body shares with prev's text are the
	// turns read from prev's (see prior).
	var was *prior
	_, prefix := tape.Prefix()
	if prev != nil && prefix > 0 {
		was, _ = prev.Kept(priorKey{c}).(*prior)
	}
	shared := func(i int, m jsonw.Val) bool {
		return was != nil && i < len(was.turns) && was.turns[i] != nil && m.End() <= prefix
	}
	r := c.reader(false, reserve(msgs, func(i int, m jsonw.Val) bool { return isTurn(m) && !shared(i, m) }))
	r.request = true
	var at []int // the message index of each turn
	err := kit.ConvTurns(&h, &t, msgs, "/messages", r.al, isTurn, func(i int, m jsonw.Val, last bool) *replay.Turn {
		at = append(at, i)
		if shared(i, m) && (was.last == i) == last {
			return was.turns[i]
		}
		return nil
	}, func(m jsonw.Val, ptr string, last bool) (*replay.Turn, error) {
		return c.requestTurn(r, m.Get("content"), ptr, last)
	})
	if err == nil {
		now := &prior{turns: make([]*replay.Turn, msgs.Len()), last: -1}
		for k, i := range at {
			now.turns[i], now.last = h.Turns[k], i
		}
		tape.Keep(priorKey{c}, now)
	}
	return h, t, err
}

// prior is what decodeRequest read of a body, kept with its tape for the
// read of a later body after it (jsonw.Tape.Keep): the turn of each
// message (nil for one that is not an assistant's), by index, and the
// index of the last. Each turn is a function of its message's bytes and of
// whether it is the last, for one Codec (see the OwnBytes registration
// below): a later body whose message i has the same bytes, at the same
// place in the bytes the two bodies share (jsonw.Tape.Prefix), and is
// the last or not as it was, has the same turn, which is taken as it is.
// Turns are never changed once read, so both requests may hold one.
type prior struct {
	turns []*replay.Turn
	last  int
}

// priorKey names a prior read by c.
type priorKey struct{ c Codec }

// reserve counts what the messages of msgs that read reports true for
// hold, for one allocation of each kind of block.
func reserve(msgs jsonw.Val, read func(int, jsonw.Val) bool) *kit.Alloc {
	var n kit.Counts
	msgs.ForEach(func(i int, _ string, m jsonw.Val) bool {
		if !read(i, m) {
			return true
		}
		n.Turns++
		content := m.Get("content")
		n.Bytes += len(content.Raw())
		if !content.IsArray() {
			n.Blocks++
			n.Visible++
			return true
		}
		n.Blocks += content.Len()
		content.ForEach(func(_ int, _ string, b jsonw.Val) bool {
			switch t := b.Get("type"); {
			case t.Is("thinking"):
				n.Texts++
			case t.Is("redacted_thinking"):
				n.Encrypted++
			case t.Is("text"):
				n.Visible++
			case t.Is("tool_use"):
				n.Calls++
			case !t.Is("compaction"):
				n.Natives++
			}
			return true
		})
		return true
	})
	al := new(kit.Alloc)
	al.Reserve(n)
	return al
}

// requestTurn reads the content of one assistant message of a request
// with r; cut says it is the last one, which may have been cut off.
func (c Codec) requestTurn(r *reader, content jsonw.Val, ptr string, cut bool) (*replay.Turn, error) {
	tu := r.al.Turn()
	*tu = replay.Turn{Provenance: replay.Provenance{API: API, Provider: c.Provider}}
	r.b, r.cut, r.at = kit.NewBudget(API, c.Limits, -1), cut, ptr
	switch {
	case content.IsString():
		if err := r.b.Block(0); err != nil {
			return nil, err
		}
		text, err := r.al.Str(&r.b, 0, content)
		if err != nil {
			return nil, err
		}
		x := r.al.Text()
		*x = replay.Text{Text: text}
		tu.Blocks = append(r.al.Blocks(1), x)
	case content.IsArray():
		if err := r.content(tu, content, "/content"); err != nil {
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
	return codecs.ReadWith(body, "messages", []string{"system", "tools"}, []string{"cache_control"}, nil,
		func(b []byte) (replay.History, replay.Target, error) { return c.decodeRequest(b) })
}

func init() {
	// Each assistant message is one turn, read by requestTurn from its own
	// content alone: the reader keeps nothing from one message to the next
	// but its allocator, its budget is new for each, and cut (the last
	// assistant message's) is the only thing of the request it is told.
	// The codec's Provider picks the thinking format, Limits only refuse.
	readafter.RegisterOwnBytes(func(hc codecs.HTTPCodec) (any, bool) {
		c, ok := hc.(Codec)
		return c, ok
	})
}

// Strip removes the thinking and redacted_thinking blocks of an assistant
// message. It reads the message once, in place; a message with nothing to
// remove comes back as it is, without allocating. The content array of
// one that loses blocks is written without white space between its
// elements.
func (Codec) Strip(raw []byte) ([]byte, []codecs.Change) {
	return kit.DropElems(raw, "content", "type", isThinkingType, contentPointers, "thinking block removed")
}

// contentPointers are the pointers of the content blocks.
var contentPointers = kit.NewPointers("/content/")

// isThinkingType reports whether the raw type of a content block is thinking
// or redacted_thinking.
func isThinkingType(typ string) bool {
	return jsonw.StrIs(typ, "thinking") || jsonw.StrIs(typ, "redacted_thinking")
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

// thinkingOn reports whether a request's `thinking.type` turns thinking
// on: manual ("enabled") or model-led ("adaptive", "between_tools").
func thinkingOn(typ jsonw.Val) bool {
	return typ.IsString() && !typ.Is("disabled")
}

// manualThinking reports whether the request asks for manual thinking,
// the mode in which a tool turn must start with its thinking block: its
// `thinking.type` is "enabled", or, for a history read without a request
// body, the target says thinking is on.
func manualThinking(h *replay.History, t *replay.Target) bool {
	if typ := requestRoot(h).Path("thinking.type"); typ.Exists() {
		return typ.Is("enabled")
	}
	return t.Thinking
}
