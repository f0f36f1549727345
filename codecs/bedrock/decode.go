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
	var tape jsonw.Tape
	if !tape.ResetBytes(body) {
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
	r := c.reader(new(kit.Alloc))
	if err := r.content(t, tape.Root().Path("output.message.content"), "/output/message/content"); err != nil {
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
// of a request's assistant message (on the tape of its text), within one
// budget, into memory of al.
type reader struct {
	c  Codec
	b  kit.Budget
	al *kit.Alloc
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

func (c Codec) reader(al *kit.Alloc) reader {
	return reader{c: c, b: kit.NewBudget(API, c.Limits, -1), al: al}
}

// content appends the blocks of the content array arr (at JSON Pointer
// base) to t.
func (r *reader) content(t *replay.Turn, arr jsonw.Val, base string) error {
	t.Blocks = r.al.Blocks(arr.Len())
	var err error
	arr.ForEach(func(i int, _ string, b jsonw.Val) bool {
		err = r.element(t, b, i, base)
		return err == nil
	})
	if len(t.Blocks) == 0 {
		t.Blocks = nil
	}
	return err
}

// element appends the block (or, for text split at <think> tags, the
// blocks) of content element i (of the array at base).
func (r *reader) element(t *replay.Turn, b jsonw.Val, i int, base string) error {
	pos := len(t.Blocks)
	blk, err := r.block(b, i, pos, base)
	if err != nil || blk == nil {
		return err
	}
	// A text without '<' holds no tag: the splitter would give it back
	// whole, as one visible run (TestSplitWithoutTag).
	if x, ok := blk.(*replay.Text); ok && splitsTags(r.c.Model, r.c.KeepTags) && strings.IndexByte(x.Text, '<') >= 0 {
		return r.appendSplit(t, x.Text, i)
	}
	if err := r.b.Block(pos); err != nil {
		return err
	}
	t.Blocks = append(t.Blocks, blk)
	return nil
}

// block reads one content block, element i of the array at base, to be
// placed at pos. It returns nil for an empty text block.
func (r *reader) block(b jsonw.Val, i, pos int, base string) (replay.Block, error) {
	ptr := func() string { return base + "/" + strconv.Itoa(i) } // for an error
	if !b.IsObject() {
		return nil, codecs.Malformed(API, -1, ptr(), "expected a content block object")
	}
	if rc := b.Get("reasoningContent"); rc.Exists() {
		return r.reasoning(b, rc, i, pos, ptr)
	}
	if x := b.Get("text"); x.Exists() {
		if !x.IsString() {
			return nil, codecs.Malformed(API, -1, ptr()+"/text", "expected a string")
		}
		if len(x.Raw()) == 2 {
			return nil, nil
		}
		text, err := r.al.Str(&r.b, pos, x)
		if err != nil {
			return nil, err
		}
		t := r.al.Text()
		*t = replay.Text{Text: text}
		return t, nil
	}
	if tu := b.Get("toolUse"); tu.Exists() {
		return r.toolUse(tu, pos, ptr)
	}
	kind := "content"
	b.ForEach(func(_ int, name string, _ jsonw.Val) bool { kind = r.al.Name(name); return false })
	nat := r.al.Native()
	*nat = replay.Native{Kind: kind}
	var err error
	nat.Raw, err = r.al.Bytes(&r.b, pos, b.Raw())
	return nat, err
}

// toolUse reads a toolUse block. Its input is kept as its JSON text; a
// missing input is `{}`, or, in a cut message, an unfinished call.
func (r *reader) toolUse(tu jsonw.Val, pos int, block func() string) (replay.Block, error) {
	if !tu.IsObject() {
		return nil, codecs.Malformed(API, -1, block()+"/toolUse", "expected an object")
	}
	id, name := tu.Get("toolUseId"), tu.Get("name")
	if !id.IsString() || !name.IsString() {
		return nil, codecs.Malformed(API, -1, block()+"/toolUse", "expected string toolUseId and name")
	}
	tc := r.al.ToolCall()
	*tc = replay.ToolCall{}
	args := "{}"
	in := tu.Get("input")
	if in.Exists() {
		args = in.Raw()
	} else if r.cut {
		args, tc.Unfinished = "", true
	}
	var err error
	if tc.ID, err = r.al.Str(&r.b, pos, id); err != nil {
		return nil, err
	}
	if tc.Name, err = r.al.Str(&r.b, pos, name); err != nil {
		return nil, err
	}
	if tc.Arguments, err = r.al.Raw(&r.b, pos, args); err != nil {
		return nil, err
	}
	tc.Extra, err = r.extra(pos, tu, "toolUseId", "name", "input")
	return tc, err
}

func (r *reader) reasoning(b, rc jsonw.Val, i, pos int, block func() string) (replay.Block, error) {
	ptr := func() string { return block() + "/reasoningContent" }
	rt, rd := rc.Get("reasoningText"), rc.Get("redactedContent")
	switch {
	case rt.IsObject() && !rd.Exists() && !(r.request && rt.Get("text").IsNull()):
		return r.reasoningText(rt, i, pos, ptr)
	case rd.IsString() && !rt.Exists():
		if jsonw.Lone(rd.Raw()) {
			return nil, codecs.Malformed(API, -1, ptr()+"/redactedContent", "a lone surrogate escape would alter the minted bytes")
		}
		data, err := r.al.Str(&r.b, pos, rd)
		if err != nil {
			return nil, err
		}
		it := r.al.Encrypted()
		*it = replay.Encrypted{Data: data}
		it.Format = formatFor(r.c.Model, false)
		it.Index = replay.Some(i)
		return it, nil
	}
	if r.request && rc.IsObject() && rc.Len() == 0 {
		// An emptied block (its redactedContent deleted): what was
		// there is gone; the item is unfinished, never replayable.
		it := r.al.Encrypted()
		*it = replay.Encrypted{}
		it.Unfinished = true
		it.Format = formatFor(r.c.Model, false)
		it.Index = replay.Some(i)
		return it, nil
	}
	// Another shape: keep the whole content block verbatim, as a native
	// element of this API (a document reads it back; only Converse gets it).
	nat := r.al.Native()
	*nat = replay.Native{Kind: "reasoningContent"}
	var err error
	nat.Raw, err = r.al.Bytes(&r.b, pos, b.Raw())
	return nat, err
}

// reasoningText reads {text, signature?}. In a cut message, a Claude
// reasoningText without its signature is unfinished.
func (r *reader) reasoningText(rt jsonw.Val, i, pos int, rc func() string) (replay.Block, error) {
	ptr := func() string { return rc() + "/reasoningText" }
	text := rt.Get("text")
	if !text.IsString() {
		return nil, codecs.Malformed(API, -1, ptr()+"/text", "expected a string")
	}
	it := r.al.ReasoningText()
	*it = replay.ReasoningText{}
	var err error
	if it.Text, err = r.al.Str(&r.b, pos, text); err != nil {
		return nil, err
	}
	switch s := rt.Get("signature"); {
	case s.IsString():
		if jsonw.Lone(s.Raw()) {
			return nil, codecs.Malformed(API, -1, ptr()+"/signature", "a lone surrogate escape would alter the signed bytes")
		}
		sig, err := r.al.Str(&r.b, pos, s)
		if err != nil {
			return nil, err
		}
		it.Signature = replay.Some(sig)
	case s.IsNull():
		it.Signature = replay.NullOf[string]()
	case s.Exists():
		return nil, codecs.Malformed(API, -1, ptr()+"/signature", "expected a string")
	case r.cut && isClaude(r.c.Model):
		it.Unfinished = true
	}
	if it.Signature.IsPresent() && jsonw.Lone(text.Raw()) {
		return nil, codecs.Malformed(API, -1, ptr()+"/text", "a lone surrogate escape would alter the signed text")
	}
	it.Format = formatFor(r.c.Model, it.Signed())
	it.Index = replay.Some(i)
	it.Extra, err = r.extra(pos, rt, "text", "signature")
	return it, err
}

// extra returns the members of obj not in known, as one JSON object in
// source order (a repeated name kept once), or nil, within the budget.
func (r *reader) extra(pos int, obj jsonw.Val, known ...string) (json.RawMessage, error) {
	x := r.al.Extra(obj, known...)
	return x, r.b.Item(pos, len(x), len(x))
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
