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
	"github.com/tidwall/gjson"
)

// switchCase captures a turn of a conversation on OpenRouter with one
// model, then sends the conversation's next request to another model
// through the same Transport: what the capture's issuer minted goes to the
// new model only as the policy allows. It returns what the provider
// received and the repairs.
func switchCase(t *testing.T, response, second string) (string, []replayhttp.Repair) {
	t.Helper()
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) { serveJSON(w, response) })
	tr := &replayhttp.Transport{Store: &replayhttp.MemoryStore{}}
	c := &http.Client{Transport: tr}
	resp := post(t, c, context.Background(), srv.URL+"/api/v1/chat/completions", `{"model":"google/gemini-3-pro-preview","messages":[{"role":"user","content":"Weather?"}]}`)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	ctx, call := replayhttp.WithCapture(context.Background())
	resp = post(t, c, ctx, srv.URL+"/api/v1/chat/completions", second)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	got := srv.received()
	require.Len(t, got, 2)
	return string(got[1]), call.Repairs()
}

// A Gemini turn served by OpenRouter.
const geminiViaOpenRouter = `{"id":"gen-2","object":"chat.completion","model":"google/gemini-3-pro-preview","provider":"Google","choices":[{"index":0,"finish_reason":"tool_calls",` +
	`"message":{"role":"assistant","content":"","reasoning_details":[{"type":"reasoning.encrypted","data":"CiQgeminisig","id":"tool_g1","format":"google-gemini-v1","index":0}],` +
	`"tool_calls":[{"id":"tool_g1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}}]}`

// The conversation moved from Gemini to Claude and the agent dropped the
// reasoning: the capture is Gemini's, which Claude must not get, so
// nothing is restored and nothing is said.
func TestSwitchDoesNotRestoreForeign(t *testing.T) {
	msg := `{"role":"assistant","content":"","tool_calls":[{"id":"tool_g1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}`
	second := `{"model":"anthropic/claude-sonnet-4.5","messages":[{"role":"user","content":"Weather?"},` + msg + `,{"role":"tool","tool_call_id":"tool_g1","content":"18°C"}]}`
	got, reps := switchCase(t, geminiViaOpenRouter, second)
	assert.Equal(t, second, got)
	assert.Empty(t, reps)
}

// The conversation moved from Gemini to Claude and the agent kept the
// Gemini signature: it is removed, by the capture's word.
func TestSwitchRemovesKeptForeign(t *testing.T) {
	msg := `{"role":"assistant","content":"","reasoning_details":[{"type":"reasoning.encrypted","data":"CiQgeminisig","id":"tool_g1","format":"google-gemini-v1","index":0}],` +
		`"tool_calls":[{"id":"tool_g1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}`
	second := `{"model":"anthropic/claude-sonnet-4.5","messages":[{"role":"user","content":"Weather?"},` + msg + `,{"role":"tool","tool_call_id":"tool_g1","content":"18°C"}]}`
	got, reps := switchCase(t, geminiViaOpenRouter, second)
	want := `{"role":"assistant","content":"","tool_calls":[{"id":"tool_g1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}`
	assert.Equal(t, strings.Replace(second, msg, want, 1), got)
	require.Len(t, reps, 1)
	assert.Equal(t, replayhttp.Repair{Pointer: "/messages/1", Action: replayhttp.RepairRemoved, Detail: reps[0].Detail}, reps[0])
	assert.Contains(t, reps[0].Detail, "foreign-opaque -> drop")
	assert.False(t, gjson.Get(got, "messages.1.reasoning_details").Exists())
}

// Back on Gemini after a detour, with the reasoning dropped: the capture
// is Gemini's own, and comes back byte for byte.
func TestSwitchBackRestores(t *testing.T) {
	msg := `{"role":"assistant","content":"","tool_calls":[{"id":"tool_g1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}`
	second := `{"model":"google/gemini-3-pro-preview","messages":[{"role":"user","content":"Weather?"},` + msg + `,{"role":"tool","tool_call_id":"tool_g1","content":"18°C"}]}`
	got, reps := switchCase(t, geminiViaOpenRouter, second)
	assert.Equal(t, `[{"type":"reasoning.encrypted","data":"CiQgeminisig","id":"tool_g1","format":"google-gemini-v1","index":0}]`, gjson.Get(got, "messages.1.reasoning_details").Raw)
	require.Len(t, reps, 1)
	assert.Equal(t, replayhttp.RepairRestored, reps[0].Action)
	assert.Equal(t, "put back as captured: reasoning.encrypted 0 was missing", reps[0].Detail)
}
