package replayproxy_test

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/replayproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// providerBranch is a code line that branches on an API or provider name.
var providerBranch = regexp.MustCompile(`(case |== ?|!= ?)[^/]*"[^"]*(anthropic|gemini|openai|bedrock|cohere|mistral|openrouter|deepseek|ollama|vertex|azure|xai|kimi|glm)`)

// The proxy knows no provider: no code line outside the tests branches
// on an API or provider name (the codecs declare what it needs).
func TestNoProviderBranches(t *testing.T) {
	var files []string
	require.NoError(t, filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			files = append(files, p)
		}
		return err
	}))
	require.NotEmpty(t, files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for i, line := range strings.Split(string(b), "\n") {
			assert.False(t, providerBranch.MatchString(line), "%s:%d: %s", f, i+1, line)
		}
	}
}

// With no upstream configured, the proxy serves the public endpoint of
// every API a codec declares one for, each under the name its codec
// gives the endpoint's provider.
func TestDefaultUpstreams(t *testing.T) {
	hs, _, _ := proxy(t, replayproxy.Config{})
	resp := post(t, hs.URL+"/nowhere/v1/chat/completions", `{}`)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	body := readAll(t, resp)
	m := regexp.MustCompile(`the path must start with one of ([^"]*)"`).FindStringSubmatch(body)
	require.NotNil(t, m, body)
	var names []string
	for _, p := range strings.Split(m[1], ", ") {
		names = append(names, strings.Trim(p, "/"))
	}
	assert.True(t, slices.IsSorted(names), "%v", names)
	assert.Subset(t, names, []string{"anthropic", "cohere", "deepseek", "gemini", "mistral", "openai", "openrouter", "xai"})
	// Every codec that declares a public endpoint is served under one of
	// its names, and nothing else is.
	n := 0
	for _, c := range codecs.All(replay.Default()) {
		h := c.HTTP()
		if h.Endpoint == "" || len(h.Names) == 0 {
			continue
		}
		found := false
		for name := range h.Names {
			found = found || slices.Contains(names, name)
		}
		assert.True(t, found, "%s (%s) is not served by default: %v", c.API(), h.Endpoint, names)
		n++
	}
	assert.LessOrEqual(t, len(names), n)
}
