package cohere_test

import (
	"errors"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/cohere"
	"github.com/reasonreplay/replay/formats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// chatRequest builds a v2 chat request whose assistant messages are the
// response messages of two fixtures: an answer with thinking, then a tool
// turn (thinking, tool_plan, tool_calls).
func chatRequest(t *testing.T) []byte {
	t.Helper()
	answer := gjson.GetBytes(read(t, "thinking.json"), "message").Raw
	tool := gjson.GetBytes(read(t, "thinking-tool-call.json"), "message").Raw
	require.NotEmpty(t, answer)
	require.NotEmpty(t, tool)
	return []byte(`{"model":"command-a-reasoning-08-2025","thinking":{"type":"enabled","token_budget":2000},` +
		`"tools":[{"type":"function","function":{"name":"fx_rate","parameters":{"type":"object"}}}],"messages":[` +
		`{"role":"user","content":"A haiku about rain, please."},` + answer + `,` +
		`{"role":"user","content":"What is EUR in USD?"},` + tool + `,` +
		`{"role":"tool","tool_call_id":"fx_rate_k3j5h7g9","content":[{"type":"document","document":{"data":"1.08"}}]}]}`)
}

func TestAuditRequest(t *testing.T) {
	body := chatRequest(t)
	r, err := replay.AuditRequest(cohere.API, body)
	require.NoError(t, err)
	assert.True(t, r.Clean(), "%v", r.Err())
	assert.Equal(t, 2, r.Turns)
	assert.Equal(t, map[replay.Format]int{formats.Cohere: 2}, r.Formats)
	assert.Equal(t, "command-a-reasoning-08-2025", r.Target.Model)
	assert.True(t, r.Target.Thinking)
	assert.True(t, r.Target.Tools)

	h, _, err := cohere.Codec{}.DecodeRequest(body)
	require.NoError(t, err)
	assert.Equal(t, []string{"/messages/1", "/messages/3"}, h.Pointers)
	assert.Equal(t, "command-a-reasoning-08-2025", h.Turns[0].Provenance.Model)
	require.Len(t, h.Turns[1].Blocks, 3)
	assert.Equal(t, "Need the exchange rate.", h.Turns[1].Blocks[0].(*replay.ReasoningText).Text)
	assert.Equal(t, `"I will look up the EUR to USD rate."`, string(h.Turns[1].Blocks[1].(*replay.Native).Raw))
	tc := h.Turns[1].Blocks[2].(*replay.ToolCall)
	assert.Equal(t, "fx_rate_k3j5h7g9", tc.ID)
	assert.Equal(t, `{"base":"EUR","quote":"USD"}`, tc.Arguments)

	// A string content (an assistant message without thinking) is one text.
	plain, err := sjson.SetBytes(body, "messages.1.content", "Just text.")
	require.NoError(t, err)
	h, _, err = cohere.Codec{}.DecodeRequest(plain)
	require.NoError(t, err)
	assert.Equal(t, []replay.Block{&replay.Text{Text: "Just text."}}, h.Turns[0].Blocks)
}

// A request body says nothing about who wrote a thinking block: a block
// pasted from another provider's request reads as Cohere's own, so the
// contract's rules (which concern other issuers' items) cannot fire on a
// request alone. The stored turn, audited with AuditReplay, shows it.
func TestAuditRequestCannotSeeIssuer(t *testing.T) {
	body, err := sjson.SetRawBytes(chatRequest(t), "messages.3.content.0",
		[]byte(`{"type":"thinking","thinking":"Need the exchange rate.","signature":"RXFvS0JnZ0w="}`))
	require.NoError(t, err)
	r, err := replay.AuditRequest(cohere.API, body)
	require.NoError(t, err)
	assert.True(t, r.Clean(), "%v", r.Err())
	h, _, err := cohere.Codec{}.DecodeRequest(body)
	require.NoError(t, err)
	rt := h.Turns[1].Blocks[0].(*replay.ReasoningText)
	assert.Equal(t, formats.Cohere, rt.Format)
	assert.Equal(t, `{"signature":"RXFvS0JnZ0w="}`, string(rt.Extra))

	claude := &replay.Turn{Complete: true, Provenance: replay.Provenance{API: "anthropic"}, Blocks: []replay.Block{
		&replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: formats.AnthropicClaude}, Text: "Need the exchange rate.", Signature: replay.Some("RXFvS0JnZ0w=")},
		&replay.ToolCall{ID: "fx_rate_k3j5h7g9", Name: "fx_rate", Arguments: `{}`}}}
	r = replay.AuditReplay(replay.History{Turns: []*replay.Turn{claude}, Request: body, Pointers: []string{"/messages/3"}},
		replay.Target{API: cohere.API, Model: "command-a-reasoning-08-2025"})
	require.NotEmpty(t, r.Violations)
	assert.Equal(t, cohere.API+"/inexpressible", r.Violations[0].Rule)
	assert.Equal(t, "/messages/3", r.Violations[0].Pointer)
}

func TestAuditRequestErrors(t *testing.T) {
	for _, body := range []string{`not json`, `[]`, `{"contents":[]}`,
		`{"messages":[{"role":"assistant","content":5}]}`,
		`{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":[]}]}]}`} {
		_, err := replay.AuditRequest(cohere.API, []byte(body))
		assert.True(t, errors.Is(err, replay.ErrMalformed), "%s: %v", body, err)
	}
	_, err := replay.AuditRequest(cohere.API, []byte(`{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":[]}]}]}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "/messages/1/content/0/thinking: ")
}

// An assistant message cut short in the request (a tool call without its
// arguments or its function name) reads as not complete and audits as
// incomplete; the whole message does not.
func TestDecodeRequestCutTurn(t *testing.T) {
	body := chatRequest(t)
	h, _, err := cohere.Codec{}.DecodeRequest(body)
	require.NoError(t, err)
	assert.True(t, h.Turns[0].Complete)
	assert.True(t, h.Turns[1].Complete)
	r, err := replay.AuditRequest(cohere.API, body)
	require.NoError(t, err)
	assert.Empty(t, r.Violations)

	for name, path := range map[string]string{"no arguments": "messages.3.tool_calls.0.function.arguments",
		"no name": "messages.3.tool_calls.0.function.name"} {
		cut, err := sjson.DeleteBytes(body, path)
		require.NoError(t, err)
		h, _, err := cohere.Codec{}.DecodeRequest(cut)
		require.NoError(t, err, name)
		assert.True(t, h.Turns[0].Complete, name)
		tu := h.Turns[1]
		assert.False(t, tu.Complete, name)
		call := tu.Blocks[2].(*replay.ToolCall)
		assert.True(t, call.Unfinished, name)
		assert.Equal(t, "fx_rate_k3j5h7g9", call.ID, name)
		r, err := replay.AuditRequest(cohere.API, cut)
		require.NoError(t, err)
		require.Len(t, r.Violations, 1, name)
		assert.Equal(t, "replay/incomplete-turn", r.Violations[0].Rule, name)
		assert.Equal(t, "/messages/3", r.Violations[0].Pointer, name)
	}
}

// The request reader keeps what it reads within the codec's limits.
func TestDecodeRequestLimits(t *testing.T) {
	_, _, err := cohere.Codec{Limits: replay.Limits{MaxItem: 4}}.DecodeRequest(chatRequest(t))
	var le *replay.LimitError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, replay.LimitError{What: "item size", Limit: 4, API: cohere.API, Event: -1, Block: 0}, *le)
}

func TestContractRuleIDs(t *testing.T) {
	var ids []string
	for _, r := range (cohere.Codec{}).Contract().Rules {
		ids = append(ids, r.ID)
	}
	assert.Equal(t, []string{cohere.RuleInexpressible, cohere.RuleForeignReasoning}, ids)
}
