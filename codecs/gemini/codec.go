// Package gemini is the codec for the Gemini API (AI Studio,
// `generateContent` / `streamGenerateContent?alt=sse`) and Vertex AI, which
// serves the same shapes.
//
// # Wire facts
//
// A response holds `candidates[].content.parts[]`; this codec reads
// candidate 0 unless [Codec.Candidate] says otherwise. A part carries one
// data member (`text`, `functionCall`, `executableCode`,
// `codeExecutionResult`, `inlineData`, `toolCall`, ...), optionally
// `thought: true` (a thought summary, only with includeThoughts) and
// optionally `thoughtSignature`, an opaque base64 string bound to that very
// part. Gemini 3 signs the first functionCall of every step (in a parallel
// batch only the first call), or, without calls, the last part — when
// streaming often a final `{"text":"","thoughtSignature":...}`. Gemini 2.5
// signs the first part of any type, and only when it thinks; Google
// announced validation errors for missing signatures from 2026-01-30
// (gptel#1146) and users get Gemini 3's missing-signature 400 on
// gemini-2.5-flash (rowboat#694) and -flash-lite (LLM-API-Key-Proxy#160):
// see [ValidatesSignatures]. Server-tool parts may be signed too.
//
// The documented dummy is the plain string `skip_thought_signature_validator`
// ([Sentinel]); a base64 encoding of it is treated as a corrupt signature
// ("Corrupted thought signature."), so it is flagged
// (gemini/encoded-sentinel) and never written. A signature holding a lone
// surrogate escape is refused as malformed input: decoding would alter it.
//
// # Binding
//
// A signature on a non-thought part becomes a [*replay.Encrypted] item of
// format [formats.GoogleGemini] with Attached set, placed immediately
// before the block of its part (ID = the function call id when the call has
// one). A `thought: true` text part becomes a [*replay.ReasoningText] whose
// Signature is the part's signature, if any. Function calls become
// [*replay.ToolCall] (Arguments = the `args` object's JSON text), visible
// text [*replay.Text], and every other part a [*replay.Native] whose Raw is
// the part without its signature. A signed empty-text part stays a part:
// the bound item and an empty [*replay.Text]. Signatures are kept as the
// exact strings received, never decoded: the documented dummy
// `skip_thought_signature_validator` is not base64.
//
// # Streams
//
// Each SSE event (or JSONL line) is a whole GenerateContentResponse with
// only the new parts. Consecutive thought parts merge into one item while
// no signature separates them; visible text parts merge into the preceding
// text block unless they carry a signature of their own. Vertex streams
// function-call arguments as fragments: `{"name":...,"willContinue":true}`
// (which may carry the signature), `{"partialArgs":[...]}` pieces and a
// closing `{}`; they are reassembled into one call that keeps the first
// fragment's signature, in time and memory linear in the pieces (a
// jsonPath nested deeper than 10,000, or an array index past the end of its
// array, is malformed input). The stream is complete when candidate 0 has a
// finishReason. An `{"error":{...}}` event or a blocking promptFeedback is a
// [*replay.ProviderError].
//
// A request carries each model turn as a `contents[]` entry of the shape
// of a candidate's content; [Codec.DecodeRequest] reads it with the same
// part reader.
//
// # Replay
//
// [Codec.Encode] writes the `contents[]` entry `{"role":"model","parts":[...]}`
// with every part in its original order and each signature on its original
// part; [Codec.Patch] puts the signatures onto a model message the caller
// built. The binding is shared, through package internal/gemsig, with the
// chat-completions codecs that serve Gemini's OpenAI-compatible endpoint
// (`tool_calls[i].extra_content.google.thought_signature`; Vertex AI's
// endpoint `extra_content.vertex.thought_signature`, with its own error
// text; or, from some gateways, `thoughtSignature` / `thought_signature` on
// the call itself; gemsig writes each back where it came from). Gemini
// function calls often have no id; the other APIs need one, which
// replay.Carry mints. See [Codec.Contract] for the audit rules: Gemini 3.5
// Flash and 3.1 Flash Lite enforce like Gemini 3, and another issuer's
// signature on a call (a Claude signature copied over) is refused as
// "Corrupted thought signature.".
package gemini

import (
	"net/http"
	"strings"
	"sync"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/gemsig"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
)

// API is the codec's API name.
const API = "gemini"

// Sentinel is the dummy thought signature Google documents for a function
// call whose signature was lost or that the model did not produce (history
// from another model, injected calls): the Gemini API and Vertex AI skip
// signature validation for that part ("Thought signatures" guide, FAQ:
// "set the thoughtSignature field to skip_thought_signature_validator";
// Gemini 3 developer guide, "Migrating from other models"). Google calls
// it a last resort that degrades the model. It is the plain string, not
// base64 of anything (a base64 encoding of it is rejected as corrupt), so
// signatures are always kept as the strings received. This codec writes
// it only when [Codec.Sentinel] allows it, and never an encoding of it.
const Sentinel = gemsig.Sentinel

// Codec is the Gemini codec. The zero value is ready to use.
type Codec struct {
	// Provider is recorded as the provenance provider of decoded turns
	// ("aistudio", "vertex", "google"). When it is empty or does not name
	// a backend ("google", "gemini"), a response that shows Vertex markers
	// (`createTime`, `usageMetadata.trafficType`) is recorded as "vertex".
	Provider string
	// Candidate is the candidate to decode (matched by its `index`,
	// else by position). Default 0.
	Candidate int
	// Sentinel allows Encode and Patch to write [Sentinel] on the first
	// function call of a model step that has no signature, as Google
	// documents for history the model did not produce. It degrades the
	// model; every use is reported by [Codec.EncodeReport] and
	// [Codec.PatchReport] and flagged by the gemini/sentinel-signature
	// audit rule.
	Sentinel bool
	// Limits bound what the decoders keep (MaxItem per string, MaxBlocks,
	// MaxTurn in total, MaxEvent per stream event); zero fields take
	// defaults.
	Limits replay.Limits
	// Model is the model requests are sent to, when known: on Gemini 3 and
	// later the contract documents [Sentinel] as the placeholder signature
	// of an unsigned function call.
	Model string
}

// providers are the provider names the codec registers for.
var providers = []string{"gemini", "google", "aistudio", "vertex"}

func init() {
	replay.Default().MustRegister(replay.Entry{
		API:       API,
		Providers: providers,
		Models:    []string{"gemini-*", "*gemini*", "gemma-*"},
		New: func(provider, model string) replay.ReasoningCodec {
			return Codec{Provider: provider, Model: model}
		},
	})
}

// API returns "gemini".
func (Codec) API() string { return API }

// RequiresSignatures reports whether model validates the thought
// signatures of function calls in the current turn, i.e. whether it is
// Gemini 3 or later. It is the one "is this Gemini 3+" check of the module.
//
// It reads the model id however it is spelled: a bare id
// ("gemini-3-pro-preview", "gemini-3.5-flash", "gemini-4-pro"), an API model
// path ("models/gemini-3-pro-preview"), a Vertex resource name
// ("projects/p/locations/global/publishers/google/models/gemini-3-flash"),
// a gateway slug ("google/gemini-3-pro-preview", "google/gemini-3-flash:free")
// or a URL tail with its method (":streamGenerateContent"). Case is ignored.
//
// Unversioned family aliases ("gemini-flash-latest", "gemini-pro-latest",
// "gemini-flash-lite-latest") track the newest generally available model
// of the family; since Gemini 3.5 Flash went GA in mid-2026 they all point
// at Gemini 3 or later, so they count as Gemini 3. A versioned alias
// ("gemini-2.5-pro-latest") is judged by its version. Gemini 2.5 and
// earlier, Gemma and non-Gemini models return false.
func RequiresSignatures(model string) bool { return gemsig.RequiresSignatures(model) }

// ValidatesSignatures reports whether model validates thought signatures
// at all: Gemini 3 and later ([RequiresSignatures]), and Gemini 2.5, for
// which Google announced validation errors for missing signatures from
// 2026-01-30 (gptel#1146) and users report the Gemini 3 error text on
// gemini-2.5-flash (rowboat#694) and gemini-2.5-flash-lite
// (LLM-API-Key-Proxy#160). Gemini 2.5 signs only when it thinks, so a
// missing signature is certain to be rejected only where the turn shows
// the model signed (see [RuleMissingSignature]).
func ValidatesSignatures(model string) bool { return gemsig.ValidatesSignatures(model) }

// web are the API's HTTP facts: generateContent and its stream on AI
// Studio and Vertex (whose paths end the same way).
// They are made when first asked for, not when the program starts.
var web = sync.OnceValue(func() *codecs.HTTP {
	return &codecs.HTTP{
		Routes: []codecs.Route{
			{Path: "/models/{model}:generateContent"},
			{Path: "/models/{model}:streamGenerateContent", Array: true},
		},
		Hosts: []codecs.Host{
			{Suffix: "generativelanguage.googleapis.com", Provider: "gemini"},
			{Suffix: "aiplatform.googleapis.com", Provider: "vertex"},
		},
		Credential: codecs.Header("x-goog-api-key", "?key", "authorization"),
		Member:     "contents",
		Endpoint:   "https://generativelanguage.googleapis.com",
		Names:      map[string]string{"gemini": "gemini", "google": "gemini", "vertex": "vertex"},
		ErrorBody:  errorBody,
		Sniff:      sniff,
	}
})

var _ codecs.HTTPCodec = Codec{}

// HTTP returns the API's HTTP facts.
func (Codec) HTTP() *codecs.HTTP { return web() }

// errorBody writes an error body as Google's APIs do:
// {"error":{"code":...,"message":...,"status":...}}.
func errorBody(_ string, status int, msg string) ([]byte, http.Header) {
	st := "INVALID_ARGUMENT"
	switch status {
	case http.StatusUnauthorized:
		st = "UNAUTHENTICATED"
	case http.StatusForbidden:
		st = "PERMISSION_DENIED"
	case http.StatusNotFound:
		st = "NOT_FOUND"
	case http.StatusTooManyRequests:
		st = "RESOURCE_EXHAUSTED"
	case http.StatusServiceUnavailable, http.StatusBadGateway:
		st = "UNAVAILABLE"
	case http.StatusGatewayTimeout:
		st = "DEADLINE_EXCEEDED"
	case http.StatusInternalServerError:
		st = "INTERNAL"
	}
	b := jsonw.Int([]byte(`{"error":{"code":`), status)
	b = jsonw.String(append(b, `,"message":`...), msg)
	b = jsonw.String(append(b, `,"status":`...), st)
	return append(b, "}}"...), nil
}

// sniff recognises a GenerateContentResponse (a whole body or one chunk of
// a stream: the two have one shape) by its candidates or prompt feedback,
// and Google's error body by its numeric code and status.
func sniff(_, data []byte) (codecs.Sniffed, bool) {
	r := kit.SniffParse(data)
	switch {
	case r.Get("candidates").Exists() || r.Get("promptFeedback").Exists():
		return codecs.Sniffed{Score: codecs.SniffMembers, Model: strings.Clone(r.Get("modelVersion").Str)}, true
	case r.Get("error.status").Exists() && r.Get("error.code").Type == gjson.Number:
		return codecs.Sniffed{Score: codecs.SniffMembers}, true
	}
	return codecs.Sniffed{}, false
}
