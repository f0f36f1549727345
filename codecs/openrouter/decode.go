package openrouter

import (
	"github.com/reasonreplay/replay/internal/jsonw"
	"strconv"
	"unsafe"

	"github.com/reasonreplay/replay"
	"github.com/tidwall/gjson"
)

// Decode reads a whole chat completion body: choices[0].message with its
// reasoning_details (or, when there are none, the plain `reasoning` /
// `reasoning_content` string), content and tool_calls, and
// choices[0].finish_reason. An `{"error": {...}}` body returns a
// *replay.ProviderError.
func (c Codec) Decode(body []byte) (*replay.Turn, error) {
	if !jsonw.ValidBytes(body) {
		return nil, replay.Malformed(API, -1, "", "expected a JSON chat completion body")
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, replay.Malformed(API, -1, "", "expected a JSON object (a chat completion)")
	}
	if e := root.Get("error"); e.Exists() && e.Type != gjson.Null {
		return nil, providerError(e, root.Get("provider").String())
	}
	msg := root.Get("choices.0.message")
	if !msg.IsObject() {
		return nil, replay.Malformed(API, -1, "/choices/0/message", "expected an OpenRouter chat completion with choices[0].message")
	}
	t := &replay.Turn{Provenance: c.provenance(root), Complete: true}
	if details := msg.Get("reasoning_details"); details.IsArray() && len(details.Array()) > 0 {
		var err error
		i := 0
		details.ForEach(func(_, d gjson.Result) bool {
			var it replay.ReasoningItem
			it, err = parseDetail(d.Raw, "/choices/0/message/reasoning_details/"+strconv.Itoa(i))
			if err != nil {
				return false
			}
			t.Blocks = append(t.Blocks, it)
			i++
			return true
		})
		if err != nil {
			return nil, withAPI(err)
		}
	} else if r := plainReasoning(msg); r != "" {
		t.Blocks = append(t.Blocks, &replay.ReasoningText{Text: r})
	}
	switch content := msg.Get("content"); {
	case content.Type == gjson.String && content.Str != "":
		t.Blocks = append(t.Blocks, &replay.Text{Text: content.Str})
	case content.IsArray():
		content.ForEach(func(_, part gjson.Result) bool {
			if part.Get("type").Str == "text" {
				t.Blocks = append(t.Blocks, &replay.Text{Text: part.Get("text").Str})
			}
			return true
		})
	}
	var err error
	msg.Get("tool_calls").ForEach(func(k, tc gjson.Result) bool {
		if !tc.IsObject() {
			err = replay.Malformed(API, -1, "/choices/0/message/tool_calls/"+k.Raw, "expected a tool call object")
			return false
		}
		call := &replay.ToolCall{
			ID:        tc.Get("id").Str,
			Name:      tc.Get("function.name").Str,
			Arguments: tc.Get("function.arguments").Str,
			Extra:     extraMembers(tc, toolCallKnown),
		}
		t.Blocks = append(t.Blocks, call)
		return true
	})
	if err != nil {
		return nil, err
	}
	if fr := root.Get("choices.0.finish_reason"); fr.Type == gjson.String {
		t.FinishReason = fr.Str
		if fr.Str == "error" {
			t.Complete = false
			t.MarkUnfinished()
		}
	}
	if u := root.Get("usage"); u.IsObject() {
		t.Usage = []byte(u.Raw)
	}
	// Strings taken from root alias body: copy the turn out of it.
	return detach(t), nil
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

func (c Codec) provenance(root gjson.Result) replay.Provenance {
	p := replay.Provenance{API: API, Provider: "openrouter", Model: root.Get("model").Str, Upstream: root.Get("provider").Str}
	if c.Provider != "" {
		p.Provider = c.Provider
	}
	return p
}

// toolCallKnown lists the tool call members the decoder reads itself.
var toolCallKnown = []string{"index", "id", "type", "function"}

// extraMembers returns the members of obj not in known, as one JSON object in
// source order (a repeated name kept once), or nil.
func extraMembers(obj gjson.Result, known []string) []byte {
	return jsonw.ExtraMembers(obj.Raw, known...)
}

// providerError reads an OpenRouter error object.
func providerError(e gjson.Result, provider string) *replay.ProviderError {
	pe := &replay.ProviderError{API: API, Message: e.Get("message").String(), Provider: provider}
	if code := e.Get("code"); code.Exists() && code.Type != gjson.Null {
		pe.Code = code.String()
		if code.Type == gjson.Number {
			if n := int(code.Int()); n >= 100 && n <= 599 {
				pe.Status = n
			}
		}
	}
	pe.Type = e.Get("type").String()
	if md := e.Get("metadata"); md.IsObject() {
		if raw := md.Get("raw"); raw.Exists() {
			pe.Raw = raw.String()
		}
		if pn := md.Get("provider_name"); pn.Type == gjson.String {
			pe.Provider = pn.Str
		}
	}
	return detachErr(pe)
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

// detach copies every string of t so that it no longer aliases the input.
func detach(t *replay.Turn) *replay.Turn {
	p := &t.Provenance
	p.Model, p.Upstream, p.Provider = clone(p.Model), clone(p.Upstream), clone(p.Provider)
	t.FinishReason = clone(t.FinishReason)
	for _, b := range t.Blocks {
		switch b := b.(type) {
		case *replay.ReasoningText:
			b.Text = clone(b.Text)
		case *replay.Text:
			b.Text = clone(b.Text)
		case *replay.ToolCall:
			b.ID, b.Name, b.Arguments = clone(b.ID), clone(b.Name), clone(b.Arguments)
		}
	}
	return t
}

func detachErr(e *replay.ProviderError) *replay.ProviderError {
	e.Message, e.Code, e.Type, e.Provider, e.Raw = clone(e.Message), clone(e.Code), clone(e.Type), clone(e.Provider), clone(e.Raw)
	return e
}

func clone(s string) string {
	if s == "" {
		return ""
	}
	return string(append([]byte(nil), s...))
}

// view returns b as a string without copying. The string must not outlive
// the call that b is valid in.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
