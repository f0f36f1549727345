package anthropic

import (
	"cmp"
	"slices"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/view"
	"github.com/tidwall/gjson"
)

// sendable reports whether Encode and Patch write the reasoning item of
// turn t: it is of the codec's format family ([Codec.Format]; an item of
// format unknown only from this API), and [replay.ReasoningItem].Replayable.
func (c Codec) sendable(t *replay.Turn, it replay.ReasoningItem) bool {
	own := c.Format()
	f := it.Meta().Format
	switch {
	case !it.Replayable():
		return false
	case own == replay.FormatUnknown || f == "" || f == replay.FormatUnknown:
		if own != replay.FormatUnknown || (f != "" && f != replay.FormatUnknown) || !sameAPI(t) {
			return false
		}
	case f.Family() != own.Family():
		return false
	}
	switch it.(type) {
	case *replay.ReasoningText, *replay.Encrypted:
		return true
	}
	return false
}

// sameAPI reports whether t came from this API, so that its native blocks
// and the extra members of its text and tool blocks may be written back.
func sameAPI(t *replay.Turn) bool {
	return t.Provenance.API == "" || strings.EqualFold(t.Provenance.API, API)
}

// sendableCompaction reports whether Encode writes a compaction block of
// turn t: finished, from this API, minted by the codec's issuer.
func (c Codec) sendableCompaction(t *replay.Turn, x *replay.Compaction) bool {
	f := x.Format
	if f == "" {
		f = replay.FormatUnknown
	}
	return !x.Unfinished && sameAPI(t) && f.Family() == c.Format().Family()
}

// appendCompaction writes a compaction block: its content and signature
// as captured (absent stays absent, null stays null), then its other
// members.
func appendCompaction(dst []byte, x *replay.Compaction) []byte {
	dst = append(dst, `{"type":"compaction"`...)
	for _, f := range [...]struct {
		k string
		v replay.Opt[string]
	}{{"content", x.Content}, {"signature", x.Signature}} {
		switch f.v.Presence() {
		case replay.Present:
			dst = jsonw.Key(dst, f.k)
			dst = jsonw.String(dst, f.v.Value())
		case replay.Null:
			dst = jsonw.Key(dst, f.k)
			dst = append(dst, "null"...)
		}
	}
	dst = jsonw.Members(dst, x.Extra)
	return append(dst, '}')
}

// appendItem writes a thinking or redacted_thinking block.
func appendItem(dst []byte, it replay.ReasoningItem) []byte {
	switch it := it.(type) {
	case *replay.ReasoningText:
		dst = append(dst, `{"type":"thinking","thinking":`...)
		dst = jsonw.String(dst, it.Text)
		dst = jsonw.Key(dst, "signature")
		dst = jsonw.String(dst, it.Signature.Value())
		dst = jsonw.Members(dst, it.Extra)
	case *replay.Encrypted:
		dst = append(dst, `{"type":"redacted_thinking","data":`...)
		dst = jsonw.String(dst, it.Data)
		dst = jsonw.Members(dst, it.Extra)
	}
	return append(dst, '}')
}

// Encode writes the turn as the assistant message of the next request:
// `{"role":"assistant","content":[...]}` with every block in its original
// order. Thinking blocks keep their text (`"thinking":""` when it was
// empty), signature and unknown members; redacted_thinking keeps its data;
// tool_use keeps its id, name and input; a compaction block keeps its
// content and signature, and a signed (on-demand) one is written first.
// Left out: reasoning items that are
// not [replay.ReasoningItem].Replayable or not Claude's, unfinished tool calls and server
// blocks, empty text blocks (the API rejects them), and native blocks of a
// turn from another API.
func (c Codec) Encode(t *replay.Turn) ([]byte, error) {
	if t == nil {
		return nil, bodyErr("", "no turn to encode")
	}
	dst := []byte(`{"role":"assistant","content":[`)
	dst, err := c.appendContent(dst, t)
	if err != nil {
		return nil, err
	}
	return append(dst, "]}"...), nil
}

func (c Codec) appendContent(dst []byte, t *replay.Turn) ([]byte, error) {
	same := sameAPI(t)
	// An on-demand (signed) compaction block goes first.
	for _, b := range t.Blocks {
		if x, ok := b.(*replay.Compaction); ok && x.Signature.Value() != "" && c.sendableCompaction(t, x) {
			dst = jsonw.Comma(dst)
			dst = appendCompaction(dst, x)
		}
	}
	for i, b := range t.Blocks {
		switch b := b.(type) {
		case *replay.Compaction:
			if b.Signature.Value() == "" && c.sendableCompaction(t, b) {
				dst = jsonw.Comma(dst)
				dst = appendCompaction(dst, b)
			}
		case replay.ReasoningItem:
			if !c.sendable(t, b) {
				continue
			}
			dst = jsonw.Comma(dst)
			dst = appendItem(dst, b)
		case *replay.Text:
			if b.Text == "" {
				continue
			}
			dst = jsonw.Comma(dst)
			dst = append(dst, `{"type":"text","text":`...)
			dst = jsonw.String(dst, b.Text)
			if same {
				dst = jsonw.Members(dst, b.Extra)
			}
			dst = append(dst, '}')
		case *replay.ToolCall:
			if b.Unfinished {
				continue
			}
			args := b.Arguments
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			if !jsonw.Valid(args) || !gjson.Parse(args).IsObject() {
				return nil, bodyErr("/blocks/"+itoa(i)+"/arguments", "tool_use input must be a JSON object")
			}
			dst = jsonw.Comma(dst)
			dst = append(dst, `{"type":"tool_use","id":`...)
			dst = jsonw.String(dst, b.ID)
			dst = jsonw.Key(dst, "name")
			dst = jsonw.String(dst, b.Name)
			dst = jsonw.Key(dst, "input")
			dst = append(dst, args...)
			if same {
				dst = jsonw.Members(dst, b.Extra)
			}
			dst = append(dst, '}')
		case *replay.Native:
			if b.Unfinished || !same || len(b.Raw) == 0 {
				continue
			}
			dst = jsonw.Comma(dst)
			dst = append(dst, b.Raw...)
		}
	}
	return dst, nil
}

// Patch inserts the turn's thinking and redacted_thinking blocks into an
// assistant message the caller built (`{"role":"assistant","content":...}`
// with text and tool_use blocks) at their original positions, and changes
// nothing else in it: every existing block keeps its bytes.
//
// Each reasoning block goes right after the message block that precedes it
// in the turn (its anchor), or first when nothing precedes it. Anchors are
// tool_use blocks, matched by id, and text blocks, matched by order when the
// message has as many text blocks as the turn. A string content becomes one
// text block. Items that Encode would leave out are not inserted. A message
// that already holds thinking blocks is an error wrapping
// [replay.ErrMalformed].
//
// The message is validated, then read once in place, and the result
// written into one buffer of its final size. The content array is written without white
// space between its elements; a message with no content gets one as its
// last member.
func (c Codec) Patch(msg []byte, t *replay.Turn) ([]byte, error) {
	if t == nil {
		return nil, bodyErr("", "no turn to patch from")
	}
	s := view.String(msg)
	open := skipSpace(s, 0)
	if !jsonw.ValidBytes(msg) || s[open] != '{' {
		return nil, bodyErr("", "expected an assistant message object")
	}
	// A usual turn's blocks fit in these without allocating.
	var elemBuf [16]patchElem
	var insBuf [8]patchInsert
	elems := elemBuf[:0]
	var content string
	at := jsonw.MemberValueAt(s, "content")
	found := at >= 0
	if found {
		content = s[at:jsonw.StepValue(s, at)] // msg is valid JSON
	}
	switch {
	case !found:
	case content[0] == '"':
		elems = append(elems, patchElem{kind: elemText, synth: true})
	case content[0] == '[':
		var err error
		if elems, err = readElems(content, at, elems); err != nil {
			return nil, err
		}
	default:
		return nil, bodyErr("/content", "expected a content array or string")
	}
	ins, size := c.placeItems(t, elems, insBuf[:0])
	if len(ins) == 0 {
		return append([]byte(nil), msg...), nil
	}
	var text string // a string content, decoded
	if found && content[0] == '"' {
		text = string(jsonw.AppendStr(nil, content))
		size += len(`{"type":"text","text":}`) + jsonw.QuotedLen(text)
	}
	if !found {
		size += len(`,"content":[]`)
	}
	out := make([]byte, 0, len(msg)+size+len(elems))
	if found {
		out = append(out, msg[:at]...)
		out = appendArray(out, msg, t, text, elems, ins)
		return append(out, msg[at+len(content):]...), nil
	}
	// No content: the array goes last, as sjson.SetRaw adds a member.
	end := len(s) - 1
	for s[end] != '}' {
		end--
	}
	out = append(out, msg[open:end]...)
	if skipSpace(s, open+1) != end {
		out = append(out, ',')
	}
	out = append(out, `"content":`...)
	out = appendArray(out, msg, t, text, elems, ins)
	return append(out, '}'), nil
}

// A patchElem is a block of the caller's content array: where its bytes
// lie, and what anchors reasoning to it (a tool_use id, or being text).
type patchElem struct {
	start, end int
	kind       uint8
	synth      bool   // the one text block of a string content
	id         string // a tool_use's raw id value ("" for none)
}

const (
	elemOther = iota
	elemText
	elemTool
)

// A patchInsert is a reasoning block of the turn (blocks[b]) to write
// before the caller's block at.
type patchInsert struct{ at, b int }

// contentKeys are the members of a content block Patch reads.
var contentKeys = [...]string{"type", "id"}

// readElems walks the content array (at offset at of the message) once,
// appending each block to elems, and refuses one that is already
// reasoning.
func readElems(content string, at int, elems []patchElem) ([]patchElem, error) {
	var vals [len(contentKeys)]string
	for pos, j := 0, 0; ; j++ {
		el, next, ok := jsonw.NextMembers(content, pos, contentKeys[:], vals[:])
		if !ok || el == "" {
			return elems, nil
		}
		off, _ := view.Offset(content, el)
		e := patchElem{start: at + off, end: at + off + len(el)}
		switch typ := vals[0]; {
		case isThinkingType(typ):
			return nil, bodyErr("/content/"+itoa(j), "the message already holds thinking blocks")
		case jsonw.StrIs(typ, "tool_use"):
			e.kind, e.id = elemTool, vals[1]
		case jsonw.StrIs(typ, "text"):
			e.kind = elemText
		}
		elems = append(elems, e)
		pos = next
	}
}

// placeItems appends to ins where each reasoning block of t that Encode
// would write goes among the caller's blocks elems, in the order they are
// written, and returns it and the bytes they add, or more.
func (c Codec) placeItems(t *replay.Turn, elems []patchElem, ins []patchInsert) ([]patchInsert, int) {
	nText, nElemText, nTool := 0, 0, 0
	for _, b := range t.Blocks {
		if _, ok := b.(*replay.Text); ok {
			nText++
		}
	}
	for _, e := range elems {
		switch e.kind {
		case elemText:
			nElemText++
		case elemTool:
			nTool++
		}
	}
	useText := nText == nElemText
	var byID map[string]int // for many tool calls: each id's last block
	size, at, next := 0, 0, 0
	sorted := true
	for i, b := range t.Blocks {
		switch b := b.(type) {
		case replay.ReasoningItem:
			if !c.sendable(t, b) {
				continue
			}
			if n := len(ins); n > 0 && ins[n-1].at > at {
				sorted = false
			}
			ins = append(ins, patchInsert{at: at, b: i})
			size += itemSize(b) + 1
		case *replay.ToolCall:
			if nTool > 16 && byID == nil {
				byID = toolIndex(elems)
			}
			if j := toolAt(elems, b.ID, byID); j >= 0 {
				at = j + 1
			}
		case *replay.Text:
			if useText {
				for elems[next].kind != elemText {
					next++
				}
				at = next + 1
				next++
			}
		}
	}
	if !sorted {
		slices.SortStableFunc(ins, func(a, b patchInsert) int { return cmp.Compare(a.at, b.at) })
	}
	return ins, size
}

// toolAt returns the position of the last tool_use block whose id is id,
// or -1.
func toolAt(elems []patchElem, id string, byID map[string]int) int {
	if byID != nil {
		if j, ok := byID[id]; ok {
			return j
		}
		return -1
	}
	for j := len(elems) - 1; j >= 0; j-- {
		if e := &elems[j]; e.kind == elemTool && idIs(e.id, id) {
			return j
		}
	}
	return -1
}

// toolIndex maps each tool_use id of the message to its last block.
func toolIndex(elems []patchElem) map[string]int {
	m := map[string]int{}
	for j, e := range elems {
		if e.kind == elemTool {
			id := ""
			if e.id != "" && e.id[0] == '"' {
				id = string(jsonw.AppendStr(nil, e.id))
			}
			m[id] = j
		}
	}
	return m
}

// idIs reports whether the raw id value of a tool_use block names id, as
// gjson's Str reads it: a value that is no string, or none, is "".
func idIs(raw, id string) bool {
	if raw == "" || raw[0] != '"' {
		return id == ""
	}
	return jsonw.StrIs(raw, id)
}

// itemSize bounds the bytes appendItem writes for it.
func itemSize(it replay.ReasoningItem) int {
	switch it := it.(type) {
	case *replay.ReasoningText:
		return len(`{"type":"thinking","thinking":,"signature":,}`) + jsonw.QuotedLen(it.Text) +
			jsonw.QuotedLen(it.Signature.Value()) + len(it.Extra)
	case *replay.Encrypted:
		return len(`{"type":"redacted_thinking","data":,}`) + jsonw.QuotedLen(it.Data) + len(it.Extra)
	}
	return 0
}

// appendArray writes the patched content array: the caller's blocks, as
// they are, with the reasoning blocks between them.
func appendArray(dst, msg []byte, t *replay.Turn, text string, elems []patchElem, ins []patchInsert) []byte {
	dst = append(dst, '[')
	k := 0
	for j := 0; j <= len(elems); j++ {
		for ; k < len(ins) && ins[k].at == j; k++ {
			if j > 0 || k > 0 {
				dst = append(dst, ',')
			}
			dst = appendItem(dst, t.Blocks[ins[k].b].(replay.ReasoningItem))
		}
		if j == len(elems) {
			break
		}
		if j > 0 || k > 0 {
			dst = append(dst, ',')
		}
		if e := &elems[j]; e.synth {
			dst = append(dst, `{"type":"text","text":`...)
			dst = jsonw.String(dst, text)
			dst = append(dst, '}')
		} else {
			dst = append(dst, msg[e.start:e.end]...)
		}
	}
	return append(dst, ']')
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}
