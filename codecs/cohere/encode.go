package cohere

import (
	"strconv"

	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/contentpatch"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
)

// Encode writes t as a v2 chat assistant message:
// `{"role":"assistant","content":[...],"tool_plan":"...","tool_calls":[...],"citations":[...]}`.
// Thinking blocks and text blocks keep their order in content; the tool
// plan, tool calls and citations go in their own members. Signatures,
// encrypted items and summaries have no Cohere field and are left out, as
// are unfinished items and calls.
func (c Codec) Encode(t *replay.Turn) ([]byte, error) {
	if t == nil {
		return nil, kit.NoTurn(API, "encode")
	}
	dst := append([]byte(nil), `{"role":"assistant","content":[`...)
	for i, b := range t.Blocks {
		var err error
		if dst, err = appendContent(dst, b, i); err != nil {
			return nil, err
		}
	}
	dst = append(dst, ']')
	var calls, cites []byte
	for i, b := range t.Blocks {
		switch b := b.(type) {
		case *replay.Native:
			if b.Unfinished || !jsonw.ValidBytes(b.Raw) {
				if !b.Unfinished {
					return nil, codecs.Malformed(API, -1, "/blocks/"+strconv.Itoa(i), "native block is not valid JSON")
				}
				continue
			}
			switch b.Kind {
			case "tool_plan":
				dst = append(dst, `,"tool_plan":`...)
				dst = append(dst, b.Raw...)
			case "citation":
				cites = append(jsonw.Comma(cites), b.Raw...)
			case "citations":
				if v := gjson.ParseBytes(b.Raw); v.IsArray() {
					v.ForEach(func(_, x gjson.Result) bool {
						cites = append(jsonw.Comma(cites), x.Raw...)
						return true
					})
				}
			}
		case *replay.ToolCall:
			if b.Unfinished {
				continue
			}
			calls = jsonw.Comma(calls)
			calls = append(calls, `{"id":`...)
			calls = jsonw.String(calls, b.ID)
			calls = append(calls, `,"type":"function","function":{"name":`...)
			calls = jsonw.String(calls, b.Name)
			calls = append(calls, `,"arguments":`...)
			calls = jsonw.String(calls, b.Arguments)
			calls = append(calls, "}}"...)
		}
	}
	if len(calls) > 0 {
		dst = append(dst, `,"tool_calls":[`...)
		dst = append(append(dst, calls...), ']')
	}
	if len(cites) > 0 {
		dst = append(dst, `,"citations":[`...)
		dst = append(append(dst, cites...), ']')
	}
	return append(dst, '}'), nil
}

// appendContent appends the content block for b, or nothing.
func appendContent(dst []byte, b replay.Block, i int) ([]byte, error) {
	switch b := b.(type) {
	case *replay.ReasoningText:
		if !b.Replayable() {
			return dst, nil
		}
		dst = jsonw.Comma(dst)
		dst = append(dst, `{"type":"thinking","thinking":`...)
		dst = jsonw.String(dst, b.Text)
		dst = jsonw.Members(dst, b.Extra)
		dst = append(dst, '}')
	case *replay.Text:
		if b.Text == "" {
			return dst, nil
		}
		dst = jsonw.Comma(dst)
		dst = append(dst, `{"type":"text","text":`...)
		dst = jsonw.String(dst, b.Text)
		dst = append(dst, '}')
	case *replay.Native:
		switch b.Kind {
		case "tool_plan", "citation", "citations", "content-start":
			return dst, nil
		}
		if b.Unfinished {
			return dst, nil
		}
		if !jsonw.ValidBytes(b.Raw) {
			return nil, codecs.Malformed(API, -1, "/blocks/"+strconv.Itoa(i), "native block is not valid JSON")
		}
		dst = append(jsonw.Comma(dst), b.Raw...)
	}
	return dst, nil
}

// Patch adds t's thinking blocks to msg, an assistant message the caller
// built, and changes nothing else. A string content becomes one text block
// holding the same string. Thinking blocks already in msg are replaced.
// Each item goes before the text block that followed it in t (matched by
// rank among the text blocks); an item followed by no text goes at the end
// of the content array.
func (c Codec) Patch(msg []byte, t *replay.Turn) ([]byte, error) {
	if t == nil {
		return nil, kit.NoTurn(API, "patch")
	}
	return patchSpec.Patch(msg, t)
}

var patchSpec = contentpatch.Spec{
	API:       API,
	Reasoning: "thinking",
	Append: func(dst []byte, b replay.Block, i int) ([]byte, error) {
		if _, ok := b.(*replay.ReasoningText); !ok {
			return dst, nil
		}
		return appendContent(dst, b, i)
	},
}
