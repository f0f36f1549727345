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
	if err := kit.CheckBody(API, body, "a JSON chat completion body"); err != nil {
		return nil, err
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
	t, err := c.readMessage(msg, "/choices/0/message", &b)
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
// request) at ptr into a complete turn, within the budget: its
// reasoning_details (else the plain reasoning string), content and tool
// calls. The turn does not alias msg.
func (c Codec) readMessage(msg gjson.Result, ptr string, b *kit.Budget) (*replay.Turn, error) {
	return c.readMessageIn(msg, ptr, b, false)
}

// readRequestMessage reads an assistant message of a request: as
// readMessage, but a reasoning detail that lost what it carries (a
// reasoning.encrypted without its data) is read as the damaged item it is,
// unfinished and so never replayable, rather than refusing the whole
// body, so that the audit reports it and repair can put back its capture.
func (c Codec) readRequestMessage(msg gjson.Result, ptr string, b *kit.Budget) (*replay.Turn, error) {
	return c.readMessageIn(msg, ptr, b, true)
}

func (c Codec) readMessageIn(msg gjson.Result, ptr string, b *kit.Budget, request bool) (*replay.Turn, error) {
	t := &replay.Turn{Provenance: replay.Provenance{API: API, Provider: c.provider()}, Complete: true}
	add := func(blk replay.Block, size int) error {
		if err := b.Block(len(t.Blocks)); err != nil {
			return err
		}
		if err := b.Item(len(t.Blocks), size, size); err != nil {
			return err
		}
		t.Blocks = append(t.Blocks, blk)
		return nil
	}
	if details := msg.Get("reasoning_details"); details.IsArray() && details.Get("0").Exists() {
		var err error
		i := 0
		details.ForEach(func(_, d gjson.Result) bool {
			var it replay.ReasoningItem
			at := ptr + "/reasoning_details/" + strconv.Itoa(i)
			if err = exactDetail(d.Raw, at); err != nil {
				return false
			}
			raw, lost := d.Raw, false
			if request && d.Get("type").Str == string(replay.KindEncrypted) && !d.Get("data").Exists() {
				raw, lost = raw[:strings.LastIndexByte(raw, '}')]+`,"data":""}`, true
			}
			if it, err = parseDetail(raw, at); err == nil {
				it.Meta().Unfinished = lost
				err = add(it, len(d.Raw))
			}
			i++
			return err == nil
		})
		if err != nil {
			return nil, withAPI(err)
		}
	} else if r := plainReasoning(msg); r != "" {
		if err := add(&replay.ReasoningText{Text: kit.Clone(r)}, len(r)); err != nil {
			return nil, err
		}
	}
	if err := readContent(msg.Get("content"), add); err != nil {
		return nil, err
	}
	var err error
	k := -1
	msg.Get("tool_calls").ForEach(func(_, tc gjson.Result) bool {
		k++
		at := ptr + "/tool_calls/" + strconv.Itoa(k)
		if !tc.IsObject() {
			err = codecs.Malformed(API, -1, at, "expected a tool call object")
			return false
		}
		if err = chatstream.ExactRaw(API, tc.Get("id").Raw, at+"/id", "a tool call id"); err != nil {
			return false
		}
		if err = chatstream.ExactRaw(API, tc.Get("function.name").Raw, at+"/function/name", "a tool call name"); err != nil {
			return false
		}
		key, sig, signed, e := chatstream.RawSignature(API, -1, tc.Raw, chatstream.Loc{Base: at})
		if err = e; err != nil {
			return false
		}
		known := toolCallKnown
		if signed {
			it := chatstream.SignatureItem(jsonw.Unquote(sig), kit.Clone(tc.Get("id").Str), key)
			if err = add(it, len(it.Data)+len(it.ID.Value())); err != nil {
				return false
			}
			known = append(known[:len(known):len(known)], key)
		}
		call := &replay.ToolCall{
			ID:        kit.Clone(tc.Get("id").Str),
			Name:      kit.Clone(tc.Get("function.name").Str),
			Arguments: kit.Clone(tc.Get("function.arguments").Str),
			Extra:     jsonw.ExtraMembers(tc.Raw, known...),
		}
		err = add(call, len(call.ID)+len(call.Name)+len(call.Arguments)+len(call.Extra))
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// readContent adds the visible text of content: a string, or the text
// parts of an array.
func readContent(content gjson.Result, add func(replay.Block, int) error) error {
	switch {
	case content.Type == gjson.String && content.Str != "":
		return add(&replay.Text{Text: kit.Clone(content.Str)}, len(content.Str))
	case content.IsArray():
		var err error
		content.ForEach(func(_, part gjson.Result) bool {
			if part.Get("type").Str == "text" {
				s := part.Get("text").Str
				err = add(&replay.Text{Text: kit.Clone(s)}, len(s))
			}
			return err == nil
		})
		return err
	}
	return nil
}

func plainReasoning(msg gjson.Result) string {
	if r := msg.Get("reasoning"); r.Type == gjson.String && r.Str != "" {
		return r.Str
	}
	if r := msg.Get("reasoning_content"); r.Type == gjson.String {
		return r.Str
	}
	return ""
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

// exactDetail refuses a reasoning detail (raw JSON, at ptr) whose bytes
// must stay exact but hold a lone surrogate escape: its id, format,
// signature or data, and its text when it carries a signature. The stream
// decoder refuses the same details (see package chatstream).
func exactDetail(raw, ptr string) error {
	var dv [8]string // in detailKnown order
	if !jsonw.RawMembers(raw, detailKnown, dv[:]) {
		return nil // not an object: parseDetail says so
	}
	for _, m := range [...]struct {
		v, name, what string
	}{{dv[5], "id", "an item id"}, {dv[6], "format", "a format"}, {dv[4], "signature", "a signature"},
		{dv[3], "data", "an encrypted blob"}} {
		if err := chatstream.ExactRaw(API, m.v, ptr+"/"+m.name, m.what); err != nil {
			return err
		}
	}
	if isString(dv[4]) && len(dv[4]) > 2 {
		return chatstream.ExactRaw(API, dv[1], ptr+"/text", "signed reasoning text")
	}
	return nil
}

// parseDetail reads one reasoning_details entry (raw JSON) located at ptr.
func parseDetail(raw, ptr string) (replay.ReasoningItem, error) {
	it, err := replay.UnmarshalItemWire([]byte(raw))
	if e, ok := err.(*replay.Error); ok {
		c := *e
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
