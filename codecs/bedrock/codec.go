// Package bedrock is the codec for the Amazon Bedrock Converse API
// (Converse and ConverseStream), registered as "bedrock-converse".
//
// # Wire facts
//
//   - Reasoning is a content block `{"reasoningContent":{...}}`, a union of
//     `reasoningText {text, signature?}` (Claude signs it; Kimi, Qwen,
//     DeepSeek and gpt-oss do not) and `redactedContent` (a base64 string,
//     kept byte-exact). A reasoningContent of any other shape is kept
//     verbatim as a [replay.Native] of kind "reasoningContent" (it reads
//     back from a document and goes back only to Converse).
//   - Text blocks are `{"text":...}`; the text of a model other than Claude
//     is split at <think>-style tags with package think (Kimi K2 on Bedrock
//     writes its reasoning into text as " <think> ... </think> answer"):
//     the tagged runs become reasoning items in place, the tags leave the
//     visible text ([Codec.KeepTags] turns this off).
//   - Visible text blocks are `{"text":...}`, client tool calls are
//     `{"toolUse":{"toolUseId","name","input"}}` (input is an object, kept as
//     its JSON text). Any other content block (image, document,
//     citationsContent, ...) is kept verbatim as a [replay.Native] block.
//   - ConverseStream sends `messageStart`, `contentBlockStart` (tool use
//     only: reasoning and text blocks are opened by their first delta),
//     `contentBlockDelta` (text | reasoningContent.text |
//     reasoningContent.signature | reasoningContent.redactedContent |
//     toolUse.input), `contentBlockStop`, `messageStop` (stopReason),
//     `metadata` (usage), and the exception events
//     (`internalServerException`, `modelStreamErrorException`,
//     `validationException`, `throttlingException`,
//     `serviceUnavailableException`). Deltas are routed by
//     contentBlockIndex. The decoder reads frames whose Type is the event
//     type: the binary AWS event stream of a ConverseStream HTTP body
//     (`application/vnd.amazon.eventstream`) read with
//     [stream.FramingEventStream], whose framing checks every message's
//     checksums and gives the `:event-type` header as the type, or SSE
//     with `event:` lines. It also reads frames without a type whose data
//     is `{"<eventType>":{...}}` (JSON Lines of decoded events, the form
//     SDKs log).
//   - A request's assistant messages are read with the same content
//     reader as a response's ([Codec.DecodeRequest]); a Claude
//     reasoningText without its signature, or a toolUse without its input,
//     in the last assistant message is a cut turn (not Complete, the item
//     unfinished).
//
// Formats: Converse responses do not name the model, so the format of an
// item is chosen from the model the codec is built for ([Codec.Model], a
// Bedrock model id such as "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
// "moonshot.kimi-k2-thinking" or "qwen.qwen3-32b-v1:0"). Anthropic models
// give [formats.AnthropicClaude]: a Claude signature minted through
// Converse is valid on Anthropic, Bedrock InvokeModel and Vertex alike.
// Moonshot models give [formats.Kimi], Qwen models
// [formats.Qwen], DeepSeek models [formats.DeepSeek]: unsigned
// text that only that model family may take back as its own. Any other
// model (gpt-oss, Nova, an application inference profile ARN that hides
// the vendor) gives [replay.FormatUnknown]. When the model is not known, a
// signed reasoningText is Claude's (no other Bedrock model signs) and
// everything else is [replay.FormatUnknown].
//
// Replay: the assistant message goes back with its reasoningContent blocks
// in their original order and bytes; a Claude reasoningText needs its
// signature, redactedContent goes back as it came, and no signature is
// ever sent to a model that did not mint it (see [Codec.Contract]). Under
// an omitted display Claude's reasoningText has an empty text and its
// signature; `text: null` is refused ("... reasoningText.text' failed to
// satisfy constraint: Member must not be null"), and so is reasoning sent as
// `reasoningContent.text` (a gpt-oss client's shape), both read from a
// request as native blocks for the audit. Claude 5 and later (Sonnet 5,
// Fable 5.1, the 5.5 models) refuse an assistant turn of reasoning alone as
// prefill, and Claude's rule that a message holding thinking starts with it
// comes back wrapped in a ValidationException.
package bedrock

import (
	"net/http"
	"sync"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
)

// API is the codec's API name.
const API = "bedrock-converse"

// Codec is the Bedrock Converse codec. The zero value is ready to use; set
// Model to the Bedrock model id so that items get their issuer's format.
type Codec struct {
	// Provider is recorded in the turn's provenance; "" means "bedrock".
	Provider string
	// Model is the Bedrock model id (or inference profile id / ARN) the
	// request named. It selects the format of decoded items.
	Model string
	// Limits bound what the decoders accept; zero fields take defaults.
	Limits replay.Limits
	// KeepTags leaves <think>-style tags in visible text. By default the
	// text of every model but Claude goes through package think: reasoning
	// between tags (Kimi K2 on Bedrock writes " <think> ... </think>" into
	// ordinary text) becomes a reasoning item of the model's format, in
	// place, and the tags leave the visible text.
	KeepTags bool
}

func init() {
	replay.Default().MustRegister(replay.Entry{
		API:       API,
		Providers: []string{"bedrock", "aws-bedrock", "amazon-bedrock"},
		New: func(provider, model string) replay.ReasoningCodec {
			return Codec{Provider: provider, Model: model}
		},
	})
}

// API returns "bedrock-converse".
func (Codec) API() string { return API }

func (c Codec) provenance() replay.Provenance {
	p := c.Provider
	if p == "" {
		p = "bedrock"
	}
	return replay.Provenance{API: API, Provider: p, Model: c.Model}
}

// web are the API's HTTP facts: Converse and ConverseStream on the
// Bedrock runtime.
// They are made when first asked for, not when the program starts.
var web = sync.OnceValue(func() *codecs.HTTP {
	return &codecs.HTTP{
		Routes: []codecs.Route{
			{Path: "/model/{model}/converse", Provider: "bedrock"},
			{Path: "/model/{model}/converse-stream", Provider: "bedrock"},
		},
		Hosts:      []codecs.Host{{Suffix: "amazonaws.com", Provider: "bedrock"}},
		Credential: codecs.Header("authorization"),
		Member:     "messages",
		Names:      map[string]string{"bedrock": "bedrock", "bedrock-converse": "bedrock"},
		ErrorBody: func(_ string, status int, msg string) ([]byte, http.Header) {
			return codecs.AWSErrorBody(status, msg)
		},
		Sniff: sniff,
	}
})

var _ codecs.HTTPCodec = Codec{}

// HTTP returns the API's HTTP facts.
func (Codec) HTTP() *codecs.HTTP { return web() }

// events are the Converse stream's event types, and the exceptions it
// sends as events.
var events = kit.SniffNames{"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop",
	"messageStop", "metadata", "internalServerException", "modelStreamErrorException",
	"validationException", "throttlingException", "serviceUnavailableException"}

// sniff recognises a Converse stream by its event types (or an event
// object named by its first member), a Converse response by its output
// message or stop reason, and AWS's error body ({"message":...}, or
// "Message").
func sniff(typ, data []byte) (codecs.Sniffed, bool) {
	if events.Has(string(typ)) {
		return codecs.Sniffed{Score: codecs.SniffEvent, Event: true}, true
	}
	r := kit.SniffParse(data)
	switch {
	case r.Get("output.message").Exists() || r.Get("stopReason").Exists():
		return codecs.Sniffed{Score: codecs.SniffMembers}, true
	case firstKeyIn(r, events):
		return codecs.Sniffed{Score: codecs.SniffMembers, Event: true}, true
	case r.Get("message").Type == gjson.String || r.Get("Message").Type == gjson.String:
		return codecs.Sniffed{Score: codecs.SniffError}, true
	}
	return codecs.Sniffed{}, false
}

// firstKeyIn reports whether r's first member is named in names.
func firstKeyIn(r gjson.Result, names kit.SniffNames) bool {
	found := false
	r.ForEach(func(k, _ gjson.Result) bool {
		found = names.Has(k.Str)
		return false
	})
	return found
}
