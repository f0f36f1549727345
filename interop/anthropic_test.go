package interop

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/reasonreplay/replay"
	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

func anthropicClient(srv *server, tr *replayhttp.Transport) anthropic.Client {
	return anthropic.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"),
		option.WithMiddleware(tr.Middleware), option.WithMaxRetries(0))
}

func anthropicParams(msgs ...anthropic.MessageParam) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model: "claude-sonnet-4-5", MaxTokens: 2048,
		Thinking: anthropic.ThinkingConfigParamOfEnabled(1024),
		Tools: []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "get_weather",
			InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}}}}},
		Messages: append([]anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in Zürich?"))}, msgs...),
	}
}

// Streaming and not: the SDK's own round trip carries the signature back
// byte for byte, the middleware captures it, and a message the agent
// rebuilt without its thinking block is restored before it is sent.
func TestAnthropic(t *testing.T) {
	for _, streaming := range []bool{true, false} {
		t.Run(fmt.Sprint("stream=", streaming), func(t *testing.T) {
			sig := "EqQBCkgIBhABGAIiQAnthropicSig/+0123456789="
			srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, body []byte) {
				if gjson.GetBytes(body, "stream").Bool() {
					writeSSE(w, anthropicStream(sig, "toolu_01I"))
				} else {
					writeJSON(w, anthropicMessage(sig, "toolu_01I"))
				}
			})
			tr := &replayhttp.Transport{Store: &replayhttp.MemoryStore{}, Audit: replayhttp.AuditRefuse}
			client := anthropicClient(srv, tr)
			ctx, call := replayhttp.WithCapture(context.Background())
			var msg anthropic.Message
			if streaming {
				stream := client.Messages.NewStreaming(ctx, anthropicParams())
				for stream.Next() {
					require.NoError(t, msg.Accumulate(stream.Current()))
				}
				require.NoError(t, stream.Err())
				require.NoError(t, stream.Close())
			} else {
				m, err := client.Messages.New(ctx, anthropicParams())
				require.NoError(t, err)
				msg = *m
			}
			tu, err := call.Turn()
			require.NoError(t, err)
			items := tu.Items()
			require.Len(t, items, 1)
			assert.Equal(t, sig, items[0].(*replay.ReasoningText).Signature.Value())
			assert.Equal(t, sig, msg.Content[0].Signature, "the SDK saw the provider's bytes")

			// 1. The SDK's own round trip.
			result := anthropic.NewUserMessage(anthropic.NewToolResultBlock("toolu_01I", "18°C", false))
			_, err = client.Messages.New(context.Background(), anthropicParams(msg.ToParam(), result))
			require.NoError(t, err)
			sent := gjson.GetBytes(srv.last(), "messages.1.content.0")
			assert.Equal(t, "thinking", sent.Get("type").Str)
			assert.Equal(t, sig, sent.Get("signature").Str)

			// 2. The agent rebuilt the message from text and tool calls only:
			// repair restores the thinking block before anything is sent.
			stripped := anthropic.NewAssistantMessage(anthropic.NewToolUseBlock("toolu_01I", map[string]any{"city": "Zürich"}, "get_weather"))
			ctx2, call2 := replayhttp.WithCapture(context.Background())
			_, err = client.Messages.New(ctx2, anthropicParams(stripped, result))
			require.NoError(t, err)
			content := gjson.GetBytes(srv.last(), "messages.1.content").Array()
			require.Len(t, content, 2)
			assert.Equal(t, `{"type":"thinking","thinking":"Weather in Zürich: call the tool.","signature":"`+sig+`"}`, content[0].Raw)
			assert.Equal(t, "toolu_01I", content[1].Get("id").Str)
			require.Len(t, call2.Repairs(), 1)
			assert.Equal(t, replayhttp.RepairRestored, call2.Repairs()[0].Action)
		})
	}
}

// A deliberately broken request (the thinking block removed, no store to
// restore it) is refused before a byte is sent. With the SDK's default
// retry options it makes exactly one attempt and receives Anthropic's own
// typed error; the call's Capture holds the audit's reason.
func TestAnthropicRefusedBeforeSending(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) { writeJSON(w, anthropicMessage("s", "toolu_X")) })
	tr := &replayhttp.Transport{Audit: replayhttp.AuditRefuse}
	attempts := 0
	client := anthropic.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"),
		option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			attempts++
			return tr.Middleware(r, next)
		}))
	stripped := anthropic.NewAssistantMessage(anthropic.NewToolUseBlock("toolu_X", map[string]any{}, "get_weather"))
	ctx, call := replayhttp.WithCapture(context.Background())
	start := time.Now()
	_, err := client.Messages.New(ctx, anthropicParams(stripped,
		anthropic.NewUserMessage(anthropic.NewToolResultBlock("toolu_X", "18°C", false))))
	var apiErr *anthropic.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 1, attempts, "a refusal is not retried")
	assert.Less(t, time.Since(start), time.Second, "no backoff")
	assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
	assert.Equal(t, "invalid_request_error", string(apiErr.Type()))
	assert.Contains(t, apiErr.Error(), "Expected `thinking` or `redacted_thinking`, but found `tool_use`")
	assert.Equal(t, "anthropic/thinking-first", gjson.Get(apiErr.RawJSON(), "replay.rule").Str)
	var ae *replayhttp.AuditError
	_, err = call.Turn()
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "anthropic/thinking-first", ae.Report.Violations[0].Rule)
	assert.Empty(t, srv.received())
}

// Many concurrent streams through one middleware: each call's Capture
// holds its own signature.
func TestAnthropicConcurrentStreams(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		i := r.Header.Get("X-Call")
		writeSSE(w, anthropicStream("sig-"+i+"-EqQBCkgIBhAB", "toolu_"+i))
	})
	tr := &replayhttp.Transport{}
	client := anthropicClient(srv, tr)
	const n = 32
	var wg sync.WaitGroup
	got := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, call := replayhttp.WithCapture(context.Background())
			stream := client.Messages.NewStreaming(ctx, anthropicParams(), option.WithHeader("X-Call", fmt.Sprint(i)))
			for stream.Next() {
			}
			stream.Close()
			if tu, err := call.Turn(); err == nil && len(tu.Items()) == 1 {
				got[i] = tu.Items()[0].(*replay.ReasoningText).Signature.Value() + " " + tu.ToolCalls()[0].ID
			} else {
				got[i] = fmt.Sprint("error: ", err)
			}
		}()
	}
	wg.Wait()
	for i := range n {
		assert.Equal(t, fmt.Sprintf("sig-%d-EqQBCkgIBhAB toolu_%d", i, i), got[i])
	}
}

// The caller stops reading and closes the stream: the turn is incomplete,
// its thinking block unfinished, and nothing of it is stored.
func TestAnthropicEarlyClose(t *testing.T) {
	stream := anthropicStream("EqQBCkgIBhABGAIiQEarly", "toolu_E")
	cut := strings.Index(stream, "event: content_block_stop") // the signature is not finished
	hold := make(chan struct{})
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		writeSSE(w, stream[:cut])
		select { // the rest never comes before the caller gives up
		case <-hold:
		case <-r.Context().Done():
		}
	})
	defer close(hold)
	store := &replayhttp.MemoryStore{}
	client := anthropicClient(srv, &replayhttp.Transport{Store: store})
	ctx, call := replayhttp.WithCapture(context.Background())
	s := client.Messages.NewStreaming(ctx, anthropicParams())
	for i := 0; i < 3 && s.Next(); i++ {
	}
	require.NoError(t, s.Close())
	tu, err := call.Turn()
	require.ErrorIs(t, err, replayhttp.ErrClosedEarly)
	assert.False(t, tu.Complete)
	require.Len(t, tu.Items(), 1)
	for _, it := range tu.Items() {
		assert.False(t, it.Replayable())
	}
	assert.Equal(t, 0, store.Len())
}
