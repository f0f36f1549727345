package cohere

import (
	"encoding/json"
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
)

// Decode reads a whole v2 chat response. An error body (`{"message":"..."}`
// with a string message) returns a *replay.ProviderError.
func (c Codec) Decode(body []byte) (*replay.Turn, error) {
	if !jsonw.ValidBytes(body) {
		return nil, replay.Malformed(API, -1, "", "expected a JSON chat response")
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, replay.Malformed(API, -1, "", "expected a JSON object")
	}
	msg := root.Get("message")
	if msg.Type == gjson.String {
		return nil, &replay.ProviderError{API: API, Message: clone(msg.Str)}
	}
	if !msg.IsObject() {
		return nil, replay.Malformed(API, -1, "/message", "expected an object")
	}
	lim := c.Limits.WithDefaults()
	t := &replay.Turn{Complete: true, Provenance: c.provenance()}
	add := func(b replay.Block) error {
		if len(t.Blocks) >= lim.MaxBlocks {
			return &replay.LimitError{What: "block count", Limit: lim.MaxBlocks, Event: -1, Block: -1}
		}
		t.Blocks = append(t.Blocks, b)
		return nil
	}
	var err error
	switch content := msg.Get("content"); {
	case content.IsArray():
		i := 0
		content.ForEach(func(_, b gjson.Result) bool {
			var blk replay.Block
			blk, err = block(b, "/message/content/"+strconv.Itoa(i), lim)
			if err == nil && blk != nil {
				err = add(blk)
			}
			i++
			return err == nil
		})
	case content.Type == gjson.String:
		if content.Str != "" {
			err = add(&replay.Text{Text: clone(content.Str)})
		}
	case content.Exists() && content.Type != gjson.Null:
		err = replay.Malformed(API, -1, "/message/content", "expected an array")
	}
	if err != nil {
		return nil, err
	}
	if tp := msg.Get("tool_plan"); tp.Type == gjson.String && tp.Str != "" {
		if err := add(&replay.Native{Kind: "tool_plan", Raw: raw(tp.Raw)}); err != nil {
			return nil, err
		}
	}
	if tcs := msg.Get("tool_calls"); tcs.IsArray() {
		i := 0
		tcs.ForEach(func(_, tc gjson.Result) bool {
			ptr := "/message/tool_calls/" + strconv.Itoa(i)
			i++
			name := tc.Get("function.name")
			if !tc.IsObject() || name.Type != gjson.String {
				err = replay.Malformed(API, -1, ptr, "expected a tool call with a function name")
				return false
			}
			args := tc.Get("function.arguments")
			a := ""
			switch {
			case args.Type == gjson.String:
				a = args.Str
			case args.IsObject():
				a = args.Raw
			}
			if len(a) > lim.MaxItem {
				err = &replay.LimitError{What: "item size", Limit: lim.MaxItem, Event: -1, Block: -1}
				return false
			}
			err = add(&replay.ToolCall{ID: clone(tc.Get("id").String()), Name: clone(name.Str), Arguments: clone(a)})
			return err == nil
		})
		if err != nil {
			return nil, err
		}
	}
	if cs := msg.Get("citations"); cs.IsArray() && len(cs.Array()) > 0 {
		if err := add(&replay.Native{Kind: "citations", Raw: raw(cs.Raw)}); err != nil {
			return nil, err
		}
	}
	if fr := root.Get("finish_reason"); fr.Type == gjson.String {
		t.FinishReason = clone(fr.Str)
	}
	if u := root.Get("usage"); u.IsObject() {
		t.Usage = raw(u.Raw)
	}
	return t, nil
}

func block(b gjson.Result, ptr string, lim replay.Limits) (replay.Block, error) {
	if !b.IsObject() {
		return nil, replay.Malformed(API, -1, ptr, "expected a content block object")
	}
	switch b.Get("type").String() {
	case "thinking":
		x := b.Get("thinking")
		if x.Type != gjson.String {
			return nil, replay.Malformed(API, -1, ptr+"/thinking", "expected a string")
		}
		if len(x.Str) > lim.MaxItem {
			return nil, &replay.LimitError{What: "item size", Limit: lim.MaxItem, Event: -1, Block: -1}
		}
		it := &replay.ReasoningText{Text: clone(x.Str)}
		it.Format = formats.Cohere
		it.Extra = extra(b, "type", "thinking")
		return it, nil
	case "text":
		x := b.Get("text")
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
	}
	kind := b.Get("type").String()
	if kind == "" {
		kind = "content"
	}
	return &replay.Native{Kind: clone(kind), Raw: raw(b.Raw)}, nil
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

// quoted returns s as a JSON string literal.
func quoted(s string) json.RawMessage { return jsonw.String(nil, s) }
