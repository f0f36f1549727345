package interop

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/reasonreplay/replay/replayhttp"
	goopenai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

func goOpenAIClient(baseURL string, tr *replayhttp.Transport) *goopenai.Client {
	cfg := goopenai.DefaultConfig("test")
	cfg.BaseURL = baseURL
	cfg.HTTPClient = &http.Client{Transport: tr}
	return goopenai.NewClientWithConfig(cfg)
}

var weatherTool = []goopenai.Tool{{Type: goopenai.ToolTypeFunction, Function: &goopenai.FunctionDefinition{Name: "get_weather"}}}

// go-openai has no reasoning_details field, so every assistant message an
// agent appends has lost it: the middleware puts it back, byte for byte.
func TestGoOpenAIOpenRouter(t *testing.T) {
	sig := "EqQBCkgIBhABGAIiQOpenRouterSig/+9876543210="
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) { writeJSON(w, openrouterBody(sig, "toolu_OR")) })
	tr := &replayhttp.Transport{Store: &replayhttp.MemoryStore{}, Provider: "openrouter", Audit: replayhttp.AuditRefuse}
	client := goOpenAIClient(srv.URL+"/api/v1", tr)
	user := goopenai.ChatCompletionMessage{Role: goopenai.ChatMessageRoleUser, Content: "Weather in Zürich?"}
	req := goopenai.ChatCompletionRequest{Model: "anthropic/claude-sonnet-4.5", Tools: weatherTool, Messages: []goopenai.ChatCompletionMessage{user}}
	ctx, call := replayhttp.WithCapture(context.Background())
	resp, err := client.CreateChatCompletion(ctx, req)
	require.NoError(t, err)
	_, err = call.Turn()
	require.NoError(t, err)

	req.Messages = append(req.Messages, resp.Choices[0].Message,
		goopenai.ChatCompletionMessage{Role: goopenai.ChatMessageRoleTool, ToolCallID: "toolu_OR", Content: "18°C"})
	ctx2, call2 := replayhttp.WithCapture(context.Background())
	_, err = client.CreateChatCompletion(ctx2, req)
	require.NoError(t, err)
	sent := gjson.GetBytes(srv.last(), "messages.1")
	assert.Equal(t, `[{"type":"reasoning.text","text":"Weather lookup.","signature":"`+sig+`","format":"anthropic-claude-v1","index":0}]`, sent.Get("reasoning_details").Raw)
	assert.Equal(t, "toolu_OR", sent.Get("tool_calls.0.id").Str)
	require.Len(t, call2.Repairs(), 1)
	assert.Equal(t, replayhttp.RepairRestored, call2.Repairs()[0].Action)
}

// DeepSeek in thinking mode with tools wants reasoning_content back on the
// tool-call message. go-openai's ReasoningContent round trip keeps it; an
// agent that dropped it is repaired; without a store the request is
// refused before sending. Concurrent conversations keep their own.
func TestGoOpenAIDeepSeek(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		id := r.Header.Get("X-Conv")
		writeJSON(w, deepseekBody("Reasoning of conversation "+id+" \\u2014 call the tool.", "call_"+id))
	})
	tr := &replayhttp.Transport{Store: &replayhttp.MemoryStore{}, Audit: replayhttp.AuditRefuse}
	const n = 16
	var wg sync.WaitGroup
	errs := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := string(rune('A' + i))
			cfg := goopenai.DefaultConfig("test")
			cfg.BaseURL = srv.URL
			cfg.HTTPClient = &http.Client{Transport: headerTransport{"X-Conv", id, tr}}
			client := goopenai.NewClientWithConfig(cfg)
			user := goopenai.ChatCompletionMessage{Role: goopenai.ChatMessageRoleUser, Content: "Weather " + id + "?"}
			req := goopenai.ChatCompletionRequest{Model: "deepseek-chat", Tools: weatherTool, Messages: []goopenai.ChatCompletionMessage{user}}
			resp, err := client.CreateChatCompletion(context.Background(), req)
			if err != nil {
				errs[i] = err.Error()
				return
			}
			msg := resp.Choices[0].Message
			if msg.ReasoningContent != "Reasoning of conversation "+id+" — call the tool." {
				errs[i] = "the SDK got " + msg.ReasoningContent
				return
			}
			msg.ReasoningContent = "" // the agent drops it (omitempty: the field is not sent)
			req.Messages = append(req.Messages, msg,
				goopenai.ChatCompletionMessage{Role: goopenai.ChatMessageRoleTool, ToolCallID: "call_" + id, Content: "18°C"})
			ctx, call := replayhttp.WithCapture(context.Background())
			if _, err := client.CreateChatCompletion(ctx, req); err != nil {
				errs[i] = err.Error()
				return
			}
			if len(call.Repairs()) != 1 || call.Repairs()[0].Action != replayhttp.RepairRestored {
				errs[i] = "repairs: " + stringsOf(call.Repairs())
			}
		}()
	}
	wg.Wait()
	for i := range n {
		assert.Empty(t, errs[i], "conversation %d", i)
	}
	for _, body := range srv.received() {
		msgs := gjson.GetBytes(body, "messages").Array()
		if len(msgs) < 2 {
			continue
		}
		id := msgs[1].Get("tool_calls.0.id").Str[len("call_"):]
		assert.Equal(t, "Reasoning of conversation "+id+" — call the tool.", msgs[1].Get("reasoning_content").Str)
	}

	// No store: refused before sending.
	client := goOpenAIClient(srv.URL, &replayhttp.Transport{Audit: replayhttp.AuditRefuse})
	before := len(srv.received())
	ctx, call := replayhttp.WithCapture(context.Background())
	_, err := client.CreateChatCompletion(ctx, goopenai.ChatCompletionRequest{Model: "deepseek-chat", Tools: weatherTool,
		Messages: []goopenai.ChatCompletionMessage{
			{Role: goopenai.ChatMessageRoleUser, Content: "hi"},
			{Role: goopenai.ChatMessageRoleAssistant, ToolCalls: []goopenai.ToolCall{{ID: "call_Z", Type: goopenai.ToolTypeFunction, Function: goopenai.FunctionCall{Name: "get_weather", Arguments: "{}"}}}},
			{Role: goopenai.ChatMessageRoleTool, ToolCallID: "call_Z", Content: "x"},
		}})
	var apiErr *goopenai.APIError
	require.ErrorAs(t, err, &apiErr, "the provider's 400, as go-openai reads it")
	assert.Equal(t, http.StatusBadRequest, apiErr.HTTPStatusCode)
	var ae *replayhttp.AuditError
	_, err = call.Turn()
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "deepseek/reasoning-content-missing", ae.Report.Violations[0].Rule)
	assert.Len(t, srv.received(), before)
}

// headerTransport sets a header, to tell conversations apart on the server.
type headerTransport struct {
	name, value string
	next        http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return h.next.RoundTrip(r)
}

func stringsOf(reps []replayhttp.Repair) string {
	s := ""
	for _, r := range reps {
		s += r.String() + "; "
	}
	return s
}
