package anthropic

import (
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
)

// Decode reads a whole Messages response body (`{"type":"message",...}`).
// An error body (`{"type":"error","error":{...}}`) returns a turn carrying
// the *[replay.ProviderError] and the error itself.
func (c Codec) Decode(body []byte) (*replay.Turn, error) {
	var tape jsonw.Tape
	if !tape.ResetBytes(body) {
		return nil, bodyErr("", "expected a JSON response body")
	}
	root := tape.Root()
	if !root.IsObject() {
		return nil, bodyErr("", "expected a JSON object")
	}
	t := &replay.Turn{Provenance: replay.Provenance{API: API, Provider: c.Provider}}
	typ := root.Get("type")
	if typ.Is("error") {
		e := root.Get("error")
		pe := &replay.ProviderError{API: API, Type: strings.Clone(e.Get("type").Result().String()), Message: strings.Clone(e.Get("message").Result().String())}
		t.Error = pe
		return t, pe
	}
	if typ.Exists() && !typ.Is("message") {
		return nil, bodyErr("/type", "expected a message, got %s", typ.Raw())
	}
	if m := root.Get("model"); m.IsString() {
		t.Provenance.Model = strings.Clone(m.Str())
	}
	var err error
	if t.Transformations, err = transformations(root.Get("input_transformations").Result(), "/input_transformations"); err != nil {
		return nil, err
	}
	content := root.Get("content")
	if !content.IsArray() {
		return nil, bodyErr("/content", "expected the content array")
	}
	r := c.reader(false, nil)
	if err := r.content(t, content, "/content"); err != nil {
		return nil, err
	}
	if r := root.Get("stop_reason"); r.IsString() {
		t.FinishReason = strings.Clone(r.Str())
	}
	if u := root.Get("usage"); u.IsObject() {
		t.Usage = []byte(u.Raw())
	}
	fallback(t)
	t.Complete = true
	return t, nil
}

// transformations reads `input_transformations`: what the server did to the
// request's input (thinking dropped or let through, and why).
func transformations(v gjson.Result, ptr string) ([]replay.Transformation, error) {
	if !v.Exists() || v.Type == gjson.Null {
		return nil, nil
	}
	if !v.IsArray() {
		return nil, bodyErr(ptr, "expected an array")
	}
	var out []replay.Transformation
	var err error
	i := 0
	v.ForEach(func(_, e gjson.Result) bool {
		p := ptr + "/" + itoa(i)
		typ := e.Get("type")
		if !e.IsObject() || typ.Type != gjson.String {
			err = bodyErr(p, "expected an object with a string type")
			return false
		}
		x := replay.Transformation{Type: kit.Clone(typ.Str)}
		for _, f := range [...]struct {
			k   string
			dst *string
		}{{"reason", &x.Reason}, {"path", &x.Path}} {
			m := e.Get(f.k)
			if !m.Exists() {
				continue
			}
			if m.Type != gjson.String {
				err = bodyErr(p+"/"+f.k, "expected a string")
				return false
			}
			*f.dst = kit.Clone(m.Str)
		}
		x.Extra = jsonw.ExtraMembers(e.Raw, "type", "reason", "path")
		out = append(out, x)
		i++
		return true
	})
	return out, err
}

// fallback applies a server-side fallback to the provenance: a `fallback`
// block ({from:{model}, to:{model}}) or a usage iteration of type
// "fallback_message" names the model that served the turn and minted its
// thinking; the model requested is kept in RequestedModel.
func fallback(t *replay.Turn) {
	served := ""
	requested := ""
	for _, b := range t.Blocks {
		if n, ok := b.(*replay.Native); ok && n.Kind == "fallback" {
			fb := gjson.ParseBytes(n.Raw)
			requested, served = fb.Get("from.model").Str, fb.Get("to.model").Str
		}
	}
	if len(t.Usage) > 0 {
		gjson.GetBytes(t.Usage, "iterations").ForEach(func(_, it gjson.Result) bool {
			if it.Get("type").Str == "fallback_message" {
				if m := it.Get("model"); m.Type == gjson.String && m.Str != "" {
					served = m.Str
				}
			}
			return true
		})
	}
	if served == "" || served == t.Provenance.Model && requested == "" {
		return
	}
	if requested == "" {
		requested = t.Provenance.Model
	}
	if requested != served {
		t.Provenance.RequestedModel = strings.Clone(requested)
	}
	t.Provenance.Model = strings.Clone(served)
}

// reader reads the content blocks of a response message or of a request's
// assistant message, within one budget.
type reader struct {
	b kit.Budget
	// format is the format of the thinking blocks read ([Codec.Format]).
	format replay.Format
	// cut marks what a cut-off message lacks (a thinking block without its
	// signature, a tool_use without its input) as unfinished: set for the
	// last assistant message of a request.
	cut bool
	// request reads a request's message: a thinking or redacted block
	// missing a required member (or holding the wrong type) is read as not
	// replayable rather than refused, so that the audit reports the 400 it
	// would get (anthropic/missing-signature).
	request bool
	// at is the JSON Pointer of the message read ("" for a response body):
	// block pointers, for errors, are built from it when needed.
	at string
	// al makes the blocks and the strings kept.
	al *kit.Alloc
}

// reader returns a reader for one message; al (nil for none) makes what
// it reads.
func (c Codec) reader(cut bool, al *kit.Alloc) *reader {
	if al == nil {
		al = new(kit.Alloc)
	}
	return &reader{b: kit.NewBudget(API, c.Limits, -1), format: c.Format(), cut: cut, al: al}
}

// ptr returns the JSON Pointer of block i of the content array at base.
func (r *reader) ptr(base string, i int) string { return r.at + base + "/" + itoa(i) }

// content appends the blocks of the content array arr (at JSON Pointer
// base, under the message's) to t.
func (r *reader) content(t *replay.Turn, arr jsonw.Val, base string) error {
	if t.Blocks == nil {
		t.Blocks = r.al.Blocks(arr.Len())
	}
	var err error
	arr.ForEach(func(i int, _ string, cb jsonw.Val) bool {
		if err = r.b.Block(i); err != nil {
			return false
		}
		var b replay.Block
		if b, err = r.block(cb, i, base); err != nil {
			return false
		}
		t.Blocks = append(t.Blocks, b)
		return true
	})
	return err
}

// block reads content block i.
func (r *reader) block(cb jsonw.Val, i int, base string) (replay.Block, error) {
	typ := cb.Get("type")
	if !cb.IsObject() || !typ.IsString() {
		return nil, bodyErr(r.ptr(base, i), "expected a content block object with a string type")
	}
	kind := typ.Str()
	switch kind {
	case "thinking", "redacted_thinking", "compaction":
		if err := r.lone(cb, base, i, "thinking", "signature", "data", "content"); err != nil {
			return nil, err
		}
	}
	switch kind {
	case "thinking":
		return r.thinking(cb, i, base)
	case "redacted_thinking":
		data, err := r.str(cb, i, base, "data", !r.request)
		if err != nil {
			return nil, err
		}
		it := r.al.Encrypted()
		*it = replay.Encrypted{ItemMeta: replay.ItemMeta{Format: r.format, Index: replay.Some(i)}, Data: data}
		it.Extra, err = r.extra(cb, i, "type", "data")
		return it, err
	case "text":
		text, err := r.str(cb, i, base, "text", true)
		if err != nil {
			return nil, err
		}
		x := r.al.Text()
		*x = replay.Text{Text: text}
		x.Extra, err = r.extra(cb, i, "type", "text")
		return x, err
	case "tool_use":
		return r.toolUse(cb, i, base)
	case "compaction":
		return r.compaction(cb, i, base)
	}
	raw, err := r.al.Bytes(&r.b, i, cb.Raw())
	if err != nil {
		return nil, err
	}
	x := r.al.Native()
	*x = replay.Native{Kind: r.al.Clone(kind), Raw: raw}
	return x, nil
}

// compaction reads a compaction block: threshold compaction's
// {content} or on-demand compaction's {content, signature}, byte-exact.
func (r *reader) compaction(cb jsonw.Val, i int, base string) (replay.Block, error) {
	x := &replay.Compaction{Format: r.format}
	for _, f := range [...]struct {
		k   string
		dst *replay.Opt[string]
	}{{"content", &x.Content}, {"signature", &x.Signature}} {
		switch v := cb.Get(f.k); {
		case !v.Exists():
		case v.IsNull():
			*f.dst = replay.NullOf[string]()
		case v.IsString():
			s, err := r.al.Str(&r.b, i, v)
			if err != nil {
				return nil, err
			}
			*f.dst = replay.Some(s)
		default:
			return nil, bodyErr(r.ptr(base, i)+"/"+f.k, "expected a string")
		}
	}
	var err error
	x.Extra, err = r.extra(cb, i, "type", "content", "signature")
	return x, err
}

// thinking reads a thinking block. In a cut message, one without its
// signature is unfinished.
func (r *reader) thinking(cb jsonw.Val, i int, base string) (replay.Block, error) {
	text, err := r.str(cb, i, base, "thinking", false)
	if err != nil && !r.request {
		return nil, err
	}
	it := r.al.ReasoningText()
	*it = replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: r.format, Index: replay.Some(i)}, Text: text}
	switch sg := cb.Get("signature"); {
	case sg.IsString():
		sig, err := r.al.Str(&r.b, i, sg)
		if err != nil {
			return nil, err
		}
		it.Signature = replay.Some(sig)
	case !sg.Exists():
		if r.cut {
			it.Unfinished = true
		}
	case sg.IsNull():
		it.Signature = replay.NullOf[string]()
	default:
		if !r.request {
			return nil, bodyErr(r.ptr(base, i)+"/signature", "expected a string")
		}
	}
	it.Extra, err = r.extra(cb, i, "type", "thinking", "signature")
	return it, err
}

// toolUse reads a tool_use block; its arguments are the JSON text of
// `input`, `{}` when it is absent, or, in a cut message, an unfinished call.
func (r *reader) toolUse(cb jsonw.Val, i int, base string) (replay.Block, error) {
	id, err := r.str(cb, i, base, "id", true)
	if err != nil {
		return nil, err
	}
	name, err := r.str(cb, i, base, "name", true)
	if err != nil {
		return nil, err
	}
	tc := r.al.ToolCall()
	*tc = replay.ToolCall{ID: id, Name: name, Arguments: "{}"}
	if in := cb.Get("input"); in.Exists() {
		if tc.Arguments, err = r.al.Raw(&r.b, i, in.Raw()); err != nil {
			return nil, err
		}
	} else if r.cut {
		tc.Arguments, tc.Unfinished = "", true
	}
	tc.Extra, err = r.extra(cb, i, "type", "id", "name", "input")
	return tc, err
}

// lone refuses, in a response, a signed or opaque member of cb (those of
// names it has) whose string holds a lone surrogate escape: it names no
// character, and reading it as U+FFFD would alter the minted bytes.
// Visible text keeps its lone halves as U+FFFD.
func (r *reader) lone(cb jsonw.Val, base string, i int, names ...string) error {
	if r.request || strings.IndexByte(cb.Raw(), '\\') < 0 {
		return nil
	}
	for _, n := range names {
		if v := cb.Get(n); v.IsString() && jsonw.Lone(v.Raw()) {
			return bodyErr(r.ptr(base, i)+"/"+n, "a lone surrogate escape: it names no character, and decoding it would alter bytes that must be kept exact")
		}
	}
	return nil
}

// str reads the string member name of block i within the budget; an absent
// member is "" unless required.
func (r *reader) str(cb jsonw.Val, i int, base, name string, required bool) (string, error) {
	v := cb.Get(name)
	switch {
	case v.IsString():
		return r.al.Str(&r.b, i, v)
	case !required && !v.Exists():
		return "", nil
	case r.request && !required:
		return "", nil
	}
	return "", bodyErr(r.ptr(base, i)+"/"+name, "expected a string")
}

// extra returns the members of cb not in known (see extraMembers), counted
// against the budget.
func (r *reader) extra(cb jsonw.Val, i int, known ...string) ([]byte, error) {
	x := cb.ExtraMembers(known...)
	return x, r.b.Item(i, len(x), len(x))
}
