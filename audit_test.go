package replay_test

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func coreAudit(turns ...*replay.Turn) replay.Report {
	return replay.ReplayContract{Rules: replay.CoreRules()}.Audit(replay.History{Turns: turns}, replay.Target{API: "anthropic"})
}

func ruleIDs(r replay.Report) []string {
	var out []string
	for _, v := range r.Violations {
		out = append(out, v.Rule)
	}
	return out
}

func signedText(sig replay.Opt[string]) *replay.ReasoningText {
	return &replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: formats.AnthropicClaude}, Text: "t", Signature: sig}
}

func TestCoreRules(t *testing.T) {
	good := &replay.Turn{Complete: true, Blocks: []replay.Block{signedText(replay.Some("sig")), &replay.Text{Text: "a"}}}
	r := coreAudit(good)
	assert.True(t, r.Clean())
	assert.Equal(t, 1, r.Items)
	assert.Equal(t, 1, r.Signed)
	assert.NoError(t, r.Err())

	// empty-signature: present but empty, null and absent all trigger; a
	// format that does not sign does not.
	for _, sig := range []replay.Opt[string]{replay.Some(""), replay.NullOf[string](), {}} {
		r := coreAudit(&replay.Turn{Complete: true, Blocks: []replay.Block{signedText(sig)}})
		require.Equal(t, []string{"replay/empty-signature"}, ruleIDs(r))
		assert.Equal(t, "Invalid signature in thinking block", r.Violations[0].Predicted)
		assert.Zero(t, r.Signed, "an empty signature is not signed")
	}
	unsignedOK := &replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: formats.DeepSeek}, Text: "t"}
	assert.True(t, coreAudit(&replay.Turn{Complete: true, Blocks: []replay.Block{unsignedOK}}).Clean())

	// unfinished-item and incomplete-turn.
	cut := signedText(replay.Some("sig"))
	cut.Unfinished = true
	r = coreAudit(good, &replay.Turn{Complete: false, Blocks: []replay.Block{&replay.Text{Text: "x"}, cut}})
	assert.Equal(t, []string{"replay/incomplete-turn", "replay/unfinished-item"}, ruleIDs(r))
	assert.Equal(t, 1, r.Violations[1].Turn)
	assert.Equal(t, 1, r.Violations[1].Block)
	assert.True(t, r.Rejects())
	assert.ErrorContains(t, r.Err(), "replay/unfinished-item")

	doc := r.AppendJSON(nil)
	require.NoError(t, schema.Validate(schema.Report, doc), "%s", doc)
}

func TestAuditReplayUsesTargetContract(t *testing.T) {
	reg := &replay.Registry{}
	rule := replay.Rule{ID: "stub/always", Severity: replay.SeverityRisk, Check: func(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
		report(replay.Violation{Turn: -1, Block: -1, Message: "checked"})
	}}
	reg.MustRegister(replay.Entry{API: "stub", Providers: []string{"stubco"}, New: func(p, m string) replay.ReasoningCodec {
		return contractStub{stub{api: "stub"}, rule}
	}})
	r := reg.AuditReplay(replay.History{}, replay.Target{API: "stub"})
	assert.Equal(t, []string{"stub/always"}, ruleIDs(r))
	r = reg.AuditReplay(replay.History{}, replay.Target{Provider: "stubco"})
	assert.Equal(t, []string{"stub/always"}, ruleIDs(r))
	assert.False(t, r.Rejects())
}

type contractStub struct {
	stub
	rule replay.Rule
}

func (c contractStub) Contract() replay.ReplayContract {
	return replay.ReplayContract{API: c.api, Rules: []replay.Rule{c.rule}}
}

// Gemini thought summaries are unsigned by design: not an empty-signature
// violation.
func TestEmptySignatureIgnoresGeminiThoughts(t *testing.T) {
	th := &replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: formats.GoogleGemini}, Text: "**Planning**"}
	assert.Empty(t, ruleIDs(coreAudit(&replay.Turn{Complete: true, Blocks: []replay.Block{th}})))
}
