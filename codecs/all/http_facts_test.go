package all_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateHTTP = flag.Bool("update-http", false, "rewrite testdata/http_facts.json from this build")

// httpFacts renders what a codec's HTTP facts say and do as text: the
// plain fields as they are, and the functions by what they answer to a
// fixed set of requests, errors and bodies.
func httpFacts(h *codecs.HTTP) map[string]any {
	m := map[string]any{
		"routes": h.Routes, "hosts": h.Hosts, "endpoint": h.Endpoint, "names": h.Names, "member": h.Member,
	}
	if h.Streams != nil {
		m["streams"] = h.Streams
	}
	if h.Credential != nil {
		var creds []string
		for _, hdr := range []http.Header{
			{"X-Api-Key": {"k-1"}},
			{"Authorization": {"Bearer tok-2"}},
			{"Authorization": {"AWS4-HMAC-SHA256 Credential=AKIA3/20260101/us-east-1/bedrock/aws4_request, Signature=x"}},
			{"Api-Key": {"k-4"}},
			{"X-Goog-Api-Key": {"k-5"}},
			{},
		} {
			u, _ := url.Parse("https://host.example/v1/x?key=q-6")
			creds = append(creds, h.Credential(&http.Request{Header: hdr, URL: u}))
		}
		m["credential"] = creds
	}
	if h.ErrorBody != nil {
		var errs []string
		for _, p := range []string{"", "bedrock", "vertex"} {
			for _, status := range []int{400, 401, 404, 413, 429, 500, 503} {
				b, hdr := h.ErrorBody(p, status, `msg "quoted"`)
				errs = append(errs, fmt.Sprintf("%s %d %s %v", p, status, b, hdr))
			}
		}
		m["errorBody"] = errs
	}
	if h.Sniff != nil {
		var sn []string
		for _, c := range sniffSamples {
			s, ok := h.Sniff([]byte(c[0]), []byte(c[1]))
			sn = append(sn, fmt.Sprintf("%v %+v", ok, s))
		}
		m["sniff"] = sn
	}
	return m
}

// sniffSamples are event types and bodies of every API's shapes.
var sniffSamples = [][2]string{
	{"message_start", `{"type":"message_start","message":{"model":"claude-x"}}`},
	{"", `{"type":"message","content":[],"model":"claude-y"}`},
	{"", `{"type":"error","error":{"type":"overloaded_error"}}`},
	{"", `{"chunk":{"bytes":"e30="}}`},
	{"messageStart", `{"role":"assistant"}`},
	{"", `{"contentBlockDelta":{"delta":{"text":"a"}}}`},
	{"", `{"output":{"message":{"content":[]}},"stopReason":"end_turn"}`},
	{"message-start", `{"type":"message-start"}`},
	{"", `{"type":"content-delta","delta":{}}`},
	{"", `{"id":"x","message":{"role":"assistant","content":[]},"finish_reason":"COMPLETE"}`},
	{"", `{"candidates":[{"content":{"parts":[]}}],"modelVersion":"gemini-z"}`},
	{"response.created", `{"type":"response.created","response":{"model":"gpt-5"}}`},
	{"", `{"object":"response","output":[],"model":"gpt-5"}`},
	{"", `{"object":"chat.completion","choices":[{"message":{}}],"model":"deepseek-chat"}`},
	{"", `{"object":"chat.completion.chunk","choices":[{"delta":{}}],"model":"grok-3-mini"}`},
	{"", `{"choices":[{"message":{}}],"model":"magistral-medium","x_groq":{}}`},
	{"", `{"choices":[{"message":{}}],"model":"qwen3","system_fingerprint":"fp_ollama"}`},
	{"", `{"choices":[{"message":{}}],"model":"anthropic/claude-sonnet-4.5","provider":"Anthropic"}`},
	{"", `{"model":"qwen3:8b","message":{"role":"assistant","thinking":"t"},"done":true}`},
	{"", `{"error":{"message":"x"}}`},
	{"", `{"unrelated":true}`},
}

// TestHTTPFactsUnchanged: every codec's HTTP facts, built when first asked
// for rather than when the program starts, are what the codecs declared
// when they were built at start (testdata/http_facts.json, written by the
// build of that time), and every call, from any goroutine, gets the same
// facts.
func TestHTTPFactsUnchanged(t *testing.T) {
	all := codecs.All(replay.Default())
	require.NotEmpty(t, all)
	got := map[string]any{}
	for _, c := range all {
		got[c.API()] = httpFacts(c.HTTP())
	}
	b, err := json.MarshalIndent(got, "", "  ")
	require.NoError(t, err)
	const golden = "testdata/http_facts.json"
	if *updateHTTP {
		require.NoError(t, os.WriteFile(golden, append(b, '\n'), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(b))

	apis := make([]string, 0, len(got))
	for api := range got {
		apis = append(apis, api)
	}
	sort.Strings(apis)
	assert.Equal(t, []string{"anthropic", "bedrock-converse", "cohere", "deepseek", "gemini", "mistral",
		"ollama", "openai-compatible", "openai-responses", "openrouter", "xai"},
		slices.DeleteFunc(apis, func(a string) bool { return strings.HasPrefix(a, "test") }))

	// Asked for at once from many goroutines (go test -race), each codec
	// hands out one value.
	var wg sync.WaitGroup
	seen := make([][]*codecs.HTTP, 8)
	for g := range seen {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, c := range codecs.All(replay.Default()) {
				seen[g] = append(seen[g], c.HTTP())
			}
		}()
	}
	wg.Wait()
	for _, s := range seen[1:] {
		assert.Equal(t, seen[0], s)
	}
	for i, c := range all {
		assert.Same(t, seen[0][i], c.HTTP())
	}
}
