package replayhttp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// repairCase runs two calls through one Transport with a store: the first
// captures a turn, the second carries the assistant message as an agent
// rebuilt it. It returns the second body as the server received it and
// the repairs reported.
func repairCase(t *testing.T, path, first, response, contentType, second string) ([]byte, []replayhttp.Repair) {
	t.Helper()
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		w.Header().Set("Content-Type", contentType)
		_, _ = io.WriteString(w, response)
	})
	tr := &replayhttp.Transport{Store: &replayhttp.MemoryStore{}}
	c := &http.Client{Transport: tr}
	for _, body := range []string{first} {
		resp := post(t, c, context.Background(), srv.URL+path, body)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	ctx, call := replayhttp.WithCapture(context.Background())
	resp := post(t, c, ctx, srv.URL+path, second)
	resp.Body.Close()
	got := srv.received()
	require.Len(t, got, 2)
	return got[1], call.Repairs()
}

func TestRepairAnthropic(t *testing.T) {
	sig := sigFor(10)
	stripped := `{"role":"assistant","content":[{"type":"text","text":"Let me check."},{"type":"tool_use","id":"toolu_10","name":"get_weather","input":{"city":"Zürich"}}]}`
	got, reps := repairCase(t, "/v1/messages", anthropicFirst, anthropicSSE(sig, "toolu_10"), "text/event-stream",
		anthropicFollowUp(stripped, "toolu_10"))
	want := `{"role":"assistant","content":[{"type":"thinking","thinking":"The user asks for the weather in Zürich. I will call the tool.","signature":"` + sig + `"},` +
		`{"type":"text","text":"Let me check."},{"type":"tool_use","id":"toolu_10","name":"get_weather","input":{"city":"Zürich"}}]}`
	assert.Equal(t, anthropicFollowUp(want, "toolu_10"), string(got))
	require.Len(t, reps, 1)
	assert.Equal(t, replayhttp.RepairRestored, reps[0].Action)
	assert.Equal(t, "/messages/1", reps[0].Pointer)
}

func TestRepairAnthropicLeavesKeptReasoning(t *testing.T) {
	sig := sigFor(11)
	// As captured, with the members of each block in another order.
	kept := `{"role":"assistant","content":[{"signature":"` + sig + `","thinking":"The user asks for the weather in Zürich. I will call the tool.","type":"thinking"},` +
		`{"type":"text","text":"Let me check."},{"type":"tool_use","id":"toolu_11","input":{"city":"Zürich"},"name":"get_weather"}]}`
	second := anthropicFollowUp(kept, "toolu_11")
	got, reps := repairCase(t, "/v1/messages", anthropicFirst, anthropicJSON(sig, "toolu_11"), "application/json", second)
	assert.Equal(t, second, string(got))
	assert.Empty(t, reps)
}

func TestRepairOpenAIResponses(t *testing.T) {
	blob := "gAAAAABo-enc/+=_12"
	first := `{"model":"gpt-5","store":false,"include":["reasoning.encrypted_content"],"input":[{"role":"user","content":"Weather in Zürich?"}]}`
	second := `{"model":"gpt-5","store":false,"include":["reasoning.encrypted_content"],"input":[{"role":"user","content":"Weather in Zürich?"},` +
		`{"type":"function_call","id":"fc_call_12","call_id":"call_12","name":"get_weather","arguments":"{\"city\":\"Zürich\"}"},` +
		`{"type":"function_call_output","call_id":"call_12","output":"18°C"}]}`
	got, reps := repairCase(t, "/v1/responses", first, responsesJSON(blob, "call_12"), "application/json", second)
	in := gjson.GetBytes(got, "input").Array()
	require.Len(t, in, 4)
	assert.Equal(t, "reasoning", in[1].Get("type").Str)
	assert.Equal(t, "rs_call_12", in[1].Get("id").Str)
	assert.Equal(t, blob, in[1].Get("encrypted_content").Str)
	assert.Equal(t, `{"type":"function_call","id":"fc_call_12","call_id":"call_12","name":"get_weather","arguments":"{\"city\":\"Zürich\"}"}`, in[2].Raw)
	assert.Equal(t, strings.Replace(second, `,{"type":"function_call",`, `,`+in[1].Raw+`,{"type":"function_call",`, 1), string(got))
	require.Len(t, reps, 1)
	assert.Equal(t, replayhttp.RepairRestored, reps[0].Action)
}

func TestRepairGeminiParallelCalls(t *testing.T) {
	sig := "CiQBVKhc7+/_sig13=="
	path := "/v1beta/models/gemini-3-pro-preview:generateContent"
	first := `{"contents":[{"role":"user","parts":[{"text":"Weather in Zürich and Bern?"}]}],"tools":[{"functionDeclarations":[{"name":"get_weather"}]}]}`
	model := `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Zürich"}}},{"functionCall":{"name":"get_weather","args":{"city":"Bern"}}}]}`
	second := `{"contents":[{"role":"user","parts":[{"text":"Weather in Zürich and Bern?"}]},` + model + `,` +
		`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"t":18}}},{"functionResponse":{"name":"get_weather","response":{"t":16}}}]}],` +
		`"tools":[{"functionDeclarations":[{"name":"get_weather"}]}]}`
	got, reps := repairCase(t, path, first, geminiJSON(sig), "application/json", second)
	restored := `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Zürich"}},"thoughtSignature":"` + sig + `"},{"functionCall":{"name":"get_weather","args":{"city":"Bern"}}}]}`
	assert.Equal(t, strings.Replace(second, model, restored, 1), string(got))
	require.Len(t, reps, 1)
	assert.Equal(t, "/contents/1", reps[0].Pointer)
}

func TestRepairOpenRouter(t *testing.T) {
	sig := sigFor(14)
	first := `{"model":"anthropic/claude-sonnet-4.5","messages":[{"role":"user","content":"Weather in Zürich?"}],"tools":[{"type":"function","function":{"name":"get_weather"}}]}`
	stripped := `{"role":"assistant","content":"Let me check.","tool_calls":[{"id":"toolu_14","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Zürich\"}"}}]}`
	second := `{"model":"anthropic/claude-sonnet-4.5","messages":[{"role":"user","content":"Weather in Zürich?"},` + stripped +
		`,{"role":"tool","tool_call_id":"toolu_14","content":"18°C"}],"tools":[{"type":"function","function":{"name":"get_weather"}}]}`
	got, reps := repairCase(t, "/api/v1/chat/completions", first, openrouterJSON(sig, "toolu_14"), "application/json", second)
	msg := gjson.GetBytes(got, "messages.1")
	assert.Equal(t, `[{"type":"reasoning.text","text":"Weather lookup.","signature":"`+sig+`","format":"anthropic-claude-v1","index":0}]`, msg.Get("reasoning_details").Raw)
	assert.Equal(t, strings.Replace(second, stripped, msg.Raw, 1), string(got))
	assert.Equal(t, strings.TrimSuffix(stripped, "}"), msg.Raw[:len(stripped)-1], "the rest of the message is as the agent built it")
	require.Len(t, reps, 1)
	assert.Equal(t, replayhttp.RepairRestored, reps[0].Action)
}

func TestRepairDeepSeek(t *testing.T) {
	first := `{"model":"deepseek-chat","messages":[{"role":"user","content":"Weather in Zürich?"}],"tools":[{"type":"function","function":{"name":"get_weather"}}]}`
	stripped := `{"role":"assistant","content":"","tool_calls":[{"id":"call_15","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Zürich\"}"}}]}`
	second := `{"model":"deepseek-chat","messages":[{"role":"user","content":"Weather in Zürich?"},` + stripped +
		`,{"role":"tool","tool_call_id":"call_15","content":"18°C"}],"tools":[{"type":"function","function":{"name":"get_weather"}}]}`
	got, reps := repairCase(t, "/chat/completions", first, deepseekJSON("Need the weather \\u2014 call the tool.", "call_15"), "application/json", second)
	assert.Equal(t, "Need the weather — call the tool.", gjson.GetBytes(got, "messages.1.reasoning_content").Str)
	require.Len(t, reps, 1)
	assert.Equal(t, replayhttp.RepairRestored, reps[0].Action)
	req, err := replay.AuditRequest("deepseek", got)
	require.NoError(t, err)
	assert.False(t, req.Rejects(), "%v", req.Err())
}

// Two conversations produced the same visible answer at the same position:
// the key names two turns, so the message is left alone and reported.
func TestRepairAmbiguousKeyLeavesMessage(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		serveJSON(w, `{"id":"msg_x","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[`+
			`{"type":"thinking","thinking":"t","signature":"`+r.Header.Get("X-Sig")+`"},{"type":"text","text":"OK."}],"stop_reason":"end_turn","usage":{}}`)
	})
	tr := &replayhttp.Transport{Store: &replayhttp.MemoryStore{}}
	c := &http.Client{Transport: tr}
	first := `{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":"Say OK."}]}`
	for _, sig := range []string{"sigA", "sigB"} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(first))
		req.Header.Set("X-Sig", sig)
		req.Header.Set("X-Api-Key", tenantA)
		resp, err := c.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	second := `{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":"Say OK."},{"role":"assistant","content":"OK."},{"role":"user","content":"Again."}]}`
	ctx, call := replayhttp.WithCapture(context.Background())
	resp := post(t, c, ctx, srv.URL+"/v1/messages", second)
	resp.Body.Close()
	got := srv.received()
	assert.Equal(t, second, string(got[2]))
	reps := call.Repairs()
	require.Len(t, reps, 1)
	assert.Equal(t, replayhttp.RepairAmbiguous, reps[0].Action)
	assert.Equal(t, "/messages/1", reps[0].Pointer)
}

// A key that finds a turn whose tool calls differ from the message's is
// not trusted.
func TestRepairMismatchLeavesMessage(t *testing.T) {
	stripped := `{"role":"assistant","content":[{"type":"text","text":"Let me check."},{"type":"tool_use","id":"toolu_16","name":"get_time","input":{}}]}`
	second := anthropicFollowUp(stripped, "toolu_16")
	got, reps := repairCase(t, "/v1/messages", anthropicFirst, anthropicJSON(sigFor(16), "toolu_16"), "application/json", second)
	assert.Equal(t, second, string(got))
	require.Len(t, reps, 1)
	assert.Equal(t, replayhttp.RepairMismatch, reps[0].Action)
}

// The conversation moved from a Claude model to an OpenAI model on
// OpenRouter: the Claude signature the agent kept is removed.
func TestRepairRemovesForeignItems(t *testing.T) {
	sig := sigFor(17)
	msg := `{"role":"assistant","content":"Let me check.","reasoning_details":[{"type":"reasoning.text","text":"Weather lookup.","signature":"` + sig + `","format":"anthropic-claude-v1","index":0}],` +
		`"tool_calls":[{"id":"toolu_17","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}`
	body := `{"model":"openai/gpt-5","messages":[{"role":"user","content":"Weather?"},` + msg + `,{"role":"tool","tool_call_id":"toolu_17","content":"18°C"}]}`
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) { serveJSON(w, `{}`) })
	tr := &replayhttp.Transport{Store: &replayhttp.MemoryStore{}, Provider: "openrouter"}
	ctx, call := replayhttp.WithCapture(context.Background())
	resp := post(t, &http.Client{Transport: tr}, ctx, srv.URL+"/v1/chat/completions", body)
	resp.Body.Close()
	got := srv.received()[0]
	assert.False(t, gjson.GetBytes(got, "messages.1.reasoning_details").Exists())
	assert.Equal(t, `{"role":"assistant","content":"Let me check.","tool_calls":[{"id":"toolu_17","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}`,
		gjson.GetBytes(got, "messages.1").Raw)
	reps := call.Repairs()
	require.Len(t, reps, 1)
	assert.Equal(t, replayhttp.RepairRemoved, reps[0].Action)
	assert.Contains(t, reps[0].Detail, "foreign")
}

// storeDown is a store whose reads fail (Redis refused the connection)
// while its writes succeed.
type storeDown struct{ replayhttp.MemoryStore }

var errStoreDown = errors.New("dial tcp 127.0.0.1:6379: connection refused")

func (s *storeDown) Get(context.Context, replayhttp.Key) ([][]byte, error) { return nil, errStoreDown }

// When the store cannot be read, the turn is judged by the request alone
// and left as the agent sent it, with the store's error as the reason.
func TestRepairStoreErrorIsTheReason(t *testing.T) {
	for _, tc := range []struct{ name, path, first, response, second, ptr string }{
		{"anthropic", "/v1/messages", anthropicFirst, anthropicJSON(sigFor(17), "toolu_17"),
			anthropicFollowUp(`{"role":"assistant","content":[{"type":"text","text":"Let me check."},{"type":"tool_use","id":"toolu_17","name":"get_weather","input":{"city":"Zürich"}}]}`, "toolu_17"),
			"/messages/1"},
		{"openai-responses", "/v1/responses", `{"model":"gpt-5","store":false,"input":[{"role":"user","content":"Weather in Zürich?"}]}`, responsesJSON("gAAA17", "call_17"),
			`{"model":"gpt-5","store":false,"input":[{"role":"user","content":"Weather in Zürich?"},` +
				`{"type":"function_call","id":"fc_call_17","call_id":"call_17","name":"get_weather","arguments":"{\"city\":\"Zürich\"}"},` +
				`{"type":"function_call_output","call_id":"call_17","output":"18°C"}]}`,
			"/input/1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) { serveJSON(w, tc.response) })
			store := &storeDown{}
			c := &http.Client{Transport: &replayhttp.Transport{Store: store}}
			resp := post(t, c, context.Background(), srv.URL+tc.path, tc.first)
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			require.Equal(t, 1, store.Len(), "the turn was captured")

			ctx, call := replayhttp.WithCapture(context.Background())
			resp = post(t, c, ctx, srv.URL+tc.path, tc.second)
			resp.Body.Close()
			got := srv.received()
			require.Len(t, got, 2)
			assert.Equal(t, tc.second, string(got[1]), "left as the agent sent it")
			assert.Equal(t, []replayhttp.Repair{{Pointer: tc.ptr, Action: replayhttp.RepairStoreError,
				Detail: "the store could not be read (dial tcp 127.0.0.1:6379: connection refused); judged by the request alone"}}, call.Repairs())
		})
	}
}

// A reasoning block the agent moved after the text it came before is out
// of place, although no tool call stands between them: it is put back
// where it was captured.
func TestRepairPutsBackReasoningMovedPastText(t *testing.T) {
	response := `{"id":"m1","object":"chat.completion","model":"magistral-medium-2509","choices":[{"index":0,"finish_reason":"stop",` +
		`"message":{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"Short answer."}]},{"type":"text","text":"Done."}]}}]}`
	head := `{"model":"magistral-medium-2509","messages":[{"role":"user","content":"Say done."}`
	moved := `{"role":"assistant","content":[{"type":"text","text":"Done."},{"type":"thinking","thinking":[{"type":"text","text":"Short answer."}]}]}`
	second := head + `,` + moved + `,{"role":"user","content":"Thanks."}]}`
	got, reps := repairCase(t, "/v1/chat/completions", head+`]}`, response, "application/json", second)
	assert.Equal(t, `{"type":"thinking","thinking":[{"type":"text","text":"Short answer."}]}`, gjson.GetBytes(got, "messages.1.content.0").Raw)
	assert.Equal(t, `{"type":"text","text":"Done."}`, gjson.GetBytes(got, "messages.1.content.1").Raw)
	assert.Len(t, gjson.GetBytes(got, "messages.1.content").Array(), 2)
	require.Len(t, reps, 1)
	assert.Equal(t, replayhttp.Repair{Pointer: "/messages/1", Action: replayhttp.RepairRestored,
		Detail: "put back as captured: reasoning.text 0 was out of place"}, reps[0])
}
