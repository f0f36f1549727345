package interop

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/reasonreplay/replay/replayproxy"
	goopenai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// startProxy serves replay proxy (enforce mode) in front of the upstreams.
func startProxy(t *testing.T, ups ...replayproxy.Upstream) *httptest.Server {
	t.Helper()
	srv, err := replayproxy.New(replayproxy.Config{Upstreams: ups, Mode: replayproxy.ModeEnforce})
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	return hs
}

// checker collects what the fake provider found wrong in the requests.
type checker struct {
	mu       sync.Mutex
	problems []string
	checked  int
}

func (c *checker) fail(format string, a ...any) {
	c.mu.Lock()
	c.problems = append(c.problems, fmt.Sprintf(format, a...))
	c.mu.Unlock()
}

func (c *checker) ok() {
	c.mu.Lock()
	c.checked++
	c.mu.Unlock()
}

func loopSig(k int64) string { return fmt.Sprintf("EqQBCkgIBhABGAIiQLoop%dSig/+0123456789=", k) }

// anthropic-sdk-go streams a three-turn tool loop through `replay proxy`,
// the agent rebuilding every assistant message from its tool calls only
// (the thinking blocks dropped). The provider checks that each request
// carries every earlier thinking block byte for byte, as it streamed it.
func TestProxyAnthropicSDKToolLoop(t *testing.T) {
	var chk checker
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		if r.Header.Get("X-Api-Key") != "sk-ant-interop" {
			chk.fail("the API key did not come through: %q", r.Header.Get("X-Api-Key"))
		}
		msgs := gjson.GetBytes(body, "messages").Array()
		k := int64(0)
		for _, m := range msgs {
			if m.Get("role").Str != "assistant" {
				continue
			}
			want := `{"type":"thinking","thinking":"Weather in Zürich: call the tool.","signature":"` + loopSig(k) + `"}`
			if got := m.Get("content.0").Raw; got != want {
				chk.fail("turn %d: assistant message %d starts with %s", len(msgs), k, got)
			} else if id := m.Get("content.1.id").Str; id != fmt.Sprintf("toolu_%d", k) {
				chk.fail("assistant message %d: tool_use %q", k, id)
			} else {
				chk.ok()
			}
			k++
		}
		writeSSE(w, anthropicStream(loopSig(k), fmt.Sprintf("toolu_%d", k)))
	})
	proxy := startProxy(t, replayproxy.Upstream{Name: "anthropic", URL: srv.URL})
	client := anthropic.NewClient(option.WithBaseURL(proxy.URL+"/anthropic"), option.WithAPIKey("sk-ant-interop"), option.WithMaxRetries(0))

	var history []anthropic.MessageParam
	for k := range 3 {
		stream := client.Messages.NewStreaming(context.Background(), anthropicParams(history...))
		var msg anthropic.Message
		for stream.Next() {
			require.NoError(t, msg.Accumulate(stream.Current()))
		}
		require.NoError(t, stream.Err(), "turn %d", k)
		require.NoError(t, stream.Close())
		require.Len(t, msg.Content, 2)
		assert.Equal(t, loopSig(int64(k)), msg.Content[0].Signature, "the SDK read the provider's bytes")
		use := msg.Content[1]
		// The agent keeps only the tool call.
		history = append(history,
			anthropic.NewAssistantMessage(anthropic.NewToolUseBlock(use.ID, map[string]any{"city": "Zürich"}, use.Name)),
			anthropic.NewUserMessage(anthropic.NewToolResultBlock(use.ID, "18°C", false)))
	}
	assert.Empty(t, chk.problems)
	assert.Equal(t, 0+1+2, chk.checked, "every dropped thinking block came back")
	assert.Len(t, srv.received(), 3)
}

// go-openai against an OpenRouter-shaped upstream through the proxy: the
// client has no reasoning_details field, so every assistant message it
// sends back has lost it; the provider sees it restored byte for byte.
func TestProxyGoOpenAIOpenRouter(t *testing.T) {
	var chk checker
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		if r.URL.Path != "/api/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-or-interop" {
			chk.fail("path %s, authorization %q", r.URL.Path, r.Header.Get("Authorization"))
		}
		k := 0
		for _, m := range gjson.GetBytes(body, "messages").Array() {
			if m.Get("role").Str != "assistant" {
				continue
			}
			want := `[{"type":"reasoning.text","text":"Weather lookup ` + fmt.Sprint(k) + `.","signature":"` + loopSig(int64(k)) + `","format":"anthropic-claude-v1","index":0}]`
			if got := m.Get("reasoning_details").Raw; got != want {
				chk.fail("assistant message %d: reasoning_details %s", k, got)
			} else {
				chk.ok()
			}
			k++
		}
		// Each turn reasons its own text (the same text twice would be a
		// duplicate item to OpenRouter).
		writeJSON(w, strings.ReplaceAll(openrouterBody(loopSig(int64(k)), fmt.Sprintf("toolu_or%d", k)), "Weather lookup.", fmt.Sprintf("Weather lookup %d.", k)))
	})
	proxy := startProxy(t, replayproxy.Upstream{Name: "openrouter", URL: srv.URL + "/api"})
	cfg := goopenai.DefaultConfig("sk-or-interop")
	cfg.BaseURL = proxy.URL + "/openrouter/v1"
	client := goopenai.NewClientWithConfig(cfg)
	req := goopenai.ChatCompletionRequest{Model: "anthropic/claude-sonnet-4.5", Tools: weatherTool,
		Messages: []goopenai.ChatCompletionMessage{{Role: goopenai.ChatMessageRoleUser, Content: "Weather in Zürich?"}}}
	for k := range 3 {
		resp, err := client.CreateChatCompletion(context.Background(), req)
		require.NoError(t, err, "turn %d", k)
		msg := resp.Choices[0].Message
		req.Messages = append(req.Messages, msg,
			goopenai.ChatCompletionMessage{Role: goopenai.ChatMessageRoleTool, ToolCallID: msg.ToolCalls[0].ID, Content: "18°C"})
	}
	assert.Empty(t, chk.problems)
	assert.Equal(t, 0+1+2, chk.checked)
}
