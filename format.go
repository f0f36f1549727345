package replay

// Format names the issuer of a reasoning item: which provider minted it and in
// which wire dialect. It is spelled as OpenRouter spells the `format` field of
// its reasoning_details, and it is an open set: a string this library does not
// know is kept as it came and written back unchanged, never rewritten.
//
// The empty Format means the source said nothing; it is written back as
// absent. [FormatUnknown] is the explicit "unknown" that OpenRouter sends.
type Format string

// Formats documented by OpenRouter for reasoning_details.
const (
	FormatUnknown                Format = "unknown"
	FormatOpenAIResponses        Format = "openai-responses-v1"
	FormatAzureOpenAIResponses   Format = "azure-openai-responses-v1"
	FormatBedrockOpenAIResponses Format = "bedrock-openai-responses-v1"
	FormatXAIResponses           Format = "xai-responses-v1"
	FormatMetaResponses          Format = "meta-responses-v1"
	FormatAnthropicClaude        Format = "anthropic-claude-v1"
	FormatGoogleGemini           Format = "google-gemini-v1"
)

// Formats this library mints for issuers that OpenRouter does not name. They
// tag the plain reasoning text of OpenAI-compatible chat hosts (the
// `reasoning_content` / `reasoning` fields and <think> blocks), of Mistral's
// thinking chunks and of Cohere's thinking content, so that policy and audit
// can tell the issuers apart. Reasoning from a self-hosted server (vLLM,
// SGLang, Ollama, llama.cpp, LM Studio) or a host with no replay contract of
// its own is tagged [FormatUnknown].
const (
	FormatDeepSeek Format = "deepseek-v1"      // DeepSeek reasoning_content
	FormatKimi     Format = "moonshot-kimi-v1" // Moonshot Kimi reasoning_content
	FormatGLM      Format = "zai-glm-v1"       // Z.ai / Zhipu GLM reasoning_content
	FormatMiniMax  Format = "minimax-v1"       // MiniMax <think> content or reasoning_details
	FormatQwen     Format = "qwen-v1"          // Alibaba Qwen (DashScope) reasoning_content
	FormatXAIChat  Format = "xai-chat-v1"      // xAI chat completions reasoning_content
	FormatGroq     Format = "groq-v1"          // Groq parsed reasoning
	FormatMistral  Format = "mistral-v1"       // Mistral thinking content chunks
	FormatCohere   Format = "cohere-v1"        // Cohere v2 thinking content
)

// Known reports whether f is one of the constants above.
func (f Format) Known() bool {
	switch f {
	case FormatUnknown, FormatOpenAIResponses, FormatAzureOpenAIResponses,
		FormatBedrockOpenAIResponses, FormatXAIResponses, FormatMetaResponses,
		FormatAnthropicClaude, FormatGoogleGemini,
		FormatDeepSeek, FormatKimi, FormatGLM, FormatMiniMax, FormatQwen,
		FormatXAIChat, FormatGroq, FormatMistral, FormatCohere:
		return true
	}
	return false
}

// SignsText reports whether the issuer signs its reasoning text, so that a
// text item of this format is replayable only with a non-empty signature.
// Anthropic rejects an unsigned thinking block ("Invalid signature in
// thinking block"); Gemini ignores or rejects thought text that lost its
// signature.
func (f Format) SignsText() bool {
	return f == FormatAnthropicClaude || f == FormatGoogleGemini
}

// Family groups formats whose signatures and ciphertexts are interchangeable
// across platforms. Claude signatures are valid on Anthropic, Bedrock and
// Vertex alike, so they form one family; the OpenAI Responses formats of
// different hosts do not share keys and each is its own family. Unknown
// formats are their own family.
func (f Format) Family() string {
	switch f {
	case FormatAnthropicClaude:
		return "anthropic"
	case FormatGoogleGemini:
		return "google"
	}
	return string(f)
}
