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
	return replay.Audit(h, target, openrouter.Codec{}.Contract().Rules)
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
