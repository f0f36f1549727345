package openrouter_test

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/openrouter"
	"github.com/reasonreplay/replay/formats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func audit(h replay.History, target replay.Target) replay.Report {
	return openrouter.Codec{}.Contract().Audit(h, target)
}

func rules(r replay.Report) []string {
	var out []string
	for _, v := range r.Violations {
		out = append(out, v.Rule)
	}
	return out
}

func encItem(id, data string) *replay.Encrypted {
	return &replay.Encrypted{ItemMeta: replay.ItemMeta{Format: formats.OpenAIResponses, ID: replay.Some(id)}, Data: data}
}

func TestRuleDuplicateItem(t *testing.T) {
	t1 := &replay.Turn{Complete: true, Blocks: []replay.Block{encItem("rs_1", "AAA"), &replay.Text{Text: "a"}}}
	t2 := &replay.Turn{Complete: true, Blocks: []replay.Block{encItem("rs_2", "BBB"), &replay.Text{Text: "b"}}}
	clean := audit(replay.History{Turns: []*replay.Turn{t1, t2}}, replay.Target{API: "openrouter"})
	assert.Empty(t, rules(clean))

	dup := &replay.Turn{Complete: true, Blocks: []replay.Block{encItem("rs_1", "AAA"), &replay.Text{Text: "c"}}}
	r := audit(replay.History{Turns: []*replay.Turn{t1, t2, dup}}, replay.Target{API: "openrouter"})
	require.Equal(t, []string{"openrouter/duplicate-item"}, rules(r))
	v := r.Violations[0]
	assert.Equal(t, 2, v.Turn)
	assert.Equal(t, 0, v.Block)
	assert.Equal(t, replay.SeverityReject, v.Severity)
	assert.Equal(t, "Duplicate item found with id rs_1. Remove duplicate items from your input and try again.", v.Predicted)
}

func TestRuleGeminiReasoningMissing(t *testing.T) {
	call := &replay.ToolCall{ID: "tool_a", Name: "f", Arguments: "{}"}
	sig := &replay.Encrypted{ItemMeta: replay.ItemMeta{Format: formats.GoogleGemini, ID: replay.Some("tool_a")}, Data: "CiQBsig"}
	target := replay.Target{API: "openrouter", Model: "google/gemini-3-pro-preview", Tools: true}

	signed := &replay.Turn{Complete: true, Blocks: []replay.Block{sig, call}}
	assert.Empty(t, rules(audit(replay.History{Turns: []*replay.Turn{signed}}, target)))

	bare := &replay.Turn{Complete: true, Blocks: []replay.Block{call}}
	r := audit(replay.History{Turns: []*replay.Turn{bare}}, target)
	require.Equal(t, []string{"openrouter/gemini-reasoning-missing"}, rules(r))
	assert.Contains(t, r.Violations[0].Predicted, "Gemini models require OpenRouter reasoning details to be preserved in each request")

	// Gemini 2.5 does not require it; neither does an earlier turn.
	assert.Empty(t, rules(audit(replay.History{Turns: []*replay.Turn{bare}}, replay.Target{API: "openrouter", Model: "google/gemini-2.5-pro"})))
	assert.Empty(t, rules(audit(replay.History{Turns: []*replay.Turn{bare, signed}}, target)))
}

// TestRuleSignedReasoningMissing: a Claude tool loop through OpenRouter
// with reasoning on must carry the signed reasoning_details of the
// message that made the calls; none, or only the plain reasoning string,
// fails upstream as the direct API would.
func TestRuleSignedReasoningMissing(t *testing.T) {
	const calls = `"tool_calls":[{"id":"toolu_01","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]`
	req := func(model, reasoning, assistant, after string) []byte {
		return []byte(`{"model":"` + model + `",` + reasoning + `"messages":[{"role":"user","content":"Weather in Paris?"},` +
			`{"role":"assistant","content":null,` + assistant + calls + `},` + after + `]}`)
	}
	const on = `"reasoning":{"max_tokens":2000},`
	const result = `{"role":"tool","tool_call_id":"toolu_01","content":"18C"}`
	const signed = `"reasoning_details":[{"type":"reasoning.text","text":"Look it up.","signature":"RXFvQ2tn","format":"anthropic-claude-v1","index":0}],`
	c := openrouter.Codec{}
	run := func(body []byte) []replay.Violation {
		h, target, err := c.DecodeRequest(body)
		require.NoError(t, err)
		return openrouter.Codec{Model: target.Model}.Contract().Audit(h, target).Violations
	}
	for _, tc := range []struct {
		name, model, assistant string
		message                string
	}{
		{"no reasoning_details", "anthropic/claude-sonnet-4.5", ``,
			"the assistant message of the current tool loop has no reasoning_details (anthropic-claude-v1 upstream, thinking on)"},
		{"only the plain reasoning string", "anthropic/claude-opus-4.1", `"reasoning":"Look it up.",`,
			"the assistant message of the current tool loop carries only the plain reasoning string, without the signed reasoning_details (anthropic-claude-v1 upstream, thinking on)"},
	} {
		vs := run(req(tc.model, on, tc.assistant, result))
		require.Len(t, vs, 1, tc.name)
		v := vs[0]
		assert.Equal(t, openrouter.RuleSignedReasoningMissing, v.Rule, tc.name)
		assert.Equal(t, replay.SeverityReject, v.Severity)
		assert.Equal(t, "/messages/1", v.Pointer)
		assert.Equal(t, tc.message, v.Message)
		assert.Equal(t, "Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking", v.Predicted)
	}
	// Not triggered: signed details; reasoning off; no tool loop (a user
	// message follows); an upstream that does not sign.
	for name, body := range map[string][]byte{
		"signed":        req("anthropic/claude-sonnet-4.5", on, signed, result),
		"reasoning off": req("anthropic/claude-sonnet-4.5", ``, ``, result),
		"effort none":   req("anthropic/claude-sonnet-4.5", `"reasoning":{"effort":"none"},`, ``, result),
		"not a loop":    req("anthropic/claude-sonnet-4.5", on, ``, result+`,{"role":"user","content":"And Lyon?"}`),
		"qwen upstream": req("qwen/qwen3-max", on, `"reasoning":"Look it up.",`, result),
	} {
		assert.Empty(t, run(body), name)
	}
}
