package openai

import (
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/internal/view"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Kinds of output item a turn's blocks group into.
const (
	gReasoning = iota
	gMessage
	gCall
	gNative
	gCompaction
)

// group is one output item of a turn: a run of blocks [start, end).
type group struct {
	kind       int
	start, end int
	id         string // reasoning, message, call item or native item id
}

// groups cuts a turn's blocks into output items: consecutive reasoning
// blocks with the same ID are one reasoning item (a Native "reasoning" is
// one on its own), consecutive Text blocks with the same ID one message,
// each ToolCall and other Native one item.
func groups(t *replay.Turn) []group { return appendGroups(nil, t) }

// appendGroups appends the groups of t to out.
func appendGroups(out []group, t *replay.Turn) []group {
	bs := t.Blocks
	for i := 0; i < len(bs); {
		g := group{start: i}
		switch b := bs[i].(type) {
		case replay.ReasoningItem:
			g.kind = gReasoning
			id := b.Meta().ID
			g.id = id.Value()
			j := i + 1
			for j < len(bs) {
				n, ok := bs[j].(replay.ReasoningItem)
				if !ok || n.Meta().ID != id {
					break
				}
				j++
			}
			g.end = j
		case *replay.Text:
			g.kind, g.id = gMessage, b.ID
			j := i + 1
			for j < len(bs) {
				n, ok := bs[j].(*replay.Text)
				if !ok || n.ID != b.ID {
					break
				}
				j++
			}
			g.end = j
		case *replay.ToolCall:
			g.kind, g.id, g.end = gCall, b.ItemID, i+1
		case *replay.Compaction:
			g.kind, g.id, g.end = gCompaction, b.ID, i+1
		case *replay.Native:
			g.kind, g.end = gNative, i+1
			if b.Kind == "reasoning" {
				g.kind = gReasoning
			}
			g.id = gjson.GetBytes(b.Raw, "id").Str
		}
		out = append(out, g)
		i = g.end
	}
	return out
}

// withID returns the JSON object raw with the member "id" added first.
func withID(raw, id string) string {
	i := strings.IndexByte(raw, '{')
	rest := strings.TrimLeft(raw[i+1:], " \t\r\n")
	b := jsonw.String([]byte(raw[:i+1]+`"id":`), id)
	if !strings.HasPrefix(rest, "}") {
		b = append(b, ',')
	}
	return string(b) + raw[i+1:]
}

// followerOK reports whether g can be recognised as the follower of a
// reasoning item: it exists, is not reasoning, and carries its id.
func followerOK(gs []group, i int) bool {
	return i < len(gs) && gs[i].kind != gReasoning && gs[i].id != ""
}

// sendable reports whether the reasoning group g of t can be written back
// in this mode, and the encrypted block when there is one.
func (c Codec) sendable(t *replay.Turn, g group) bool {
	if g.id == "" {
		return false
	}
	hasData := false
	for _, b := range t.Blocks[g.start:g.end] {
		switch x := b.(type) {
		case *replay.Native:
			if x.Unfinished || !sameAPI(t) {
				return false
			}
		case replay.ReasoningItem:
			m := x.Meta()
			if m.Unfinished || m.Format != c.format() {
				return false
			}
			if _, ok := x.(*replay.Opaque); ok {
				return false
			}
			if e, ok := x.(*replay.Encrypted); ok && e.Data != "" {
				hasData = true
			}
			if _, ok := x.(*replay.ReasoningText); ok && c.sendsText() {
				hasData = true
			}
		}
	}
	return c.Stored || hasData
}

func sameAPI(t *replay.Turn) bool { return t.Provenance.API == "" || t.Provenance.API == API }

// Encode writes the turn as the next request's `input` items, a JSON array
// in the turn's order. Each reasoning item is written immediately before
// the item that followed it: whole (`id`, `summary`, `encrypted_content`,
// unknown members; `content` only for hosts that take reasoning text back,
// [Codec.ReasoningText]) in stateless mode,
// or as an `item_reference` when c.Stored. A reasoning item is left out
// when it is unfinished, of another format than c's provider, without an
// id, without a follower that carries its id, or (stateless) without
// encrypted content; its follower is then written without its id, so
// that OpenAI does not look for the missing reasoning. `status` is not
// written on reasoning, message and function_call items; other items
// (server tool calls) are written verbatim. Native blocks of another API
// are left out. A `compaction` item ([replay.Compaction]) minted by c's
// host goes back with its id and encrypted content, and the items before
// the newest one are pruned, as OpenAI documents (the compaction stands in
// for them); one of another host or account is left out.
func (c Codec) Encode(t *replay.Turn) ([]byte, error) {
	if t == nil {
		return nil, kit.NoTurn(API, "encode")
	}
	out := []byte{'['}
	gs := groups(t)
	strip := false
	from := 0
	for i, g := range gs {
		if g.kind == gCompaction && c.compactionSendable(t, g) {
			from = i
		}
	}
	for i, g := range gs {
		if i < from {
			continue // pruned: the newest compaction item stands in for them
		}
		if g.kind == gCompaction {
			if c.compactionSendable(t, g) {
				out = appendCompaction(jsonw.Comma(out), t.Blocks[g.start].(*replay.Compaction))
			}
			strip = false
			continue
		}
		if g.kind == gReasoning {
			if c.sendable(t, g) && followerOK(gs, i+1) {
				out = jsonw.Comma(out)
				out = c.appendReasoning(out, t, g)
				strip = false
			} else {
				strip = true
			}
			continue
		}
		out = appendGroup(out, t, g, strip)
		strip = false
	}
	return append(out, ']'), nil
}

// compactionSendable reports whether the compaction group g of t goes
// back: finished, of this API, minted by c's host.
func (c Codec) compactionSendable(t *replay.Turn, g group) bool {
	x := t.Blocks[g.start].(*replay.Compaction)
	return !x.Unfinished && sameAPI(t) && x.Format == c.format() && x.Data != ""
}

// appendCompaction writes a compaction input item: its id, its encrypted
// content and its other members, as they came.
func appendCompaction(out []byte, x *replay.Compaction) []byte {
	out = append(out, `{"type":"compaction"`...)
	if x.ID != "" {
		out = jsonw.Key(out, "id")
		out = jsonw.String(out, x.ID)
	}
	out = jsonw.Key(out, "encrypted_content")
	out = jsonw.String(out, x.Data)
	out = appendExtraSkip(out, x.Extra, []string{"type", "id", "encrypted_content", "status"})
	return append(out, '}')
}

// appendGroup writes a non-reasoning output item; strip leaves out its id.
func appendGroup(out []byte, t *replay.Turn, g group, strip bool) []byte {
	switch g.kind {
	case gMessage:
		out = jsonw.Comma(out)
		first := t.Blocks[g.start].(*replay.Text)
		out = append(out, `{"type":"message","role":"assistant"`...)
		if first.ID != "" && !strip {
			out = jsonw.Key(out, "id")
			out = jsonw.String(out, first.ID)
		}
		out = jsonw.Key(out, "content")
		out = append(out, '[')
		for _, b := range t.Blocks[g.start:g.end] {
			x := b.(*replay.Text)
			out = jsonw.Comma(out)
			out = append(out, `{"type":"output_text","text":`...)
			out = jsonw.String(out, x.Text)
			out = jsonw.Key(out, "annotations")
			if a := gjson.GetBytes(x.Extra, "annotations"); a.Exists() {
				out = append(out, a.Raw...)
			} else {
				out = append(out, "[]"...)
			}
			out = append(out, '}')
		}
		out = append(out, ']')
		out = appendExtra(out, first.Extra, "annotations")
		return append(out, '}')
	case gCall:
		x := t.Blocks[g.start].(*replay.ToolCall)
		if x.Unfinished {
			return out
		}
		custom := gjson.GetBytes(x.Extra, "item_type").Str == "custom_tool_call"
		out = jsonw.Comma(out)
		if custom {
			out = append(out, `{"type":"custom_tool_call"`...)
		} else {
			out = append(out, `{"type":"function_call"`...)
		}
		if x.ItemID != "" && !strip {
			out = jsonw.Key(out, "id")
			out = jsonw.String(out, x.ItemID)
		}
		out = jsonw.Key(out, "call_id")
		out = jsonw.String(out, x.ID)
		out = jsonw.Key(out, "name")
		out = jsonw.String(out, x.Name)
		if custom {
			out = jsonw.Key(out, "input")
		} else {
			out = jsonw.Key(out, "arguments")
		}
		out = jsonw.String(out, x.Arguments)
		out = appendExtra(out, x.Extra, "item_type")
		return append(out, '}')
	case gNative:
		x := t.Blocks[g.start].(*replay.Native)
		if x.Unfinished || !sameAPI(t) || !jsonw.ValidBytes(x.Raw) {
			return out
		}
		raw := []byte(x.Raw)
		if x.Kind == "message" {
			raw, _ = sjson.DeleteBytes(append([]byte(nil), raw...), "status")
		}
		if strip && g.id != "" {
			raw, _ = sjson.DeleteBytes(append([]byte(nil), raw...), "id")
		}
		out = jsonw.Comma(out)
		return append(out, raw...)
	}
	return out
}

// appendExtra writes the members of extra except skip.
func appendExtra(out []byte, extra []byte, skip string) []byte {
	return appendExtraSkip(out, extra, []string{skip})
}

// appendReasoning writes one sendable reasoning item.
func (c Codec) appendReasoning(out []byte, t *replay.Turn, g group) []byte {
	if c.Stored {
		out = append(out, `{"type":"item_reference","id":`...)
		out = jsonw.String(out, g.id)
		return append(out, '}')
	}
	out = append(out, `{"type":"reasoning","id":`...)
	out = jsonw.String(out, g.id)
	out = append(out, `,"summary":[`...)
	var extra []byte
	nText := 0
	for i, b := range t.Blocks[g.start:g.end] {
		it := b.(replay.ReasoningItem)
		if i == 0 {
			extra = it.Meta().Extra
		}
		switch x := it.(type) {
		case *replay.Summary:
			out = jsonw.Comma(out)
			out = append(out, `{"type":"summary_text","text":`...)
			out = jsonw.String(out, x.Summary)
			out = append(out, '}')
		case *replay.ReasoningText:
			nText++
		}
	}
	out = append(out, ']')
	if nText > 0 && c.sendsText() {
		out = append(out, `,"content":[`...)
		for _, b := range t.Blocks[g.start:g.end] {
			if x, ok := b.(*replay.ReasoningText); ok {
				out = jsonw.Comma(out)
				out = append(out, `{"type":"reasoning_text","text":`...)
				out = jsonw.String(out, x.Text)
				out = append(out, '}')
			}
		}
		out = append(out, ']')
	}
	for _, b := range t.Blocks[g.start:g.end] {
		if x, ok := b.(*replay.Encrypted); ok {
			out = jsonw.Key(out, "encrypted_content")
			out = jsonw.String(out, x.Data)
			break
		}
	}
	out = appendExtraSkip(out, extra, reasoningOwn)
	return append(out, '}')
}

// reasoningOwn are the members of an input reasoning item that Encode
// writes itself or never sends (`status`, `content`): an unknown member of
// the same name kept in Extra is not written again.
var reasoningOwn = []string{"type", "id", "summary", "content", "encrypted_content", "status"}

// appendExtraSkip writes the members of extra except those in skip.
func appendExtraSkip(out []byte, extra []byte, skip []string) []byte {
	if len(extra) == 0 {
		return out
	}
	gjson.ParseBytes(extra).ForEach(func(k, v gjson.Result) bool {
		for _, s := range skip {
			if k.Str == s {
				return true
			}
		}
		out = append(out, ',')
		out = append(out, k.Raw...)
		out = append(out, ':')
		out = append(out, v.Raw...)
		return true
	})
	return out
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
		if arrAt = jsonw.MemberValueAt(s, "input"); arrAt < 0 || s[arrAt] != '[' {
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
