package replay

import (
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"
)

// RequestDecoder is implemented by a codec that can read the assistant
// turns out of a native request body of its API, for [AuditRequest].
// Codecs whose requests are not chat-completions shaped implement it.
type RequestDecoder interface {
	// DecodeRequest returns the assistant turns of body in order, with
	// History.Request = body and History.Pointers = each turn's element,
	// and what the body says about the target (Model, Tools, Store,
	// Thinking; API is the codec's). A body of another shape returns an
	// error wrapping [ErrMalformed].
	DecodeRequest(body []byte) (History, Target, error)
}

// DecodeRequest reads the assistant turns of a native request body with
// c: by c's own [RequestDecoder] when it has one, else as a
// chat-completions request (OpenRouter and OpenAI-compatible hosts): each
// `messages[i]` with role "assistant" is decoded by c as the message of a
// response, and the target's model, tools (`tools`, or tool calls in the
// history), store and reasoning switch are read from the body.
func DecodeRequest(c ReasoningCodec, body []byte) (History, Target, error) {
	if d, ok := c.(RequestDecoder); ok {
		return d.DecodeRequest(body)
	}
	api := c.API()
	h := History{Request: body}
	if !gjson.ValidBytes(body) {
		return h, Target{}, Malformed(api, -1, "", "expected a JSON request body")
	}
	root := gjson.ParseBytes(body)
	msgs := root.Get("messages")
	if !root.IsObject() || !msgs.IsArray() {
		return h, Target{}, Malformed(api, -1, "/messages", "expected a chat request with a messages array")
	}
	t := Target{API: api, Model: root.Get("model").String(), Store: root.Get("store").Bool()}
	t.Tools = len(root.Get("tools").Array()) > 0
	t.Thinking = root.Get("reasoning").Exists() || root.Get("reasoning_effort").Exists() ||
		root.Get("thinking").Exists() || root.Get("enable_thinking").Bool()
	var err error
	i := -1
	msgs.ForEach(func(_, m gjson.Result) bool {
		i++
		if m.Get("role").String() != "assistant" {
			return true
		}
		ptr := "/messages/" + strconv.Itoa(i)
		if len(m.Get("tool_calls").Array()) > 0 {
			t.Tools = true
		}
		resp := make([]byte, 0, len(m.Raw)+80)
		resp = append(resp, `{"object":"chat.completion","choices":[{"index":0,"finish_reason":"stop","message":`...)
		resp = append(resp, m.Raw...)
		resp = append(resp, "}]"...)
		if t.Model != "" {
			resp = append(resp, `,"model":`...)
			resp = append(resp, root.Get("model").Raw...)
		}
		resp = append(resp, '}')
		var tu *Turn
		if tu, err = c.Decode(resp); err != nil {
			err = fmt.Errorf("%s: %w", ptr, err)
			return false
		}
		h.Turns = append(h.Turns, tu)
		h.Pointers = append(h.Pointers, ptr)
		return true
	})
	if err != nil {
		return h, t, err
	}
	return h, t, nil
}

// AuditRequest audits a native request body directly: it reads the
// assistant turns the body carries with the API's codec ([DecodeRequest])
// and audits them for the target the body describes, so that a request
// builder that broke what the codec encoded is caught before sending.
// Violations carry a JSON Pointer to the turn's element in the body.
// Provenance (issuer, prefix hash, platform) is not in a request body, so
// the rules that need it do not fire; audit stored turns with
// [AuditReplay] and History.Request for those.
func AuditRequest(api string, body []byte) (Report, error) { return Default.AuditRequest(api, body) }

// AuditRequest is the package-level [AuditRequest] on this registry.
func (r *Registry) AuditRequest(api string, body []byte) (Report, error) {
	model := ""
	if gjson.ValidBytes(body) {
		model = gjson.GetBytes(body, "model").String()
	}
	c, err := r.Lookup(api, "", model)
	if err != nil {
		return Report{}, err
	}
	h, t, err := DecodeRequest(c, body)
	if err != nil {
		return Report{}, err
	}
	if t.API == "" {
		t.API = c.API()
	}
	return r.AuditReplay(h, t), nil
}
