package bedrock

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/internal/view"
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
//
// The message is validated, then read once in place, and the result
// written into one buffer of its final size; the content array is
// written without white space between its elements.
func (c Codec) Patch(msg []byte, t *replay.Turn) ([]byte, error) {
	if t == nil {
		return nil, kit.NoTurn(API, "patch")
	}
	if !jsonw.ValidBytes(msg) {
		return nil, codecs.Malformed(API, -1, "", "expected a JSON message")
	}
	s := view.String(msg)
	at := jsonw.MemberValueAt(s, "content")
	if at < 0 || s[at] != '[' {
		return nil, codecs.Malformed(API, -1, "/content", "expected a message object with a content array")
	}
	content := s[at:jsonw.StepValue(s, at)] // msg is valid JSON
	// A usual turn's blocks fit in these without allocating.
	var elemBuf [16]patchElem
	var insBuf [8]patchInsert
	elems := readElems(content, at, elemBuf[:0])
	ins, size, err := placeItems(t, elems, insBuf[:0])
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(msg)+size)
	out = append(out, msg[:at]...)
	out = append(out, '[')
	k := 0
	for j := 0; j <= len(elems); j++ {
		for ; k < len(ins) && ins[k].at == j; k++ {
			out, _ = appendBlock(out, t.Blocks[ins[k].b], ins[k].b) // placeItems checked it
		}
		if j < len(elems) {
			out = jsonw.Comma(out)
			out = append(out, msg[elems[j].start:elems[j].end]...)
		}
	}
	out = append(out, ']')
	return append(out, msg[at+len(content):]...), nil
}

// A patchElem is one of the caller's content blocks: where its bytes lie,
// and what anchors reasoning to it (a toolUse id, or being text).
type patchElem struct {
	start, end int
	id         string // the raw toolUse.toolUseId when it is a string, else ""
	text       bool
}

// A patchInsert is a reasoning block of the turn (blocks[b]) to write
// before the caller's block at.
type patchInsert struct{ at, b int }

// contentKeys are the members of a content block Patch reads.
var contentKeys = [...]string{"reasoningContent", "toolUse", "text"}

// readElems appends the caller's content blocks, without reasoning, to
// elems, reading the content array (at offset at of the message) once.
func readElems(content string, at int, elems []patchElem) []patchElem {
	var vals [len(contentKeys)]string
	for pos := 0; ; {
		el, next, ok := jsonw.NextMembers(content, pos, contentKeys[:], vals[:])
		if !ok || el == "" {
			return elems
		}
		pos = next
		if vals[0] != "" {
			continue
		}
		off, _ := view.Offset(content, el)
		e := patchElem{start: at + off, end: at + off + len(el)}
		if a := jsonw.MemberValueAt(vals[1], "toolUseId"); a >= 0 && vals[1][a] == '"' {
			e.id = vals[1][a:jsonw.StepValue(vals[1], a)]
		} else {
			e.text = vals[2] != ""
		}
		elems = append(elems, e)
	}
}

// placeItems appends to ins where each reasoning block of t goes among the
// caller's blocks elems, in the order they are written, and returns it and
// the bytes they add, or more.
func placeItems(t *replay.Turn, elems []patchElem, ins []patchInsert) ([]patchInsert, int, error) {
	nTool := 0
	for _, e := range elems {
		if e.id != "" {
			nTool++
		}
	}
	var byID map[string]int // for many tool calls: each id's first block
	size, pending, text := len(elems), 0, -1
	for i, b := range t.Blocks {
		switch b := b.(type) {
		case replay.ReasoningItem:
			n, err := blockSize(b, i)
			if err != nil {
				return nil, 0, err
			}
			if n > 0 {
				ins = append(ins, patchInsert{b: i})
				size += n + 1
			}
		case *replay.ToolCall:
			if nTool > 16 && byID == nil {
				byID = toolIndex(elems)
			}
			if at := toolAt(elems, b.ID, byID); len(ins) > pending && at >= 0 {
				pending = place(ins, pending, at)
			}
		case *replay.Text:
			if b.Text == "" {
				continue
			}
			// The next text block, by rank.
			for text++; text < len(elems) && !elems[text].text; text++ {
			}
			if len(ins) > pending && text < len(elems) {
				pending = place(ins, pending, text)
			}
		}
	}
	place(ins, pending, len(elems))
	if !slices.IsSortedFunc(ins, byAt) {
		slices.SortStableFunc(ins, byAt)
	}
	return ins, size, nil
}

// place puts the pending items, ins[pending:], before the caller's block
// at, and returns where the next pending items start.
func place(ins []patchInsert, pending, at int) int {
	for k := pending; k < len(ins); k++ {
		ins[k].at = at
	}
	return len(ins)
}

func byAt(a, b patchInsert) int { return cmp.Compare(a.at, b.at) }

// blockSize bounds the bytes appendBlock writes for a reasoning item (0
// when it writes none), and returns its error.
func blockSize(it replay.ReasoningItem, i int) (int, error) {
	if !it.Replayable() {
		return 0, nil
	}
	switch it := it.(type) {
	case *replay.ReasoningText:
		return len(`{"reasoningContent":{"reasoningText":{"text":,"signature":,}}}`) + jsonw.QuotedLen(it.Text) +
			jsonw.QuotedLen(it.Signature.Value()) + len(it.Extra), nil
	case *replay.Encrypted:
		return len(`{"reasoningContent":{"redactedContent":}}`) + jsonw.QuotedLen(it.Data), nil
	case *replay.Opaque:
		if _, err := appendBlock(nil, it, i); err != nil {
			return 0, err
		}
		return len(it.Raw), nil
	}
	return 0, nil
}

// toolAt returns the position of the first toolUse block whose id is id
// (never an empty one), or -1.
func toolAt(elems []patchElem, id string, byID map[string]int) int {
	if id == "" {
		return -1
	}
	if byID != nil {
		if j, ok := byID[id]; ok {
			return j
		}
		return -1
	}
	for j := range elems {
		if e := &elems[j]; e.id != "" && jsonw.StrIs(e.id, id) {
			return j
		}
	}
	return -1
}

// toolIndex maps each toolUse id of the message to its first block.
func toolIndex(elems []patchElem) map[string]int {
	m := map[string]int{}
	for j, e := range elems {
		if e.id == "" {
			continue
		}
		id := string(jsonw.AppendStr(nil, e.id))
		if _, ok := m[id]; !ok {
			m[id] = j
		}
	}
	return m
}
