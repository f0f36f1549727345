package codecs_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every request path of the module's APIs is recognised by the codec
// that declares it, with what the path and the host say; nothing else
// is.
func TestRecognise(t *testing.T) {
	for _, tc := range []struct {
		url, provider, model string
		api, wantProvider    string
		wantModel            string
		array                bool
	}{
		{"https://api.anthropic.com/v1/messages", "", "claude-sonnet-4-5", "anthropic", "anthropic", "claude-sonnet-4-5", false},
		{"https://api.deepseek.com/anthropic/v1/messages", "", "deepseek-chat", "anthropic", "deepseek", "deepseek-chat", false},
		{"https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict", "", "", "anthropic", "vertex", "claude-sonnet-4-5@20250929", false},
		{"https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream", "", "", "anthropic", "bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", false},
		{"https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream", "", "", "bedrock-converse", "bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", false},
		{"https://api.openai.com/v1/responses", "", "gpt-5", "openai-responses", "openai", "gpt-5", false},
		{"https://my.openai.azure.com/openai/v1/responses", "", "gpt-5", "openai-responses", "azure", "gpt-5", false},
		{"https://generativelanguage.googleapis.com/v1beta/models/gemini-3-pro-preview:streamGenerateContent", "", "", "gemini", "gemini", "gemini-3-pro-preview", true},
		{"https://generativelanguage.googleapis.com/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse", "", "", "gemini", "gemini", "gemini-3-pro-preview", false},
		{"https://generativelanguage.googleapis.com/v1beta/openai/chat/completions", "", "gemini-3-pro-preview", "openai-compatible", "gemini", "gemini-3-pro-preview", false},
		{"https://openrouter.ai/api/v1/chat/completions", "", "anthropic/claude-sonnet-4.5", "openrouter", "openrouter", "anthropic/claude-sonnet-4.5", false},
		{"https://api.deepseek.com/chat/completions", "", "deepseek-chat", "deepseek", "deepseek", "deepseek-chat", false},
		{"https://api.mistral.ai/v1/chat/completions", "", "magistral-medium-latest", "mistral", "mistral", "magistral-medium-latest", false},
		{"https://api.moonshot.ai/v1/chat/completions", "", "kimi-k2.5", "openai-compatible", "moonshot", "kimi-k2.5", false},
		{"http://127.0.0.1:8000/v1/chat/completions", "", "my-local-model", "openrouter", "", "my-local-model", false},
		{"http://127.0.0.1:8000/v1/chat/completions", "", "qwen3-32b", "openai-compatible", "", "qwen3-32b", false},
		{"http://127.0.0.1:8000/v1/chat/completions", "vllm", "qwen3-32b", "openai-compatible", "vllm", "qwen3-32b", false},
		{"https://api.cohere.com/v2/chat", "", "command-a-reasoning", "cohere", "cohere", "command-a-reasoning", false},
	} {
		t.Run(tc.url, func(t *testing.T) {
			u, err := url.Parse(tc.url)
			require.NoError(t, err)
			r, ok := codecs.Recognise(replay.Default(), http.MethodPost, u, tc.provider, tc.model)
			require.True(t, ok)
			assert.Equal(t, tc.api, r.Codec.API())
			assert.Equal(t, tc.wantProvider, r.Provider)
			assert.Equal(t, tc.wantModel, r.Model)
			assert.Equal(t, tc.array, r.Array)
		})
	}
	for _, tc := range []struct{ method, url string }{
		{http.MethodGet, "https://api.anthropic.com/v1/messages"},
		{http.MethodPost, "https://api.openai.com/v1/embeddings"},
		{http.MethodPost, "https://bedrock-runtime.us-east-1.amazonaws.com/model/meta.llama3-70b/invoke"},
		{http.MethodPost, "https://generativelanguage.googleapis.com/v1beta/models/gemini-3-pro-preview:countTokens"},
	} {
		u, _ := url.Parse(tc.url)
		_, ok := codecs.Recognise(replay.Default(), tc.method, u, "", "")
		assert.False(t, ok, "%s %s", tc.method, tc.url)
	}
}

// The credential a request carries, where its API says: the token of a
// bearer, the access key id of an AWS signature (not the signature, which
// changes with every request), a header, a query parameter.
func TestHeader(t *testing.T) {
	read := codecs.Header("x-goog-api-key", "?key", "authorization")
	req := func(h map[string]string, rawURL string) *http.Request {
		u, _ := url.Parse(rawURL)
		r := &http.Request{Header: http.Header{}, URL: u}
		for k, v := range h {
			r.Header.Set(k, v)
		}
		return r
	}
	assert.Equal(t, "k1", read(req(map[string]string{"X-Goog-Api-Key": "k1", "Authorization": "Bearer t"}, "https://h/x?key=k2")))
	assert.Equal(t, "k2", read(req(nil, "https://h/x?key=k2")))
	assert.Equal(t, "tok", read(req(map[string]string{"Authorization": "Bearer tok"}, "https://h/x")))
	sig := func(s string) string {
		return "AWS4-HMAC-SHA256 Credential=AKIAEXAMPLE/20261126/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=" + s
	}
	aws := codecs.Header("authorization")
	assert.Equal(t, "AKIAEXAMPLE", aws(req(map[string]string{"Authorization": sig("aaaa")}, "https://h/x")))
	assert.Equal(t, aws(req(map[string]string{"Authorization": sig("aaaa")}, "https://h/x")), aws(req(map[string]string{"Authorization": sig("bbbb")}, "https://h/x")))
	assert.Equal(t, "", aws(req(nil, "https://h/x")))
}

// Every codec of the module declares its HTTP facts, and every error body
// is a JSON object the caller can add a member to.
func TestEveryCodecDeclares(t *testing.T) {
	all := codecs.All(replay.Default())
	require.Len(t, all, len(replay.Default().APIs()))
	for _, c := range all {
		h := c.HTTP()
		require.NotNil(t, h, c.API())
		assert.NotEmpty(t, h.Routes, c.API())
		assert.NotNil(t, h.Credential, c.API())
		assert.NotEmpty(t, h.Names, c.API())
		body, _ := h.ErrorBody("", 400, `a "quoted" <message> & more`)
		assert.True(t, len(body) > 2 && body[0] == '{' && body[len(body)-1] == '}', "%s: %s", c.API(), body)
		assert.Contains(t, string(body), `a \"quoted\" <message> & more`, c.API())
	}
}

// routed is a codec of a made-up API served at one path and one host; it
// counts how often it is built.
type routed struct {
	codecs.HTTPCodec
	api  string
	http *codecs.HTTP
}

func (r routed) API() string        { return r.api }
func (r routed) HTTP() *codecs.HTTP { return r.http }

// A registry's HTTP routes and hosts are worked out once per change of
// the registry: a codec registered after a request was recognised is
// recognised from the next request on (and by its host), and while the
// registry is unchanged, recognising a request builds only the codec it
// returns.
func TestRecogniseSeesLaterRegistrations(t *testing.T) {
	base, err := replay.Default().Lookup("anthropic", "", "")
	require.NoError(t, err)
	built := 0
	entry := func(api, route, host string) replay.Entry {
		h := &codecs.HTTP{Routes: []codecs.Route{{Path: route}}, Hosts: []codecs.Host{{Suffix: host, Provider: api + "-host"}}}
		return replay.Entry{API: api, New: func(string, string) replay.ReasoningCodec {
			built++
			return routed{HTTPCodec: base.(codecs.HTTPCodec), api: api, http: h}
		}}
	}
	reg := &replay.Registry{}
	g0 := reg.Generation()
	u := &url.URL{Scheme: "https", Host: "API.One.example:443", Path: "/v9/one"}
	_, ok := codecs.Recognise(reg, http.MethodPost, u, "", "")
	assert.False(t, ok)
	assert.Empty(t, codecs.All(reg))

	require.NoError(t, reg.Register(entry("one", "/v9/one", "one.example")))
	assert.NotEqual(t, g0, reg.Generation())
	r, ok := codecs.Recognise(reg, http.MethodPost, u, "", "")
	require.True(t, ok)
	assert.Equal(t, "one", r.Codec.API())
	assert.Equal(t, "one-host", r.Provider)

	// Unchanged registry: each request builds the one codec it gets.
	built = 0
	for range 5 {
		r, ok = codecs.Recognise(reg, http.MethodPost, u, "", "")
		require.True(t, ok)
	}
	assert.Equal(t, 5, built)
	assert.Equal(t, "one-host", codecs.HostProvider(reg, "x.one.example"))
	assert.Equal(t, "", codecs.HostProvider(reg, "xone.example"))

	// A second API registered later is seen, and the first is still there.
	u2 := &url.URL{Scheme: "https", Host: "two.example", Path: "/v9/two"}
	_, ok = codecs.Recognise(reg, http.MethodPost, u2, "", "")
	assert.False(t, ok)
	require.NoError(t, reg.Register(entry("two", "/v9/two", "two.example")))
	r, ok = codecs.Recognise(reg, http.MethodPost, u2, "", "")
	require.True(t, ok)
	assert.Equal(t, "two", r.Codec.API())
	assert.Equal(t, "two-host", r.Provider)
	r, ok = codecs.Recognise(reg, http.MethodPost, u, "", "")
	require.True(t, ok)
	assert.Equal(t, "one", r.Codec.API())
	all := codecs.All(reg)
	require.Len(t, all, 2)
	all[0] = nil // the caller's copy
	assert.Len(t, codecs.All(reg), 2)
	assert.NotNil(t, codecs.All(reg)[0])

	// Other registries are kept apart, however many are asked about.
	for i := range 20 {
		other := &replay.Registry{}
		require.NoError(t, other.Register(entry(fmt.Sprint("other", i), "/v9/one", "one.example")))
		r, ok = codecs.Recognise(other, http.MethodPost, u, "", "")
		require.True(t, ok)
		assert.Equal(t, fmt.Sprint("other", i), r.Codec.API())
	}
	r, ok = codecs.Recognise(reg, http.MethodPost, u, "", "")
	require.True(t, ok)
	assert.Equal(t, "one", r.Codec.API())
}
