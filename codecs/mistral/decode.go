package mistral

import (
	"encoding/json"
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/chatstream"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
)

// Decode reads a whole chat completion body (the first choice). An error
// body returns a *replay.ProviderError. What the turn keeps is bounded by
// c.Limits.
func (c Codec) Decode(body []byte) (*replay.Turn, error) {
	var tape jsonw.Tape
	if !tape.ResetBytes(body) {
		return nil, kit.CheckBody(API, body, "a JSON chat completion body")
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, codecs.Malformed(API, -1, "", "expected a JSON object")
	}
	if pe := providerError(root); pe != nil {
		return nil, pe
	}
	choice := root.Get("choices.0")
	if !choice.IsObject() {
		return nil, codecs.Malformed(API, -1, "/choices/0", "expected a choice object")
	}
	msg := choice.Get("message")
	if !msg.IsObject() {
		return nil, codecs.Malformed(API, -1, "/choices/0/message", "expected an object")
	}
	b := kit.NewBudget(API, c.Limits, -1)
	t, err := c.readMessage(tape.Root().Path("choices.0.message"), "/choices/0/message", &b, new(kit.Alloc))
	if err != nil {
		return nil, err
	}
	if t.Provenance.Model, err = b.Keep(-1, root.Get("model").String()); err != nil {
		return nil, err
	}
	if fr := choice.Get("finish_reason"); fr.Type == gjson.String {
		if t.FinishReason, err = b.Keep(-1, fr.Str); err != nil {
			return nil, err
		}
	}
	if u := root.Get("usage"); u.IsObject() {
		if err := b.Item(-1, len(u.Raw), len(u.Raw)); err != nil {
			return nil, err
		}
		t.Usage = raw(u.Raw)
	}
	return t, nil
}

// readMessage reads an assistant message (of a response body, or of a
// request; on the tape of its text) at ptr into a complete turn, within
// the budget: its content chunks and tool calls. The turn, its blocks and
// strings come from al; the turn does not alias msg.
func (c Codec) readMessage(msg jsonw.Val, ptr string, b *kit.Budget, al *kit.Alloc) (*replay.Turn, error) {
	t := al.Turn()
	*t = replay.Turn{Complete: true, Provenance: replay.Provenance{API: API, Provider: c.provider()}}
	content, tcs := msg.Get("content"), msg.Get("tool_calls")
	t.Blocks = al.Blocks(max(content.Len(), 1) + tcs.Len())
	if err := readContent(content, ptr, b, t, al); err != nil {
		return nil, err
	}
	switch {
	case tcs.IsArray():
		var err error
		tcs.ForEach(func(i int, _ string, tc jsonw.Val) bool {
			var call *replay.ToolCall
			call, err = toolCall(tc, ptr, i, al)
			if err == nil {
				err = b.Add(t, call, len(call.ID)+len(call.Name)+len(call.Arguments))
			}
			return err == nil
		})
		if err != nil {
			return nil, err
		}
	case tcs.Exists() && !tcs.IsNull():
		return nil, codecs.Malformed(API, -1, ptr+"/tool_calls", "expected an array or null")
	}
	if len(t.Blocks) == 0 {
		t.Blocks = nil
	}
	return t, nil
}

// readContent adds the blocks of the content of the message at ptr: a
// string, or an array of chunks.
func readContent(content jsonw.Val, ptr string, b *kit.Budget, t *replay.Turn, al *kit.Alloc) error {
	switch {
	case content.IsString():
		if len(content.Raw()) == 2 {
			return nil
		}
		x := al.Text()
		*x = replay.Text{Text: al.Value(content)}
		return b.Add(t, x, len(x.Text))
	case content.IsArray():
		var err error
		content.ForEach(func(i int, _ string, ch jsonw.Val) bool {
			var blk replay.Block
			var size int
			blk, size, err = chunk(ch, ptr, i, al)
			if err == nil && blk != nil {
				err = b.Add(t, blk, size)
			}
			return err == nil
		})
		return err
	case content.Exists() && !content.IsNull():
		return codecs.Malformed(API, -1, ptr+"/content", "expected a string, an array or null")
	}
	return nil
}

// providerError returns the error an error body or event reports, or nil.
func providerError(root gjson.Result) *replay.ProviderError {
	e := root
	if x := root.Get("error"); x.IsObject() {
		e = x
	} else if root.Get("object").String() != "error" {
		return nil
	}
	pe := &replay.ProviderError{API: API, Message: kit.Clone(e.Get("message").String()), Type: kit.Clone(e.Get("type").String())}
	if code := e.Get("code"); code.Exists() && code.Type != gjson.Null {
		pe.Code = kit.Clone(code.String())
		if code.Type == gjson.Number {
			pe.Status = int(code.Int())
		}
	}
	return pe
}

// chunk reads one content chunk, content[i] of the message at msgPtr:
// thinking, text, or another type kept verbatim, and the bytes it keeps.
// An empty text chunk gives nil.
func chunk(ch jsonw.Val, msgPtr string, i int, al *kit.Alloc) (replay.Block, int, error) {
	ptr := func() string { return msgPtr + "/content/" + strconv.Itoa(i) }
	if ch.IsString() { // a bare string in a content array
		if len(ch.Raw()) == 2 {
			return nil, 0, nil
		}
		x := al.Text()
		*x = replay.Text{Text: al.Value(ch)}
		return x, len(x.Text), nil
	}
	if !ch.IsObject() {
		return nil, 0, codecs.Malformed(API, -1, ptr(), "expected a content chunk object")
	}
	switch typ := ch.Get("type"); {
	case typ.Is("text"):
		v := ch.Get("text")
		if !v.IsString() {
			return nil, 0, codecs.Malformed(API, -1, ptr()+"/text", "expected a string")
		}
		if len(v.Raw()) == 2 {
			return nil, 0, nil
		}
		x := al.Text()
		*x = replay.Text{Text: al.Value(v)}
		return x, len(x.Text), nil
	case typ.Is("thinking"):
		text, ok, err := thinkingText(ch, ptr, al)
		if err != nil {
			return nil, 0, err
		}
		if !ok {
			// Thinking with parts other than text: kept verbatim as a
			// native block, as the stream decoder keeps it (a reasoning
			// item's type must be reasoning.<kind>; "thinking" is not).
			n := al.Native()
			*n = replay.Native{Kind: "thinking", Raw: al.CloneBytes(ch.Raw())}
			return n, len(ch.Raw()) + len("thinking"), nil
		}
		it := al.ReasoningText()
		*it = replay.ReasoningText{Text: text}
		it.Format = formats.Mistral
		it.Extra = al.Extra(ch, "type", "thinking")
		return it, len(text) + len(it.Extra), nil
	}
	kind := al.String(ch.Get("type"))
	if kind == "" {
		kind = "chunk"
	}
	n := al.Native()
	*n = replay.Native{Kind: kind, Raw: al.CloneBytes(ch.Raw())}
	return n, len(ch.Raw()) + len(kind), nil
}

// thinkingText joins the inner text parts of a thinking chunk (ptr its
// pointer). ok is false when the chunk holds something other than text
// parts.
func thinkingText(ch jsonw.Val, ptr func() string, al *kit.Alloc) (string, bool, error) {
	th := ch.Get("thinking")
	if th.IsString() { // tolerated: a plain string
		return al.Value(th), true, nil
	}
	if !th.IsArray() {
		return "", false, codecs.Malformed(API, -1, ptr()+"/thinking", "expected an array of parts")
	}
	ok := true
	th.ForEach(func(_ int, _ string, p jsonw.Val) bool {
		ok = p.Get("type").Is("text") && p.Get("text").IsString()
		return ok
	})
	if !ok {
		return "", false, nil
	}
	start := al.Join(len(th.Raw()))
	th.ForEach(func(_ int, _ string, p jsonw.Val) bool {
		al.Append(p.Get("text"))
		return true
	})
	return al.Joined(start), true, nil
}

// toolCall reads tool_calls[k] of the message at msgPtr.
func toolCall(tc jsonw.Val, msgPtr string, k int, al *kit.Alloc) (*replay.ToolCall, error) {
	ptr := func() string { return msgPtr + "/tool_calls/" + strconv.Itoa(k) } // for an error
	if !tc.IsObject() {
		return nil, codecs.Malformed(API, -1, ptr(), "expected a tool call object")
	}
	id, fn := tc.Get("id"), tc.Get("function")
	name := fn.Get("name")
	loc := chatstream.Loc{Base: msgPtr, List: "tool_calls", K: k}
	if err := chatstream.ExactAt(API, id.Raw(), loc.With("id"), "a tool call id"); err != nil {
		return nil, err
	}
	if err := chatstream.ExactAt(API, name.Raw(), loc.With("function/name"), "a tool call name"); err != nil {
		return nil, err
	}
	if !name.IsString() {
		return nil, codecs.Malformed(API, -1, ptr()+"/function/name", "expected a string")
	}
	args := fn.Get("arguments")
	var a string
	switch {
	case args.IsString():
		a = al.Value(args)
	case args.IsObject():
		a = al.Clone(args.Raw())
	case !args.Exists():
	default:
		return nil, codecs.Malformed(API, -1, ptr()+"/function/arguments", "expected a string or an object")
	}
	call := al.ToolCall()
	*call = replay.ToolCall{ID: al.String(id), Name: al.Value(name), Arguments: a}
	return call, nil
}

// raw copies a JSON text out of the input.
func raw(s string) json.RawMessage { return json.RawMessage(append([]byte(nil), s...)) }
