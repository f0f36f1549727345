package mistral

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/jsonw"

	"github.com/reasonreplay/replay"
	"github.com/tidwall/gjson"
)

// Decode reads a whole chat completion body (the first choice). An error
// body returns a *replay.ProviderError.
func (c Codec) Decode(body []byte) (*replay.Turn, error) {
	if !jsonw.ValidBytes(body) {
		return nil, replay.Malformed(API, -1, "", "expected a JSON chat completion")
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, replay.Malformed(API, -1, "", "expected a JSON object")
	}
	if pe := providerError(root); pe != nil {
		return nil, pe
	}
	choice := root.Get("choices.0")
	if !choice.IsObject() {
		return nil, replay.Malformed(API, -1, "/choices/0", "expected a choice object")
	}
	msg := choice.Get("message")
	if !msg.IsObject() {
		return nil, replay.Malformed(API, -1, "/choices/0/message", "expected an object")
	}
	lim := c.Limits.WithDefaults()
	t := &replay.Turn{Complete: true, Provenance: replay.Provenance{API: API, Provider: c.provider(), Model: clone(root.Get("model").String())}}
	add := func(b replay.Block) error {
		if len(t.Blocks) >= lim.MaxBlocks {
			return &replay.LimitError{What: "block count", Limit: lim.MaxBlocks, Event: -1, Block: -1}
		}
		t.Blocks = append(t.Blocks, b)
		return nil
	}
	const cptr = "/choices/0/message/content"
	switch content := msg.Get("content"); {
	case content.Type == gjson.String:
		if len(content.Str) > lim.MaxItem {
			return nil, &replay.LimitError{What: "item size", Limit: lim.MaxItem, Event: -1, Block: -1}
		}
		if content.Str != "" {
			if err := add(&replay.Text{Text: clone(content.Str)}); err != nil {
				return nil, err
			}
		}
	case content.IsArray():
		var err error
		i := 0
		content.ForEach(func(_, ch gjson.Result) bool {
			var b replay.Block
			b, err = chunk(ch, cptr+"/"+strconv.Itoa(i), lim)
			if err == nil && b != nil {
				err = add(b)
			}
			i++
			return err == nil
		})
		if err != nil {
			return nil, err
		}
	case content.Exists() && content.Type != gjson.Null:
		return nil, replay.Malformed(API, -1, cptr, "expected a string, an array or null")
	}
	if tcs := msg.Get("tool_calls"); tcs.IsArray() {
		var err error
		i := 0
		tcs.ForEach(func(_, tc gjson.Result) bool {
			var call *replay.ToolCall
			call, err = toolCall(tc, "/choices/0/message/tool_calls/"+strconv.Itoa(i), lim)
			if err == nil {
				err = add(call)
			}
			i++
			return err == nil
		})
		if err != nil {
			return nil, err
		}
	} else if tcs.Exists() && tcs.Type != gjson.Null {
		return nil, replay.Malformed(API, -1, "/choices/0/message/tool_calls", "expected an array or null")
	}
	if fr := choice.Get("finish_reason"); fr.Type == gjson.String {
		t.FinishReason = clone(fr.Str)
	}
	if u := root.Get("usage"); u.IsObject() {
		t.Usage = raw(u.Raw)
	}
	return t, nil
}

// providerError returns the error an error body or event reports, or nil.
func providerError(root gjson.Result) *replay.ProviderError {
	e := root
	if x := root.Get("error"); x.IsObject() {
		e = x
	} else if root.Get("object").String() != "error" {
		return nil
	}
	pe := &replay.ProviderError{API: API, Message: clone(e.Get("message").String()), Type: clone(e.Get("type").String())}
	if code := e.Get("code"); code.Exists() && code.Type != gjson.Null {
		pe.Code = clone(code.String())
		if code.Type == gjson.Number {
			pe.Status = int(code.Int())
		}
	}
	return pe
}

// chunk reads one content chunk: thinking, text, or another type kept
// verbatim. An empty text chunk gives nil.
func chunk(ch gjson.Result, ptr string, lim replay.Limits) (replay.Block, error) {
	if ch.Type == gjson.String { // a bare string in a content array
		if ch.Str == "" {
			return nil, nil
		}
		return &replay.Text{Text: clone(ch.Str)}, nil
	}
	if !ch.IsObject() {
		return nil, replay.Malformed(API, -1, ptr, "expected a content chunk object")
	}
	switch ch.Get("type").String() {
	case "text":
		x := ch.Get("text")
		if x.Type != gjson.String {
			return nil, replay.Malformed(API, -1, ptr+"/text", "expected a string")
		}
		if len(x.Str) > lim.MaxItem {
			return nil, &replay.LimitError{What: "item size", Limit: lim.MaxItem, Event: -1, Block: -1}
		}
		if x.Str == "" {
			return nil, nil
		}
		return &replay.Text{Text: clone(x.Str)}, nil
	case "thinking":
		text, ok, err := thinkingText(ch, ptr, lim)
		if err != nil {
			return nil, err
		}
		if !ok {
			o := &replay.Opaque{Type: "thinking", Raw: raw(ch.Raw)}
			o.Format = formats.Mistral
			return o, nil
		}
		it := &replay.ReasoningText{Text: text}
		it.Format = formats.Mistral
		it.Extra = extra(ch, "type", "thinking")
		return it, nil
	}
	kind := ch.Get("type").String()
	if kind == "" {
		kind = "chunk"
	}
	return &replay.Native{Kind: clone(kind), Raw: raw(ch.Raw)}, nil
}

// thinkingText joins the inner text parts of a thinking chunk. ok is false
// when the chunk holds something other than text parts.
func thinkingText(ch gjson.Result, ptr string, lim replay.Limits) (string, bool, error) {
	th := ch.Get("thinking")
	if th.Type == gjson.String { // tolerated: a plain string
		return clone(th.Str), true, nil
	}
	if !th.IsArray() {
		return "", false, replay.Malformed(API, -1, ptr+"/thinking", "expected an array of parts")
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
	if b.Len() > lim.MaxItem {
		return "", false, &replay.LimitError{What: "item size", Limit: lim.MaxItem, Event: -1, Block: -1}
	}
	return b.String(), ok, nil
}

func toolCall(tc gjson.Result, ptr string, lim replay.Limits) (*replay.ToolCall, error) {
	if !tc.IsObject() {
		return nil, replay.Malformed(API, -1, ptr, "expected a tool call object")
	}
	fn := tc.Get("function")
	name := fn.Get("name")
	if name.Type != gjson.String {
		return nil, replay.Malformed(API, -1, ptr+"/function/name", "expected a string")
	}
	args := fn.Get("arguments")
	var a string
	switch {
	case args.Type == gjson.String:
		a = clone(args.Str)
	case args.IsObject():
		a = clone(args.Raw)
	case !args.Exists():
	default:
		return nil, replay.Malformed(API, -1, ptr+"/function/arguments", "expected a string or an object")
	}
	if len(a) > lim.MaxItem {
		return nil, &replay.LimitError{What: "item size", Limit: lim.MaxItem, Event: -1, Block: -1}
	}
	return &replay.ToolCall{ID: clone(tc.Get("id").String()), Name: clone(name.Str), Arguments: a}, nil
}

// extra returns the members of obj not in known, as one JSON object in
// source order (a repeated name kept once), or nil.
func extra(obj gjson.Result, known ...string) json.RawMessage {
	return jsonw.ExtraMembers(obj.Raw, known...)
}

func clone(s string) string {
	if s == "" {
		return ""
	}
	return string(append([]byte(nil), s...))
}

// raw copies a JSON text out of the input.
func raw(s string) json.RawMessage { return json.RawMessage(append([]byte(nil), s...)) }
