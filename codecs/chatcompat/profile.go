package chatcompat

import (
	"path"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/think"
)

// Replay says when a host wants reasoning sent back on assistant messages.
type Replay uint8

const (
	// ReplayNone: the host is stateless or ignores reasoning on input;
	// nothing is sent (vLLM, SGLang, Ollama, llama.cpp, Groq, xAI chat,
	// Qwen, LM Studio).
	ReplayNone Replay = iota
	// ReplayForbidden: sending reasoning_content is a 400 (DeepSeek R1,
	// api-docs.deepseek.com/zh-cn/guides/reasoning_model).
	ReplayForbidden
	// ReplayToolLoop: assistant messages inside the current tool loop carry
	// their reasoning_content; older ones may be dropped (DeepSeek V3.1/V3.2
	// thinking mode; error text from continuedev/continue #9606).
	ReplayToolLoop
	// ReplayAllWithTools: when the request has tools, every earlier
	// assistant message carries reasoning_content, "" where the turn had
	// none; null fails (DeepSeek V4, api-docs.deepseek.com/guides/thinking_mode;
	// NousResearch/hermes-agent #17400 for null).
	ReplayAllWithTools
	// ReplayToolCalls: assistant messages with tool calls carry their
	// reasoning_content when thinking is on (Kimi K2 thinking,
	// platform.moonshot.ai use-kimi-k2-thinking-model).
	ReplayToolCalls
	// ReplayAll: reasoning_content is sent back on every assistant message,
	// unmodified and in order (Z.ai GLM interleaved and preserved thinking,
	// docs.z.ai/guides/capabilities/thinking-mode).
	ReplayAll
	// ReplayRawContent: the assistant message goes back as it came: the
	// <think> block inside content, or reasoning_details when the request
	// used reasoning_split (MiniMax, platform.minimax.io text-openai-api).
	ReplayRawContent
)

// Profile is what the codec knows about one host (or host and model
// family): how it sends reasoning, and what it wants back.
type Profile struct {
	// Name identifies the profile, e.g. "deepseek-v4".
	Name string
	// Provider is recorded as the turn's provenance provider.
	Provider string
	// Format is the format of the reasoning items decoded for this host.
	Format replay.Format
	// Start is how reasoning tags in content are treated before the first
	// tag (see think.Start). Hosts that parse reasoning themselves use
	// think.StartVisible; raw self-hosted servers use think.StartAuto,
	// released as soon as a native reasoning field shows up.
	Start think.Start
	// Replay is the host's replay rule.
	Replay Replay
	// Field is the assistant message member reasoning is written to
	// ("reasoning_content"); empty when the host reads none.
	Field string
	// Preserve names the request switch that makes the host read the
	// thinking of earlier turns (Qwen3.6 `chat_template_kwargs.preserve_thinking: true`,
	// Kimi `thinking.keep: "all"`, GLM `clear_thinking: false`), "" when it
	// has none. The audit follows what the request says.
	Preserve string
	// Source names the documentation or report the profile's rule comes
	// from.
	Source string
}

// The profiles. Each is selected by provider and model in [ProfileFor];
// [Profiles] returns copies. They are not exported as variables: a
// profile decides what is sent back to a host, so callers get copies.
var (
	deepSeekR1 = Profile{Name: "deepseek-r1", Provider: "deepseek", Format: formats.DeepSeek,
		Start: think.StartVisible, Replay: ReplayForbidden, Field: "reasoning_content",
		Source: "api-docs.deepseek.com/zh-cn/guides/reasoning_model (reasoning_content in input -> 400)"}
	deepSeekV3 = Profile{Name: "deepseek-v3", Provider: "deepseek", Format: formats.DeepSeek,
		Start: think.StartVisible, Replay: ReplayToolLoop, Field: "reasoning_content",
		Source: "DeepSeek thinking mode with tool calls, Dec 2025 (continuedev/continue #9606, #9831; official sample clears older reasoning)"}
	deepSeekV4 = Profile{Name: "deepseek-v4", Provider: "deepseek", Format: formats.DeepSeek,
		Start: think.StartVisible, Replay: ReplayAllWithTools, Field: "reasoning_content",
		Source: "api-docs.deepseek.com/guides/thinking_mode (V4: all previous turns when tools are in the request)"}
	xaiChat = Profile{Name: "xai", Provider: "xai", Format: formats.XAIChat,
		Start: think.StartVisible, Replay: ReplayNone,
		Source: "docs.x.ai reasoning guide: Chat Completions has no input field for reasoning"}
	kimi = Profile{Name: "kimi", Provider: "moonshot", Format: formats.Kimi,
		Start: think.StartVisible, Replay: ReplayToolCalls, Field: "reasoning_content", Preserve: `thinking.keep "all"`,
		Source: "platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model"}
	// kimiK3 always reasons, takes no thinking parameter, and keeps every
	// historical reasoning_content (preserved thinking always on).
	kimiK3 = Profile{Name: "kimi-k3", Provider: "moonshot", Format: formats.Kimi,
		Start: think.StartVisible, Replay: ReplayAll, Field: "reasoning_content",
		Source: "Kimi K3 docs as quoted in lemon07r/opencode-kimi-full#11 (reasoning_content of every historical assistant message kept; no thinking parameter); can1357/oh-my-pi#5847"}
	// kimiK27 is Kimi K2.7 Code: thinking cannot be turned off, and an
	// empty reasoning_content reads as a missing one.
	kimiK27 = Profile{Name: "kimi-k2.7", Provider: "moonshot", Format: formats.Kimi,
		Start: think.StartVisible, Replay: ReplayToolCalls, Field: "reasoning_content",
		Source: "platform.kimi.com kimi-k2-7-code-quickstart (thinking always enabled; can1357/oh-my-pi#3852); tbosancheros39/opencode-thinking-fix README (empty reasoning_content rejected)"}
	glm = Profile{Name: "glm", Provider: "zai", Format: formats.GLM,
		Start: think.StartVisible, Replay: ReplayAll, Field: "reasoning_content", Preserve: "clear_thinking false",
		Source: "docs.z.ai/guides/capabilities/thinking-mode (interleaved; preserved with clear_thinking:false)"}
	miniMax = Profile{Name: "minimax", Provider: "minimax", Format: formats.MiniMax,
		Start: think.StartAuto, Replay: ReplayRawContent,
		Source: "platform.minimax.io/docs/api-reference/text-openai-api (append the complete assistant message)"}
	qwen = Profile{Name: "qwen", Provider: "dashscope", Format: formats.Qwen,
		Start: think.StartVisible, Replay: ReplayNone, Field: "reasoning_content", Preserve: "preserve_thinking",
		Source: "alibabacloud.com/help/en/model-studio/deep-thinking (no replay rule documented); Qwen3.6 preserve_thinking (earendil-works/pi #3325)"}
	groq = Profile{Name: "groq", Provider: "groq", Format: formats.Groq,
		Start: think.StartAuto, Replay: ReplayNone,
		Source: "console.groq.com/docs/reasoning (reasoning_format raw|parsed|hidden)"}
	geminiOpenAI = Profile{Name: "gemini", Provider: "gemini-openai", Format: formats.GoogleGemini,
		Start: think.StartVisible, Replay: ReplayNone,
		Source: "ai.google.dev/gemini-api/docs/thought-signatures (OpenAI compatibility: extra_content.google.thought_signature)"}
	// vertexOpenAI is Vertex AI's OpenAI-compatible endpoint: the signature
	// at extra_content.vertex.thought_signature, Vertex's error text.
	vertexOpenAI = Profile{Name: "gemini-vertex", Provider: "vertex-openai", Format: formats.GoogleGemini,
		Start: think.StartVisible, Replay: ReplayNone,
		Source: "8monkey-ai/hebo-gateway#226 (Vertex OpenAI compatibility: extra_content.vertex.thought_signature)"}
	// generic is any other OpenAI-compatible server: vLLM, SGLang, Ollama,
	// llama.cpp, LM Studio, Hugging Face router. Stateless; reasoning may
	// arrive as reasoning, reasoning_content or raw tags in content.
	generic = Profile{Name: "generic", Format: replay.FormatUnknown,
		Start: think.StartAuto, Replay: ReplayNone,
		Source: "docs.vllm.ai reasoning_outputs; docs.sglang.io separate_reasoning; ollama openai/openai.go; llama.cpp server README"}
)

// profileRule maps a provider or a model pattern to a profile.
type profileRule struct {
	providers []string
	models    []string
	profile   *Profile
}

var profileRules = []profileRule{
	{providers: []string{"deepseek"}, models: []string{"deepseek-r1*"}, profile: &deepSeekR1},
	{providers: []string{"deepseek"}, models: []string{"deepseek-v4*"}, profile: &deepSeekV4},
	{providers: []string{"deepseek"}, models: []string{"deepseek-*"}, profile: &deepSeekV3},
	{providers: []string{"xai", "x.ai"}, models: []string{"grok-*"}, profile: &xaiChat},
	{providers: []string{"moonshot", "kimi", "moonshotai"}, models: []string{"kimi-k3*", "*/kimi-k3*"}, profile: &kimiK3},
	{providers: []string{"moonshot", "kimi", "moonshotai"}, models: []string{"kimi-k2.7*", "*/kimi-k2.7*"}, profile: &kimiK27},
	{providers: []string{"moonshot", "kimi", "moonshotai"}, models: []string{"kimi-*", "*/kimi-*", "moonshot-*"}, profile: &kimi},
	{providers: []string{"zai", "z.ai", "zhipu", "bigmodel"}, models: []string{"glm-*", "*/glm-*"}, profile: &glm},
	{providers: []string{"minimax"}, models: []string{"minimax-*", "*/minimax-*"}, profile: &miniMax},
	{providers: []string{"dashscope", "alibaba", "qwen", "aliyun"}, models: []string{"qwen*", "qwq-*"}, profile: &qwen},
	{providers: []string{"groq"}, profile: &groq},
	{providers: []string{"gemini-openai", "google-openai"}, profile: &geminiOpenAI},
	{providers: []string{"vertex-openai", "vertex-ai-openai", "google-vertex-openai"}, profile: &vertexOpenAI},
}

// genericProviders are the self-hosted servers and routers that get the
// generic profile.
var genericProviders = []string{"vllm", "sglang", "ollama", "llama.cpp", "llamacpp", "lmstudio",
	"huggingface", "hf", "openai-compatible"}

// ProfileFor picks the profile for a provider and model, in the order of
// [replay.Registry.Resolve]: a rule that lists the provider and matches the
// model; a rule that lists the provider; the generic profile for a
// self-hosted server or router (vLLM, SGLang, Ollama, llama.cpp, LM Studio,
// the Hugging Face router); a rule that matches the model;
// otherwise the generic profile. The provider name is recorded when the profile has
// none.
//
// deepseek-reasoner and deepseek-chat get the V3 (tool loop) profile: both
// names have been served by V3.2 since December 2025 (the R1 contract, never
// send reasoning_content, applies to deepseek-r1* model names).
func ProfileFor(provider, model string) Profile {
	p, m := strings.ToLower(provider), strings.ToLower(model)
	base := m[strings.LastIndexByte(m, '/')+1:]
	match := func(pats []string) bool {
		for _, pat := range pats {
			if ok, _ := path.Match(pat, m); ok && m != "" {
				return true
			}
			// "*/kimi-*" is a vendor slug of any depth: SiliconFlow names
			// Kimi "Pro/moonshotai/Kimi-K2.5".
			if rest, slug := strings.CutPrefix(pat, "*/"); slug && base != m {
				if ok, _ := path.Match(rest, base); ok {
					return true
				}
			}
		}
		return false
	}
	lists := func(ps []string) bool {
		for _, x := range ps {
			if x == p && p != "" {
				return true
			}
		}
		return false
	}
	pick := func(pr *Profile) Profile {
		out := *pr
		if p != "" && out.Provider == "" {
			out.Provider = p
		}
		return out
	}
	for _, r := range profileRules {
		if lists(r.providers) && match(r.models) {
			return pick(r.profile)
		}
	}
	for _, r := range profileRules {
		if lists(r.providers) {
			return pick(r.profile)
		}
	}
	if !lists(genericProviders) {
		for _, r := range profileRules {
			if match(r.models) {
				return pick(r.profile)
			}
		}
	}
	return pick(&generic)
}

// Profiles returns a copy of every profile, in the order [ProfileFor]
// tries them, the generic profile last.
func Profiles() []Profile {
	out := make([]Profile, 0, len(profileRules)+1)
	for _, r := range profileRules {
		out = append(out, *r.profile)
	}
	return append(out, generic)
}
