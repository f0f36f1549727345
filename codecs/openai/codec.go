// Package openai is the codec for the OpenAI Responses API
// (`POST /v1/responses`) and the hosts that speak it: Azure OpenAI, xAI,
// GitHub Copilot, OpenRouter's and DeepSeek's Responses endpoints, LM
// Studio and other local servers. Its API name is "openai-responses".
//
// # Wire facts
//
// A response is an ordered `output` array of items. A `reasoning` item
// (`id`, `summary[]` of `summary_text` parts, optional `content[]` of
// `reasoning_text` parts from open-weight models, optional
// `encrypted_content`) becomes the blocks OpenRouter makes of it, all
// sharing the item's id: one [replay.Summary] per summary part, one
// [replay.ReasoningText] per content part, then one [replay.Encrypted] for
// the encrypted content, with Index set to the part's index. A reasoning
// item with no part and no encrypted content is kept as a [replay.Native]
// of kind "reasoning" so that its id (which the next item is paired with)
// is not lost. Ids are kept byte-exact and never checked by prefix (xAI
// uses `rs_<uuid>`, DeepSeek bare UUIDs, Copilot rotates them).
//
// The other items keep their output position: a `message` becomes one
// [replay.Text] per `output_text` part (ID = the message id; `phase` and
// other message members, and the part's `annotations`, in Extra); a
// `function_call` becomes a [replay.ToolCall] {ID: call_id, ItemID: id,
// Name, Arguments}; a `custom_tool_call` a ToolCall whose Arguments is its
// `input` and whose Extra says `"item_type":"custom_tool_call"`; anything
// A `compaction` item (`id` "cmp_...", `encrypted_content`; returned with
// `context_management` compaction) becomes a [replay.Compaction] of the
// host's format: its state is readable only by the host and organisation
// that minted it ("The encrypted content for item cmp_... could not be
// verified. Reason: Encrypted content could not be decrypted or parsed."
// elsewhere), and the items before the newest one are pruned when it is
// sent back. Ciphertext is also bound to its item id ("...Reason:
// Encrypted content item_id did not match the target item id."). Lone
// surrogate escapes in ids and ciphertext are refused (read as U+FFFD they
// would alter the minted bytes). Anything
// else (`web_search_call`, `code_interpreter_call`, `mcp_call`,
// `mcp_list_tools`, messages with refusal parts, new item types) a
// [replay.Native] kept verbatim. Request bodies also hold assistant
// messages without `type` or with a string `content` (EasyInputMessage),
// `item_reference`s (Native) and tool outputs (`*_output`, which end an
// assistant turn).
//
// # Pairing
//
// OpenAI pairs every reasoning item with the output item that followed it
// and rejects a replay that breaks the pair. The pairing is recoverable
// from a turn without extra fields: a reasoning item is a maximal run of
// consecutive reasoning blocks with the same ID (or one Native of kind
// "reasoning"), and its follower is the block right after the run (the
// follower's id is Text.ID, ToolCall.ItemID, or the Native's `id`). [Codec.Encode]
// and [Codec.Patch] keep each pair adjacent; the contract's rules check it.
// A reasoning item is never followed by another: two in a row mean the item
// between them (a `web_search_call`) was dropped. gpt-5.6-luna refuses, with
// `all_turns` history, a message that keeps its id without its reasoning.
//
// The issuer is the host: xAI answers foreign or altered ciphertext with
// "Could not decrypt the provided encrypted_content. ..." and refuses
// replayed reasoning on its OAuth (SuperGrok) route ("Invalid request
// content: Each message must have at least one content element."; provider
// "xai-oauth") while its API-key route takes it; gateways bind ciphertext to
// their own caller ("reasoning `encrypted_content` was not issued to this
// caller") or prefix ("encrypted content missing recognized prefix");
// DeepSeek's Responses endpoint issues no ciphertext (ids are bare UUIDs)
// and takes `reasoning_text` back. Efforts differ per model (gpt-5.6-luna:
// none to max, no minimal; GPT-6 and 6.1: no none).
//
// # Streams
//
// Events are routed by `output_index`, then `summary_index` /
// `content_index`, never by `item_id` (Copilot sends a different item id on
// every event). The item in `response.output_item.done` is authoritative:
// its id, its parts and its `encrypted_content` replace what the deltas
// built (a host that sends no deltas still decodes). The `encrypted_content`
// of `response.output_item.added` is absent or incomplete (the blob grows),
// and `response.completed` mints the token again with different bytes of
// the same length; both copies verify, but the `.done` copy is the one the
// item events describe, arrives first (a stream cut before
// `response.completed` still has it), and is what OpenAI's documentation
// tells clients to keep, so it is the one kept. `response.completed` is read
// only for items whose `.done` never came. Items may finish out of order; an
// event re-sent with a `sequence_number` already seen counts once; the
// `obfuscation` padding member is ignored; `event:` lines are not needed
// and JSON Lines framing works. `response.failed`, `response.incomplete`
// and `error` events end the stream with a [*replay.ProviderError] and the
// partial turn.
//
// Event block numbers are positions in the turn when items arrive in
// output order (every recorded stream); if a part of an earlier output item
// opens after a later item opened, the finished turn is still in
// `output_index` order and the earlier events' Block numbers refer to
// arrival order.
//
// # Replay
//
// [Codec.Encode] writes the next request's `input` items for the turn. With
// `store: false` (the zero [Codec]) a reasoning item is sent whole and only
// when it has its encrypted content: `id`, `summary` (always present, `[]`
// when empty: OpenAI answers "Missing required parameter:
// 'input[N].summary'." without it) and `encrypted_content`. Never a
// non-empty `content` (OpenAI: "Invalid 'input[N].content': array too
// long. Expected an array with maximum length 0, but got an array with
// length 1 instead.", code `array_above_max_length`) except to hosts that
// take reasoning_text back ([Codec.ReasoningText]: vLLM and others serving
// gpt-oss), and never `status` ("Unknown parameter: 'input[N].status'.").
// With [Codec.Stored] it is sent as an `item_reference`. Output-only
// `status` members are not sent back on message and function_call items
// either. When a reasoning item cannot be sent (unfinished,
// foreign, no encrypted content in stateless mode), its follower is sent
// without its id, which OpenAI would otherwise pair with the missing item.
package openai

import (
	"net/http"
	"strings"
	"sync"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/kit"
)

// API is the codec's API name.
const API = "openai-responses"

// Codec is the OpenAI Responses codec. The zero value reads and writes
// OpenAI's own Responses API in stateless mode (`store: false`).
type Codec struct {
	// Provider is the platform that serves the API: "openai" (the default
	// when empty), "azure", "xai", "bedrock", "copilot", "openrouter",
	// "deepseek", "lmstudio", ... It is recorded in the provenance of decoded
	// turns and chooses the format of their reasoning items (see
	// [FormatFor]).
	Provider string
	// Stored says the responses are stored by the provider (`store: true`,
	// the API's default), so that Encode refers to reasoning items by id
	// (`item_reference`) instead of sending them whole.
	Stored bool
	// Limits bound what the decoders keep; zero fields take defaults.
	Limits replay.Limits
	// ReasoningText sends reasoning text back as the `content` of input
	// reasoning items (`reasoning_text` parts), for hosts that serve
	// open-weight models such as gpt-oss through Responses and take it back
	// (vLLM, SGLang: the default for those providers, see
	// [TakesReasoningText]). OpenAI and Azure refuse a non-empty `content`
	// on an input reasoning item, so it is never sent to them.
	ReasoningText bool
}

// TakesReasoningText reports whether a Responses provider takes reasoning
// text back in the `content` of input reasoning items: the hosts that serve
// gpt-oss and other open-weight models through Responses ("vllm",
// "sglang"), and DeepSeek's Responses endpoint, which issues no ciphertext.
// OpenAI, Azure and the other hosted APIs do not.
func TakesReasoningText(provider string) bool {
	switch strings.ToLower(provider) {
	case "vllm", "sglang", "deepseek":
		return true
	}
	return false
}

func (c Codec) sendsText() bool { return c.ReasoningText || TakesReasoningText(c.Provider) }

func init() {
	replay.Default().MustRegister(replay.Entry{
		API:       API,
		Providers: []string{"openai", "azure", "azure-openai", "xai", "xai-oauth", "copilot", "github-copilot", "lmstudio"},
		Models:    []string{"gpt-*", "o1*", "o3*", "o4*", "codex-*", "computer-use-*", "chatgpt-*", "grok-4*", "grok-code-*"},
		New: func(provider, _ string) replay.ReasoningCodec {
			return Codec{Provider: provider}
		},
	})
}

// FormatFor returns the reasoning item format of a Responses provider, as
// OpenRouter spells it: openai-responses-v1 for "openai" and "",
// azure-openai-responses-v1, xai-responses-v1, bedrock-openai-responses-v1
// and meta-responses-v1. The issuer is the host, not the API: GitHub
// Copilot, Ollama, DeepSeek's and OpenRouter's Responses endpoints and LM
// Studio mint their own ids and blobs (formats.CopilotResponses, ...),
// which OpenAI and Azure cannot verify. Any other host (vLLM, a local
// server) mints items no one else verifies: [replay.FormatUnknown].
func FormatFor(provider string) replay.Format {
	switch strings.ToLower(provider) {
	case "", "openai":
		return formats.OpenAIResponses
	case "azure", "azure-openai":
		return formats.AzureOpenAIResponses
	case "xai", "x-ai", "grok", "xai-oauth", "supergrok":
		return formats.XAIResponses
	case "bedrock", "amazon-bedrock":
		return formats.BedrockOpenAIResponses
	case "meta":
		return formats.MetaResponses
	case "copilot", "github", "github-copilot", "github copilot":
		return formats.CopilotResponses
	case "ollama":
		return formats.OllamaResponses
	case "deepseek":
		return formats.DeepSeekResponses
	case "openrouter":
		return formats.OpenRouterResponses
	case "lmstudio", "lm-studio", "lm studio":
		return formats.LMStudioResponses
	}
	return replay.FormatUnknown
}

// API returns "openai-responses".
func (Codec) API() string { return API }

func (c Codec) format() replay.Format { return FormatFor(c.Provider) }

func (c Codec) provider() string {
	if c.Provider == "" {
		return "openai"
	}
	return c.Provider
}

func clone(s string) string { return strings.Clone(s) }

// web are the API's HTTP facts.
// They are made when first asked for, not when the program starts.
var web = sync.OnceValue(func() *codecs.HTTP {
	return &codecs.HTTP{
		Routes: []codecs.Route{{Path: "/responses"}},
		Hosts: []codecs.Host{
			{Suffix: "api.openai.com", Provider: "openai"},
			{Suffix: "openai.azure.com", Provider: "azure"},
			{Suffix: "api.x.ai", Provider: "xai"},
		},
		Credential: codecs.Header("authorization", "api-key"),
		Member:     "input",
		Endpoint:   "https://api.openai.com",
		Names:      map[string]string{"openai": "openai", "openai-responses": "openai", "azure": "azure"},
		ErrorBody: func(_ string, status int, msg string) ([]byte, http.Header) {
			return codecs.OpenAIErrorBody(status, msg)
		},
		Sniff: sniff,
	}
})

var _ codecs.HTTPCodec = Codec{}

// HTTP returns the API's HTTP facts.
func (Codec) HTTP() *codecs.HTTP { return web() }

// sniff recognises a Responses stream by its events' "response." types and
// a response body by its "object". (Its error body is OpenAI's, which
// chat-completions hosts share: that one is not told apart.)
func sniff(_, data []byte) (codecs.Sniffed, bool) {
	r := kit.SniffParse(data)
	t := r.Get("type").Str
	if strings.HasPrefix(t, "response.") || r.Get("object").Str == "response" {
		model := r.Get("response.model").Str
		if model == "" {
			model = r.Get("model").Str
		}
		return codecs.Sniffed{Score: codecs.SniffType, Model: strings.Clone(model), Event: t != ""}, true
	}
	return codecs.Sniffed{}, false
}
