package replayhttp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/reasonreplay/replay/replayhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refusing is a loopback provider that answers the first request it gets
// (and any later request whose body still holds refuseIf) with a 400 whose
// body is errBody, and every other request with ok.
type refusing struct {
	*server
	mu      sync.Mutex
	headers []http.Header
}

func newRefusing(t *testing.T, errBody, refuseIf, okType, ok string) *refusing {
	r := &refusing{}
	n := 0
	r.server = newServer(t, func(w http.ResponseWriter, req *http.Request, body []byte) {
		r.mu.Lock()
		n++
		first := n == 1
		r.headers = append(r.headers, req.Header.Clone())
		r.mu.Unlock()
		if first || refuseIf != "" && strings.Contains(string(body), refuseIf) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, errBody)
			return
		}
		w.Header().Set("Content-Type", okType)
		_, _ = io.WriteString(w, ok)
	})
	return r
}

// retryCase sends body through a Transport with Retry on, against a
// provider that refuses the first request with errBody. It returns what the
// provider received and the call's retries.
func retryCase(t *testing.T, tr *replayhttp.Transport, p *refusing, path, body string) (*http.Response, []replayhttp.Retried) {
	t.Helper()
	if tr.Retry == nil {
		tr.Retry = &replayhttp.Retry{}
	}
	ctx, call := replayhttp.WithCapture(context.Background())
	resp := post(t, &http.Client{Transport: tr}, ctx, p.URL+path, body)
	_, _ = io.Copy(io.Discard, resp.Body)
	require.NoError(t, resp.Body.Close())
	return resp, call.Retries()
}

func TestRetryDropBlock(t *testing.T) {
	errBody := envelopes["anthropic"]("messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to \"drop_block\".")
	p := newRefusing(t, errBody, "", "application/json", anthropicJSON(sigFor(40), "toolu_41"))
	kept := `{"role":"assistant","content":[{"type":"thinking","thinking":"x","signature":"` + sigFor(40) + `"},{"type":"tool_use","id":"toolu_40","name":"get_weather","input":{}}]}`
	body := anthropicFollowUp(kept, "toolu_40")
	var reported []replayhttp.Retried
	tr := &replayhttp.Transport{Retry: &replayhttp.Retry{OnRetry: func(_ *http.Request, r replayhttp.Retried) { reported = append(reported, r) }}}
	resp, retries := retryCase(t, tr, p, "/v1/messages", body)
	assert.Equal(t, 200, resp.StatusCode)

	fixed := strings.Replace(body, `"budget_tokens":1024}`, `"budget_tokens":1024,"block_binding":{"prefix_mismatch_behavior":"drop_block"}}`, 1)
	got := p.received()
	require.Len(t, got, 2)
	assert.Equal(t, body, string(got[0]))
	assert.Equal(t, fixed, string(got[1]))
	assert.Empty(t, p.headers[0].Values("Anthropic-Beta"))
	assert.Equal(t, []string{"thinking-binding-controls-2026-08-01"}, p.headers[1].Values("Anthropic-Beta"))
	require.Len(t, retries, 1)
	assert.Equal(t, replayhttp.FixDropBlock, retries[0].Class.Fix)
	assert.Equal(t, "anthropic/prefix-mismatch", retries[0].Class.Rule)
	assert.Equal(t, 400, retries[0].Status)
	assert.Equal(t, 200, retries[0].RetryStatus)
	assert.False(t, retries[0].Upfront)
	assert.Equal(t, []replayhttp.Repair{
		{Pointer: "/thinking/block_binding/prefix_mismatch_behavior", Action: replayhttp.RepairSet, Detail: `set to "drop_block": thinking blocks bound to another conversation are dropped by the provider`},
		{Action: replayhttp.RepairSet, Detail: "anthropic-beta: thinking-binding-controls-2026-08-01 added (the setting requires it)"},
	}, retries[0].Changes)
	assert.Equal(t, retries, reported)

	// The conversation's next request: the setting goes up front, and the
	// provider is asked once.
	next := strings.TrimSuffix(body, `]}`) + `,{"role":"assistant","content":"It is 18°C."},{"role":"user","content":"Thanks"}]}`
	_, retries = retryCase(t, tr, p, "/v1/messages", next)
	got = p.received()
	require.Len(t, got, 3)
	assert.Equal(t, strings.Replace(next, `"budget_tokens":1024}`, `"budget_tokens":1024,"block_binding":{"prefix_mismatch_behavior":"drop_block"}}`, 1), string(got[2]))
	assert.Equal(t, []string{"thinking-binding-controls-2026-08-01"}, p.headers[2].Values("Anthropic-Beta"))
	require.Len(t, retries, 1)
	assert.True(t, retries[0].Upfront)
	assert.Equal(t, 0, retries[0].Status)
	assert.Len(t, reported, 2)

	// Another conversation is not touched.
	other := anthropicFollowUp(strings.ReplaceAll(kept, "toolu_40", "toolu_49"), "toolu_49")
	other = strings.Replace(other, "Weather in Zürich?", "Weather in Bern?", 1)
	_, retries = retryCase(t, tr, p, "/v1/messages", other)
	assert.Empty(t, retries)
	assert.Equal(t, other, string(p.received()[3]))
}

func TestRetryDropReasoningAnthropic(t *testing.T) {
	errBody := envelopes["anthropic"]("messages.1.content.0: Invalid `signature` in `thinking` block")
	p := newRefusing(t, errBody, "", "application/json", anthropicJSON(sigFor(43), "toolu_43"))
	foreign := `{"role":"assistant","content":[{"type":"thinking","thinking":"x","signature":"forged"},{"type":"tool_use","id":"toolu_42","name":"get_weather","input":{}}]}`
	body := anthropicFollowUp(foreign, "toolu_42")
	tr := &replayhttp.Transport{}
	_, retries := retryCase(t, tr, p, "/v1/messages", body)
	stripped := `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_42","name":"get_weather","input":{}}]}`
	got := p.received()
	require.Len(t, got, 2)
	assert.Equal(t, anthropicFollowUp(stripped, "toolu_42"), string(got[1]))
	require.Len(t, retries, 1)
	assert.Equal(t, []replayhttp.Repair{{Pointer: "/messages/1/content/0", Action: replayhttp.RepairRemoved, Detail: "thinking block removed"}}, retries[0].Changes)

	// Up front, the same block goes again; the provider's new, signed
	// thinking block stays.
	fresh := `{"role":"assistant","content":[{"type":"thinking","thinking":"y","signature":"` + sigFor(43) + `"},{"type":"tool_use","id":"toolu_43","name":"get_weather","input":{}}]}`
	next := strings.TrimSuffix(body, "]}") + `,` + fresh + `,{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_43","content":"16°C"}]}]}`
	_, retries = retryCase(t, tr, p, "/v1/messages", next)
	want := strings.Replace(next, foreign, stripped, 1)
	assert.Equal(t, want, string(p.received()[2]))
	require.Len(t, retries, 1)
	assert.True(t, retries[0].Upfront)
}

func TestRetryStripEncryptedContent(t *testing.T) {
	errBody := envelopes["openai"]("The encrypted content for item rs_44 could not be verified. Reason: Encrypted content organization_id did not match the target organization.")
	p := newRefusing(t, errBody, "", "application/json", responsesJSON("gAAAnew", "call_45"))
	body := `{"model":"gpt-5","store":false,"input":[{"role":"user","content":"Weather in Zürich?"},` +
		`{"type":"reasoning","id":"rs_44","summary":[],"encrypted_content":"gAAAforeign"},` +
		`{"type":"function_call","id":"fc_44","call_id":"call_44","name":"get_weather","arguments":"{}"},` +
		`{"type":"function_call_output","call_id":"call_44","output":"18°C"}]}`
	_, retries := retryCase(t, &replayhttp.Transport{}, p, "/v1/responses", body)
	want := `{"model":"gpt-5","store":false,"input":[{"role":"user","content":"Weather in Zürich?"},` +
		`{"type":"function_call","call_id":"call_44","name":"get_weather","arguments":"{}"},` +
		`{"type":"function_call_output","call_id":"call_44","output":"18°C"}]}`
	got := p.received()
	require.Len(t, got, 2)
	assert.Equal(t, want, string(got[1]))
	require.Len(t, retries, 1)
	assert.Equal(t, "replay/identity-mismatch", retries[0].Class.Rule)
	assert.Equal(t, []replayhttp.Repair{
		{Pointer: "/input/1", Action: replayhttp.RepairRemoved, Detail: `reasoning item "rs_44" removed`},
		{Pointer: "/input/2", Action: replayhttp.RepairRemoved, Detail: `item id "fc_44" removed with the reasoning item it followed`},
	}, retries[0].Changes)
}

func TestRetryGeminiSentinel(t *testing.T) {
	errBody := `{"error":{"code":400,"message":"Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call ` + "`default_api:get_weather`" + ` , position 2.","status":"INVALID_ARGUMENT"}}`
	p := newRefusing(t, errBody, "", "application/json", geminiJSON("CiQsig46"))
	model := `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Zürich"}}},{"functionCall":{"name":"get_weather","args":{"city":"Bern"}}}]}`
	body := `{"contents":[{"role":"user","parts":[{"text":"Weather?"}]},` + model + `,{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{}}},{"functionResponse":{"name":"get_weather","response":{}}}]}]}`
	_, retries := retryCase(t, &replayhttp.Transport{}, p, "/v1beta/models/gemini-3-pro-preview:generateContent", body)
	signed := `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Zürich"}},"thoughtSignature":"skip_thought_signature_validator"},{"functionCall":{"name":"get_weather","args":{"city":"Bern"}}}]}`
	got := p.received()
	require.Len(t, got, 2)
	assert.Equal(t, strings.Replace(body, model, signed, 1), string(got[1]))
	require.Len(t, retries, 1)
	assert.Equal(t, replayhttp.FixRestore, retries[0].Class.Fix)
	assert.Equal(t, []replayhttp.Repair{{Pointer: "/contents/1/parts/0", Action: replayhttp.RepairSet,
		Detail: "the first function call has no signature: Gemini's documented sentinel written"}}, retries[0].Changes)
}

const deepseekRequest = `{"model":"deepseek-chat","tools":[{"type":"function","function":{"name":"get_weather"}}],"messages":[{"role":"user","content":"Weather?"},` +
	`{"role":"assistant","content":"","tool_calls":[{"id":"call_47","type":"function","function":{"name":"get_weather","arguments":"{}"}}]},` +
	`{"role":"tool","tool_call_id":"call_47","content":"18°C"}]}`

func TestRetryBackfillReasoningContent(t *testing.T) {
	errBody := envelopes["openai"]("Missing `reasoning_content` field in the assistant message at message index 1. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls")
	p := newRefusing(t, errBody, "", "application/json", deepseekJSON("ok", "call_48"))
	_, retries := retryCase(t, &replayhttp.Transport{}, p, "/chat/completions", deepseekRequest)
	got := p.received()
	require.Len(t, got, 2)
	assert.Equal(t, strings.Replace(deepseekRequest, `"arguments":"{}"}}]}`, `"arguments":"{}"}}],"reasoning_content":""}`, 1), string(got[1]))
	require.Len(t, retries, 1)
	assert.Equal(t, []replayhttp.Repair{{Pointer: "/messages/1/reasoning_content", Action: replayhttp.RepairSet, Detail: `reasoning_content "" sent where the message had none`}}, retries[0].Changes)
}

func TestRetryRemoveReasoningContent(t *testing.T) {
	errBody := envelopes["openai"]("The reasoning_content field is not allowed in input messages")
	p := newRefusing(t, errBody, "", "application/json", deepseekJSON("ok", "call_49"))
	body := strings.Replace(deepseekRequest, `{"role":"assistant","content":"",`, `{"role":"assistant","content":"","reasoning_content":"thought",`, 1)
	body = strings.Replace(body, "deepseek-chat", "deepseek-r1", 1)
	_, retries := retryCase(t, &replayhttp.Transport{}, p, "/chat/completions", body)
	got := p.received()
	require.Len(t, got, 2)
	assert.Equal(t, strings.Replace(deepseekRequest, "deepseek-chat", "deepseek-r1", 1), string(got[1]))
	require.Len(t, retries, 1)
	assert.Equal(t, "deepseek/reasoning-content-forbidden", retries[0].Class.Rule)
	assert.Equal(t, []replayhttp.Repair{{Pointer: "/messages/1/reasoning_content", Action: replayhttp.RepairRemoved, Detail: "reasoning_content removed"}}, retries[0].Changes)
}

func TestRetryDropDuplicates(t *testing.T) {
	errBody := `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"error\":{\"message\":\"Duplicate item found with id rs_50. Remove duplicate items from your input and try again.\"}}","provider_name":"OpenAI"}}}`
	p := newRefusing(t, errBody, "", "application/json", openrouterJSON(sigFor(50), "toolu_50"))
	item := `{"type":"reasoning.encrypted","data":"gAAA50","id":"rs_50","format":"openai-responses-v1","index":0}`
	body := `{"model":"openai/gpt-5","messages":[{"role":"user","content":"hi"},` +
		`{"role":"assistant","content":"a","reasoning_details":[` + item + `]},{"role":"user","content":"b"},` +
		`{"role":"assistant","content":"c","reasoning_details":[` + item + `]},{"role":"user","content":"d"}]}`
	_, retries := retryCase(t, &replayhttp.Transport{}, p, "/api/v1/chat/completions", body)
	got := p.received()
	require.Len(t, got, 2)
	assert.Equal(t, strings.Replace(body, `"content":"c","reasoning_details":[`+item+`]`, `"content":"c","reasoning_details":[]`, 1), string(got[1]))
	require.Len(t, retries, 1)
	assert.Equal(t, []replayhttp.Repair{{Pointer: "/messages/3/reasoning_details/0", Action: replayhttp.RepairRemoved, Detail: `duplicate reasoning_details item "rs_50" removed`}}, retries[0].Changes)
}

// A thinking block the agent altered is put back as captured before the
// request is sent: the provider never sees the altered block.
func TestRepairRestoresEditedThinking(t *testing.T) {
	sig := sigFor(51)
	errBody := envelopes["anthropic"]("messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.")
	n := 0
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, body []byte) {
		n++
		switch {
		case n == 1:
			serveJSON(w, anthropicJSON(sig, "toolu_51"))
		case strings.Contains(string(body), "edited"):
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, errBody)
		default:
			serveJSON(w, anthropicJSON(sigFor(52), "toolu_52"))
		}
	})
	tr := &replayhttp.Transport{Store: &replayhttp.MemoryStore{}, Retry: &replayhttp.Retry{}}
	c := &http.Client{Transport: tr}
	resp := post(t, c, context.Background(), srv.URL+"/v1/messages", anthropicFirst)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	edited := `{"role":"assistant","content":[{"type":"thinking","thinking":"edited","signature":"` + sig + `"},{"type":"text","text":"Let me check."},{"type":"tool_use","id":"toolu_51","name":"get_weather","input":{"city":"Zürich"}}]}`
	ctx, call := replayhttp.WithCapture(context.Background())
	resp = post(t, c, ctx, srv.URL+"/v1/messages", anthropicFollowUp(edited, "toolu_51"))
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	got := srv.received()
	require.Len(t, got, 2, "the capture put the text back before sending: no refusal, no retry")
	original := strings.Replace(edited, `"thinking":"edited"`, `"thinking":"The user asks for the weather in Zürich. I will call the tool."`, 1)
	assert.Equal(t, anthropicFollowUp(original, "toolu_51"), string(got[1]))
	assert.Empty(t, call.Retries())
	assert.Equal(t, []replayhttp.Repair{{Pointer: "/messages/1", Action: replayhttp.RepairRestored,
		Detail: "put back as captured: reasoning.text 0 was text altered"}}, call.Repairs())
}

// An error Classify does not know, or whose fix changes nothing, reaches
// the caller byte for byte, and nothing is retried.
func TestRetryPassesUnknownErrors(t *testing.T) {
	errBody := `{"error":{"message":"Rate limit reached"}}`
	p := newRefusing(t, errBody, "", "application/json", "{}")
	ctx, call := replayhttp.WithCapture(context.Background())
	resp := post(t, &http.Client{Transport: &replayhttp.Transport{Retry: &replayhttp.Retry{}}}, ctx, p.URL+"/v1/messages", anthropicFirst)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 400, resp.StatusCode)
	assert.Equal(t, errBody, string(b))
	assert.Len(t, p.received(), 1)
	assert.Empty(t, call.Retries())
	_, err = call.Turn()
	assert.Error(t, err)
}

// Retry is off by default: the refused request is not sent again.
func TestRetryOffByDefault(t *testing.T) {
	errBody := envelopes["anthropic"]("messages.1.content.0: Invalid `signature` in `thinking` block")
	p := newRefusing(t, errBody, "", "application/json", "{}")
	resp := post(t, &http.Client{Transport: &replayhttp.Transport{}}, context.Background(), p.URL+"/v1/messages", anthropicFirst)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, errBody, string(b))
	assert.Len(t, p.received(), 1)
}

// failSecond sends the first request and fails every later one, as a
// provider that went away between the refusal and the retry.
type failSecond struct{ n int }

var errGone = errors.New("connection refused")

func (f *failSecond) RoundTrip(req *http.Request) (*http.Response, error) {
	f.n++
	if f.n > 1 {
		return nil, errGone
	}
	return http.DefaultTransport.RoundTrip(req)
}

// A retry that cannot be sent leaves the caller the provider's refusal,
// byte for byte, and reports the error; nothing is remembered.
func TestRetryFailingToSendGivesTheRefusal(t *testing.T) {
	errBody := envelopes["anthropic"]("messages.1.content.0: Invalid `signature` in `thinking` block")
	p := newRefusing(t, errBody, `"signature":"forged"`, "application/json", "{}")
	foreign := `{"role":"assistant","content":[{"type":"thinking","thinking":"x","signature":"forged"},{"type":"tool_use","id":"toolu_53","name":"get_weather","input":{}}]}`
	body := anthropicFollowUp(foreign, "toolu_53")
	tr := &replayhttp.Transport{Base: &failSecond{}, Retry: &replayhttp.Retry{}}
	ctx, call := replayhttp.WithCapture(context.Background())
	resp := post(t, &http.Client{Transport: tr}, ctx, p.URL+"/v1/messages", body)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, 400, resp.StatusCode)
	assert.Equal(t, errBody, string(b))
	retries := call.Retries()
	require.Len(t, retries, 1)
	assert.Equal(t, "anthropic/foreign-signature", retries[0].Class.Rule)
	assert.Equal(t, 400, retries[0].Status)
	assert.Equal(t, 0, retries[0].RetryStatus)
	assert.ErrorIs(t, retries[0].Err, errGone)

	// Nothing was remembered: the same request goes out as the agent sent
	// it, is refused, and is retried.
	tr.Base = http.DefaultTransport
	_, retries = retryCase(t, tr, p, "/v1/messages", body)
	got := p.received()
	require.Len(t, got, 3)
	assert.Equal(t, body, string(got[1]))
	assert.Equal(t, anthropicFollowUp(`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_53","name":"get_weather","input":{}}]}`, "toolu_53"), string(got[2]))
	require.Len(t, retries, 1)
	assert.False(t, retries[0].Upfront)
	assert.Equal(t, 200, retries[0].RetryStatus)
}
