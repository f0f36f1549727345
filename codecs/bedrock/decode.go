package bedrock

import (
	"encoding/json"
	"github.com/reasonreplay/replay/internal/jsonw"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/think"
	"github.com/tidwall/gjson"
)

// Decode reads a whole Converse response body. An error body
// (`{"message":...}` without `output`) returns a *replay.ProviderError.
func (c Codec) Decode(body []byte) (*replay.Turn, error) {
	if !jsonw.ValidBytes(body) {
		return nil, replay.Malformed(API, -1, "", "expected a JSON Converse response")
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, replay.Malformed(API, -1, "", "expected a JSON object")
	}
	out := root.Get("output")
	if !out.Exists() {
		if msg := firstOf(root, "message", "Message"); msg.Type == gjson.String {
			return nil, &replay.ProviderError{API: API, Type: root.Get("__type").String(), Message: msg.String()}
		}
		return nil, replay.Malformed(API, -1, "/output", "expected an output member")
	}
	content := out.Get("message.content")
	if !content.IsArray() {
		return nil, replay.Malformed(API, -1, "/output/message/content", "expected an array")
	}
	lim := c.Limits.WithDefaults()
	t := &replay.Turn{Provenance: c.provenance(), Complete: true}
	var err error
	i := 0
	content.ForEach(func(_, b gjson.Result) bool {
		ptr := "/output/message/content/" + strconv.Itoa(i)
		if i >= lim.MaxBlocks {
			err = &replay.LimitError{What: "block count", Limit: lim.MaxBlocks, Event: -1, Block: -1}
			return false
		}
		var blk replay.Block
		blk, err = c.block(b, i, ptr, lim)
		if err != nil {
			return false
		}
		if x, ok := blk.(*replay.Text); ok && splitsTags(c.Model, c.KeepTags) {
			t.Blocks = c.appendSplit(t.Blocks, x.Text, i)
			if len(t.Blocks) > lim.MaxBlocks {
				err = &replay.LimitError{What: "block count", Limit: lim.MaxBlocks, Event: -1, Block: -1}
				return false
			}
		} else if blk != nil {
			t.Blocks = append(t.Blocks, blk)
		}
		i++
		return true
	})
	if err != nil {
		return nil, err
	}
	if sr := root.Get("stopReason"); sr.Type == gjson.String {
		t.FinishReason = sr.String()
	}
	if u := root.Get("usage"); u.IsObject() {
		t.Usage = raw(u.Raw)
	}
	return t, nil
}

func firstOf(v gjson.Result, keys ...string) gjson.Result {
	for _, k := range keys {
		if r := v.Get(k); r.Exists() {
			return r
		}
	}
	return gjson.Result{}
}

// block reads one content block. It returns nil for an empty text block.
func (c Codec) block(b gjson.Result, i int, ptr string, lim replay.Limits) (replay.Block, error) {
	if !b.IsObject() {
		return nil, replay.Malformed(API, -1, ptr, "expected a content block object")
	}
	if rc := b.Get("reasoningContent"); rc.Exists() {
		return c.reasoning(b, rc, i, ptr, lim)
	}
	if x := b.Get("text"); x.Exists() {
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
	if tu := b.Get("toolUse"); tu.Exists() {
		if !tu.IsObject() {
			return nil, replay.Malformed(API, -1, ptr+"/toolUse", "expected an object")
		}
		id, name := tu.Get("toolUseId"), tu.Get("name")
		if id.Type != gjson.String || name.Type != gjson.String {
			return nil, replay.Malformed(API, -1, ptr+"/toolUse", "expected string toolUseId and name")
		}
		args := "{}"
		if in := tu.Get("input"); in.Exists() {
			args = in.Raw
		}
		if len(args) > lim.MaxItem {
			return nil, &replay.LimitError{What: "item size", Limit: lim.MaxItem, Event: -1, Block: -1}
		}
		return &replay.ToolCall{ID: clone(id.Str), Name: clone(name.Str), Arguments: clone(args),
			Extra: extra(tu, "toolUseId", "name", "input")}, nil
	}
	kind := "content"
	b.ForEach(func(k, _ gjson.Result) bool { kind = k.String(); return false })
	return &replay.Native{Kind: clone(kind), Raw: raw(b.Raw)}, nil
}

func (c Codec) reasoning(b, rc gjson.Result, i int, ptr string, lim replay.Limits) (replay.Block, error) {
	ptr += "/reasoningContent"
	rt, rd := rc.Get("reasoningText"), rc.Get("redactedContent")
	switch {
	case rt.IsObject() && !rd.Exists():
		text := rt.Get("text")
		if text.Type != gjson.String {
			return nil, replay.Malformed(API, -1, ptr+"/reasoningText/text", "expected a string")
		}
		it := &replay.ReasoningText{Text: clone(text.Str)}
		if len(text.Str) > lim.MaxItem {
			return nil, &replay.LimitError{What: "item size", Limit: lim.MaxItem, Event: -1, Block: -1}
		}
		switch s := rt.Get("signature"); {
		case s.Type == gjson.String:
			it.Signature = replay.Some(clone(s.Str))
		case s.Exists() && s.Type == gjson.Null:
			it.Signature = replay.NullOf[string]()
		case s.Exists():
			return nil, replay.Malformed(API, -1, ptr+"/reasoningText/signature", "expected a string")
		}
		it.Format = formatFor(c.Model, it.Signed())
		it.Index = replay.Some(i)
		it.Extra = extra(rt, "text", "signature")
		return it, nil
	case rd.Type == gjson.String && !rt.Exists():
		if len(rd.Str) > lim.MaxItem {
			return nil, &replay.LimitError{What: "item size", Limit: lim.MaxItem, Event: -1, Block: -1}
		}
		it := &replay.Encrypted{Data: clone(rd.Str)}
		it.Format = formatFor(c.Model, false)
		it.Index = replay.Some(i)
		return it, nil
	}
	// Another shape: keep the whole content block verbatim.
	o := &replay.Opaque{Type: "reasoningContent", Raw: raw(b.Raw)}
	o.Format = formatFor(c.Model, false)
	o.Index = replay.Some(i)
	return o, nil
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

// appendSplit appends text split at <think>-style tags: visible runs as
// text blocks, tag-delimited runs as reasoning items of the model's format.
func (c Codec) appendSplit(blocks []replay.Block, text string, i int) []replay.Block {
	var sp think.Splitter
	segs := sp.Close(sp.WriteString(nil, text))
	var cur strings.Builder
	reasoning := false
	flush := func() {
		if cur.Len() == 0 {
			return
		}
		if reasoning {
			it := &replay.ReasoningText{Text: cur.String()}
			it.Format, it.Index = formatFor(c.Model, false), replay.Some(i)
			blocks = append(blocks, it)
		} else {
			blocks = append(blocks, &replay.Text{Text: cur.String()})
		}
		cur = strings.Builder{}
	}
	for _, sg := range segs {
		if sg.Reasoning != reasoning {
			flush()
			reasoning = sg.Reasoning
		}
		cur.Write(sg.Text)
	}
	flush()
	return blocks
}
