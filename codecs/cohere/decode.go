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
	if !jsonw.ValidBytes(body) {
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
	r := messageReader{t: t, bud: kit.NewBudget(API, c.Limits, -1), ptr: "/message"}
	if err := r.message(msg); err != nil {
		return nil, err
	}
	var err error
	if fr := root.Get("finish_reason"); fr.Type == gjson.String {
		if t.FinishReason, err = r.keep(fr.Str); err != nil {
			return nil, err
		}
	}
	if u := root.Get("usage"); u.IsObject() {
		us, err := r.keep(u.Raw)
		if err != nil {
			return nil, err
		}
		t.Usage = json.RawMessage(us)
	}
	return t, nil
}

// messageReader reads a v2 chat assistant message (a response's
// `message`, or an assistant element of a request's `messages`) into a
// turn, keeping every string within the budget.
type messageReader struct {
	t   *replay.Turn
	bud kit.Budget
	ptr string // JSON Pointer of the message
	// request says the message is a request's: a tool call cut short (no
	// function name, no arguments) is kept unfinished and sets cut,
	// instead of being malformed input.
	request bool
	cut     bool
}

// message reads the members of msg in the order the turn keeps them:
// content, tool plan, tool calls, citations.
func (r *messageReader) message(msg gjson.Result) error {
	if err := r.content(msg.Get("content")); err != nil {
		return err
	}
	if tp := msg.Get("tool_plan"); tp.Type == gjson.String && tp.Str != "" {
		if err := r.native("tool_plan", tp.Raw); err != nil {
			return err
		}
	}
	if err := r.toolCalls(msg.Get("tool_calls")); err != nil {
		return err
	}
	if cs := msg.Get("citations"); cs.IsArray() && len(cs.Array()) > 0 {
		return r.native("citations", cs.Raw)
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

// keep copies s, a string of the next block, within the budget.
func (r *messageReader) keep(s string) (string, error) {
	return r.bud.Keep(len(r.t.Blocks), s)
}

// native adds a block kept verbatim.
func (r *messageReader) native(kind, rawJSON string) error {
	s, err := r.keep(rawJSON)
	if err != nil {
		return err
	}
	return r.add(&replay.Native{Kind: kind, Raw: json.RawMessage(s)})
}

// content reads `content`: an array of blocks, or a string.
func (r *messageReader) content(content gjson.Result) error {
	switch {
	case content.IsArray():
		var err error
		i := 0
		content.ForEach(func(_, b gjson.Result) bool {
			err = r.block(b, r.ptr+"/content/"+strconv.Itoa(i))
			i++
			return err == nil
		})
		return err
	case content.Type == gjson.String:
		if content.Str == "" {
			return nil
		}
		s, err := r.keep(content.Str)
		if err != nil {
			return err
		}
		return r.add(&replay.Text{Text: s})
	case content.Exists() && content.Type != gjson.Null:
		return codecs.Malformed(API, -1, r.ptr+"/content", "expected an array")
	}
	return nil
}

// block reads one content block: thinking, text, or another kept verbatim.
func (r *messageReader) block(b gjson.Result, ptr string) error {
	if !b.IsObject() {
		return codecs.Malformed(API, -1, ptr, "expected a content block object")
	}
	switch kind := b.Get("type").String(); kind {
	case "thinking", "text":
		x := b.Get(kind)
		if x.Type != gjson.String {
			return codecs.Malformed(API, -1, ptr+"/"+kind, "expected a string")
		}
		if kind == "text" && x.Str == "" {
			return nil
		}
		s, err := r.keep(x.Str)
		if err != nil {
			return err
		}
		if kind == "text" {
			return r.add(&replay.Text{Text: s})
		}
		it := &replay.ReasoningText{Text: s}
		it.Format = formats.Cohere
		it.Extra = extra(b, "type", "thinking")
		if err := r.bud.Item(len(r.t.Blocks), len(it.Extra), len(it.Extra)); err != nil {
			return err
		}
		return r.add(it)
	case "":
		return r.native("content", b.Raw)
	default:
		return r.native(kit.Clone(kind), b.Raw)
	}
}

// toolCalls reads `tool_calls[] {id, type, function {name, arguments}}`.
func (r *messageReader) toolCalls(tcs gjson.Result) error {
	if !tcs.IsArray() {
		return nil
	}
	var err error
	i := 0
	tcs.ForEach(func(_, tc gjson.Result) bool {
		err = r.toolCall(tc, r.ptr+"/tool_calls/"+strconv.Itoa(i))
		i++
		return err == nil
	})
	return err
}

// toolCall reads one tool call. The arguments are a string holding JSON
// (an object is taken as its JSON text).
func (r *messageReader) toolCall(tc gjson.Result, ptr string) error {
	name := tc.Get("function.name")
	args := tc.Get("function.arguments")
	cut := !tc.IsObject() || name.Type != gjson.String || !(args.Type == gjson.String || args.IsObject())
	if cut && !r.request && (!tc.IsObject() || name.Type != gjson.String) {
		return codecs.Malformed(API, -1, ptr, "expected a tool call with a function name")
	}
	a := args.Raw
	if args.Type == gjson.String {
		a = args.Str
	} else if !args.IsObject() {
		a = ""
	}
	c := &replay.ToolCall{Unfinished: cut && r.request}
	var err error
	if c.ID, err = r.keep(tc.Get("id").String()); err != nil {
		return err
	}
	if c.Name, err = r.keep(name.String()); err != nil {
		return err
	}
	if c.Arguments, err = r.keep(a); err != nil {
		return err
	}
	r.cut = r.cut || c.Unfinished
	return r.add(c)
}

// extra returns the members of obj not in known, as one JSON object in
// source order (a repeated name kept once), or nil.
func extra(obj gjson.Result, known ...string) json.RawMessage {
	return jsonw.ExtraMembers(obj.Raw, known...)
}

// quoted returns s as a JSON string literal.
func quoted(s string) json.RawMessage { return jsonw.String(nil, s) }
