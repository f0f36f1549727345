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

// Patch adds t's reasoning blocks to msg, an assistant message the caller
// built (`{"role":"assistant","content":[...]}`), and changes nothing else.
// Reasoning blocks already in msg are replaced. Each item is placed before
// the block that followed it in t: a toolUse is found by its toolUseId, a
// text block by its rank among the text blocks; an item followed by
// nothing is appended. Items that are not replayable are left out.
func (c Codec) Patch(msg []byte, t *replay.Turn) ([]byte, error) {
	if t == nil {
		return nil, kit.NoTurn(API, "patch")
	}
	if !jsonw.ValidBytes(msg) {
		return nil, codecs.Malformed(API, -1, "", "expected a JSON message")
	}
	m := gjson.ParseBytes(msg)
	content := m.Get("content")
	if !m.IsObject() || !content.IsArray() {
		return nil, codecs.Malformed(API, -1, "/content", "expected a message object with a content array")
	}
	elems := patchElems(content)
	before, err := placeItems(elems, t)
	if err != nil {
		return nil, err
	}
	arr := joinContent(elems, before)
	end := content.Index + len(content.Raw)
	if content.Index <= 0 || end > len(msg) || string(msg[content.Index:end]) != content.Raw {
		return nil, codecs.Malformed(API, -1, "/content", "cannot locate the content array")
	}
	out := make([]byte, 0, len(msg)+len(arr))
	out = append(out, msg[:content.Index]...)
	out = append(out, arr...)
	out = append(out, msg[content.Index+len(content.Raw):]...)
	return out, nil
}

// patchElem is one of the caller's content blocks: its JSON, and what
// anchors reasoning to it (a toolUse id, or being text).
type patchElem struct {
	raw    string
	toolID string
	text   bool
}

// patchElems returns the caller's content blocks, without reasoning.
func patchElems(content gjson.Result) []patchElem {
	var elems []patchElem
	content.ForEach(func(_, v gjson.Result) bool {
		if v.Get("reasoningContent").Exists() {
			return true
		}
		e := patchElem{raw: v.Raw}
		if id := v.Get("toolUse.toolUseId"); id.Type == gjson.String {
			e.toolID = id.Str
		} else if v.Get("text").Exists() {
			e.text = true
		}
		elems = append(elems, e)
		return true
	})
	return elems
}

// placeItems returns, for each of the caller's blocks, the turn's
// reasoning blocks to put before it: those that preceded the matching tool
// call (by id) or text block (by rank) in the turn. The last entry holds
// the items that go last.
func placeItems(elems []patchElem, t *replay.Turn) ([][]byte, error) {
	before := make([][]byte, len(elems)+1)
	var pending []byte
	put := func(at int) {
		before[at] = jsonw.Comma(before[at])
		before[at] = append(before[at], pending...)
		pending = pending[:0:0]
	}
	textRank := 0
	for i, b := range t.Blocks {
		switch b := b.(type) {
		case replay.ReasoningItem:
			var err error
			if pending, err = appendBlock(pending, b, i); err != nil {
				return nil, err
			}
		case *replay.ToolCall:
			if at := toolElem(elems, b.ID); len(pending) > 0 && at >= 0 {
				put(at)
			}
		case *replay.Text:
			if b.Text == "" {
				continue
			}
			if at := textElem(elems, textRank); len(pending) > 0 && at >= 0 {
				put(at)
			}
			textRank++
		}
	}
	if len(pending) > 0 {
		put(len(elems))
	}
	return before, nil
}

// toolElem returns the position of the caller's toolUse block with id, or
// -1.
func toolElem(elems []patchElem, id string) int {
	for j, e := range elems {
		if e.toolID != "" && e.toolID == id {
			return j
		}
	}
	return -1
}

// textElem returns the position of the caller's rank-th text block, or -1.
func textElem(elems []patchElem, rank int) int {
	k := 0
	for j, e := range elems {
		if e.text {
			if k == rank {
				return j
			}
			k++
		}
	}
	return -1
}

// joinContent writes the patched content array.
func joinContent(elems []patchElem, before [][]byte) []byte {
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
	return append(arr, ']')
}
