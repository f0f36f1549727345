package cohere

import (
	"encoding/json"
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
)

// Decode reads a whole v2 chat response. An error body (`{"message":"..."}`
// with a string message) returns a *replay.ProviderError.
func (c Codec) Decode(body []byte) (*replay.Turn, error) {
	var tape jsonw.Tape
	if !tape.ResetBytes(body) {
		return nil, codecs.Malformed(API, -1, "", "expected a JSON chat response")
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, codecs.Malformed(API, -1, "", "expected a JSON object")
	}
	msg := root.Get("message")
	if msg.Type == gjson.String {
		bud := kit.NewBudget(API, c.Limits, -1)
		m, err := bud.Keep(-1, msg.Str)
		if err != nil {
			return nil, err
		}
		return nil, &replay.ProviderError{API: API, Message: m}
	}
	if !msg.IsObject() {
		return nil, codecs.Malformed(API, -1, "/message", "expected an object")
	}
	t := &replay.Turn{Complete: true, Provenance: c.provenance()}
	r := messageReader{t: t, bud: kit.NewBudget(API, c.Limits, -1), ptr: "/message", al: new(kit.Alloc)}
	if err := r.message(tape.Root().Get("message")); err != nil {
		return nil, err
	}
	var err error
	if fr := root.Get("finish_reason"); fr.Type == gjson.String {
		if t.FinishReason, err = r.keepRaw(fr.Str); err != nil {
			return nil, err
		}
	}
	if u := root.Get("usage"); u.IsObject() {
		us, err := r.keepRaw(u.Raw)
		if err != nil {
			return nil, err
		}
		t.Usage = json.RawMessage(us)
	}
	return t, nil
}

// messageReader reads a v2 chat assistant message (a response's
// `message`, or an assistant element of a request's `messages`, on the
// tape of its text) into a turn, keeping every string within the budget,
// in memory of al.
type messageReader struct {
	t   *replay.Turn
	bud kit.Budget
	al  *kit.Alloc
	ptr string // JSON Pointer of the message
	// request says the message is a request's: a tool call cut short (no
	// function name, no arguments) is kept unfinished and sets cut,
	// instead of being malformed input.
	request bool
	cut     bool
}

// message reads the members of msg in the order the turn keeps them:
// content, tool plan, tool calls, citations.
func (r *messageReader) message(msg jsonw.Val) error {
	content, tcs := msg.Get("content"), msg.Get("tool_calls")
	r.t.Blocks = r.al.Blocks(max(content.Len(), 1) + 2 + tcs.Len())
	if err := r.message1(msg, content, tcs); err != nil {
		return err
	}
	if len(r.t.Blocks) == 0 {
		r.t.Blocks = nil
	}
	return nil
}

func (r *messageReader) message1(msg, content, tcs jsonw.Val) error {
	if err := r.content(content); err != nil {
		return err
	}
	if tp := msg.Get("tool_plan"); tp.IsString() && len(tp.Raw()) > 2 {
		if err := r.native("tool_plan", tp.Raw()); err != nil {
			return err
		}
	}
	if err := r.toolCalls(tcs); err != nil {
		return err
	}
	if cs := msg.Get("citations"); cs.IsArray() && cs.Len() > 0 {
		return r.native("citations", cs.Raw())
	}
	return nil
}

// add appends a block within the budget.
func (r *messageReader) add(b replay.Block) error {
	if err := r.bud.Block(len(r.t.Blocks)); err != nil {
		return err
	}
	r.t.Blocks = append(r.t.Blocks, b)
	return nil
}

// keep copies v as gjson's String reads it (a string's value, another
// value's text), a string of the next block, within the budget.
func (r *messageReader) keep(v jsonw.Val) (string, error) {
	if v.IsString() {
		return r.al.Str(&r.bud, len(r.t.Blocks), v)
	}
	return r.keepRaw(v.Result().String())
}

// keepRaw copies s, a string of the next block, within the budget.
func (r *messageReader) keepRaw(s string) (string, error) {
	return r.al.Raw(&r.bud, len(r.t.Blocks), s)
}

// native adds a block kept verbatim.
func (r *messageReader) native(kind, rawJSON string) error {
	s, err := r.al.Bytes(&r.bud, len(r.t.Blocks), rawJSON)
	if err != nil {
		return err
	}
	n := r.al.Native()
	*n = replay.Native{Kind: kind, Raw: s}
	return r.add(n)
}

// content reads `content`: an array of blocks, or a string.
func (r *messageReader) content(content jsonw.Val) error {
	switch {
	case content.IsArray():
		var err error
		content.ForEach(func(i int, _ string, b jsonw.Val) bool {
			err = r.block(b, i)
			return err == nil
		})
		return err
	case content.IsString():
		if len(content.Raw()) == 2 {
			return nil
		}
		s, err := r.keep(content)
		if err != nil {
			return err
		}
		x := r.al.Text()
		*x = replay.Text{Text: s}
		return r.add(x)
	case content.Exists() && !content.IsNull():
		return codecs.Malformed(API, -1, r.ptr+"/content", "expected an array")
	}
	return nil
}

// block reads content[i], one content block: thinking, text, or another
// kept verbatim.
func (r *messageReader) block(b jsonw.Val, i int) error {
	ptr := func() string { return r.ptr + "/content/" + strconv.Itoa(i) } // for an error
	if !b.IsObject() {
		return codecs.Malformed(API, -1, ptr(), "expected a content block object")
	}
	switch typ := b.Get("type"); {
	case typ.Is("thinking"), typ.Is("text"):
		kind := "text"
		if typ.Is("thinking") {
			kind = "thinking"
		}
		x := b.Get(kind)
		if !x.IsString() {
			return codecs.Malformed(API, -1, ptr()+"/"+kind, "expected a string")
		}
		if kind == "text" && len(x.Raw()) == 2 {
			return nil
		}
		s, err := r.keep(x)
		if err != nil {
			return err
		}
		if kind == "text" {
			t := r.al.Text()
			*t = replay.Text{Text: s}
			return r.add(t)
		}
		it := r.al.ReasoningText()
		*it = replay.ReasoningText{Text: s}
		it.Format = formats.Cohere
		it.Extra = r.al.Extra(b, "type", "thinking")
		if err := r.bud.Item(len(r.t.Blocks), len(it.Extra), len(it.Extra)); err != nil {
			return err
		}
		return r.add(it)
	case !typ.Exists() || typ.IsNull() || typ.Is(""):
		return r.native("content", b.Raw())
	default:
		return r.native(r.al.String(typ), b.Raw())
	}
}

// toolCalls reads `tool_calls[] {id, type, function {name, arguments}}`.
func (r *messageReader) toolCalls(tcs jsonw.Val) error {
	if !tcs.IsArray() {
		return nil
	}
	var err error
	tcs.ForEach(func(i int, _ string, tc jsonw.Val) bool {
		err = r.toolCall(tc, i)
		return err == nil
	})
	return err
}

// toolCall reads tool_calls[i]. The arguments are a string holding JSON
// (an object is taken as its JSON text).
func (r *messageReader) toolCall(tc jsonw.Val, i int) error {
	fn := tc.Get("function")
	name, args := fn.Get("name"), fn.Get("arguments")
	cut := !tc.IsObject() || !name.IsString() || !(args.IsString() || args.IsObject())
	if cut && !r.request && (!tc.IsObject() || !name.IsString()) {
		return codecs.Malformed(API, -1, r.ptr+"/tool_calls/"+strconv.Itoa(i), "expected a tool call with a function name")
	}
	c := r.al.ToolCall()
	*c = replay.ToolCall{Unfinished: cut && r.request}
	var err error
	if c.ID, err = r.keep(tc.Get("id")); err != nil {
		return err
	}
	if c.Name, err = r.keep(name); err != nil {
		return err
	}
	switch {
	case args.IsString():
		c.Arguments, err = r.keep(args)
	case args.IsObject():
		c.Arguments, err = r.keepRaw(args.Raw())
	default:
		c.Arguments, err = r.keepRaw("")
	}
	if err != nil {
		return err
	}
	r.cut = r.cut || c.Unfinished
	return r.add(c)
}

// quoted returns s as a JSON string literal.
func quoted(s string) json.RawMessage { return jsonw.String(nil, s) }
