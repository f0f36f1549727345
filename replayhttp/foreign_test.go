package replayhttp_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/reasonreplay/replay/replayhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// foreignCase captures a turn through one provider, then sends a request
// to another API with one Store: the agent (or a translator) put the first
// provider's reasoning into the second provider's message. It returns what
// the second provider received and the repairs.
func foreignCase(t *testing.T, provider1, path1, response, provider2, path2, second string) (string, []replayhttp.Repair) {
	t.Helper()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		if r.URL.Path == path1 {
			serveJSON(w, response)
			return
		}
		serveJSON(w, `{}`)
	})
	store := &replayhttp.MemoryStore{}
	c1 := &http.Client{Transport: &replayhttp.Transport{Store: store, Provider: provider1}}
	resp := post(t, c1, context.Background(), srv.URL+path1, `{"model":"m","messages":[{"role":"user","content":"Weather?"}],"input":[{"role":"user","content":"Weather?"}]}`)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.Equal(t, 2, store.Len(), "the first turn is stored, under its tool-call key and its position key")
	ctx, call := replayhttp.WithCapture(context.Background())
	c2 := &http.Client{Transport: &replayhttp.Transport{Store: store, Provider: provider2}}
	resp = post(t, c2, ctx, srv.URL+path2, second)
	resp.Body.Close()
	got := srv.received()
	require.Len(t, got, 2)
	return string(got[1]), call.Repairs()
}

// A Gemini turn served by OpenRouter: its signature, as the agent's
// translator put it into other APIs' messages.
const geminiViaOpenRouter = `{"id":"gen-2","object":"chat.completion","model":"google/gemini-3-pro-preview","provider":"Google","choices":[{"index":0,"finish_reason":"tool_calls",` +
	`"message":{"role":"assistant","content":"","reasoning_details":[{"type":"reasoning.encrypted","data":"CiQgeminisig","id":"tool_g1","format":"google-gemini-v1","index":0}],` +
	`"tool_calls":[{"id":"tool_g1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}}]}`

func TestRemoveForeignAnthropic(t *testing.T) {
	msg := `{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":"CiQgeminisig"},{"type":"tool_use","id":"tool_g1","name":"get_weather","input":{}}]}`
	second := anthropicFollowUp(msg, "tool_g1")
	got, reps := foreignCase(t, "openrouter", "/api/v1/chat/completions", geminiViaOpenRouter, "anthropic", "/v1/messages", second)
	assert.Equal(t, anthropicFollowUp(`{"role":"assistant","content":[{"type":"tool_use","id":"tool_g1","name":"get_weather","input":{}}]}`, "tool_g1"), got)
	require.Len(t, reps, 1)
	assert.Equal(t, replayhttp.Repair{Pointer: "/messages/1", Action: replayhttp.RepairRemoved, Detail: reps[0].Detail}, reps[0])
	assert.Contains(t, reps[0].Detail, "foreign-opaque -> drop")
}

func TestRemoveForeignBedrockConverse(t *testing.T) {
	msg := `{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":"","signature":"CiQgeminisig"}}},{"toolUse":{"toolUseId":"tool_g1","name":"get_weather","input":{}}}]}`
	second := `{"messages":[{"role":"user","content":[{"text":"Weather?"}]},` + msg + `,{"role":"user","content":[{"toolResult":{"toolUseId":"tool_g1","content":[{"text":"18°C"}]}}]}]}`
	got, reps := foreignCase(t, "openrouter", "/api/v1/chat/completions", geminiViaOpenRouter, "", "/model/anthropic.claude-sonnet-4-5-20250929-v1:0/converse", second)
	assert.Equal(t, strings.Replace(second, msg, `{"role":"assistant","content":[{"toolUse":{"toolUseId":"tool_g1","name":"get_weather","input":{}}}]}`, 1), got)
	require.Len(t, reps, 1)
	assert.Equal(t, replayhttp.RepairRemoved, reps[0].Action)
	assert.Equal(t, "/messages/1", reps[0].Pointer)
}

func TestRemoveForeignGemini(t *testing.T) {
	claude := openrouterJSON(sigFor(60), "toolu_60")
	model := `{"role":"model","parts":[{"functionCall":{"id":"toolu_60","name":"get_weather","args":{"city":"Zürich"}},"thoughtSignature":"` + sigFor(60) + `"}]}`
	second := `{"contents":[{"role":"user","parts":[{"text":"Weather?"}]},` + model + `,{"role":"user","parts":[{"functionResponse":{"id":"toolu_60","name":"get_weather","response":{}}}]}]}`
	got, reps := foreignCase(t, "openrouter", "/api/v1/chat/completions", claude, "", "/v1beta/models/gemini-3-pro-preview:generateContent", second)
	assert.Equal(t, strings.Replace(second, model, `{"role":"model","parts":[{"functionCall":{"id":"toolu_60","name":"get_weather","args":{"city":"Zürich"}}}]}`, 1), got)
	require.Len(t, reps, 1)
	assert.Equal(t, replayhttp.RepairRemoved, reps[0].Action)
	assert.Equal(t, "/contents/1", reps[0].Pointer)
}

func TestRemoveForeignChatHost(t *testing.T) {
	claude := openrouterJSON(sigFor(61), "toolu_61")
	msg := `{"role":"assistant","content":"Let me check.","reasoning_content":"Weather lookup.","tool_calls":[{"id":"toolu_61","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Zürich\"}"}}]}`
	second := `{"model":"deepseek-chat","messages":[{"role":"user","content":"Weather?"},` + msg + `,{"role":"tool","tool_call_id":"toolu_61","content":"18°C"}]}`
	got, reps := foreignCase(t, "openrouter", "/api/v1/chat/completions", claude, "deepseek", "/chat/completions", second)
	assert.Equal(t, strings.Replace(second, msg, `{"role":"assistant","content":"Let me check.","tool_calls":[{"id":"toolu_61","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Zürich\"}"}}]}`, 1), got)
	require.Len(t, reps, 1)
	assert.Contains(t, reps[0].Detail, "foreign-visible-text -> drop")
}

func TestRemoveForeignResponses(t *testing.T) {
	// A reasoning item minted on Azure, sent to OpenAI.
	second := `{"model":"gpt-5","store":false,"input":[{"role":"user","content":"Weather?"},` +
		`{"type":"reasoning","id":"rs_call_62","summary":[{"type":"summary_text","text":"Looking up the weather."}],"encrypted_content":"gAAAazure"},` +
		`{"type":"function_call","id":"fc_call_62","call_id":"call_62","name":"get_weather","arguments":"{\"city\":\"Zürich\"}"},` +
		`{"type":"function_call_output","call_id":"call_62","output":"18°C"}]}`
	got, reps := foreignCase(t, "azure", "/openai/v1/responses", responsesJSON("gAAAazure", "call_62"), "openai", "/v1/responses", second)
	want := `{"model":"gpt-5","store":false,"input":[{"role":"user","content":"Weather?"},` +
		`{"type":"function_call","call_id":"call_62","name":"get_weather","arguments":"{\"city\":\"Zürich\"}"},` +
		`{"type":"function_call_output","call_id":"call_62","output":"18°C"}]}`
	assert.Equal(t, want, got)
	require.GreaterOrEqual(t, len(reps), 2)
	assert.Equal(t, replayhttp.Repair{Pointer: "/input/1", Action: replayhttp.RepairRemoved, Detail: reps[0].Detail}, reps[0])
	assert.Equal(t, replayhttp.Repair{Pointer: "/input/2", Action: replayhttp.RepairRemoved, Detail: `item id "fc_call_62" removed with the reasoning item it followed`}, reps[1])
}
