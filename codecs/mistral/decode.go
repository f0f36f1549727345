package mistral

import (
	"encoding/json"
	"strconv"
	"strings"

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
	if err := kit.CheckBody(API, body, "a JSON chat completion body"); err != nil {
		return nil, err
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
	t, err := c.readMessage(msg, "/choices/0/message", &b)
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
// request) at ptr into a complete turn, within the budget: its content
// chunks and tool calls.
func (c Codec) readMessage(msg gjson.Result, ptr string, b *kit.Budget) (*replay.Turn, error) {
	t := &replay.Turn{Complete: true, Provenance: replay.Provenance{API: API, Provider: c.provider()}}
	add := func(blk replay.Block, size int) error {
		pos := len(t.Blocks)
		if err := b.Block(pos); err != nil {
			return err
		}
		if err := b.Item(pos, size, size); err != nil {
			return err
		}
		t.Blocks = append(t.Blocks, blk)
		return nil
	}
	if err := readContent(msg.Get("content"), ptr+"/content", add); err != nil {
		return nil, err
	}
	switch tcs := msg.Get("tool_calls"); {
	case tcs.IsArray():
		var err error
		i := 0
		tcs.ForEach(func(_, tc gjson.Result) bool {
			var call *replay.ToolCall
			call, err = toolCall(tc, ptr+"/tool_calls/"+strconv.Itoa(i))
			if err == nil {
				err = add(call, len(call.ID)+len(call.Name)+len(call.Arguments))
			}
			i++
			return err == nil
		})
		if err != nil {
			return nil, err
		}
	case tcs.Exists() && tcs.Type != gjson.Null:
		return nil, codecs.Malformed(API, -1, ptr+"/tool_calls", "expected an array or null")
	}
	return t, nil
}

// readContent adds the blocks of a message's content: a string, or an
// array of chunks.
func readContent(content gjson.Result, ptr string, add func(replay.Block, int) error) error {
	switch {
	case content.Type == gjson.String:
		if content.Str == "" {
			return nil
		}
		return add(&replay.Text{Text: kit.Clone(content.Str)}, len(content.Str))
	case content.IsArray():
		var err error
		i := 0
		content.ForEach(func(_, ch gjson.Result) bool {
			var blk replay.Block
			var size int
			blk, size, err = chunk(ch, ptr+"/"+strconv.Itoa(i))
			if err == nil && blk != nil {
				err = add(blk, size)
			}
			i++
			return err == nil
		})
		return err
	case content.Exists() && content.Type != gjson.Null:
		return codecs.Malformed(API, -1, ptr, "expected a string, an array or null")
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

// chunk reads one content chunk: thinking, text, or another type kept
// verbatim, and the bytes it keeps. An empty text chunk gives nil.
func chunk(ch gjson.Result, ptr string) (replay.Block, int, error) {
	if ch.Type == gjson.String { // a bare string in a content array
		if ch.Str == "" {
			return nil, 0, nil
		}
		return &replay.Text{Text: kit.Clone(ch.Str)}, len(ch.Str), nil
	}
	if !ch.IsObject() {
		return nil, 0, codecs.Malformed(API, -1, ptr, "expected a content chunk object")
	}
	switch ch.Get("type").String() {
	case "text":
		x := ch.Get("text")
		if x.Type != gjson.String {
			return nil, 0, codecs.Malformed(API, -1, ptr+"/text", "expected a string")
		}
		if x.Str == "" {
			return nil, 0, nil
		}
		return &replay.Text{Text: kit.Clone(x.Str)}, len(x.Str), nil
	case "thinking":
		text, ok, err := thinkingText(ch, ptr)
		if err != nil {
			return nil, 0, err
		}
		if !ok {
			// Thinking with parts other than text: kept verbatim as a
			// native block, as the stream decoder keeps it (a reasoning
			// item's type must be reasoning.<kind>; "thinking" is not).
			return &replay.Native{Kind: "thinking", Raw: raw(ch.Raw)}, len(ch.Raw) + len("thinking"), nil
		}
		it := &replay.ReasoningText{Text: text}
		it.Format = formats.Mistral
		it.Extra = extra(ch, "type", "thinking")
		return it, len(text) + len(it.Extra), nil
	}
	kind := ch.Get("type").String()
	if kind == "" {
		kind = "chunk"
	}
	return &replay.Native{Kind: kit.Clone(kind), Raw: raw(ch.Raw)}, len(ch.Raw) + len(kind), nil
}

// thinkingText joins the inner text parts of a thinking chunk. ok is false
// when the chunk holds something other than text parts.
func thinkingText(ch gjson.Result, ptr string) (string, bool, error) {
	th := ch.Get("thinking")
	if th.Type == gjson.String { // tolerated: a plain string
		return kit.Clone(th.Str), true, nil
	}
	if !th.IsArray() {
		return "", false, codecs.Malformed(API, -1, ptr+"/thinking", "expected an array of parts")
	}
	var b strings.Builder
	ok := true
	th.ForEach(func(_, p gjson.Result) bool {
		x := p.Get("text")
		if p.Get("type").String() != "text" || x.Type != gjson.String {
			ok = false
			return false
		}
		b.WriteString(x.Str)
		return true
	})
	return b.String(), ok, nil
}

func toolCall(tc gjson.Result, ptr string) (*replay.ToolCall, error) {
	if !tc.IsObject() {
		return nil, codecs.Malformed(API, -1, ptr, "expected a tool call object")
	}
	if err := chatstream.ExactRaw(API, tc.Get("id").Raw, ptr+"/id", "a tool call id"); err != nil {
		return nil, err
	}
	if err := chatstream.ExactRaw(API, tc.Get("function.name").Raw, ptr+"/function/name", "a tool call name"); err != nil {
		return nil, err
	}
	fn := tc.Get("function")
	name := fn.Get("name")
	if name.Type != gjson.String {
		return nil, codecs.Malformed(API, -1, ptr+"/function/name", "expected a string")
	}
	args := fn.Get("arguments")
	var a string
	switch {
	case args.Type == gjson.String:
		a = kit.Clone(args.Str)
	case args.IsObject():
		a = kit.Clone(args.Raw)
	case !args.Exists():
	default:
		return nil, codecs.Malformed(API, -1, ptr+"/function/arguments", "expected a string or an object")
	}
	return &replay.ToolCall{ID: kit.Clone(tc.Get("id").String()), Name: kit.Clone(name.Str), Arguments: a}, nil
}

// extra returns the members of obj not in known, as one JSON object in
// source order (a repeated name kept once), or nil.
func extra(obj gjson.Result, known ...string) json.RawMessage {
	return jsonw.ExtraMembers(obj.Raw, known...)
}

// raw copies a JSON text out of the input.
func raw(s string) json.RawMessage { return json.RawMessage(append([]byte(nil), s...)) }
