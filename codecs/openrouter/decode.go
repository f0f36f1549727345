package openrouter

import (
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/chatstream"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
)

// Decode reads a whole chat completion body: choices[0].message with its
// reasoning_details (or, when there are none, the plain `reasoning` /
// `reasoning_content` string), content and tool_calls, and
// choices[0].finish_reason. An `{"error": {...}}` body returns a
// *replay.ProviderError. What the turn keeps is bounded by c.Limits.
func (c Codec) Decode(body []byte) (*replay.Turn, error) {
	var tape jsonw.Tape
	if !tape.ResetBytes(body) {
		return nil, kit.CheckBody(API, body, "a JSON chat completion body")
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, codecs.Malformed(API, -1, "", "expected a JSON object (a chat completion)")
	}
	if e := root.Get("error"); e.Exists() && e.Type != gjson.Null {
		return nil, providerError(e, root.Get("provider").String())
	}
	msg := root.Get("choices.0.message")
	if !msg.IsObject() {
		return nil, codecs.Malformed(API, -1, "/choices/0/message", "expected an OpenRouter chat completion with choices[0].message")
	}
	b := kit.NewBudget(API, c.Limits, -1)
	t, err := c.readMessage(tape.Root().Path("choices.0.message"), "/choices/0/message", &b, new(kit.Alloc))
	if err != nil {
		return nil, err
	}
	if t.Provenance.Model, err = b.Keep(-1, root.Get("model").Str); err != nil {
		return nil, err
	}
	if t.Provenance.Upstream, err = b.Keep(-1, root.Get("provider").Str); err != nil {
		return nil, err
	}
	if fr := root.Get("choices.0.finish_reason"); fr.Type == gjson.String {
		if t.FinishReason, err = b.Keep(-1, fr.Str); err != nil {
			return nil, err
		}
		if fr.Str == "error" {
			t.Complete = false
			t.MarkUnfinished()
		}
	}
	if u := root.Get("usage"); u.IsObject() {
		if err := b.Item(-1, len(u.Raw), len(u.Raw)); err != nil {
			return nil, err
		}
		t.Usage = []byte(u.Raw)
	}
	return t, nil
}

// readMessage reads an assistant message (of a response body, or of a
// request; on the tape of its text) at ptr into a complete turn, within
// the budget: its reasoning_details (else the plain reasoning string),
// content and tool calls. The turn, its blocks and strings come from al;
// the turn does not alias msg.
func (c Codec) readMessage(msg jsonw.Val, ptr string, b *kit.Budget, al *kit.Alloc) (*replay.Turn, error) {
	return c.readMessageIn(msg, ptr, b, al, false)
}

// readRequestMessage reads an assistant message of a request: as
// readMessage, but a reasoning detail that lost what it carries (a
// reasoning.encrypted without its data) is read as the damaged item it is,
// unfinished and so never replayable, rather than refusing the whole
// body, so that the audit reports it and repair can put back its capture.
func (c Codec) readRequestMessage(msg jsonw.Val, ptr string, b *kit.Budget, al *kit.Alloc) (*replay.Turn, error) {
	return c.readMessageIn(msg, ptr, b, al, true)
}

func (c Codec) readMessageIn(msg jsonw.Val, ptr string, b *kit.Budget, al *kit.Alloc, request bool) (*replay.Turn, error) {
	t := al.Turn()
	*t = replay.Turn{Provenance: replay.Provenance{API: API, Provider: c.provider()}, Complete: true}
	details, content, tcs := msg.Get("reasoning_details"), msg.Get("content"), msg.Get("tool_calls")
	t.Blocks = al.Blocks(max(details.Len(), 1) + max(content.Len(), 1) + 2*tcs.Len())
	if details.IsArray() && details.Len() > 0 {
		var err error
		details.ForEach(func(i int, _ string, d jsonw.Val) bool {
			var it replay.ReasoningItem
			if err = exactDetail(d.Raw(), ptr, i); err != nil {
				return false
			}
			raw, lost := d.Raw(), false
			if request && d.Get("type").Is(string(replay.KindEncrypted)) && !d.Get("data").Exists() {
				raw, lost = raw[:strings.LastIndexByte(raw, '}')]+`,"data":""}`, true
			}
			if !lost {
				if x, ok := quickDetail(d, al); ok {
					it, err = x, nil
					err = b.Add(t, it, len(d.Raw()))
					return err == nil
				}
			}
			if it, err = parseDetailAt(raw, ptr, i); err == nil {
				it.Meta().Unfinished = lost
				err = b.Add(t, it, len(d.Raw()))
			}
			return err == nil
		})
		if err != nil {
			return nil, withAPI(err)
		}
	} else if r := plainReasoning(msg); r.Exists() {
		x := al.ReasoningText()
		*x = replay.ReasoningText{Text: al.Value(r)}
		if err := b.Add(t, x, len(x.Text)); err != nil {
			return nil, err
		}
	}
	if err := readContent(content, b, t, al); err != nil {
		return nil, err
	}
	var err error
	tcs.Each(func(k int, tc jsonw.Val) bool {
		if !tc.IsObject() {
			err = codecs.Malformed(API, -1, ptr+"/tool_calls/"+strconv.Itoa(k), "expected a tool call object")
			return false
		}
		id, name := tc.Get("id"), tc.Path("function.name")
		loc := chatstream.Loc{Base: ptr, List: "tool_calls", K: k}
		if err = chatstream.ExactAt(API, id.Raw(), loc.With("id"), "a tool call id"); err != nil {
			return false
		}
		if err = chatstream.ExactAt(API, name.Raw(), loc.With("function/name"), "a tool call name"); err != nil {
			return false
		}
		key, sig, signed, e := chatstream.RawSignature(API, -1, tc.Raw(), loc)
		if err = e; err != nil {
			return false
		}
		known := toolCallKnown
		if signed {
			it := chatstream.SignatureItem(jsonw.Unquote(sig), al.Value(id), key)
			if err = b.Add(t, it, len(it.Data)+len(it.ID.Value())); err != nil {
				return false
			}
			known = append(known[:len(known):len(known)], key)
		}
		call := al.ToolCall()
		*call = replay.ToolCall{
			ID:        al.Value(id),
			Name:      al.Value(name),
			Arguments: al.Value(tc.Path("function.arguments")),
			Extra:     al.Extra(tc, known...),
		}
		err = b.Add(t, call, len(call.ID)+len(call.Name)+len(call.Arguments)+len(call.Extra))
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if len(t.Blocks) == 0 {
		t.Blocks = nil
	}
	return t, nil
}

// readContent adds the visible text of content: a string, or the text
// parts of an array.
func readContent(content jsonw.Val, b *kit.Budget, t *replay.Turn, al *kit.Alloc) error {
	text := func(v jsonw.Val) error {
		x := al.Text()
		*x = replay.Text{Text: al.Value(v)}
		return b.Add(t, x, len(x.Text))
	}
	switch {
	case content.IsString() && len(content.Raw()) > 2:
		return text(content)
	case content.IsArray():
		var err error
		content.ForEach(func(_ int, _ string, part jsonw.Val) bool {
			if part.Get("type").Is("text") {
				err = text(part.Get("text"))
			}
			return err == nil
		})
		return err
	}
	return nil
}

// plainReasoning returns the message's plain reasoning string: a
// non-empty `reasoning`, else a non-empty `reasoning_content` (absent when
// there is none).
func plainReasoning(msg jsonw.Val) jsonw.Val {
	if r := msg.Get("reasoning"); r.IsString() && len(r.Raw()) > 2 {
		return r
	}
	if r := msg.Get("reasoning_content"); r.IsString() && len(r.Raw()) > 2 {
		return r
	}
	return jsonw.Val{}
}

func (c Codec) provider() string {
	if c.Provider != "" {
		return c.Provider
	}
	return "openrouter"
}

// toolCallKnown lists the tool call members the decoder reads itself.
var toolCallKnown = []string{"index", "id", "type", "function"}

// providerError reads an OpenRouter error object.
func providerError(e gjson.Result, provider string) *replay.ProviderError {
	pe := &replay.ProviderError{API: API, Message: kit.Clone(e.Get("message").String()), Provider: kit.Clone(provider)}
	if code := e.Get("code"); code.Exists() && code.Type != gjson.Null {
		pe.Code = kit.Clone(code.String())
		if code.Type == gjson.Number {
			if n := int(code.Int()); n >= 100 && n <= 599 {
				pe.Status = n
			}
		}
	}
	pe.Type = kit.Clone(e.Get("type").String())
	if md := e.Get("metadata"); md.IsObject() {
		if raw := md.Get("raw"); raw.Exists() {
			pe.Raw = kit.Clone(raw.String())
		}
		if pn := md.Get("provider_name"); pn.Type == gjson.String {
			pe.Provider = kit.Clone(pn.Str)
		}
	}
	return pe
}

// exactDetail refuses a reasoning detail (raw JSON, reasoning_details[i]
// of the message at ptr) whose bytes must stay exact but hold a lone
// surrogate escape: its id, format, signature or data, and its text when
// it carries a signature. The stream decoder refuses the same details (see
// package chatstream).
func exactDetail(raw, ptr string, i int) error {
	loc := chatstream.Loc{Base: ptr, List: "reasoning_details", K: i}
	var dv [8]string // in detailKnown order
	if !jsonw.RawMembers(raw, detailKnown, dv[:]) {
		return nil // not an object: parseDetail says so
	}
	for _, m := range [...]struct {
		v, name, what string
	}{{dv[5], "id", "an item id"}, {dv[6], "format", "a format"}, {dv[4], "signature", "a signature"},
		{dv[3], "data", "an encrypted blob"}} {
		if err := chatstream.ExactAt(API, m.v, loc.With(m.name), m.what); err != nil {
			return err
		}
	}
	if isString(dv[4]) && len(dv[4]) > 2 {
		return chatstream.ExactAt(API, dv[1], loc.With("text"), "signed reasoning text")
	}
	return nil
}

// quickDetail reads the common reasoning detail, a reasoning.text whose
// members are type, text, signature, format and id (strings, with no lone
// surrogate escape) and index (up to nine digits), on the tape, into al,
// as parseDetail reads it; ok is false for any other detail, which
// parseDetail reads (and refuses where it must).
func quickDetail(d jsonw.Val, al *kit.Alloc) (it *replay.ReasoningText, ok bool) {
	if !d.IsObject() || !d.Get("type").Is(string(replay.KindText)) {
		return nil, false
	}
	var text, sig, format, id jsonw.Val
	var index int
	ok = true
	d.ForEach(func(_ int, name string, v jsonw.Val) bool {
		str := func(dst *jsonw.Val) {
			*dst = v
			ok = v.IsString() && !jsonw.Lone(v.Raw())
		}
		switch name {
		case `"type"`:
		case `"text"`:
			str(&text)
		case `"signature"`:
			str(&sig)
		case `"format"`:
			str(&format)
		case `"id"`:
			str(&id)
		case `"index"`:
			raw := v.Raw()
			ok = len(raw) > 0 && len(raw) <= 9 && strings.Trim(raw, "0123456789") == ""
			if ok {
				index, _ = strconv.Atoi(raw)
			}
		default:
			ok = false
		}
		return ok
	})
	if !ok || !text.Exists() {
		return nil, false
	}
	hasIndex := d.Get("index").Exists()
	it = al.ReasoningText()
	*it = replay.ReasoningText{Text: al.Value(text)}
	it.Format = replay.Format(al.Value(format))
	if id.Exists() {
		it.ID = replay.Some(al.Value(id))
	}
	if hasIndex {
		it.Index = replay.Some(index)
	}
	if sig.Exists() {
		it.Signature = replay.Some(al.Value(sig))
	}
	return it, true
}

// parseDetail reads one reasoning_details entry (raw JSON) located at ptr.
func parseDetail(raw, ptr string) (replay.ReasoningItem, error) { return parseDetailAt(raw, ptr, -1) }

// parseDetailAt is parseDetail for reasoning_details[i] of the message at
// ptr (i -1: the entry at ptr), its pointer built only for an error.
func parseDetailAt(raw, ptr string, i int) (replay.ReasoningItem, error) {
	it, err := replay.UnmarshalItemWire([]byte(raw))
	if e, ok := err.(*replay.Error); ok {
		c := *e
		if i >= 0 {
			ptr += "/reasoning_details/" + strconv.Itoa(i)
		}
		c.Pointer = ptr + e.Pointer
		return nil, &c
	}
	return it, err
}

func withAPI(err error) error {
	if e, ok := err.(*replay.Error); ok {
		c := *e
		c.API = API
		return &c
	}
	return err
}
