package bedrock

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/think"
	"github.com/tidwall/gjson"
)

// Decode reads a whole Converse response body. An error body
// (`{"message":...}` without `output`) returns a *replay.ProviderError.
func (c Codec) Decode(body []byte) (*replay.Turn, error) {
	if !jsonw.ValidBytes(body) {
		return nil, codecs.Malformed(API, -1, "", "expected a JSON Converse response")
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, codecs.Malformed(API, -1, "", "expected a JSON object")
	}
	out := root.Get("output")
	if !out.Exists() {
		if msg := firstOf(root, "message", "Message"); msg.Type == gjson.String {
			return nil, &replay.ProviderError{API: API, Type: root.Get("__type").String(), Message: msg.String()}
		}
		return nil, codecs.Malformed(API, -1, "/output", "expected an output member")
	}
	content := out.Get("message.content")
	if !content.IsArray() {
		return nil, codecs.Malformed(API, -1, "/output/message/content", "expected an array")
	}
	t := &replay.Turn{Provenance: c.provenance(), Complete: true}
	r := c.reader()
	if err := r.content(t, content, "/output/message/content"); err != nil {
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

// reader reads Converse content blocks, of a response's output message or
// of a request's assistant message, within one budget.
type reader struct {
	c Codec
	b kit.Budget
	// cut marks what a cut-off message lacks (a Claude reasoningText
	// without its signature, a toolUse without its input) as unfinished:
	// set for the last assistant message of a request.
	cut bool
	// request is set for a request's assistant messages: a reasoningText
	// whose text is null (which Bedrock refuses with a validation error) is
	// kept verbatim as another reasoningContent shape, for the audit to
	// report, instead of stopping the read; a reasoningContent block that
	// lost everything it carried is a damaged reasoning item, not a block
	// of another shape.
	request bool
}

func (c Codec) reader() *reader {
	return &reader{c: c, b: kit.NewBudget(API, c.Limits, -1)}
}

// content appends the blocks of the content array arr (at JSON Pointer
// base) to t.
func (r *reader) content(t *replay.Turn, arr gjson.Result, base string) error {
	var err error
	i := 0
	arr.ForEach(func(_, b gjson.Result) bool {
		err = r.element(t, b, i, base+"/"+strconv.Itoa(i))
		i++
		return err == nil
	})
	return err
}

// element appends the block (or, for text split at <think> tags, the
// blocks) of content element i.
func (r *reader) element(t *replay.Turn, b gjson.Result, i int, ptr string) error {
	pos := len(t.Blocks)
	blk, err := r.block(b, i, pos, ptr)
	if err != nil || blk == nil {
		return err
	}
	if x, ok := blk.(*replay.Text); ok && splitsTags(r.c.Model, r.c.KeepTags) {
		return r.appendSplit(t, x.Text, i)
	}
	if err := r.b.Block(pos); err != nil {
		return err
	}
	t.Blocks = append(t.Blocks, blk)
	return nil
}

// block reads one content block, to be placed at pos. It returns nil for
// an empty text block.
func (r *reader) block(b gjson.Result, i, pos int, ptr string) (replay.Block, error) {
	if !b.IsObject() {
		return nil, codecs.Malformed(API, -1, ptr, "expected a content block object")
	}
	if rc := b.Get("reasoningContent"); rc.Exists() {
		return r.reasoning(b, rc, i, pos, ptr)
	}
	if x := b.Get("text"); x.Exists() {
		if x.Type != gjson.String {
			return nil, codecs.Malformed(API, -1, ptr+"/text", "expected a string")
		}
		if x.Str == "" {
			return nil, nil
		}
		text, err := r.b.Keep(pos, x.Str)
		return &replay.Text{Text: text}, err
	}
	if tu := b.Get("toolUse"); tu.Exists() {
		return r.toolUse(tu, pos, ptr+"/toolUse")
	}
	kind := "content"
	b.ForEach(func(k, _ gjson.Result) bool { kind = k.String(); return false })
	nat := &replay.Native{Kind: kit.Clone(kind)}
	var err error
	nat.Raw, err = r.raw(pos, b.Raw)
	return nat, err
}

// toolUse reads a toolUse block. Its input is kept as its JSON text; a
// missing input is `{}`, or, in a cut message, an unfinished call.
func (r *reader) toolUse(tu gjson.Result, pos int, ptr string) (replay.Block, error) {
	if !tu.IsObject() {
		return nil, codecs.Malformed(API, -1, ptr, "expected an object")
	}
	id, name := tu.Get("toolUseId"), tu.Get("name")
	if id.Type != gjson.String || name.Type != gjson.String {
		return nil, codecs.Malformed(API, -1, ptr, "expected string toolUseId and name")
	}
	tc := &replay.ToolCall{Arguments: "{}"}
	in := tu.Get("input")
	if in.Exists() {
		tc.Arguments = in.Raw
	} else if r.cut {
		tc.Arguments, tc.Unfinished = "", true
	}
	var err error
	for _, f := range []struct {
		dst *string
		s   string
	}{{&tc.ID, id.Str}, {&tc.Name, name.Str}, {&tc.Arguments, tc.Arguments}} {
		if *f.dst, err = r.b.Keep(pos, f.s); err != nil {
			return nil, err
		}
	}
	tc.Extra, err = r.extra(pos, tu, "toolUseId", "name", "input")
	return tc, err
}

func (r *reader) reasoning(b, rc gjson.Result, i, pos int, ptr string) (replay.Block, error) {
	ptr += "/reasoningContent"
	rt, rd := rc.Get("reasoningText"), rc.Get("redactedContent")
	switch {
	case rt.IsObject() && !rd.Exists() && !(r.request && rt.Get("text").Type == gjson.Null):
		return r.reasoningText(rt, i, pos, ptr+"/reasoningText")
	case rd.Type == gjson.String && !rt.Exists():
		if jsonw.Lone(rd.Raw) {
			return nil, codecs.Malformed(API, -1, ptr+"/redactedContent", "a lone surrogate escape would alter the minted bytes")
		}
		data, err := r.b.Keep(pos, rd.Str)
		if err != nil {
			return nil, err
		}
		it := &replay.Encrypted{Data: data}
		it.Format = formatFor(r.c.Model, false)
		it.Index = replay.Some(i)
		return it, nil
	}
	if r.request && emptyObject(rc) {
		// An emptied block (its redactedContent deleted): what was
		// there is gone; the item is unfinished, never replayable.
		it := &replay.Encrypted{}
		it.Unfinished = true
		it.Format = formatFor(r.c.Model, false)
		it.Index = replay.Some(i)
		return it, nil
	}
	// Another shape: keep the whole content block verbatim, as a native
	// element of this API (a document reads it back; only Converse gets it).
	nat := &replay.Native{Kind: "reasoningContent"}
	var err error
	nat.Raw, err = r.raw(pos, b.Raw)
	return nat, err
}

// emptyObject reports whether v is an object without members.
func emptyObject(v gjson.Result) bool {
	empty := v.IsObject()
	v.ForEach(func(_, _ gjson.Result) bool { empty = false; return false })
	return empty
}

// reasoningText reads {text, signature?}. In a cut message, a Claude
// reasoningText without its signature is unfinished.
func (r *reader) reasoningText(rt gjson.Result, i, pos int, ptr string) (replay.Block, error) {
	text := rt.Get("text")
	if text.Type != gjson.String {
		return nil, codecs.Malformed(API, -1, ptr+"/text", "expected a string")
	}
	it := &replay.ReasoningText{}
	var err error
	if it.Text, err = r.b.Keep(pos, text.Str); err != nil {
		return nil, err
	}
	switch s := rt.Get("signature"); {
	case s.Type == gjson.String:
		if jsonw.Lone(s.Raw) {
			return nil, codecs.Malformed(API, -1, ptr+"/signature", "a lone surrogate escape would alter the signed bytes")
		}
		sig, err := r.b.Keep(pos, s.Str)
		if err != nil {
			return nil, err
		}
		it.Signature = replay.Some(sig)
	case s.Exists() && s.Type == gjson.Null:
		it.Signature = replay.NullOf[string]()
	case s.Exists():
		return nil, codecs.Malformed(API, -1, ptr+"/signature", "expected a string")
	case r.cut && isClaude(r.c.Model):
		it.Unfinished = true
	}
	if it.Signature.IsPresent() && jsonw.Lone(text.Raw) {
		return nil, codecs.Malformed(API, -1, ptr+"/text", "a lone surrogate escape would alter the signed text")
	}
	it.Format = formatFor(r.c.Model, it.Signed())
	it.Index = replay.Some(i)
	it.Extra, err = r.extra(pos, rt, "text", "signature")
	return it, err
}

// extra returns the members of obj not in known, as one JSON object in
// source order (a repeated name kept once), or nil, within the budget.
func (r *reader) extra(pos int, obj gjson.Result, known ...string) (json.RawMessage, error) {
	x := jsonw.ExtraMembers(obj.Raw, known...)
	return x, r.b.Item(pos, len(x), len(x))
}

// raw copies a JSON text out of the input, within the budget.
func (r *reader) raw(pos int, s string) (json.RawMessage, error) {
	if err := r.b.Item(pos, len(s), len(s)); err != nil {
		return nil, err
	}
	return raw(s), nil
}

// extra returns the members of obj not in known, as one JSON object in
// source order (a repeated name kept once), or nil.
func extra(obj gjson.Result, known ...string) json.RawMessage {
	return jsonw.ExtraMembers(obj.Raw, known...)
}

func clone(s string) string { return kit.Clone(s) }

// raw copies a JSON text out of the input.
func raw(s string) json.RawMessage { return json.RawMessage(append([]byte(nil), s...)) }

// appendSplit appends text split at <think>-style tags: visible runs as
// text blocks, tag-delimited runs as reasoning items of the model's
// format. The text was counted once already; each run is a block.
func (r *reader) appendSplit(t *replay.Turn, text string, i int) error {
	var sp think.Splitter
	segs := sp.Close(sp.WriteString(nil, text))
	var cur strings.Builder
	reasoning := false
	flush := func() error {
		if cur.Len() == 0 {
			return nil
		}
		if err := r.b.Block(len(t.Blocks)); err != nil {
			return err
		}
		if reasoning {
			it := &replay.ReasoningText{Text: cur.String()}
			it.Format, it.Index = formatFor(r.c.Model, false), replay.Some(i)
			t.Blocks = append(t.Blocks, it)
		} else {
			t.Blocks = append(t.Blocks, &replay.Text{Text: cur.String()})
		}
		cur = strings.Builder{}
		return nil
	}
	for _, sg := range segs {
		if sg.Reasoning != reasoning {
			if err := flush(); err != nil {
				return err
			}
			reasoning = sg.Reasoning
		}
		cur.Write(sg.Text)
	}
	return flush()
}
