package replayhttp

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
)

// route is what the middleware recognised about a request: the wire API,
// the provider (from the host, or Transport.Provider) and the model (from
// the body, or from the path for APIs that put it there).
type route struct {
	api      string // "" when the request is not one the middleware reads
	provider string
	model    string
	list     string // the conversation's member: "messages", "input", "contents"
	array    bool   // a streamed response is one JSON array of chunks
	codec    replay.ReasoningCodec
}

// hostProviders maps a host suffix to the provider name the registry knows.
var hostProviders = []struct{ suffix, provider string }{
	{"api.anthropic.com", "anthropic"},
	{"openrouter.ai", "openrouter"},
	{"api.openai.com", "openai"},
	{"openai.azure.com", "azure"},
	{"api.x.ai", "xai"},
	{"generativelanguage.googleapis.com", "gemini"},
	{"aiplatform.googleapis.com", "vertex"},
	{"api.deepseek.com", "deepseek"},
	{"api.moonshot.ai", "moonshot"},
	{"api.moonshot.cn", "moonshot"},
	{"api.z.ai", "zai"},
	{"open.bigmodel.cn", "zhipu"},
	{"api.minimax.io", "minimax"},
	{"api.minimaxi.com", "minimax"},
	{"dashscope.aliyuncs.com", "dashscope"},
	{"dashscope-intl.aliyuncs.com", "dashscope"},
	{"api.groq.com", "groq"},
	{"api.mistral.ai", "mistral"},
	{"api.cohere.com", "cohere"},
	{"api.cohere.ai", "cohere"},
	{"amazonaws.com", "bedrock"},
}

func hostProvider(host string) string {
	h := strings.ToLower(host)
	if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.Contains(h[i:], "]") {
		h = h[:i]
	}
	for _, hp := range hostProviders {
		if h == hp.suffix || strings.HasSuffix(h, "."+hp.suffix) {
			return hp.provider
		}
	}
	return ""
}

// chatAPIs are the APIs whose requests are chat completions.
var chatAPIs = map[string]bool{"openrouter": true, "deepseek": true, "xai": true, "openai-compatible": true, "mistral": true}

// recognise tells the API of a request from its method, path and host, and
// picks the codec by provider and model. It returns a route with an empty
// api when the request is not a generation request the middleware reads.
func recognise(reg *replay.Registry, req *http.Request, body []byte, provider string) route {
	if req.Method != http.MethodPost || req.URL == nil {
		return route{}
	}
	p := req.URL.Path
	if provider == "" {
		provider = hostProvider(req.URL.Host)
	}
	r := route{provider: provider}
	if jsonw.ValidBytes(body) {
		r.model = gjson.GetBytes(body, "model").String()
	}
	var err error
	switch {
	case strings.HasSuffix(p, "/chat/completions"):
		r.list = "messages"
		r.api, r.codec = chatCodec(reg, provider, r.model)
	case strings.HasSuffix(p, "/messages"):
		r.list, r.api = "messages", "anthropic"
	case strings.HasSuffix(p, "/responses"):
		r.list, r.api = "input", "openai-responses"
	case strings.HasSuffix(p, ":generateContent"), strings.HasSuffix(p, ":streamGenerateContent"):
		r.list, r.api = "contents", "gemini"
		r.array = strings.HasSuffix(p, ":streamGenerateContent") && req.URL.Query().Get("alt") != "sse"
		if i := strings.LastIndex(p, "/models/"); i >= 0 {
			m := p[i+len("/models/"):]
			r.model = m[:strings.IndexByte(m, ':')]
		}
	case strings.HasSuffix(p, ":rawPredict"), strings.HasSuffix(p, ":streamRawPredict"):
		if !strings.Contains(p, "/publishers/anthropic/") {
			return route{}
		}
		r.list, r.api, r.provider = "messages", "anthropic", "vertex"
	case (strings.HasSuffix(p, "/converse") || strings.HasSuffix(p, "/converse-stream")) && strings.Contains(p, "/model/"):
		r.list, r.api, r.provider = "messages", "bedrock-converse", "bedrock"
		r.model = bedrockModel(p)
	case (strings.HasSuffix(p, "/invoke") || strings.HasSuffix(p, "/invoke-with-response-stream")) && strings.Contains(p, "/model/"):
		// InvokeModel carries the model's own body: Anthropic Messages for
		// Claude; other models' bodies are not read.
		r.model = bedrockModel(p)
		if !strings.Contains(strings.ToLower(r.model), "anthropic.") {
			return route{}
		}
		r.list, r.api, r.provider = "messages", "anthropic", "bedrock"
	case strings.HasSuffix(p, "/v2/chat"):
		r.list, r.api = "messages", "cohere"
	default:
		return route{}
	}
	if r.codec == nil {
		if r.codec, err = reg.Lookup(r.api, r.provider, r.model); err != nil {
			return route{}
		}
	}
	return r
}

// bedrockModel returns the model id of a Bedrock runtime path
// (/model/{modelId}/converse, .../invoke-with-response-stream), unescaped.
func bedrockModel(p string) string {
	m := p[strings.Index(p, "/model/")+len("/model/"):]
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[:i]
	}
	if u, err := url.PathUnescape(m); err == nil {
		m = u
	}
	return m
}

// chatCodec picks the codec of a chat-completions request: the one the
// provider and model resolve to when it reads chat completions, else the
// OpenAI-compatible reader for a named host, else OpenRouter's (the
// superset reader).
func chatCodec(reg *replay.Registry, provider, model string) (string, replay.ReasoningCodec) {
	if provider == "gemini" {
		provider = "gemini-openai"
	}
	if c, err := reg.Resolve(provider, model); err == nil && chatAPIs[c.API()] {
		return c.API(), c
	}
	api := "openrouter"
	if provider != "" {
		api = "openai-compatible"
	}
	if c, err := reg.Lookup(api, provider, model); err == nil {
		return api, c
	}
	return "", nil
}
