package openai

import (
	"strings"
	"unsafe"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
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
}

func init() {
	replay.Default.MustRegister(replay.Entry{
		API:       API,
		Providers: []string{"openai", "azure", "azure-openai", "xai", "copilot", "github-copilot", "lmstudio"},
		Models:    []string{"gpt-*", "o1*", "o3*", "o4*", "codex-*", "computer-use-*", "chatgpt-*", "grok-4*", "grok-code-*"},
		New: func(provider, _ string) replay.ReasoningCodec {
			return Codec{Provider: provider}
		},
	})
}

// FormatFor returns the reasoning item format of a Responses provider, as
// OpenRouter spells it: openai-responses-v1 for "openai" and "" (and for
// GitHub Copilot, which serves OpenAI's models and tokens),
// azure-openai-responses-v1, xai-responses-v1, bedrock-openai-responses-v1
// and meta-responses-v1. Other hosts (OpenRouter's, DeepSeek's Responses
// endpoints, local servers) mint items no one else verifies:
// [replay.FormatUnknown].
func FormatFor(provider string) replay.Format {
	switch strings.ToLower(provider) {
	case "", "openai", "copilot", "github", "github-copilot", "github copilot":
		return formats.OpenAIResponses
	case "azure", "azure-openai":
		return formats.AzureOpenAIResponses
	case "xai", "x-ai", "grok":
		return formats.XAIResponses
	case "bedrock", "amazon-bedrock":
		return formats.BedrockOpenAIResponses
	case "meta":
		return formats.MetaResponses
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

// NewStream returns a fresh stream decoder for this provider.
func (c Codec) NewStream() replay.FrameDecoder {
	return &StreamDecoder{Provider: c.Provider}
}

func clone(s string) string { return strings.Clone(s) }

// view returns b as a string without copying, for transient reads only.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}
