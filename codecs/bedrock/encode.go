package bedrock

import (
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
)

// Encode writes t as a Converse assistant message,
// `{"role":"assistant","content":[...]}`, blocks in order: reasoningText
// (text, then signature when it came with one, then unknown members),
// redactedContent, text, toolUse and verbatim blocks. Items that are not
// [replay.ReasoningItem].Replayable, summaries (Converse has no summary block), empty
// text and unfinished tool calls are left out.
func (c Codec) Encode(t *replay.Turn) ([]byte, error) {
	if t == nil {
		return nil, kit.NoTurn(API, "encode")
	}
	dst := append([]byte(nil), `{"role":"assistant","content":[`...)
	for i, b := range t.Blocks {
		var err error
		if dst, err = appendBlock(dst, b, i); err != nil {
			return nil, err
		}
	}
	return append(dst, "]}"...), nil
}

// appendBlock appends the content block for b (preceded by a comma when
// needed), or nothing when b is not sent.
func appendBlock(dst []byte, b replay.Block, i int) ([]byte, error) {
	switch b := b.(type) {
	case replay.ReasoningItem:
		if !b.Replayable() {
			return dst, nil
		}
		switch it := b.(type) {
		case *replay.ReasoningText:
			dst = jsonw.Comma(dst)
			dst = append(dst, `{"reasoningContent":{"reasoningText":{"text":`...)
			dst = jsonw.String(dst, it.Text)
			if sig, ok := it.Signature.Get(); ok {
				dst = jsonw.Key(dst, "signature")
				dst = jsonw.String(dst, sig)
			}
			dst = jsonw.Members(dst, it.Extra)
			dst = append(dst, "}}}"...)
		case *replay.Encrypted:
			dst = jsonw.Comma(dst)
			dst = append(dst, `{"reasoningContent":{"redactedContent":`...)
			dst = jsonw.String(dst, it.Data)
			dst = append(dst, "}}"...)
		case *replay.Opaque:
			if !jsonw.Valid(string(it.Raw)) {
				return nil, codecs.Malformed(API, -1, "/blocks/"+strconv.Itoa(i), "opaque item is not valid JSON")
			}
			dst = jsonw.Comma(dst)
			dst = append(dst, it.Raw...)
		}
	case *replay.Text:
		if b.Text == "" {
			return dst, nil
		}
		dst = jsonw.Comma(dst)
		dst = append(dst, `{"text":`...)
		dst = jsonw.String(dst, b.Text)
		dst = append(dst, '}')
	case *replay.ToolCall:
		if b.Unfinished {
			return dst, nil
		}
		args := b.Arguments
		if args == "" {
			args = "{}"
		}
		if v := gjson.Parse(args); !jsonw.Valid(args) || !v.IsObject() {
			return nil, codecs.Malformed(API, -1, "/blocks/"+strconv.Itoa(i)+"/arguments", "toolUse input must be a JSON object")
		}
		dst = jsonw.Comma(dst)
		dst = append(dst, `{"toolUse":{"toolUseId":`...)
		dst = jsonw.String(dst, b.ID)
		dst = jsonw.Key(dst, "name")
		dst = jsonw.String(dst, b.Name)
		dst = jsonw.Key(dst, "input")
		dst = append(dst, args...)
		dst = jsonw.Members(dst, b.Extra)
		dst = append(dst, "}}"...)
	case *replay.Native:
		if b.Unfinished || b.Kind == "contentBlockStart" || b.Kind == "contentBlockDelta" {
			// Stream fragments are not request content blocks.
			return dst, nil
		}
		if !jsonw.Valid(string(b.Raw)) {
			return nil, codecs.Malformed(API, -1, "/blocks/"+strconv.Itoa(i), "native block is not valid JSON")
		}
		dst = jsonw.Comma(dst)
		dst = append(dst, b.Raw...)
	}
	return dst, nil
}
