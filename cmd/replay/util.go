package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonindent"
	"github.com/reasonreplay/replay/internal/turndoc"
	"github.com/tidwall/gjson"
)

// indent pretty-prints JSON, keeping every string's bytes.
func indent(b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		return append(b, '\n')
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

func writeJSON(w io.Writer, b []byte, compact bool) {
	if !compact {
		b = indent(b)
	} else {
		b = append(b, '\n')
	}
	w.Write(b)
}

// writeTurn writes t's document as writeJSON writes t.AppendJSON(nil),
// byte for byte, but while the document is made: indented as it is
// written, in pieces of some tens of kilobytes, never held whole. (A turn
// from a decoder is valid JSON, its raw members checked when read, so the
// fallback of indent, the compact document as it is, never applies.)
func writeTurn(w io.Writer, t *replay.Turn, compact bool) {
	out := w
	var ind *jsonindent.Writer
	if !compact {
		ind = jsonindent.NewWriter(w, "", "  ")
		out = ind
	}
	buf := make([]byte, 0, 64<<10)
	buf = turndoc.Write(t, buf, func(b []byte) []byte {
		out.Write(b)
		return b[:0]
	})
	if compact {
		w.Write(append(buf, '\n'))
		return
	}
	ind.Write(buf)
	if ind.Flush() == nil {
		w.Write([]byte{'\n'})
	}
}

// isTurnDocument reports whether data is a turn document.
func isTurnDocument(data []byte) bool {
	if !json.Valid(data) {
		return false
	}
	r := gjson.ParseBytes(data)
	return r.Get("version").Exists() && r.Get("blocks").IsArray()
}

// shape describes a JSON value by its first members, for a message.
func shape(data []byte) string {
	if !json.Valid(data) {
		return "not JSON"
	}
	r := gjson.ParseBytes(data)
	if !r.IsObject() {
		return "a JSON " + r.Type.String()
	}
	var keys []string
	r.ForEach(func(k, _ gjson.Result) bool {
		keys = append(keys, `"`+k.Str+`"`)
		return len(keys) < 4
	})
	if len(keys) == 0 {
		return "an empty object"
	}
	return "an object with " + strings.Join(keys, ", ")
}

// guess is what sniff told of an input.
type guess struct {
	api, provider, model string
	// event reports that the value is a stream event, not a whole body.
	event bool
	// announce, when set, is told the guess once the API is known.
	announce func(guess)
}

var (
	anthropicEvents = set("message_start", "content_block_start", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop", "ping")
	cohereEvents = set("message-start", "content-start", "content-delta", "content-end", "tool-plan-delta",
		"tool-call-start", "tool-call-delta", "tool-call-end", "citation-start", "citation-end", "message-end", "debug")
	converseEvents = set("messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop",
		"messageStop", "metadata", "internalServerException", "modelStreamErrorException",
		"validationException", "throttlingException", "serviceUnavailableException")
)

func set(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// sniff tells the API of a response body or of a stream's first event
// (typ is its SSE event type, or nil) from its shape, never from a model
// name alone when the shape says otherwise. It returns a zero api when it
// cannot tell.
func sniff(typ, data []byte) guess {
	if !json.Valid(data) {
		return guess{}
	}
	for _, c := range codecs.All(replay.Default) {
		if s := c.HTTP().Sniff; s != nil {
			if ok, event := s(data); ok {
				return guess{api: c.API(), event: event}
			}
		}
	}
	r := gjson.ParseBytes(data)
	t := r.Get("type").Str
	switch {
	case converseEvents[string(typ)]:
		return guess{api: "bedrock-converse", event: true}
	case anthropicEvents[string(typ)]:
		return guess{api: "anthropic", event: true}
	case r.Get("chunk.bytes").Exists():
		return guess{api: "anthropic", provider: "bedrock", event: true}
	case anthropicEvents[t]:
		return guess{api: "anthropic", model: r.Get("message.model").Str, event: true}
	case t == "message" && r.Get("content").IsArray():
		return guess{api: "anthropic", model: r.Get("model").Str}
	case t == "error" && r.Get("error.type").Exists():
		return guess{api: "anthropic"}
	case cohereEvents[t]:
		return guess{api: "cohere", event: true}
	case strings.HasPrefix(t, "response.") || r.Get("object").Str == "response":
		return guess{api: "openai-responses", model: first(r, "response.model", "model"), event: t != ""}
	case r.Get("candidates").Exists() || r.Get("promptFeedback").Exists():
		return guess{api: "gemini", model: r.Get("modelVersion").Str}
	case r.Get("error.status").Exists() && r.Get("error.code").Type == gjson.Number:
		return guess{api: "gemini"}
	case r.Get("output.message").Exists() || r.Get("stopReason").Exists():
		return guess{api: "bedrock-converse"}
	case firstKeyIn(r, converseEvents):
		return guess{api: "bedrock-converse", event: true}
	case r.Get("message.role").Exists() && !r.Get("choices").Exists():
		return guess{api: "cohere"}
	case r.Get("choices").Exists():
		return sniffChat(r)
	case r.Get("object").Str == "error":
		return guess{api: "mistral"}
	case r.Get("error").Exists():
		if r.Get("error.metadata").Exists() || r.Get("user_id").Exists() {
			return guess{api: "openrouter"}
		}
		return guess{api: "openai-compatible"}
	case r.Get("id").Exists() && r.Get("message").Type == gjson.String:
		return guess{api: "cohere"}
	case r.Get("message").Type == gjson.String || r.Get("Message").Type == gjson.String:
		return guess{api: "bedrock-converse"}
	}
	return guess{}
}

// sniffChat tells the chat-completions hosts apart by what their bodies
// carry: OpenRouter's provider member, Groq's x_groq, Ollama's
// fingerprint, Mistral's typed content, and only then a first-party model
// name (a model served by another host keeps the generic API).
func sniffChat(r gjson.Result) guess {
	model := r.Get("model").Str
	// A body that also carries a leftover (empty) delta beside its message
	// (Perplexity) is a body, not a one-event stream.
	obj := r.Get("object").Str
	event := obj == "chat.completion.chunk" ||
		obj != "chat.completion" && r.Get("choices.0.delta").Exists() && !r.Get("choices.0.message").Exists()
	g := guess{api: "openai-compatible", model: model, event: event}
	lower := strings.ToLower(model)
	switch {
	case r.Get("provider").Exists() || strings.HasPrefix(r.Get("id").Str, "gen-"):
		g.api = "openrouter"
	case r.Get("x_groq").Exists():
		g.provider = "groq"
	case r.Get("system_fingerprint").Str == "fp_ollama":
		g.provider = "ollama"
	case r.Get("choices.0.delta.content").IsArray() || r.Get("choices.0.message.content").IsArray() ||
		hasPrefix(lower, "magistral", "mistral", "ministral", "devstral", "codestral"):
		g.api = "mistral"
	case strings.Contains(lower, "/"):
		// A gateway or router slug (vendor/model): not the vendor's own API.
	case strings.HasPrefix(lower, "deepseek-") && !strings.Contains(lower, "distill"):
		g.api = "deepseek"
	case strings.HasPrefix(lower, "grok-"):
		g.api = "xai"
	}
	return g
}

func hasPrefix(s string, ps ...string) bool {
	for _, p := range ps {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func first(r gjson.Result, paths ...string) string {
	for _, p := range paths {
		if v := r.Get(p).Str; v != "" {
			return v
		}
	}
	return ""
}

// firstKeyIn reports whether r's first member is named in names.
func firstKeyIn(r gjson.Result, names map[string]bool) bool {
	found := false
	r.ForEach(func(k, _ gjson.Result) bool {
		found = names[k.Str]
		return false
	})
	return found
}
