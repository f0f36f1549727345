// Package cohere is the codec for Cohere's v2 chat API (`/v2/chat`) with
// reasoning (command-a-reasoning), registered as "cohere".
//
// # Wire facts
//
//   - `message.content` is an array of blocks; reasoning arrives in
//     `{"type":"thinking","thinking":"..."}` blocks before the
//     `{"type":"text","text":"..."}` answer. A thinking block becomes one
//     [replay.ReasoningText] of format [formats.Cohere] (unsigned);
//     other members of the block are kept in Extra. Blocks of other types
//     are kept verbatim ([replay.Native]).
//   - Tool use adds `message.tool_plan` (the model's plan, a string; kept
//     as a [replay.Native] of kind "tool_plan" holding the JSON string) and
//     `message.tool_calls[] {id, type, function {name, arguments}}`, with
//     arguments a string holding JSON. A `tool` message names its call
//     by `tool_call_id`, so every call needs a unique non-empty id
//     (ReplayContract.ToolIDs; replay.Carry mints one for calls from
//     Gemini, which often have none).
//   - The stream is typed events: `message-start`, `content-start` (index,
//     the block's type), `content-delta` (`delta.message.content.thinking`
//     or `.text`), `content-end`, `tool-plan-delta`, `tool-call-start`,
//     `tool-call-delta`, `tool-call-end`, `citation-start`/`citation-end`
//     (kept verbatim), and `message-end` (finish_reason, usage). Content
//     blocks and tool calls are routed by their own `index` spaces. The
//     event type is read from the JSON `type` member, or from the SSE event
//     name when the member is absent. A `message-end` whose finish_reason is
//     "ERROR" ends the stream with a *replay.ProviderError. Every string
//     kept (text, ids, names, arguments, the tool plan, finish_reason,
//     usage, the error message) counts against Limits.MaxItem.
//
// A request carries each assistant turn as a `messages[]` element of the
// same shape as the response's `message`; [Codec.DecodeRequest] reads it
// with the same reader.
//
// The streaming event shape and the replay rules are taken from Cohere's
// documentation and a recorded stream; Cohere documents no rejection for
// missing or altered thinking blocks (see [Codec.Contract]).
package cohere

import (
	"net/http"
	"sync"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
)

// API is the codec's API name.
const API = "cohere"

// Codec is the Cohere v2 chat codec. The zero value is ready to use.
type Codec struct {
	// Provider is recorded in the turn's provenance; "" means "cohere".
	Provider string
	// Model is recorded in the turn's provenance (Cohere responses do not
	// name the model).
	Model string
	// Limits bound what the decoders keep (MaxItem per string, MaxBlocks,
	// MaxTurn in total, MaxEvent per stream event); zero fields take
	// defaults.
	Limits replay.Limits
}

func init() {
	replay.Default().MustRegister(replay.Entry{
		API:       API,
		Providers: []string{"cohere"},
		Models:    []string{"command-a-reasoning*"},
		New: func(provider, model string) replay.ReasoningCodec {
			return Codec{Provider: provider, Model: model}
		},
	})
}

// API returns "cohere".
func (Codec) API() string { return API }

func (c Codec) provenance() replay.Provenance {
	p := c.Provider
	if p == "" {
		p = "cohere"
	}
	return replay.Provenance{API: API, Provider: p, Model: c.Model}
}

// web are the API's HTTP facts.
// They are made when first asked for, not when the program starts.
var web = sync.OnceValue(func() *codecs.HTTP {
	return &codecs.HTTP{
		Routes:     []codecs.Route{{Path: "/v2/chat"}},
		Hosts:      []codecs.Host{{Suffix: "api.cohere.com", Provider: "cohere"}, {Suffix: "api.cohere.ai", Provider: "cohere"}},
		Credential: codecs.Header("authorization"),
		Member:     "messages",
		Endpoint:   "https://api.cohere.com",
		Names:      map[string]string{"cohere": "cohere"},
		ErrorBody: func(_ string, _ int, msg string) ([]byte, http.Header) {
			return append(jsonw.String([]byte(`{"message":`), msg), '}'), nil
		},
		Sniff: sniff,
	}
})

var _ codecs.HTTPCodec = Codec{}

// HTTP returns the API's HTTP facts.
func (Codec) HTTP() *codecs.HTTP { return web() }

// events are the v2 chat stream's event types.
var events = kit.SniffNames{"message-start", "content-start", "content-delta", "content-end", "tool-plan-delta",
	"tool-call-start", "tool-call-delta", "tool-call-end", "citation-start", "citation-end", "message-end", "debug"}

// sniff recognises a v2 chat stream by its events' "type" members, a
// response by its message object (a shape other APIs share, so below the
// bands of members only one API has), and Cohere's error body ({"id",
// "message":"..."}; above AWS's {"message"}).
func sniff(_, data []byte) (codecs.Sniffed, bool) {
	r := kit.SniffParse(data)
	switch {
	case events.Has(r.Get("type").Str):
		return codecs.Sniffed{Score: codecs.SniffType, Event: true}, true
	case r.Get("message.role").Exists() && !r.Get("choices").Exists():
		return codecs.Sniffed{Score: codecs.SniffShape}, true
	case r.Get("id").Exists() && r.Get("message").Type == gjson.String:
		return codecs.Sniffed{Score: codecs.SniffError + 1}, true
	}
	return codecs.Sniffed{}, false
}
