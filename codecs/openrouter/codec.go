// Package openrouter is the codec for OpenRouter's chat completions API
// (`/api/v1/chat/completions`), the default codec of this module, and a
// superset reader for OpenAI-compatible chat responses.
//
// # Wire facts
//
// OpenRouter normalises every upstream's reasoning into
// `message.reasoning_details[]` (streamed as `delta.reasoning_details[]`
// fragments): `reasoning.text` (text and an optional signature),
// `reasoning.summary` and `reasoning.encrypted` (data), each with `format`,
// `id` and `index`. It mirrors the plain text into `message.reasoning`.
// Anthropic upstreams send the signature on a trailing fragment with empty
// text; OpenAI upstreams send summaries and the encrypted item both at index
// 0; Gemini upstreams send each thought signature as an encrypted item
// whose id is the tool call id. Keep-alive comments (`: OPENROUTER
// PROCESSING`) are skipped by the SSE framing. An error after the first
// token keeps HTTP 200 and arrives as a chunk with a top-level `error` and
// `finish_reason: "error"`.
//
// On replay, the assistant message carries `reasoning_details` exactly as
// received, in order, each item once across the history. See [Codec.Contract].
package openrouter

import (
	"net/http"
	"strings"
	"sync"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
)

// API is the codec's API name.
const API = "openrouter"

// Codec is the OpenRouter codec. The zero value is ready to use.
type Codec struct {
	// Provider, when set, is recorded as the provenance provider of decoded
	// turns instead of "openrouter" (for OpenAI-compatible hosts read with
	// this codec).
	Provider string
	// Model is the model slug requests are sent with, when known
	// ("anthropic/claude-sonnet-4.5"); the contract accepts its vendor's
	// formats.
	Model string
	// Limits bound what the decoders keep; zero fields take defaults.
	Limits replay.Limits
}

func init() {
	replay.Default().MustRegister(replay.Entry{
		API:       API,
		Providers: []string{"openrouter"},
		New: func(provider, model string) replay.ReasoningCodec {
			if provider == "openrouter" {
				provider = ""
			}
			return Codec{Provider: provider, Model: model}
		},
	})
}

// API returns "openrouter".
func (Codec) API() string { return API }

// NewFrameDecoder returns a fresh [StreamDecoder].
func (c Codec) NewFrameDecoder() codecs.FrameDecoder {
	return &StreamDecoder{Provider: c.Provider, Limits: c.Limits}
}

// web are the API's HTTP facts: chat completions, the path every
// OpenAI-compatible host serves, for which OpenRouter's reader (the
// superset) is the fallback when no provider is known.
// They are made when first asked for, not when the program starts.
var web = sync.OnceValue(func() *codecs.HTTP {
	return &codecs.HTTP{
		Routes:     []codecs.Route{{Path: "/chat/completions", Shared: true, Fallback: codecs.FallbackAny}},
		Hosts:      []codecs.Host{{Suffix: "openrouter.ai", Provider: "openrouter"}},
		Credential: codecs.Header("authorization"),
		Member:     "messages",
		Endpoint:   "https://openrouter.ai/api",
		Names:      map[string]string{"openrouter": "openrouter"},
		ErrorBody:  errorBody,
		Sniff:      sniff,
	}
})

var _ codecs.HTTPCodec = Codec{}

// HTTP returns the API's HTTP facts.
func (Codec) HTTP() *codecs.HTTP { return web() }

// errorBody writes an error body as OpenRouter does:
// {"error":{"code":<status>,"message":...}}.
func errorBody(_ string, status int, msg string) ([]byte, http.Header) {
	b := jsonw.Int([]byte(`{"error":{"code":`), status)
	b = jsonw.String(append(b, `,"message":`...), msg)
	return append(b, "}}"...), nil
}

// sniff recognises OpenRouter's chat completions by what only OpenRouter
// adds (the "provider" it routed to, a "gen-" id), above every other
// host's marker, and its error body by the error's metadata or the
// "user_id" beside it.
func sniff(_, data []byte) (codecs.Sniffed, bool) {
	r := kit.SniffParse(data)
	if s, ok := kit.SniffChat(r, codecs.SniffShape+6); ok {
		return s, r.Get("provider").Exists() || strings.HasPrefix(r.Get("id").Str, "gen-")
	}
	if r.Get("error").Exists() && (r.Get("error.metadata").Exists() || r.Get("user_id").Exists()) {
		return codecs.Sniffed{Score: codecs.SniffError + 3}, true
	}
	return codecs.Sniffed{}, false
}
