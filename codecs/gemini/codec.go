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
// signs the first part of any type. Server-tool parts may be signed too.
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
// fragment's signature. The stream is complete when candidate 0 has a
// finishReason. An `{"error":{...}}` event or a blocking promptFeedback is a
// [*replay.ProviderError].
//
// # Replay
//
// [Codec.Encode] writes the `contents[]` entry `{"role":"model","parts":[...]}`
// with every part in its original order and each signature on its original
// part; [Codec.Patch] puts the signatures onto a model message the caller
// built. The binding is shared, through package internal/gemsig, with the
// chat-completions codecs that serve Gemini's OpenAI-compatible endpoint
// (`tool_calls[i].extra_content.google.thought_signature`). See
// [Codec.Contract] for the audit rules.
package gemini

import (
	"path"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/gemsig"
)

// API is the codec's API name.
const API = "gemini"

// Sentinel is the documented dummy signature that makes Gemini skip
// signature validation for one function call. It is written only when
// [Codec.Sentinel] allows it.
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
	// Limits bound what the decoders accept.
	Limits replay.Limits
	// Model is the model requests are sent to, when known: on Gemini 3 and
	// later the contract documents [Sentinel] as the placeholder signature
	// of an unsigned function call.
	Model string
}

// providers are the provider names the codec registers for.
var providers = []string{"gemini", "google", "aistudio", "vertex"}

func init() {
	replay.Default.MustRegister(replay.Entry{
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

// NewStream returns a fresh stream decoder.
func (c Codec) NewStream() replay.FrameDecoder {
	return &StreamDecoder{Provider: c.Provider, Candidate: c.Candidate, Limits: c.Limits}
}

// modelName strips resource prefixes from a model name:
// "models/gemini-3-pro", "publishers/google/models/gemini-3-pro".
func modelName(m string) string {
	m = strings.ToLower(m)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	return m
}

// requiresSignatures reports whether the model validates function-call
// signatures in the current turn: Gemini 3 and later. Gemini 2.5 and
// earlier, Gemma and unknown non-Gemini models do not.
func requiresSignatures(model string) bool {
	m := modelName(model)
	if !strings.HasPrefix(m, "gemini-") {
		return false
	}
	rest := m[len("gemini-"):]
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 0 {
		// Aliases such as gemini-flash-latest and gemini-pro-latest point
		// at the current generation.
		ok, _ := path.Match("*-latest", rest)
		return ok
	}
	major := 0
	for _, c := range rest[:n] {
		major = major*10 + int(c-'0')
		if major > 1000 {
			break
		}
	}
	return major >= 3
}
