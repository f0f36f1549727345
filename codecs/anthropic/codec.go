// Package anthropic is the codec for the Anthropic Messages API, also as
// served by Amazon Bedrock (InvokeModel / InvokeModelWithResponseStream) and
// Google Vertex AI (rawPredict / streamRawPredict), which use the same
// message shape. It registers itself in [replay.Default] as "anthropic" for
// the providers "anthropic" and "vertex" and Claude model names. The provider
// "bedrock" resolves to the Bedrock Converse codec; for InvokeModel, name this
// codec: replay.Lookup("anthropic", "bedrock", model).
//
// # Wire facts
//
// A response's content is an ordered array of blocks. `thinking` blocks
// ({thinking, signature}) become [replay.ReasoningText] items of format
// anthropic-claude-v1; the text may be empty (display "omitted") while the
// signature still carries the reasoning, and such a block is replayable.
// `redacted_thinking` blocks ({data}) become [replay.Encrypted] items.
// `text` becomes [replay.Text] (citations kept in Extra), `tool_use`
// becomes [replay.ToolCall] whose Arguments are the raw JSON text of
// `input`. Server-side blocks (`server_tool_use`, `*_tool_result`,
// `mcp_tool_use`, and any type added later) are kept verbatim as
// [replay.Native] in their position. Unknown members of known blocks (a
// tool_use `caller`) are kept and written back.
//
// In a stream, `content_block_start` opens a block at its `index`
// (thinking opens with empty text and signature; redacted_thinking arrives
// whole), `content_block_delta` events are routed by index — blocks may
// interleave, and deltas of an open block may follow the start of a later
// one — and `content_block_stop` closes it. `signature_delta` pieces are
// appended to the block's signature, never substituted. The arguments of a
// streamed tool_use are the concatenated `input_json_delta` pieces exactly
// as sent; when there are none they are the start event's `input`
// (Anthropic always sends `{}`), or `{}`. `ping` and unknown event types are
// ignored; `error` events (overloaded_error, ...) end the stream with a
// *[replay.ProviderError] and the partial turn. The event type is read from
// the JSON `type`, so streams without `event:` lines and one-payload-per-line
// (JSONL) captures decode alike; whitespace-padded JSON is accepted. A
// Bedrock stream relayed as JSON lines `{"chunk":{"bytes":"<base64>"}}` is
// unwrapped, and its exceptions (`throttlingException`, ...) become provider
// errors; such turns record "bedrock" as their provider.
//
// `compaction` blocks (threshold: {content}; on-demand: {content,
// signature}, streamed as one `compaction_delta` and `signature_delta`
// pieces) become [replay.Compaction] blocks, byte-exact; a signed one is
// written back first. `input_transformations` (on `message_start`, repeated
// complete on the final `message_delta` after a server-side fallback, or
// top-level in a body) become the turn's Transformations. A `fallback` block
// ({from:{model},to:{model}}) or a `usage.iterations[]` entry of type
// `fallback_message` names the model that served the turn: it becomes
// Provenance.Model, the requested one RequestedModel.
//
// The provider decides the format ([Codec.Format]): Claude on Anthropic,
// Bedrock (InvokeModel and the Messages endpoint `/anthropic/v1/messages`),
// Vertex; DeepSeek, MiniMax and Kimi mint their own formats on their
// `/anthropic` endpoints, which never go to Claude.
//
// Binding (Claude 5.1 and later; not Sonnet 5): a block is bound to the
// request's `system`, `tools` and earlier messages (see [PrefixHash]) and
// chained to the block before it; see [Bind]. Fable and Mythos 5.2
// (2026-11-09), and Mythos 5.1 off Bedrock, reject a mismatch on every
// account; Fable 5.1 and Opus 5.5 for accounts created from 2026-08-31 or
// when the request sets `prefix_mismatch_behavior` "error". Only the 5.2
// models read Fable 5.2 blocks; Haiku 5.5 drops other models' blocks
// (`model_binding_mismatch`); Bedrock removes blocks of another AWS account
// or minted in a Claude app. `thinking.block_binding` is an extra input to
// models outside the preserved-thinking list (Fable and Mythos 5.1 and
// later, Opus, Sonnet and Haiku 5.5) and wherever the
// `thinking-binding-controls-2026-08-01` header does not arrive (Vertex and
// several gateways have dropped it).
//
// Any byte difference in a thinking block fails (Anthropic,
// anthropic-sdk-python#1598, 2026-08-05), edited text under an intact
// signature included. Under `display: "omitted"` (the default of Opus 5.5
// and Sonnet 5.5, whose text between tool calls also comes back as thinking)
// the text is empty: normal output, sent back as it came. An assistant
// message that holds thinking starts with it and does not end with it; a
// thinking block takes no `cache_control`; a mid-conversation system
// message precedes an assistant message or ends the array. Thinking types
// per model: `enabled` refused from Opus 4.7, Sonnet 5, Haiku 5.5, Fable,
// Mythos; `disabled` refused by Opus 5.5, Sonnet 5.5 (which takes
// `between_tools`), Fable, Mythos. Claude Code's requests to Fable 5.1 need
// version 2.1.251, to Fable 5.2 2.1.321 (`claude_code_version_too_old`):
// not a replay error.
//
// A thinking block is replayable only when it was closed and carries a
// non-empty signature. A stream cut before `message_stop` returns the
// partial turn, every block marked unfinished (thinking cannot be partially
// recovered), and an error wrapping io.ErrUnexpectedEOF.
//
// # Replay
//
// [Codec.Encode] writes `{"role":"assistant","content":[...]}` with every
// block in its original order, thinking byte-exact (`"thinking":""` is
// written when the text was empty: omitting the key is a 400).
// [Codec.Patch] inserts the thinking blocks into a message the caller built.
// [Codec.Contract] lists the rules the API enforces, which [replay.AuditReplay]
// checks before a request is sent.
package anthropic

import (
	"net/http"
	"strings"
	"sync"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
)

// API is the codec's API name in the registry.
const API = "anthropic"

// entry is the codec's registration. Vertex also serves Gemini: the Claude
// model patterns let the Gemini codec, which lists vertex with its own
// patterns, win for its models. The provider "bedrock" resolves to the
// Bedrock Converse codec; Claude through Bedrock InvokeModel is this codec,
// by name: replay.Lookup("anthropic", "bedrock", model).
var entry = replay.Entry{
	API:       API,
	Providers: []string{"anthropic", "vertex"},
	Models:    []string{"claude-*", "*claude*"},
	New: func(provider, _ string) replay.ReasoningCodec {
		return Codec{Provider: strings.ToLower(provider)}
	},
}

func init() { replay.Default().MustRegister(entry) }

// Codec is the Anthropic Messages codec. The zero value is ready to use; it
// is a plain value, safe for concurrent use.
type Codec struct {
	// Provider is the platform recorded in decoded turns' provenance
	// ("anthropic", "bedrock", "vertex"). A stream that arrives in Bedrock's
	// chunk envelope is recorded as "bedrock" whatever Provider says; the
	// Anthropic and Vertex wires are identical, so they are told apart only
	// by Provider. Empty leaves the provenance's provider empty.
	Provider string
	// Limits bound what the decoders accept; zero fields take the defaults.
	Limits replay.Limits
}

// API returns "anthropic".
func (Codec) API() string { return API }

// hostFormats are the providers that serve the Messages wire with models of
// their own (`/anthropic` endpoints), and the format each mints.
var hostFormats = map[string]replay.Format{
	"deepseek": formats.DeepSeekAnthropic,
	"minimax":  formats.MiniMaxAnthropic, "minimaxi": formats.MiniMaxAnthropic,
	"kimi": formats.KimiAnthropic, "moonshot": formats.KimiAnthropic, "moonshotai": formats.KimiAnthropic,
}

// claudePlatforms are the providers that serve Claude on the Messages wire:
// Anthropic, Bedrock (InvokeModel, and the Messages endpoint
// `/anthropic/v1/messages` of bedrock-runtime and bedrock-mantle), Vertex.
// An empty provider is taken to be Claude.
var claudePlatforms = map[string]bool{"": true, "anthropic": true, "claude": true,
	"bedrock": true, "bedrock-mantle": true, "vertex": true, "vertex-ai": true}

// Format returns the format of the thinking blocks this codec decodes and
// the only one it writes back: the provider decides it, not the wire.
// Claude's platforms (Anthropic, Bedrock, Vertex, or no provider) give
// anthropic-claude-v1; DeepSeek, MiniMax and Kimi (their `/anthropic`
// endpoints) their own formats; any other provider
// [replay.FormatUnknown], which is replayed only to the same API and
// provider and never to Claude.
func (c Codec) Format() replay.Format {
	p := strings.ToLower(c.Provider)
	if claudePlatforms[p] {
		return formats.AnthropicClaude
	}
	if f, ok := hostFormats[p]; ok {
		return f
	}
	return replay.FormatUnknown
}

func bodyErr(ptr, format string, args ...any) error {
	return codecs.Malformed(API, -1, ptr, format, args...)
}

func itoa(i int) string { return string(jsonw.Int(nil, i)) }

// web are the API's HTTP facts: the Messages path (also on the
// Anthropic-compatible endpoints of other hosts, whose provider the host
// names), Vertex's rawPredict and Bedrock's InvokeModel paths for Claude.
// They are made when first asked for, not when the program starts.
var web = sync.OnceValue(func() *codecs.HTTP {
	return &codecs.HTTP{
		Routes: []codecs.Route{
			{Path: "/messages"},
			{Path: "/publishers/anthropic/models/{model}:rawPredict", Provider: "vertex"},
			{Path: "/publishers/anthropic/models/{model}:streamRawPredict", Provider: "vertex"},
			{Path: "/model/{model}/invoke", Provider: "bedrock", Models: []string{"*anthropic.*"}},
			{Path: "/model/{model}/invoke-with-response-stream", Provider: "bedrock", Models: []string{"*anthropic.*"}},
		},
		Hosts:      []codecs.Host{{Suffix: "api.anthropic.com", Provider: "anthropic"}},
		Credential: codecs.Header("x-api-key", "authorization"),
		Member:     "messages",
		Endpoint:   "https://api.anthropic.com",
		Names:      map[string]string{"anthropic": "anthropic", "claude": "anthropic"},
		ErrorBody:  errorBody,
		Sniff:      sniff,
	}
})

var _ codecs.HTTPCodec = Codec{}

// HTTP returns the API's HTTP facts.
func (Codec) HTTP() *codecs.HTTP { return web() }

// errorBody writes an error body as the Messages API does:
// {"type":"error","error":{"type":...,"message":...}}; Claude on Bedrock
// answers as AWS does.
func errorBody(provider string, status int, msg string) ([]byte, http.Header) {
	if provider == "bedrock" {
		return codecs.AWSErrorBody(status, msg)
	}
	typ := "invalid_request_error"
	switch status {
	case http.StatusUnauthorized:
		typ = "authentication_error"
	case http.StatusNotFound:
		typ = "not_found_error"
	case http.StatusRequestEntityTooLarge:
		typ = "request_too_large"
	case http.StatusTooManyRequests:
		typ = "rate_limit_error"
	case http.StatusServiceUnavailable:
		typ = "overloaded_error"
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusGatewayTimeout:
		typ = "api_error"
	}
	b := []byte(`{"type":"error","error":{"type":`)
	b = jsonw.String(b, typ)
	b = append(b, `,"message":`...)
	b = jsonw.String(b, msg)
	return append(b, "}}"...), nil
}

// events are the Messages API's stream event types.
var events = kit.SniffNames{"message_start", "content_block_start", "content_block_delta", "content_block_stop",
	"message_delta", "message_stop", "ping"}

// sniff recognises a Messages stream by its event types (or their "type"
// members), Bedrock's chunk envelope around them, a Message body, and the
// API's error body.
func sniff(typ, data []byte) (codecs.Sniffed, bool) {
	if events.Has(string(typ)) {
		return codecs.Sniffed{Score: codecs.SniffEvent, Event: true}, true
	}
	r := kit.SniffParse(data)
	t := r.Get("type").Str
	switch {
	case r.Get("chunk.bytes").Exists():
		return codecs.Sniffed{Score: codecs.SniffType, Provider: "bedrock", Event: true}, true
	case events.Has(t):
		return codecs.Sniffed{Score: codecs.SniffType, Model: strings.Clone(r.Get("message.model").Str), Event: true}, true
	case t == "message" && r.Get("content").IsArray():
		return codecs.Sniffed{Score: codecs.SniffType, Model: strings.Clone(r.Get("model").Str)}, true
	case t == "error" && r.Get("error.type").Exists():
		return codecs.Sniffed{Score: codecs.SniffType}, true
	}
	return codecs.Sniffed{}, false
}
