package mistral_test

import (
	"errors"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/mistral"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// chatRequest builds a chat completions request whose assistant messages
// are the response messages of two fixtures: an answer with thinking, then
// a tool turn. Mistral requests are chat-completions shaped, so
// AuditRequest reads them with the core's fallback (no reader of its own).
func chatRequest(t *testing.T) []byte {
	t.Helper()
	answer := gjson.GetBytes(read(t, "magistral-thinking.json"), "choices.0.message").Raw
	tool := gjson.GetBytes(read(t, "thinking-tool-call.json"), "choices.0.message").Raw
	require.NotEmpty(t, answer)
	require.NotEmpty(t, tool)
	return []byte(`{"model":"magistral-medium-2509","prompt_mode":"reasoning",` +
		`"tools":[{"type":"function","function":{"name":"forecast","parameters":{"type":"object"}}}],"messages":[` +
		`{"role":"user","content":"What is 7 squared plus 1?"},` + answer + `,` +
		`{"role":"user","content":"Weather in Oslo tomorrow?"},` + tool + `,` +
		`{"role":"tool","tool_call_id":"k2P9sVw3T","name":"forecast","content":"rain"}]}`)
}

func TestAuditRequest(t *testing.T) {
	body := chatRequest(t)
	r, err := replay.AuditRequest(mistral.API, body)
	require.NoError(t, err)
	assert.True(t, r.Clean(), "%v", r.Err())
	assert.Equal(t, 2, r.Turns)
	assert.Equal(t, map[replay.Format]int{formats.Mistral: 2}, r.Formats)
	assert.Equal(t, "magistral-medium-2509", r.Target.Model)
	assert.True(t, r.Target.Tools)

	h, _, err := mistral.Codec{}.DecodeRequest(body)
	require.NoError(t, err)
	assert.Equal(t, []string{"/messages/1", "/messages/3"}, h.Pointers)
	rt := h.Turns[0].Blocks[0].(*replay.ReasoningText)
	assert.Equal(t, "Seven squared is 49; add 1 to get 50.", rt.Text)
	assert.Equal(t, `{"closed":true}`, string(rt.Extra))
	assert.Equal(t, "The answer is 50.", h.Turns[0].Blocks[1].(*replay.Text).Text)
	tc := h.Turns[1].Blocks[1].(*replay.ToolCall)
	assert.Equal(t, "k2P9sVw3T", tc.ID)
	assert.Equal(t, `{"city":"Oslo","days":1}`, tc.Arguments)
}

// A request body says nothing about who wrote a thinking chunk: a chunk
// pasted from another provider reads as Mistral's own, so the contract's
// rules (which concern other issuers' items) cannot fire on a request
// alone. The stored turn, audited with AuditReplay, shows it.
func TestAuditRequestCannotSeeIssuer(t *testing.T) {
	body, err := sjson.SetRawBytes(chatRequest(t), "messages.3.content.0",
		[]byte(`{"type":"thinking","thinking":"Oslo forecast.","signature":"RXFvS0JnZ0w="}`))
	require.NoError(t, err)
	r, err := replay.AuditRequest(mistral.API, body)
	require.NoError(t, err)
	assert.True(t, r.Clean(), "%v", r.Err())
	assert.Equal(t, map[replay.Format]int{formats.Mistral: 2}, r.Formats)

	claude := &replay.Turn{Complete: true, Provenance: replay.Provenance{API: "anthropic"}, Blocks: []replay.Block{
		&replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: formats.AnthropicClaude}, Text: "Oslo forecast.", Signature: replay.Some("RXFvS0JnZ0w=")},
		&replay.ToolCall{ID: "k2P9sVw3T", Name: "forecast", Arguments: `{}`}}}
	r = replay.AuditReplay(replay.History{Turns: []*replay.Turn{claude}, Request: body, Pointers: []string{"/messages/3"}},
		replay.Target{API: mistral.API, Model: "magistral-medium-2509"})
	require.NotEmpty(t, r.Violations)
	assert.Equal(t, mistral.API+"/inexpressible", r.Violations[0].Rule)
	assert.Equal(t, "/messages/3", r.Violations[0].Pointer)
}

func TestAuditRequestErrors(t *testing.T) {
	for _, body := range []string{`not json`, `{"contents":[]}`,
		`{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":5}]}]}`} {
		_, err := replay.AuditRequest(mistral.API, []byte(body))
		assert.True(t, errors.Is(err, replay.ErrMalformed), "%s: %v", body, err)
	}
}

func TestAuditRequestCutToolCall(t *testing.T) {
	body := chatRequest(t)
	h, tg, err := mistral.Codec{}.DecodeRequest(body)
	require.NoError(t, err)
	assert.True(t, tg.Thinking, "prompt_mode reasoning")
	require.Len(t, h.Turns, 2)
	assert.True(t, h.Turns[1].Complete)

	cut, err := sjson.DeleteBytes(body, "messages.3.tool_calls.0.function.arguments")
	require.NoError(t, err)
	h, _, err = mistral.Codec{}.DecodeRequest(cut)
	require.NoError(t, err)
	assert.False(t, h.Turns[1].Complete)
	assert.True(t, h.Turns[1].ToolCalls()[0].Unfinished)
	r, err := replay.AuditRequest(mistral.API, cut)
	require.NoError(t, err)
	var rules []string
	for _, v := range r.Violations {
		rules = append(rules, v.Rule)
	}
	assert.Contains(t, rules, "replay/incomplete-turn")
}

func TestStreamLimits(t *testing.T) {
	codectest.SweepLimits(t, mistral.Codec{}.NewFrameDecoder, stream.FramingSSE, read(t, "magistral-thinking.sse"))
	codectest.SweepLimits(t, mistral.Codec{}.NewFrameDecoder, stream.FramingJSONL, read(t, "thinking-tool-call.jsonl"))
}

func TestBodyLimits(t *testing.T) {
	codectest.CheckBodyLimits(t, func(lim replay.Limits) replay.ReasoningCodec { return mistral.Codec{Limits: lim} },
		read(t, "thinking-tool-call.json"))
}
