package openai

import (
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// The reference: Patch and strip as they were written on gjson and sjson,
// kept for FuzzPatch and FuzzStrip (and the benchmarks) to hold the
// one-pass versions to the same bytes.

func refPatch(c Codec, msg []byte, t *replay.Turn) ([]byte, error) {
	if t == nil {
		return nil, kit.NoTurn(API, "patch")
	}
	if !jsonw.ValidBytes(msg) {
		return nil, codecs.Malformed(API, -1, "", "expected an input array or a request object to patch")
	}
	root := gjson.ParseBytes(msg)
	arr := root
	if root.IsObject() {
		arr = root.Get("input")
		if !arr.IsArray() {
			return nil, codecs.Malformed(API, -1, "/input", "expected a request object with an input array")
		}
	} else if !arr.IsArray() {
		return nil, codecs.Malformed(API, -1, "", "expected an input array or a request object to patch")
	}
	type ins struct {
		id, callID, itemID string
		message            bool
		item               []byte
	}
	var pending []ins
	gs := groups(t)
	for i, g := range gs {
		if g.kind != gReasoning || !c.sendable(t, g) || !followerOK(gs, i+1) {
			continue
		}
		f := gs[i+1]
		p := ins{id: g.id, itemID: f.id, item: c.appendReasoning(nil, t, g), message: f.kind == gMessage}
		if f.kind == gCall {
			p.callID = t.Blocks[f.start].(*replay.ToolCall).ID
		}
		pending = append(pending, p)
	}
	present := map[string]bool{}
	ids := map[string]bool{}
	arr.ForEach(func(_, el gjson.Result) bool {
		if ty := el.Get("type").Str; ty == "reasoning" || ty == "item_reference" {
			present[el.Get("id").Str] = true
		}
		if id := el.Get("id").Str; id != "" {
			ids[id] = true
		}
		return true
	})
	var lostMsgs []string
	for _, p := range pending {
		if p.message && !ids[p.itemID] {
			lostMsgs = append(lostMsgs, p.itemID)
		}
	}
	out := []byte{'['}
	arr.ForEach(func(_, el gjson.Result) bool {
		id, callID := el.Get("id").Str, el.Get("call_id").Str
		raw := el.Raw
		if id == "" && !el.Get("id").Exists() && el.Get("role").Str == "assistant" && len(lostMsgs) > 0 &&
			(el.Get("type").Str == "message" || !el.Get("type").Exists()) {
			id, lostMsgs = lostMsgs[0], lostMsgs[1:]
			raw = withID(raw, id)
		}
		for k := range pending {
			p := &pending[k]
			if p.item == nil || present[p.id] {
				continue
			}
			if (id != "" && id == p.itemID) || (callID != "" && callID == p.callID) {
				out = jsonw.Comma(out)
				out = append(out, p.item...)
				present[p.id] = true
				if !el.Get("id").Exists() && raw == el.Raw && p.itemID != "" {
					raw = withID(raw, p.itemID)
				}
			}
		}
		out = jsonw.Comma(out)
		out = append(out, raw...)
		return true
	})
	out = append(out, ']')
	if root.IsObject() {
		res, err := sjson.SetRawBytes(append([]byte(nil), msg...), "input", out)
		if err != nil {
			return nil, codecs.Malformed(API, -1, "/input", "cannot patch the input array: %v", err)
		}
		return res, nil
	}
	return out, nil
}

func refStrip(raw []byte) ([]byte, []codecs.Change) {
	return refStripDrop(raw, func(gjson.Result) bool { return true })
}

func refStripDrop(raw []byte, drop func(gjson.Result) bool) ([]byte, []codecs.Change) {
	var changes []codecs.Change
	out := []byte{'['}
	after := false
	i := -1
	gjson.ParseBytes(raw).ForEach(func(_, el gjson.Result) bool {
		i++
		ptr := "/" + strconv.Itoa(i)
		if el.Get("type").Str == "reasoning" && drop(el) {
			changes = append(changes, codecs.Change{Pointer: ptr, Removed: true,
				Detail: "reasoning item " + strconv.Quote(el.Get("id").Str) + " removed"})
			after = true
			return true
		}
		item := []byte(el.Raw)
		if after && (el.Get("type").Str == "function_call" || el.Get("role").Str == "assistant") {
			if out, id := kit.DeleteMember(item, "id"); id.Exists() {
				item = out
				changes = append(changes, codecs.Change{Pointer: ptr, Removed: true,
					Detail: "item id " + strconv.Quote(id.Str) + " removed with the reasoning item it followed"})
			}
		}
		after = false
		out = jsonw.Comma(out)
		out = append(out, item...)
		return true
	})
	if len(changes) == 0 {
		return raw, nil
	}
	return append(out, ']'), changes
}
