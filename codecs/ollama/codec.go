// Package ollama is the codec for Ollama's native chat API (`POST
// /api/chat`), registered as "ollama".
//
// # Wire facts
//
// From Ollama's API reference (docs/api.md, "Generate a chat completion";
// docs/api/streaming.mdx; docs/api/errors.mdx) and its Go types
// (api/types.go: ChatResponse, Message, ToolCall):
//
//   - A response is `{"model","created_at","message":{"role":"assistant",
//     "content","thinking","tool_calls"},"done":true,"done_reason":"stop",
//     "total_duration","load_duration","prompt_eval_count",
//     "prompt_eval_duration","eval_count","eval_duration"}`. `thinking`
//     holds the model's reasoning when the request sets `think` (true, or
//     a level: "low", "medium", "high", "max"); it is plain text, unsigned.
//     With `think` unset, some models leave their reasoning in `content`
//     between <think> tags: it is split out with package think, and a
//     native `thinking` member is authoritative over tags.
//   - Streamed (the default, `application/x-ndjson`), each line is such an
//     object with `"done":false` and a piece of `content` or `thinking`;
//     the last has `"done":true`, `done_reason` and the counters (and may
//     carry a last piece). An error after the stream started is one more
//     line, `{"error":"..."}`; an error before it is a body of that shape.
//   - Tool calls arrive whole, in one line: `{"id","function":{"index",
//     "name","arguments":{...}}}`, `arguments` an object. Versions before
//     ids were minted (`call_` and eight letters or digits) send no `id`;
//     tool results name their call by `tool_name`, so ids are never
//     required back.
//   - A request's assistant messages take `thinking` back (api.Message
//     has the member, and the chat templates of thinking models render an
//     assistant's thinking, at least after the last user message), beside
//     `content` and `tool_calls`.
//
// The thinking of a local model is no issuer's: its items have format
// [replay.FormatUnknown], what the OpenAI-compatible hosts' unattributed
// reasoning has, so that reasoning read from Ollama's OpenAI-compatible
// endpoint replays here and the other way round.
//
// # One provider, two APIs
//
// Ollama also serves OpenAI-compatible chat completions
// (`/v1/chat/completions`, the "openai-compatible" codec). This codec's
// entry lists the provider "ollama" with no model patterns, which makes it
// the provider's own API: [replay.Resolve] picks it for "ollama" whatever
// the model (see [replay.Registry]). The OpenAI-compatible API is picked
// by the request's path (codecs.Recognise: a chat completions request
// for a provider no chat API claims falls back to it) or by name
// ([replay.Lookup]).
package ollama

import (
	"net/http"
	"strings"
	"sync"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/stream"
	"github.com/tidwall/gjson"
)

// API is the codec's API name.
const API = "ollama"

// Codec is the Ollama native chat codec. The zero value is ready to use;
// it is a plain value, safe for concurrent use.
type Codec struct {
	// Provider is recorded in the turn's provenance; "" means "ollama".
	Provider string
	// Model is the target model, when known.
	Model string
	// Limits bound what the decoders keep; zero fields take defaults.
	Limits replay.Limits
}

func init() {
	replay.Default().MustRegister(replay.Entry{
		API:       API,
		Providers: []string{"ollama"},
		New: func(provider, model string) replay.ReasoningCodec {
			return Codec{Provider: provider, Model: model}
		},
	})
}

// API returns "ollama".
func (Codec) API() string { return API }

func (c Codec) provider() string {
	if c.Provider == "" {
		return "ollama"
	}
	return c.Provider
}

// web are the API's HTTP facts: the local server at localhost:11434 (the
// default) or ollama.com's cloud API, both at /api/chat; a stream is JSON
// Lines.
// They are made when first asked for, not when the program starts.
var web = sync.OnceValue(func() *codecs.HTTP {
	return &codecs.HTTP{
		Routes:     []codecs.Route{{Path: "/api/chat"}},
		Hosts:      []codecs.Host{{Suffix: "ollama.com", Provider: "ollama"}},
		Credential: codecs.Header("authorization"),
		Member:     "messages",
		Endpoint:   "https://ollama.com",
		Names:      map[string]string{"ollama": "ollama"},
		Streams:    map[string]stream.Framing{"application/x-ndjson": stream.FramingJSONL},
		Sniff:      sniff,
		ErrorBody: func(_ string, _ int, msg string) ([]byte, http.Header) {
			return append(jsonw.String([]byte(`{"error":`), msg), '}'), nil
		},
	}
})

// sniff recognises a response line or body (`"done"` a boolean beside a
// `message` object or a `model` string: members only Ollama's responses
// have) and an error body (`{"error": "..."}`, a string alone, scored
// above the error bodies of the chat hosts). A line
// with `"done": false` is a stream's event.
func sniff(_, data []byte) (codecs.Sniffed, bool) {
	r := kit.SniffParse(data)
	if !r.IsObject() {
		return codecs.Sniffed{}, false
	}
	done := r.Get("done")
	if done.IsBool() && (r.Get("message").IsObject() || r.Get("model").Type == gjson.String) {
		return codecs.Sniffed{Score: codecs.SniffMembers, Model: strings.Clone(r.Get("model").Str), Event: !done.Bool()}, true
	}
	n := 0
	r.ForEach(func(_, _ gjson.Result) bool { n++; return n < 2 })
	if n == 1 && r.Get("error").Type == gjson.String {
		// Above the chat hosts' error ({"error":{...}}, any "error"): a
		// string alone is Ollama's own.
		return codecs.Sniffed{Score: codecs.SniffError + 5}, true
	}
	return codecs.Sniffed{}, false
}

var _ codecs.HTTPCodec = Codec{}

// HTTP returns the API's HTTP facts.
func (Codec) HTTP() *codecs.HTTP { return web() }
