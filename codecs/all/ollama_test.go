package all_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ollama's native API is recognised by its path, whatever the host; its
// OpenAI-compatible API by the chat completions path, for the same
// provider.
func TestOllamaRecognised(t *testing.T) {
	for _, tc := range []struct{ url, provider, model, api, wantProvider string }{
		{"http://localhost:11434/api/chat", "", "qwen3:8b", "ollama", ""},
		{"http://localhost:11434/api/chat", "ollama", "gpt-oss:20b", "ollama", "ollama"},
		{"https://ollama.com/api/chat", "", "gpt-oss:120b", "ollama", "ollama"},
		{"http://localhost:11434/v1/chat/completions", "ollama", "qwen3:8b", "openai-compatible", "ollama"},
	} {
		u, err := url.Parse(tc.url)
		require.NoError(t, err)
		r, ok := codecs.Recognise(replay.Default(), http.MethodPost, u, tc.provider, tc.model)
		require.True(t, ok, tc.url)
		assert.Equal(t, tc.api, r.Codec.API(), tc.url)
		assert.Equal(t, tc.wantProvider, r.Provider, tc.url)
	}
	_, ok := codecs.Recognise(replay.Default(), http.MethodPost, &url.URL{Scheme: "http", Host: "localhost:11434", Path: "/api/generate"}, "", "")
	assert.False(t, ok, "/api/generate is no chat")
}

// Ollama's bodies, stream lines and error body are told from their bytes
// (replay decode --api auto), above the chat hosts' shapes; its
// OpenAI-compatible answers stay the chat codec's.
func TestOllamaSniffed(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`{"model":"qwen3:8b","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"","thinking":"x"},"done":false}`, "ollama//qwen3:8b/true"},
		{`{"model":"gpt-oss:20b","message":{"role":"assistant","content":"hi"},"done":true,"done_reason":"stop"}`, "ollama//gpt-oss:20b/false"},
		{`{"error":"model 'qwen9' not found"}`, "ollama///false"},
		{`{"error":{"message":"x","type":"invalid_request_error","param":null,"code":null}}`, "openai-compatible///false"},
		{`{"id":"c","object":"chat.completion","model":"qwen3:8b","system_fingerprint":"fp_ollama","choices":[{"index":0,"message":{"role":"assistant","content":"x"}}]}`, "openai-compatible/ollama/qwen3:8b/false"},
	} {
		c, s, ok := codecs.Sniff(replay.Default(), nil, []byte(tc.data))
		if assert.True(t, ok, tc.data) {
			assert.Equal(t, tc.want, c.API()+"/"+s.Provider+"/"+s.Model+"/"+strconv.FormatBool(s.Event), tc.data)
		}
	}
	c, _, ok := codecs.Sniff(replay.Default(), nil, []byte(`{"error":"x","code":1}`))
	require.True(t, ok)
	assert.Equal(t, "openai-compatible", c.API(), "an error string beside other members is not Ollama's")
}

// The middleware captures an /api/chat stream (JSON Lines, as Ollama
// answers it) and a non-streamed body, with no code of its own for
// Ollama: the codec's declared route and stream media type are enough.
func TestOllamaThroughTheMiddleware(t *testing.T) {
	stream, err := os.ReadFile("../../testdata/ollama/tool-loop.jsonl")
	require.NoError(t, err)
	body, err := os.ReadFile("../../testdata/ollama/chat.json")
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if strings.Contains(r.URL.RawQuery, "whole") {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			_, _ = w.Write(body)
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		_, _ = w.Write(stream)
	}))
	defer srv.Close()
	var mu sync.Mutex
	var turns []*replay.Turn
	var errs []error
	client := &http.Client{Transport: &replayhttp.Transport{OnCapture: func(_ *http.Request, c *replayhttp.Capture) {
		tu, err := c.Turn()
		mu.Lock()
		defer mu.Unlock()
		turns, errs = append(turns, tu), append(errs, err)
	}}}
	for _, q := range []string{"", "?whole"} {
		resp, err := client.Post(srv.URL+"/api/chat"+q, "application/json",
			strings.NewReader(`{"model":"gpt-oss:20b","messages":[{"role":"user","content":"weather?"}],"think":"low"}`))
		require.NoError(t, err)
		got, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		if q == "" {
			assert.Equal(t, string(stream), string(got), "the caller reads the bytes as sent")
		}
	}
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, turns, 2)
	for i, tu := range turns {
		require.NoError(t, errs[i])
		assert.True(t, tu.Complete)
		assert.Equal(t, "ollama", tu.Provenance.API)
		require.NotEmpty(t, tu.Items())
		assert.True(t, tu.Items()[0].Replayable())
	}
	assert.Equal(t, "Need the weather in Tokyo; call get_weather.", turns[0].Items()[0].(*replay.ReasoningText).Text)
	assert.Equal(t, "get_weather", turns[0].ToolCalls()[0].Name)
	assert.Equal(t, "There are **3** \"r\"s in “strawberry”.", turns[1].Blocks[1].(*replay.Text).Text)
}
