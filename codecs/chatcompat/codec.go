// Package chatcompat is the codec for hosts that speak OpenAI Chat
// Completions with reasoning fields of their own: DeepSeek, xAI chat, Kimi
// (Moonshot), Z.ai GLM, MiniMax, Qwen (DashScope), Groq, Gemini's
// OpenAI-compatible endpoint, and self-hosted servers (vLLM, SGLang,
// Ollama, llama.cpp, LM Studio, the Hugging Face router). It registers three
// API names: "deepseek", "xai" and "openai-compatible"; a [Profile], picked
// by [ProfileFor] from the provider and model, holds each host's rules.
//
// # Wire facts
//
// Reasoning arrives as `message.reasoning_content` (DeepSeek, Kimi, GLM,
// Qwen, xAI grok-3-mini, llama.cpp, SGLang), `message.reasoning` (vLLM since
// it renamed the field, Ollama's compat layer, Groq parsed), or
// `message.reasoning_details[]` (MiniMax with reasoning_split); streams send
// the same members on `choices[0].delta`. Some servers mirror one text in
// two fields of one chunk: the decoder reads one field per chunk
// (reasoning_details, else reasoning_content, else reasoning), so mirrored
// text counts once while a token repeated in consecutive chunks ("ha",
// "ha") is kept. MiniMax may send reasoning_details cumulatively: a fragment
// that extends the text so far (8 bytes or more) adds only its new suffix.
// A surrogate pair whose halves arrive in two consecutive deltas of one
// field ("\ud83c" then "\udf0a", from hosts that cut text by UTF-16 code
// units) is joined into one character; an unpaired half is U+FFFD.
//
// Many hosts leak reasoning into `content` as <think>…</think> (MiniMax by
// design, Groq raw, servers without a reasoning parser); content goes
// through package think, so visible text never holds a delimiter. Native
// fields are authoritative: once a message has native reasoning, tagged
// reasoning in its content is stripped but not kept a second time.
// Reasoning taken from tags is marked with the extra member
// `"source":"content"`.
//
// Tool calls are merged by `index` in streams (arguments concatenated). On
// Gemini's OpenAI-compatible endpoint a tool call's
// `extra_content.google.thought_signature` (Vertex AI's endpoint:
// `extra_content.vertex.thought_signature`) becomes a bound Gemini
// signature item placed before the call (package internal/gemsig), and is
// written back onto the same call in the same spelling; Gemini 3 refuses
// the current turn's first call of an assistant message without it.
//
// Later contracts: DeepSeek V4 (thinking on by default) wants
// reasoning_content on every earlier assistant message when tools are
// present, and refuses the reasoning sent as a `thinking` content part
// ("messages[N]: unknown variant `thinking`, expected `text`"). Kimi K3
// always thinks and keeps every historical reasoning_content; Kimi K2.7
// Code refuses `thinking` disabled and reads an empty reasoning_content as
// missing; Kimi is also named by vendor slugs of any depth (SiliconFlow's
// `Pro/moonshotai/Kimi-K2.5`). MiniMax-M3 with `reasoning_split: true`
// returns reasoning_details, wanted back whole. A request's assistant
// content may be an array of parts (its text parts are its content); a
// body with a leftover `choices[0].delta` beside its message (Perplexity)
// reads as a body.
//
// Replay depends on the host (see [Replay] and each profile's Source);
// [Codec.Contract] returns the audit rules that check it.
package chatcompat

import (
	"net/http"
	"strings"
	"sync"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/kit"
)

// API names registered by this package.
const (
	APIDeepSeek = "deepseek"
	APIXAI      = "xai"
	APIGeneric  = "openai-compatible"
)

// Codec is the chat-completions codec for one profile. Build it with
// [New], or as a value with the fields set.
type Codec struct {
	// Name is the API name the codec reports ("openai-compatible" when
	// empty).
	Name string
	// Profile holds the host's rules.
	Profile Profile
	// Model is the target model, when known.
	Model string
	// Preserve says the requests ask the host to read the thinking of
	// earlier turns (Profile.Preserve, e.g. Qwen3.6 preserve_thinking):
	// Encode then writes the reasoning field on every assistant message
	// that has reasoning, even for a profile that otherwise sends none.
	Preserve bool
	// Limits bound what the decoders keep; zero fields take defaults.
	Limits replay.Limits
}

// New returns the codec for api ("deepseek", "xai", "openai-compatible")
// with the profile for the provider and model.
func New(api, provider, model string) Codec {
	switch strings.ToLower(provider) {
	case "gemini", "google":
		// Gemini's own host serves its OpenAI-compatible chat endpoint.
		provider = "gemini-openai"
	}
	switch api {
	case APIDeepSeek:
		if provider == "" {
			provider = "deepseek"
		}
		if model == "" {
			model = "deepseek-chat"
		}
	case APIXAI:
		if provider == "" {
			provider = "xai"
		}
	}
	return Codec{Name: api, Profile: ProfileFor(provider, model), Model: model}
}

func init() {
	for _, e := range []replay.Entry{
		{API: APIDeepSeek, Providers: []string{"deepseek"}, Models: []string{"deepseek-*"}},
		{API: APIXAI, Providers: []string{"xai", "x.ai"}, Models: []string{"grok-3-mini*"}},
		{API: APIGeneric, Providers: append([]string{"moonshot", "kimi", "zai", "z.ai", "zhipu", "minimax",
			"dashscope", "alibaba", "qwen", "groq", "gemini-openai", "vertex-openai"}, genericProviders...),
			Models: []string{"kimi-*", "glm-*", "minimax-*", "qwen*", "qwq-*"}},
	} {
		api := e.API
		e.New = func(provider, model string) replay.ReasoningCodec { return New(api, provider, model) }
		replay.Default().MustRegister(e)
	}
}

// API returns the codec's API name.
func (c Codec) API() string {
	if c.Name == "" {
		return APIGeneric
	}
	return c.Name
}

// NewFrameDecoder returns a fresh [StreamDecoder] for the codec's profile.
func (c Codec) NewFrameDecoder() codecs.FrameDecoder {
	return &StreamDecoder{API: c.API(), Profile: c.Profile, Limits: c.Limits}
}

// webs are the HTTP facts of the package's three APIs: each serves chat
// completions; the generic API is the one a request to a named provider
// that no other chat API claims falls back to.
// They are made when first asked for, not when the program starts.
var webs = sync.OnceValue(func() map[string]*codecs.HTTP {
	return map[string]*codecs.HTTP{
		APIDeepSeek: {
			Routes:     []codecs.Route{{Path: "/chat/completions", Shared: true}},
			Hosts:      []codecs.Host{{Suffix: "api.deepseek.com", Provider: "deepseek"}},
			Credential: codecs.Header("authorization"),
			Member:     "messages",
			Endpoint:   "https://api.deepseek.com",
			Names:      map[string]string{"deepseek": "deepseek"},
			ErrorBody:  errorBody,
			Sniff:      firstParty("deepseek-", "distill"),
		},
		APIXAI: {
			Routes:     []codecs.Route{{Path: "/chat/completions", Shared: true}},
			Hosts:      []codecs.Host{{Suffix: "api.x.ai", Provider: "xai"}},
			Credential: codecs.Header("authorization"),
			Member:     "messages",
			Endpoint:   "https://api.x.ai",
			Names:      map[string]string{"xai": "xai", "grok": "xai"},
			ErrorBody:  errorBody,
			Sniff:      firstParty("grok-", ""),
		},
		APIGeneric: {
			Routes: []codecs.Route{{Path: "/chat/completions", Shared: true, Fallback: codecs.FallbackNamed}},
			Hosts: []codecs.Host{
				{Suffix: "api.moonshot.ai", Provider: "moonshot"},
				{Suffix: "api.moonshot.cn", Provider: "moonshot"},
				{Suffix: "api.z.ai", Provider: "zai"},
				{Suffix: "open.bigmodel.cn", Provider: "zhipu"},
				{Suffix: "api.minimax.io", Provider: "minimax"},
				{Suffix: "api.minimaxi.com", Provider: "minimax"},
				{Suffix: "dashscope.aliyuncs.com", Provider: "dashscope"},
				{Suffix: "dashscope-intl.aliyuncs.com", Provider: "dashscope"},
				{Suffix: "api.groq.com", Provider: "groq"},
			},
			Credential: codecs.Header("authorization", "api-key"),
			Member:     "messages",
			Names: map[string]string{"moonshot": "moonshot", "kimi": "moonshot", "zai": "zai", "glm": "zai",
				"groq": "groq", "minimax": "minimax", "dashscope": "dashscope", "qwen": "dashscope"},
			ErrorBody: errorBody,
			Sniff:     sniffGeneric,
		},
	}
})

var _ codecs.HTTPCodec = Codec{}

// HTTP returns the HTTP facts of the codec's API.
func (c Codec) HTTP() *codecs.HTTP { return webs()[c.API()] }

func errorBody(_ string, status int, msg string) ([]byte, http.Header) {
	return codecs.OpenAIErrorBody(status, msg)
}

// sniffGeneric recognises any chat completion, the generic API being the
// one a chat body of no more particular host is read with; Groq's x_groq
// and Ollama's system fingerprint name the host (above a first-party model
// name: both serve other vendors' models). An OpenAI-shaped error body
// ({"error":...}) is read as the generic API's.
func sniffGeneric(_, data []byte) (codecs.Sniffed, bool) {
	r := kit.SniffParse(data)
	if s, ok := kit.SniffChat(r, codecs.SniffShape); ok {
		switch {
		case r.Get("x_groq").Exists():
			s.Score, s.Provider = codecs.SniffShape+5, "groq"
		case r.Get("system_fingerprint").Str == "fp_ollama":
			s.Score, s.Provider = codecs.SniffShape+5, "ollama"
		}
		return s, true
	}
	if r.Get("error").Exists() {
		return codecs.Sniffed{Score: codecs.SniffError + 2}, true
	}
	return codecs.Sniffed{}, false
}

// firstParty recognises a chat completion of a first-party API by its
// model name's prefix, unless the name is a gateway's or router's slug
// (vendor/model) or holds except (a distilled model others serve).
func firstParty(prefix, except string) func(_, data []byte) (codecs.Sniffed, bool) {
	return func(_, data []byte) (codecs.Sniffed, bool) {
		s, ok := kit.SniffChat(kit.SniffParse(data), codecs.SniffShape+2)
		m := strings.ToLower(s.Model)
		return s, ok && strings.HasPrefix(m, prefix) && !strings.Contains(m, "/") &&
			(except == "" || !strings.Contains(m, except))
	}
}
