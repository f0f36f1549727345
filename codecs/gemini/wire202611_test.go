package gemini

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Gemini 3.5 Flash and 3.1 Flash Lite enforce function-call signatures
// (CodexPlusPlus#332, cc-switch#4492).
func TestNewFlashModelsEnforce(t *testing.T) {
	req := `{"contents":[{"role":"user","parts":[{"text":"Tides?"}]},{"role":"model","parts":[{"functionCall":{"name":"tide_table","args":{}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"tide_table","response":{"t":"06:12"}}}]}]}`
	for _, m := range []string{"gemini-3.5-flash", "gemini-3.1-flash-lite", "models/gemini-3.1-flash-lite-preview"} {
		assert.True(t, RequiresSignatures(m), m)
		vs := only(audit(replay.History{Request: []byte(req)}, replay.Target{API: API, Model: m}), RuleMissingSignature)
		require.Len(t, vs, 1, m)
		assert.Equal(t, replay.SeverityReject, vs[0].Severity, m)
		assert.Equal(t, "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:tide_table` , position 1. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", vs[0].Predicted)
	}
}

// A Claude signature copied onto a Gemini function call is reported with
// Gemini's answer, on the Claude item it came from; the call's own Gemini
// signature is not.
func TestClaudeSignatureOnAFunctionCall(t *testing.T) {
	const claudeSig = "EqQBCkYIBxgCKkBjbGF1ZGUtc2lnbmF0dXJlLWZvci10ZXN0cw=="
	claude := &replay.Turn{Complete: true, Provenance: replay.Provenance{API: "anthropic", Provider: "anthropic", Model: "claude-sonnet-4-5"}, Blocks: []replay.Block{
		&replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: formats.AnthropicClaude}, Text: "Look it up.", Signature: replay.Some(claudeSig)},
		&replay.ToolCall{ID: "toolu_1", Name: "tide_table", Arguments: `{}`},
	}}
	req := func(sig string) []byte {
		return []byte(`{"contents":[{"role":"user","parts":[{"text":"Tides?"}]},{"role":"model","parts":[{"functionCall":{"name":"tide_table","args":{}},"thoughtSignature":"` + sig + `"}]},` +
			`{"role":"user","parts":[{"functionResponse":{"name":"tide_table","response":{"t":"06:12"}}}]}]}`)
	}
	tg := replay.Target{API: API, Model: "gemini-3-pro-preview"}
	vs := only(audit(replay.History{Turns: []*replay.Turn{claude}, Request: req(claudeSig)}, tg), RuleForeignSignature)
	require.Len(t, vs, 1)
	assert.Equal(t, "Corrupted thought signature.", vs[0].Predicted)
	assert.Equal(t, "/contents/1/parts/0/thoughtSignature", vs[0].Pointer)
	assert.Equal(t, 0, vs[0].Turn)
	assert.Equal(t, 0, vs[0].Block)
	tg.Provider = "vertex"
	vs = only(audit(replay.History{Turns: []*replay.Turn{claude}, Request: req(claudeSig)}, tg), RuleForeignSignature)
	require.Len(t, vs, 1)
	assert.Equal(t, "Unable to submit request because Thought signature is not valid.. Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/gemini", vs[0].Predicted)
	// Through the registry, the cross-provider rule stays quiet on the block.
	rep := replay.AuditReplay(replay.History{Turns: []*replay.Turn{claude}, Request: req(claudeSig)}, replay.Target{API: API, Model: "gemini-3-pro-preview"})
	var rules []string
	for _, v := range rep.Violations {
		rules = append(rules, v.Rule)
	}
	assert.Contains(t, rules, RuleForeignSignature)
	assert.NotContains(t, rules, replay.RuleForeignFormat)

	own := callTurn("", true, "tide_table")
	assert.Empty(t, only(audit(replay.History{Turns: []*replay.Turn{own}, Request: req("U2lnbmF0dXJlQQ==")}, replay.Target{API: API, Model: "gemini-3-pro-preview"}), RuleForeignSignature))
}
