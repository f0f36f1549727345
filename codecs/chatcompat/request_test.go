package chatcompat

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStreamLimits(t *testing.T) {
	c := New(APIGeneric, "zai", "glm-4.7")
	codectest.SweepLimits(t, c.NewFrameDecoder, stream.FramingSSE, fixture(t, "glm-tool-calls.sse"))
}

func TestBodyLimits(t *testing.T) {
	codectest.CheckBodyLimits(t, func(lim replay.Limits) replay.ReasoningCodec {
		c := New(APIDeepSeek, "", "deepseek-v4-flash")
		c.Limits = lim
		return c
	}, fixture(t, "deepseek-tool-call.json"))
}

// deepSeekRequest is a DeepSeek V4 tool loop whose last assistant message
// carries reasoning_content and the tool call given.
func deepSeekRequest(call string) []byte {
	return []byte(`{"model":"deepseek-v4-flash","thinking":{"type":"enabled"},
"tools":[{"type":"function","function":{"name":"tides","parameters":{}}}],
"messages":[{"role":"user","content":"Tides in Brest?"},
{"role":"assistant","content":"","reasoning_content":"Call the tides tool.","tool_calls":[` + call + `]},
{"role":"tool","tool_call_id":"call_00","content":"high 06:12"}]}`)
}

func TestDecodeRequestNative(t *testing.T) {
	c := New(APIDeepSeek, "", "deepseek-v4-flash")
	h, tg, err := c.DecodeRequest(deepSeekRequest(`{"id":"call_00","type":"function","function":{"name":"tides","arguments":"{\"port\":\"Brest\"}"}}`))
	require.NoError(t, err)
	assert.Equal(t, replay.Target{API: APIDeepSeek, Model: "deepseek-v4-flash", Tools: true, Thinking: true}, tg)
	assert.Equal(t, []string{"/messages/1"}, h.Pointers)
	require.Len(t, h.Turns, 1)
	tu := h.Turns[0]
	assert.True(t, tu.Complete)
	rt := tu.Blocks[0].(*replay.ReasoningText)
	assert.Equal(t, "Call the tides tool.", rt.Text)
	assert.Equal(t, formats.DeepSeek, rt.Format)
	tc := tu.Blocks[1].(*replay.ToolCall)
	assert.Equal(t, "call_00", tc.ID)
	assert.Equal(t, `{"port":"Brest"}`, tc.Arguments)
}

func TestAuditRequestCutToolCall(t *testing.T) {
	r, err := replay.AuditRequest(APIDeepSeek, deepSeekRequest(`{"id":"call_00","type":"function","function":{"name":"tides","arguments":"{}"}}`))
	require.NoError(t, err)
	assert.True(t, r.Clean(), "%v", r.Err())

	r, err = replay.AuditRequest(APIDeepSeek, deepSeekRequest(`{"id":"call_00","type":"function","function":{"name":"tides"}}`))
	require.NoError(t, err)
	var rules []string
	for _, v := range r.Violations {
		rules = append(rules, v.Rule)
	}
	assert.Contains(t, rules, "replay/incomplete-turn")
}
