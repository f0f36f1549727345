package openrouter_test

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/openrouter"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStreamLimits(t *testing.T) {
	codectest.SweepLimits(t, newFD, stream.FramingSSE, read(t, "claude-tool-loop.sse"))
}

func TestBodyLimits(t *testing.T) {
	codectest.CheckBodyLimits(t, func(lim replay.Limits) replay.ReasoningCodec { return openrouter.Codec{Limits: lim} },
		read(t, "openai-tool-call.json"))
}

// A request whose last assistant message carries reasoning_details and a
// tool call, complete or cut.
func request(call string) []byte {
	return []byte(`{"model":"anthropic/claude-sonnet-4.5","reasoning":{"max_tokens":2000},
"tools":[{"type":"function","function":{"name":"get_weather","parameters":{}}}],
"messages":[{"role":"user","content":"Weather in Oslo?"},
{"role":"assistant","content":null,"reasoning_details":[{"type":"reasoning.text","text":"Call the tool.","signature":"c2lnLTE=","format":"anthropic-claude-v1","index":0}],
"tool_calls":[` + call + `]},
{"role":"tool","tool_call_id":"toolu_01","content":"12C"}]}`)
}

func TestDecodeRequestNative(t *testing.T) {
	h, tg, err := openrouter.Codec{}.DecodeRequest(request(`{"id":"toolu_01","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}`))
	require.NoError(t, err)
	assert.Equal(t, replay.Target{API: openrouter.API, Model: "anthropic/claude-sonnet-4.5", Tools: true, Thinking: true}, tg)
	assert.Equal(t, []string{"/messages/1"}, h.Pointers)
	require.Len(t, h.Turns, 1)
	tu := h.Turns[0]
	assert.True(t, tu.Complete)
	rt := tu.Blocks[0].(*replay.ReasoningText)
	assert.Equal(t, "Call the tool.", rt.Text)
	assert.Equal(t, "c2lnLTE=", rt.Signature.Value())
	assert.Equal(t, formats.AnthropicClaude, rt.Format)
	tc := tu.Blocks[1].(*replay.ToolCall)
	assert.Equal(t, "toolu_01", tc.ID)
	assert.Equal(t, `{"city":"Oslo"}`, tc.Arguments)
}

func TestAuditRequestCutToolCall(t *testing.T) {
	r, err := replay.AuditRequest(openrouter.API, request(`{"id":"toolu_01","type":"function","function":{"name":"get_weather","arguments":"{}"}}`))
	require.NoError(t, err)
	assert.True(t, r.Clean(), "%v", r.Err())

	for _, call := range []string{
		`{"id":"toolu_01","type":"function","function":{"name":"get_weather"}}`,
		`{"type":"function","function":{"name":"get_weather","arguments":"{}"}}`,
		`{"id":"toolu_01","type":"function","function":{"arguments":"{}"}}`,
	} {
		r, err := replay.AuditRequest(openrouter.API, request(call))
		require.NoError(t, err)
		var rules []string
		for _, v := range r.Violations {
			rules = append(rules, v.Rule)
		}
		assert.Contains(t, rules, "replay/incomplete-turn", call)
		assert.Equal(t, "/messages/1", r.Violations[0].Pointer, call)
	}
}

// A request whose reasoning.encrypted detail lost its data is still read:
// the detail is a damaged item, not replayable, that the audit reports
// and a store can put back; a response with one is refused as before.
func TestDecodeRequestEncryptedWithoutData(t *testing.T) {
	body := []byte(`{"model":"anthropic/claude-sonnet-4.5","messages":[{"role":"user","content":"Hi"},` +
		`{"role":"assistant","content":"Done.","reasoning_details":[{"type":"reasoning.encrypted","format":"anthropic-claude-v1","index":0}]},` +
		`{"role":"user","content":"Thanks."}]}`)
	h, _, err := openrouter.Codec{}.DecodeRequest(body)
	require.NoError(t, err)
	require.Len(t, h.Turns, 1)
	enc, ok := h.Turns[0].Blocks[0].(*replay.Encrypted)
	require.True(t, ok, "%T", h.Turns[0].Blocks[0])
	assert.Equal(t, "", enc.Data)
	assert.Equal(t, formats.AnthropicClaude, enc.Format)
	assert.Equal(t, 0, enc.Index.Value())
	assert.True(t, enc.Unfinished)
	assert.False(t, enc.Replayable())
	r, err := replay.AuditRequest(openrouter.API, body)
	require.NoError(t, err)
	require.True(t, r.Rejects(), "%v", r.Err())
	var rules []string
	for _, v := range r.Violations {
		rules = append(rules, v.Rule)
	}
	assert.Contains(t, rules, replay.RuleUnfinishedItem)

	_, err = openrouter.Codec{}.Decode([]byte(`{"choices":[{"message":{"role":"assistant","content":"Done.",` +
		`"reasoning_details":[{"type":"reasoning.encrypted","format":"anthropic-claude-v1","index":0}]}}]}`))
	assert.ErrorIs(t, err, replay.ErrMalformed)
}
