package bedrock

import (
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
)

// Encode writes t as a Converse assistant message,
// `{"role":"assistant","content":[...]}`, blocks in order: reasoningText
// (text, then signature when it came with one, then unknown members),
// redactedContent, text, toolUse and verbatim blocks. Items that are not
// [replay.Replayable], summaries (Converse has no summary block), empty
// text and unfinished tool calls are left out.
func (c Codec) Encode(t *replay.Turn) ([]byte, error) {
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
		if !replay.Replayable(b) {
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
			if !gjson.Valid(string(it.Raw)) {
				return nil, replay.Malformed(API, -1, "/blocks/"+strconv.Itoa(i), "opaque item is not valid JSON")
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
		if v := gjson.Parse(args); !gjson.Valid(args) || !v.IsObject() {
			return nil, replay.Malformed(API, -1, "/blocks/"+strconv.Itoa(i)+"/arguments", "toolUse input must be a JSON object")
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
		if !gjson.Valid(string(b.Raw)) {
			return nil, replay.Malformed(API, -1, "/blocks/"+strconv.Itoa(i), "native block is not valid JSON")
		}
		dst = jsonw.Comma(dst)
		dst = append(dst, b.Raw...)
	}
	return dst, nil
}

// Patch adds t's reasoning blocks to msg, an assistant message the caller
// built (`{"role":"assistant","content":[...]}`), and changes nothing else.
// Reasoning blocks already in msg are replaced. Each item is placed before
// the block that followed it in t: a toolUse is found by its toolUseId, a
// text block by its rank among the text blocks; an item followed by
// nothing is appended. Items that are not replayable are left out.
func (c Codec) Patch(msg []byte, t *replay.Turn) ([]byte, error) {
	if !gjson.ValidBytes(msg) {
		return nil, replay.Malformed(API, -1, "", "expected a JSON message")
	}
	m := gjson.ParseBytes(msg)
	content := m.Get("content")
	if !m.IsObject() || !content.IsArray() {
		return nil, replay.Malformed(API, -1, "/content", "expected a message object with a content array")
	}
	// The caller's blocks, without reasoning.
	type elem struct {
		raw    string
		toolID string
		text   bool
	}
	var elems []elem
	content.ForEach(func(_, v gjson.Result) bool {
		if v.Get("reasoningContent").Exists() {
			return true
		}
		e := elem{raw: v.Raw}
		if id := v.Get("toolUse.toolUseId"); id.Type == gjson.String {
			e.toolID = id.Str
		} else if v.Get("text").Exists() {
			e.text = true
		}
		elems = append(elems, e)
		return true
	})
	// For each of the caller's blocks, the items to put before it; after
	// holds the items that go last.
	before := make([][]byte, len(elems)+1)
	var pending []byte
	textRank := 0
	for i, b := range t.Blocks {
		switch b := b.(type) {
		case replay.ReasoningItem:
			var err error
			if pending, err = appendBlock(pending, b, i); err != nil {
				return nil, err
			}
			continue
		case *replay.ToolCall:
			if len(pending) == 0 {
				continue
			}
			at := -1
			for j, e := range elems {
				if e.toolID != "" && e.toolID == b.ID {
					at = j
					break
				}
			}
			if at >= 0 {
				before[at] = jsonw.Comma(before[at])
				before[at] = append(before[at], pending...)
				pending = pending[:0:0]
			}
		case *replay.Text:
			if b.Text == "" {
				continue
			}
			rank := textRank
			textRank++
			if len(pending) == 0 {
				continue
			}
			k := 0
			for j, e := range elems {
				if e.text {
					if k == rank {
						before[j] = jsonw.Comma(before[j])
						before[j] = append(before[j], pending...)
						pending = pending[:0:0]
						break
					}
					k++
				}
			}
		}
	}
	if len(pending) > 0 {
		n := len(elems)
		before[n] = jsonw.Comma(before[n])
		before[n] = append(before[n], pending...)
	}
	arr := []byte{'['}
	for j := 0; j <= len(elems); j++ {
		if len(before[j]) > 0 {
			arr = jsonw.Comma(arr)
			arr = append(arr, before[j]...)
		}
		if j < len(elems) {
			arr = jsonw.Comma(arr)
			arr = append(arr, elems[j].raw...)
		}
	}
	arr = append(arr, ']')
	end := content.Index + len(content.Raw)
	if content.Index <= 0 || end > len(msg) || string(msg[content.Index:end]) != content.Raw {
		return nil, replay.Malformed(API, -1, "/content", "cannot locate the content array")
	}
	out := make([]byte, 0, len(msg)+len(arr))
	out = append(out, msg[:content.Index]...)
	out = append(out, arr...)
	out = append(out, msg[content.Index+len(content.Raw):]...)
	return out, nil
}
