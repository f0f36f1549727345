package openai

import (
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/internal/view"
)

// Patch and Strip read a run of input items (or a request's input array)
// in one walk with jsonw's Step functions, each item's members read where
// they stand, and write one output buffer. They read as gjson reads (the
// first member of a name, names and values compared with their escapes
// decoded, a member that is not a string read as "") and write what they
// wrote on gjson and sjson: the array's items joined by bare commas.

// runItem is what one walk over an item of a run finds, as offsets in the
// text: where it is, and the value of its first member of each name the
// patch and the strip read (at < 0 when absent; for id, its name too).
type runItem struct {
	at, end         int
	idName          int
	idAt, idEnd     int
	callAt, callEnd int
	typeAt, typeEnd int
	roleAt, roleEnd int
}

// scanItem walks the item that starts at s[at] once; ok is false when it
// is not valid JSON there.
func scanItem(s string, at int) (it runItem, ok bool) {
	it = runItem{at: at, idAt: -1, callAt: -1, typeAt: -1, roleAt: -1}
	if s[at] != '{' {
		it.end = jsonw.StepValue(s, at)
		return it, it.end > at
	}
	for pos := at + 1; ; {
		nameAt, nameEnd, vAt := jsonw.StepMember(s, pos)
		if vAt < 0 {
			it.end = nameEnd
			return it, nameAt >= 0
		}
		end := jsonw.StepValue(s, vAt)
		if end < 0 {
			return it, false
		}
		switch name := s[nameAt:nameEnd]; {
		case jsonw.ASCIINameIs(name, "id"):
			if it.idAt < 0 {
				it.idName, it.idAt, it.idEnd = nameAt, vAt, end
			}
		case jsonw.ASCIINameIs(name, "call_id"):
			if it.callAt < 0 {
				it.callAt, it.callEnd = vAt, end
			}
		case jsonw.ASCIINameIs(name, "type"):
			if it.typeAt < 0 {
				it.typeAt, it.typeEnd = vAt, end
			}
		case jsonw.ASCIINameIs(name, "role"):
			if it.roleAt < 0 {
				it.roleAt, it.roleEnd = vAt, end
			}
		}
		pos = end
	}
}

// strIs reports whether s[at:end] is a string whose value is want (ASCII),
// as gjson's Str compares: false when absent or not a string.
func strIs(s string, at, end int, want string) bool {
	return at >= 0 && s[at] == '"' && jsonw.ASCIINameIs(s[at:end], want)
}

// str returns gjson's Str of the value s[at:end]: a string's value ("" for
// none, or a value that is not a string). A value with escapes is decoded
// in scratch, valid until scratch is written again.
func str(s string, at, end int, scratch *[]byte) string {
	if at < 0 || s[at] != '"' {
		return ""
	}
	v := s[at+1 : end-1]
	if strings.IndexByte(v, '\\') < 0 {
		return v
	}
	*scratch = jsonw.AppendStr((*scratch)[:0], s[at:end])
	return view.String(*scratch)
}

// memberStr returns gjson's Str of the first member name (ASCII) of the
// JSON object el, as a string of its own.
func memberStr(el, name string) string {
	if it, ok := scanMember(el, name); ok {
		var b []byte
		return strings.Clone(str(el, it.at, it.end, &b))
	}
	return ""
}

// itemHas reports whether the JSON object el has a member name (ASCII).
func itemHas(el, name string) bool {
	_, ok := scanMember(el, name)
	return ok
}

// span is a value's offsets.
type span struct{ at, end int }

// scanMember finds the value of the first member name (ASCII) of the JSON
// object el.
func scanMember(el, name string) (span, bool) {
	if el == "" || el[0] != '{' {
		return span{}, false
	}
	for pos := 1; ; {
		nameAt, nameEnd, vAt := jsonw.StepMember(el, pos)
		if vAt < 0 {
			return span{}, false
		}
		end := jsonw.StepValue(el, vAt)
		if end < 0 {
			return span{}, false
		}
		if jsonw.ASCIINameIs(el[nameAt:nameEnd], name) {
			return span{vAt, end}, true
		}
		pos = end
	}
}

// pend is a reasoning item of the turn waiting for its follower.
type pend struct {
	id, callID, itemID string
	g                  group
	message            bool
	found              bool // an item of the array has the follower's id
	present            bool // the array has the reasoning item, or it was put in
}

// Patch inserts the turn's reasoning items into an `input` array the
// caller built (msg is the array, or a request object with an `input`
// array), each immediately before the item it preceded in the output: a
// function_call matched by call_id (or item id), a message or other item
// by its id, or, for an assistant message the caller rebuilt without its
// id, by its order among the turn's messages. A follower found without
// the item id that pairs it with its reasoning item gets it back (the
// provider refuses the pair otherwise). A reasoning item already in the
// array (same id, whole or as an item_reference) is not added again; one
// whose follower is not in the array, or that Encode would leave out, is
// not added. Every other byte of the array is kept.
func (c Codec) Patch(msg []byte, t *replay.Turn) ([]byte, error) {
	if t == nil {
		return nil, kit.NoTurn(API, "patch")
	}
	if !jsonw.ValidBytes(msg) {
		return nil, codecs.Malformed(API, -1, "", "expected an input array or a request object to patch")
	}
	s := view.String(msg)
	arrAt := skipWS(s, 0)
	object := s[arrAt] == '{'
	if object {
		if arrAt = topMember(s, "input"); arrAt < 0 || s[arrAt] != '[' {
			return nil, codecs.Malformed(API, -1, "/input", "expected a request object with an input array")
		}
	} else if s[arrAt] != '[' {
		return nil, codecs.Malformed(API, -1, "", "expected an input array or a request object to patch")
	}
	var gbuf [16]group
	gs := appendGroups(gbuf[:0], t)
	var pbuf [8]pend
	pending := pbuf[:0]
	room := len(msg)
	for i, g := range gs {
		if g.kind != gReasoning || !c.sendable(t, g) || !followerOK(gs, i+1) {
			continue
		}
		f := gs[i+1]
		p := pend{id: g.id, itemID: f.id, g: g, message: f.kind == gMessage}
		if f.kind == gCall {
			p.callID = t.Blocks[f.start].(*replay.ToolCall).ID
		}
		pending = append(pending, p)
		room += c.reasoningRoom(t, g) + len(f.id) + len(`"id":"",`)
	}
	// One walk over the array: its items and the members read.
	var ibuf [32]runItem
	items := ibuf[:0]
	arrEnd := -1
	for pos := arrAt + 1; ; {
		at, close := jsonw.StepElem(s, pos)
		if at < 0 {
			arrEnd = close + 1
			break
		}
		it, ok := scanItem(s, at)
		if !ok { // not after jsonw.Valid
			return nil, codecs.Malformed(API, -1, "", "expected an input array or a request object to patch")
		}
		items = append(items, it)
		pos = it.end
	}
	var scratch, scratch2 []byte
	for k := range pending {
		p := &pending[k]
		for _, it := range items {
			id := str(s, it.idAt, it.idEnd, &scratch)
			if id == "" {
				continue
			}
			if id == p.id && (strIs(s, it.typeAt, it.typeEnd, "reasoning") || strIs(s, it.typeAt, it.typeEnd, "item_reference")) {
				p.present = true
			}
			if id == p.itemID {
				p.found = true
			}
		}
	}
	out := make([]byte, 0, room)
	if object {
		out = append(out, s[:arrAt]...)
	}
	out = append(out, '[')
	lost := 0 // the next pending item whose message the array lost the id of
	for _, it := range items {
		id := str(s, it.idAt, it.idEnd, &scratch)
		callID := str(s, it.callAt, it.callEnd, &scratch2)
		newID, withID := "", false
		if it.idAt < 0 && strIs(s, it.roleAt, it.roleEnd, "assistant") && (it.typeAt < 0 || strIs(s, it.typeAt, it.typeEnd, "message")) {
			for lost < len(pending) && (!pending[lost].message || pending[lost].found) {
				lost++
			}
			if lost < len(pending) {
				newID, withID = pending[lost].itemID, true
				id = newID
				lost++
			}
		}
		for k := range pending {
			p := &pending[k]
			if p.present || !((id != "" && id == p.itemID) || (callID != "" && callID == p.callID)) {
				continue
			}
			out = jsonw.Comma(out)
			out = c.appendReasoning(out, t, p.g)
			for j := range pending {
				if pending[j].id == p.id {
					pending[j].present = true
				}
			}
			if it.idAt < 0 && !withID && p.itemID != "" {
				newID, withID = p.itemID, true
			}
		}
		out = jsonw.Comma(out)
		if withID {
			out = appendWithID(out, s[it.at:it.end], newID)
		} else {
			out = append(out, s[it.at:it.end]...)
		}
	}
	out = append(out, ']')
	if object {
		out = append(out, s[arrEnd:]...)
	}
	return out, nil
}

// appendWithID appends the JSON object raw with the member "id" added
// first (as withID writes it).
func appendWithID(out []byte, raw, id string) []byte {
	out = append(out, raw[0])
	out = append(out, `"id":`...)
	out = jsonw.String(out, id)
	if rest := strings.TrimLeft(raw[1:], " \t\r\n"); !strings.HasPrefix(rest, "}") {
		out = append(out, ',')
	}
	return append(out, raw[1:]...)
}

// reasoningRoom is about the room appendReasoning takes for g (more when
// its strings need escapes: the buffer grows then).
func (c Codec) reasoningRoom(t *replay.Turn, g group) int {
	n := len(`{"type":"item_reference","id":"","summary":[],"content":[],"encrypted_content":""}`) + len(g.id)
	if c.Stored {
		return n
	}
	for _, b := range t.Blocks[g.start:g.end] {
		switch x := b.(type) {
		case *replay.Summary:
			n += len(x.Summary) + len(`{"type":"summary_text","text":""},`) + len(x.Extra)
		case *replay.ReasoningText:
			n += len(x.Text) + len(`{"type":"reasoning_text","text":""},`) + len(x.Extra)
		case *replay.Encrypted:
			n += len(x.Data) + len(x.Extra)
		}
	}
	return n
}

// skipWS returns the offset of the first byte of s from i that is not
// JSON white space.
func skipWS(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// topMember returns the offset of the value of the first member of the
// object s named name, -1 when s is not an object or has none. It steps
// over the values before it only.
func topMember(s, name string) int {
	i := skipWS(s, 0)
	if i >= len(s) || s[i] != '{' {
		return -1
	}
	for pos := i + 1; ; {
		nameAt, nameEnd, vAt := jsonw.StepMember(s, pos)
		if vAt < 0 {
			return -1
		}
		if jsonw.ASCIINameIs(s[nameAt:nameEnd], name) {
			return vAt
		}
		if pos = jsonw.StepValue(s, vAt); pos < 0 {
			return -1
		}
	}
}

// itemPointers are the pointers of the first items of a run, made once.
var itemPointers = func() (p [64]string) {
	for i := range p {
		p[i] = "/" + strconv.Itoa(i)
	}
	return p
}()

// itemPointer returns "/i".
func itemPointer(i int) string {
	if i < len(itemPointers) {
		return itemPointers[i]
	}
	return "/" + strconv.Itoa(i)
}

// Strip removes the reasoning items of a run of input items (an array),
// and the ids of the function calls and assistant messages that followed
// them: a follower sent with its id but without its reasoning item is
// refused. [Codec.Patch] gives both back. A text that is not an array is
// returned as it is.
func (Codec) Strip(raw []byte) ([]byte, []codecs.Change) {
	return strip(raw, nil)
}

// strip removes the reasoning items drop reports (every one when drop is
// nil; it is given the item's text) from a run, with the ids of the
// function calls and assistant messages that followed them. It returns
// raw itself when there is nothing to remove; else the run is written
// again, its items joined by bare commas.
func strip(raw []byte, drop func(el string) bool) ([]byte, []codecs.Change) {
	s := view.String(raw)
	a := skipWS(s, 0)
	if a >= len(s) || s[a] != '[' {
		return raw, nil
	}
	var out []byte
	var cbuf [8]codecs.Change
	changes := cbuf[:0]
	var dbuf [256]byte
	details := dbuf[:0] // the changes' details, one after another
	var ebuf [8]int
	ends := ebuf[:0]
	var scratch []byte
	after := false
	bare := true    // the items so far are written with no white space
	expect := a + 1 // where the next item starts, if so
	for pos, n := a+1, 0; ; n++ {
		at, close := jsonw.StepElem(s, pos)
		if at < 0 {
			if out == nil || close < 0 {
				return raw, nil
			}
			out = append(out, ']')
			all := string(details)
			res := make([]codecs.Change, len(changes))
			from := 0
			for k := range changes {
				res[k] = changes[k]
				res[k].Detail = all[from:ends[k]]
				from = ends[k]
			}
			return out, res
		}
		it, ok := scanItem(s, at)
		if !ok {
			return raw, nil
		}
		if at != expect {
			bare = false
		}
		pos, expect = it.end, -1
		if it.end < len(s) && s[it.end] == ',' {
			expect = it.end + 1
		}
		el := s[at:it.end]
		cut := false
		if strIs(s, it.typeAt, it.typeEnd, "reasoning") && (drop == nil || drop(el)) {
			details = append(details, "reasoning item "...)
			details = strconv.AppendQuote(details, str(s, it.idAt, it.idEnd, &scratch))
			details = append(details, " removed"...)
		} else {
			cut = after && it.idAt >= 0 && (strIs(s, it.typeAt, it.typeEnd, "function_call") || strIs(s, it.roleAt, it.roleEnd, "assistant"))
			after = false
			if !cut {
				if out != nil {
					out = jsonw.Comma(out)
					out = append(out, el...)
				}
				continue
			}
			details = append(details, "item id "...)
			details = strconv.AppendQuote(details, str(s, it.idAt, it.idEnd, &scratch))
			details = append(details, " removed with the reasoning item it followed"...)
		}
		changes = append(changes, codecs.Change{Pointer: itemPointer(n), Removed: true})
		ends = append(ends, len(details))
		if out == nil {
			out = make([]byte, 0, len(raw))
			if bare {
				out = append(out, s[a:max(at-1, a+1)]...)
			} else {
				out = append(out, '[')
				for q := a + 1; ; {
					b, _ := jsonw.StepElem(s, q)
					if b < 0 || b >= at {
						break
					}
					q = jsonw.StepValue(s, b)
					out = jsonw.Comma(out)
					out = append(out, s[b:q]...)
				}
			}
		}
		if !cut {
			after = true
			continue
		}
		from, to := memberCut(s, at, it.idName, it.idEnd, it.end)
		out = jsonw.Comma(out)
		out = append(out, s[at:from]...)
		out = append(out, s[to:it.end]...)
	}
}

// memberCut returns the span of the object at s[at] (ending at end) that
// deleting its member whose name starts at nameAt and whose value ends at
// valEnd removes, as sjson removes it: a first member with what follows
// its value up to and with a comma; any other with the comma before it.
func memberCut(s string, at, nameAt, valEnd, end int) (from, to int) {
	j := nameAt - 1
	for j > at && s[j] != '{' && s[j] != ',' {
		j--
	}
	if s[j] == ',' {
		return j, valEnd
	}
	k := valEnd
	for k < end && s[k] <= ' ' {
		k++
	}
	if s[k] == ',' {
		return j + 1, k + 1
	}
	return j + 1, valEnd
}
