// Package formats names the issuers of reasoning items ([replay.Format]
// values) and declares what each requires on replay, so that the root
// package decides by declared traits and never by provider name.
//
// The formats OpenRouter documents for reasoning_details are spelled as it
// spells them. The others are minted by this module for issuers OpenRouter
// does not name: the plain reasoning text of OpenAI-compatible chat hosts
// (`reasoning_content` / `reasoning` fields and <think> blocks), Mistral's
// thinking chunks and Cohere's thinking content. Reasoning from a
// self-hosted server (vLLM, SGLang, Ollama, llama.cpp, LM Studio) or a host
// with no replay contract of its own is tagged [replay.FormatUnknown].
//
// Every codec package imports this one, so the traits are registered
// whenever any codec is.
package formats

import (
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/claude"
)

// Formats documented by OpenRouter for reasoning_details.
const (
	OpenAIResponses        replay.Format = "openai-responses-v1"
	AzureOpenAIResponses   replay.Format = "azure-openai-responses-v1"
	BedrockOpenAIResponses replay.Format = "bedrock-openai-responses-v1"
	XAIResponses           replay.Format = "xai-responses-v1"
	MetaResponses          replay.Format = "meta-responses-v1"
	AnthropicClaude        replay.Format = "anthropic-claude-v1"
	GoogleGemini           replay.Format = "google-gemini-v1"
)

// Formats this module mints.
const (
	DeepSeek Format = "deepseek-v1"      // DeepSeek reasoning_content
	Kimi     Format = "moonshot-kimi-v1" // Moonshot Kimi reasoning_content
	GLM      Format = "zai-glm-v1"       // Z.ai / Zhipu GLM reasoning_content
	MiniMax  Format = "minimax-v1"       // MiniMax <think> content or reasoning_details
	Qwen     Format = "qwen-v1"          // Alibaba Qwen (DashScope) reasoning_content
	XAIChat  Format = "xai-chat-v1"      // xAI chat completions reasoning_content
	Groq     Format = "groq-v1"          // Groq parsed reasoning
	Mistral  Format = "mistral-v1"       // Mistral thinking content chunks
	Cohere   Format = "cohere-v1"        // Cohere v2 thinking content
)

// Formats this module mints for hosts that serve the Anthropic Messages
// wire (`/anthropic/v1/messages`) with models of their own. Their thinking
// blocks carry signatures that only the host reads: they are never Claude's,
// and never go to Anthropic, Bedrock or Vertex. The provider, not the wire,
// decides the format (codecs/anthropic).
const (
	// DeepSeekAnthropic: DeepSeek's `/anthropic` endpoint. In thinking mode
	// it wants a thinking block back on every assistant turn; its signature
	// (when sent) is the message id.
	DeepSeekAnthropic Format = "deepseek-anthropic-v1"
	// MiniMaxAnthropic: MiniMax's `/anthropic` endpoint. It signs its
	// thinking blocks and wants them back verbatim (stripping them ends
	// interleaved thinking).
	MiniMaxAnthropic Format = "minimax-anthropic-v1"
	// KimiAnthropic: Moonshot's Kimi `/anthropic` endpoint.
	KimiAnthropic Format = "moonshot-kimi-anthropic-v1"
)

// Formats this module mints for hosts that serve the Responses API and mint
// their own reasoning item ids and encrypted_content: OpenAI and Azure
// cannot verify them (Ollama puts plain text in encrypted_content), so
// their items, and the ids of the items they paired, go back only to the
// host that minted them.
const (
	OllamaResponses     Format = "ollama-responses-v1"     // Ollama /v1/responses
	CopilotResponses    Format = "copilot-responses-v1"    // GitHub Copilot /responses
	DeepSeekResponses   Format = "deepseek-responses-v1"   // DeepSeek's Responses endpoint
	OpenRouterResponses Format = "openrouter-responses-v1" // OpenRouter /api/v1/responses
	LMStudioResponses   Format = "lmstudio-responses-v1"   // LM Studio /v1/responses
)

// responsesHosts lists the Responses-compatible host formats above.
var responsesHosts = []Format{OllamaResponses, CopilotResponses, DeepSeekResponses, OpenRouterResponses, LMStudioResponses}

// Format is [replay.Format], for the constants above.
type Format = replay.Format

// The provider errors the issuers answer a refused item with (from the
// failure catalogue of the research notes).
const (
	claudeUnsigned  = "Invalid signature in thinking block"
	claudeSignature = "messages.1.content.0: Invalid `signature` in `thinking` block"
	claudeModified  = "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. " +
		"These blocks must remain as they were in the original response."
	geminiCorrupted = "Corrupted thought signature."
)

// claudeRefuse: Anthropic answers a foreign or altered signature with the
// signature error, and an altered block of the latest turn with the
// immutability error.
func claudeRefuse(why codecs.Refusal, _ replay.ReasoningItem, latest bool) string {
	if why == codecs.RefuseAltered && latest {
		return claudeModified
	}
	return claudeSignature
}

// claudeUnread: Claude 5.5 blocks are bound to their account (Sonnet 5.5
// also to its model); Haiku 5.5 drops other models' blocks; only Fable and
// Mythos 5.2 read Fable 5.2 blocks; Fable and Mythos 5.1 read Opus 5.5
// blocks only on the Claude API; Opus 5.5 reads neither; Bedrock removes
// blocks of another AWS account or of a Claude app. The turn's Model is the
// model that minted the block (after a server-side fallback, the one that
// served it).
func claudeUnread(p replay.Provenance, t replay.Target) string {
	return claude.Unread(p.Model, t.Model, strings.ToLower(p.Provider), p.Account, t.Account, strings.ToLower(t.Provider))
}

func geminiRefuse(codecs.Refusal, replay.ReasoningItem, bool) string { return geminiCorrupted }

// responsesRefuse: OpenAI Responses cannot decrypt foreign or altered
// ciphertext, nor ciphertext of another organisation.
func responsesRefuse(why codecs.Refusal, it replay.ReasoningItem, _ bool) string {
	e, ok := it.(*replay.Encrypted)
	if !ok {
		return ""
	}
	reason := "Encrypted content could not be decrypted or parsed."
	if why == codecs.RefuseAccount {
		reason = "Encrypted content organization_id did not match the target organization."
	}
	return "The encrypted content " + e.Data[:min(len(e.Data), 4)] + "... could not be verified. Reason: " + reason
}

// xaiRefuse: xAI answers ciphertext it cannot decrypt (foreign, altered,
// of another account) with one text of its own (lidge-jun/opencodex#2229).
func xaiRefuse(_ codecs.Refusal, it replay.ReasoningItem, _ bool) string {
	if _, ok := it.(*replay.Encrypted); !ok {
		return ""
	}
	return "Could not decrypt the provided encrypted_content. Ensure the value is the unmodified encrypted_content from a previous response."
}

func init() {
	// Claude signatures are valid on Anthropic, Bedrock and Vertex alike:
	// one family. Anthropic rejects an unsigned thinking block.
	codecs.RegisterFormat(AnthropicClaude, codecs.FormatTraits{
		SignsText: true, RejectsUnsignedText: true, UnsignedTextError: claudeUnsigned, Family: "anthropic",
		Refuse: claudeRefuse, Unread: claudeUnread,
	})
	// Gemini signs its thought text; thought summaries are unsigned by
	// design, so unsigned text is not rejected. AI Studio and Vertex do not
	// accept each other's signatures.
	codecs.RegisterFormat(GoogleGemini, codecs.FormatTraits{
		SignsText: true, Family: "google", Domain: geminiDomain, Refuse: geminiRefuse,
	})
	// The OpenAI Responses formats pair a reasoning item with the item after
	// it, and bind ciphertext to the minting organisation. The hosts do not
	// share keys: each is its own family.
	for _, f := range []Format{OpenAIResponses, AzureOpenAIResponses, BedrockOpenAIResponses, MetaResponses} {
		codecs.RegisterFormat(f, codecs.FormatTraits{AccountBound: true, PairsWithFollower: true, Refuse: responsesRefuse})
	}
	codecs.RegisterFormat(XAIResponses, codecs.FormatTraits{AccountBound: true, PairsWithFollower: true, Refuse: xaiRefuse})
	// Responses-compatible hosts pair and bind like OpenAI, each its own
	// family: nothing they mint is sent to OpenAI, Azure or each other.
	for _, f := range responsesHosts {
		codecs.RegisterFormat(f, codecs.FormatTraits{AccountBound: true, PairsWithFollower: true, Refuse: responsesRefuse})
	}
	for _, f := range []Format{DeepSeek, Kimi, GLM, MiniMax, Qwen, XAIChat, Groq, Mistral, Cohere} {
		codecs.RegisterFormat(f, codecs.FormatTraits{})
	}
	// The Anthropic-compatible hosts mint their own signatures: each format
	// is its own family, so no Claude target accepts it and no host accepts
	// Claude's or another host's. DeepSeek signs with the message id (a UUID)
	// on V4 and sent unsigned blocks before, and takes unsigned blocks back;
	// Kimi takes back unsigned blocks built from its reasoning_content;
	// MiniMax signs its blocks and wants them back verbatim.
	codecs.RegisterFormat(DeepSeekAnthropic, codecs.FormatTraits{})
	codecs.RegisterFormat(KimiAnthropic, codecs.FormatTraits{})
	codecs.RegisterFormat(MiniMaxAnthropic, codecs.FormatTraits{SignsText: true})
}

// geminiDomain names the Gemini backend a provider or gateway upstream name
// implies: "vertex", "aistudio", or "" when it does not say.
func geminiDomain(name string) string {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "vertex"):
		return "vertex"
	case strings.Contains(n, "studio") || n == "gemini" || n == "google" || n == "aistudio":
		return "aistudio"
	}
	return ""
}
