// Package mistral is the codec for Mistral's chat completions API with
// reasoning (Magistral, and Mistral Small / Medium with reasoning on),
// registered as "mistral".
//
// # Wire facts
//
//   - With reasoning, `message.content` is an array of chunks:
//     `{"type":"thinking","thinking":[{"type":"text","text":...}],"closed":true}`
//     then `{"type":"text","text":...}`. Without it, content is a plain
//     string. A thinking chunk becomes one [replay.ReasoningText] of format
//     [formats.Mistral] (its inner text parts joined, nothing added);
//     its other members (`closed`) are kept in Extra and written back. A
//     thinking chunk with inner parts that are not text, and any chunk of
//     another type, is kept verbatim ([replay.Opaque], [replay.Native]).
//   - Tool calls are `message.tool_calls[] {id, type, function {name,
//     arguments}}`; arguments is a string holding JSON (an object is also
//     accepted and kept as its text).
//   - Streams are chat.completion.chunk events. `delta.content` is a string
//     or an array of chunks, and may switch between the two mid-stream (the
//     answer of a Magistral stream often arrives as strings after the
//     thinking chunks). One delta may hold a thinking chunk and a text
//     chunk. Consecutive thinking chunks form one item; text between two
//     thinking runs splits them. Tool call deltas are routed by `index`.
//     The stream is complete at a non-null finish_reason (and `[DONE]`,
//     which is accepted and ignored).
//
// Replay: the assistant message goes back with its thinking chunks in the
// content array, in order, before the text. Mistral's reasoning is unsigned
// and has no documented replay requirement (see [Codec.Contract]).
package mistral

import (
	"net/http"
	"strings"
	"sync"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/kit"
)

// API is the codec's API name.
const API = "mistral"

// Codec is the Mistral codec. The zero value is ready to use.
type Codec struct {
	// Provider is recorded in the turn's provenance; "" means "mistral".
	Provider string
	// Limits bound what the decoders accept; zero fields take defaults.
	Limits replay.Limits
}

func init() {
	replay.Default().MustRegister(replay.Entry{
		API:       API,
		Providers: []string{"mistral", "mistralai"},
		Models:    []string{"magistral-*", "mistral-*", "ministral-*"},
		New: func(provider, _ string) replay.ReasoningCodec {
			return Codec{Provider: provider}
		},
	})
}

// API returns "mistral".
func (Codec) API() string { return API }

func (c Codec) provider() string {
	if c.Provider == "" {
		return "mistral"
	}
	return c.Provider
}

// web are the API's HTTP facts.
// They are made when first asked for, not when the program starts.
var web = sync.OnceValue(func() *codecs.HTTP {
	return &codecs.HTTP{
		Routes:     []codecs.Route{{Path: "/chat/completions", Shared: true}},
		Hosts:      []codecs.Host{{Suffix: "api.mistral.ai", Provider: "mistral"}},
		Credential: codecs.Header("authorization"),
		Member:     "messages",
		Endpoint:   "https://api.mistral.ai",
		Names:      map[string]string{"mistral": "mistral"},
		ErrorBody: func(_ string, status int, msg string) ([]byte, http.Header) {
			return codecs.OpenAIErrorBody(status, msg)
		},
		Sniff: sniff,
	}
})

var _ codecs.HTTPCodec = Codec{}

// HTTP returns the API's HTTP facts.
func (Codec) HTTP() *codecs.HTTP { return web() }

// sniff recognises Mistral's chat completions by typed content (an array
// of chunks where other hosts send a string) or a Mistral model name, and
// its error body ("object":"error"). A host marker (OpenRouter's, Groq's)
// outranks both: such a host serves Mistral's models with its own shape.
func sniff(_, data []byte) (codecs.Sniffed, bool) {
	r := kit.SniffParse(data)
	if s, ok := kit.SniffChat(r, codecs.SniffShape+4); ok {
		m := strings.ToLower(s.Model)
		typed := r.Get("choices.0.delta.content").IsArray() || r.Get("choices.0.message.content").IsArray()
		return s, typed || kit.HasPrefix(m, "magistral", "mistral", "ministral", "devstral", "codestral")
	}
	if r.Get("object").Str == "error" {
		return codecs.Sniffed{Score: codecs.SniffError + 4}, true
	}
	return codecs.Sniffed{}, false
}
