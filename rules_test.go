package replay_test

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/itemdigest"
	"github.com/reasonreplay/replay/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func only(r replay.Report, id string) []replay.Violation {
	var out []replay.Violation
	for _, v := range r.Violations {
		if v.Rule == id {
			out = append(out, v)
		}
	}
	return out
}

func TestRuleForeignFormat(t *testing.T) {
	reg := policyRegistry(t)
	claude := turnOf("anthropic", "anthropic", claudeText("plan", "RXFvS0JnZ0w="), &replay.Text{Text: "ok"})
	gem := turnOf("gemini", "aistudio", &replay.Encrypted{ItemMeta: replay.ItemMeta{Format: formats.GoogleGemini, Attached: true}, Data: "Q2lTaWc="},
		&replay.ToolCall{ID: "c", Name: "f", Arguments: "{}"})
	oai := turnOf("openai-responses", "openai", &replay.Encrypted{ItemMeta: replay.ItemMeta{Format: formats.OpenAIResponses, ID: replay.Some("rs_1")}, Data: "gAAAAABoXYZ"},
		&replay.Text{Text: "ok", ID: "msg_1"})

	// Trigger: each strict target predicts its own error for a foreign signature.
	for _, c := range []struct {
		tg   replay.Target
		hist *replay.Turn
		want string
	}{
		{replay.Target{API: "anthropic", Provider: "anthropic"}, gem, "messages.1.content.0: Invalid `signature` in `thinking` block"},
		{replay.Target{API: "gemini", Provider: "aistudio", Model: "gemini-3-pro-preview"}, claude, "Corrupted thought signature."},
		{replay.Target{API: "openai-responses", Provider: "openai"}, oai2xai(oai), "The encrypted content gAAA... could not be verified. Reason: Encrypted content could not be decrypted or parsed."},
		{replay.Target{API: "openrouter", Model: "openai/gpt-5"}, claude, ""},
	} {
		r := reg.AuditReplay(replay.History{Turns: []*replay.Turn{c.hist}}, c.tg)
		vs := only(r, replay.RuleForeignFormat)
		require.Len(t, vs, 1, "%+v", c.tg)
		assert.Equal(t, c.want, vs[0].Predicted)
		assert.Equal(t, replay.SeverityReject, vs[0].Severity)
		assert.Equal(t, 0, vs[0].Block)
		require.NoError(t, schema.Validate(schema.Report, r.AppendJSON(nil)))
	}
	// Non-trigger: the same items to their own issuers, a Claude family
	// platform, a gateway routing to the issuer, and unsigned foreign text
	// through a gateway (it only becomes reasoning text there).
	for _, c := range []struct {
		tg   replay.Target
		hist *replay.Turn
	}{
		{replay.Target{API: "anthropic", Provider: "anthropic"}, claude},
		{replay.Target{API: "anthropic", Provider: "bedrock"}, claude},
		{replay.Target{API: "gemini", Provider: "aistudio"}, gem},
		{replay.Target{API: "openai-responses", Provider: "openai"}, oai},
		{replay.Target{API: "openrouter", Model: "anthropic/claude-opus-4.1"}, claude},
		{replay.Target{API: "openrouter", Model: "some/unknown-model"}, claude},
		{replay.Target{API: "openrouter", Model: "openai/gpt-5"}, turnOf("deepseek", "deepseek", &replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: formats.DeepSeek}, Text: "t"})},
	} {
		r := reg.AuditReplay(replay.History{Turns: []*replay.Turn{c.hist}}, c.tg)
		assert.Empty(t, only(r, replay.RuleForeignFormat), "%+v", c.tg)
	}
	// After Carry, a foreign history audits clean.
	out, _ := reg.Carry(replay.History{Turns: []*replay.Turn{claude, gem, oai}}, replay.Target{API: "anthropic", Provider: "anthropic"}, nil)
	assert.True(t, reg.AuditReplay(out, replay.Target{API: "anthropic", Provider: "anthropic"}).Clean())
}

// oai2xai returns oai's turn with its encrypted item minted by xAI.
func oai2xai(t *replay.Turn) *replay.Turn {
	c := *t
	e := *t.Blocks[0].(*replay.Encrypted)
	e.Format = formats.XAIResponses
	c.Blocks = []replay.Block{&e, t.Blocks[1]}
	return &c
}

func TestRuleIdentityMismatch(t *testing.T) {
	reg := policyRegistry(t)
	tu := turnOf("openai-responses", "openai", &replay.Encrypted{ItemMeta: replay.ItemMeta{Format: formats.OpenAIResponses, ID: replay.Some("rs_1")}, Data: "gAAAAABoXYZ"},
		&replay.Text{Text: "ok", ID: "msg_1"})
	tu.Provenance.Account = "org-a"
	h := replay.History{Turns: []*replay.Turn{tu}}
	r := reg.AuditReplay(h, replay.Target{API: "openai-responses", Account: "org-b"})
	vs := only(r, replay.RuleIdentityMismatch)
	require.Len(t, vs, 1)
	assert.Equal(t, "The encrypted content gAAA... could not be verified. Reason: Encrypted content organization_id did not match the target organization.", vs[0].Predicted)
	assert.True(t, r.Rejects())
	for _, iss := range []string{"org-a", ""} {
		assert.Empty(t, only(reg.AuditReplay(h, replay.Target{API: "openai-responses", Account: iss}), replay.RuleIdentityMismatch), iss)
	}
	tu.Provenance.Account = ""
	assert.Empty(t, only(reg.AuditReplay(h, replay.Target{API: "openai-responses", Account: "org-b"}), replay.RuleIdentityMismatch), "unknown minting identity")
}

func TestRuleAlteredItem(t *testing.T) {
	reg := policyRegistry(t)
	mk := func() *replay.Turn {
		tu := turnOf("anthropic", "anthropic", claudeText("the key is sk-live-123", "RXFv"), &replay.Text{Text: "ok"})
		tu.Seal()
		return tu
	}
	tg := replay.Target{API: "anthropic", Provider: "anthropic"}
	tu := mk()
	assert.Empty(t, only(reg.AuditReplay(replay.History{Turns: []*replay.Turn{tu}}, tg), replay.RuleAlteredItem))
	// Redact keeps the replay bytes: still clean, with a display copy.
	assert.True(t, tu.Redact(maskKeys))
	assert.Equal(t, "the key is sk-live-123", tu.Blocks[0].(*replay.ReasoningText).Text)
	assert.Empty(t, only(reg.AuditReplay(replay.History{Turns: []*replay.Turn{tu}}, tg), replay.RuleAlteredItem))
	// Masking the signed text in place is caught.
	tu.Blocks[0].(*replay.ReasoningText).Text = "the key is [masked]"
	earlier := mk()
	earlier.Blocks[0].(*replay.ReasoningText).Text = "changed"
	vs := only(reg.AuditReplay(replay.History{Turns: []*replay.Turn{earlier, tu}}, tg), replay.RuleAlteredItem)
	require.Len(t, vs, 2)
	assert.Equal(t, "messages.1.content.0: Invalid `signature` in `thinking` block", vs[0].Predicted)
	assert.Equal(t, "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.", vs[1].Predicted)
}

func maskKeys(s string) string {
	const secret = "sk-live-123"
	out := []byte(nil)
	for i := 0; i < len(s); {
		if len(s)-i >= len(secret) && s[i:i+len(secret)] == secret {
			out = append(out, "[masked]"...)
			i += len(secret)
			continue
		}
		out = append(out, s[i])
		i++
	}
	return string(out)
}

func TestRedact(t *testing.T) {
	unsigned := &replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: formats.DeepSeek}, Text: "use sk-live-123"}
	sum := &replay.Summary{ItemMeta: replay.ItemMeta{Format: formats.OpenAIResponses}, Summary: "key sk-live-123"}
	enc := &replay.Encrypted{ItemMeta: replay.ItemMeta{Format: formats.OpenAIResponses}, Data: "gAAAA"}
	signed := claudeText("sk-live-123 again", "RXFv")
	tu := turnOf("x", "", unsigned, sum, enc, signed, &replay.Text{Text: "answer sk-live-123"})
	assert.True(t, tu.Redact(maskKeys))
	assert.Equal(t, "use [masked]", unsigned.Text)
	assert.Empty(t, unsigned.Digest, "unsigned text is not sealed")
	assert.Equal(t, "key [masked]", sum.Summary)
	assert.Equal(t, "gAAAA", enc.Data)
	assert.Equal(t, itemdigest.Of(enc), enc.Digest)
	assert.Equal(t, "sk-live-123 again", signed.Text)
	assert.Equal(t, replay.Some("[masked] again"), signed.Display)
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, signed.Digest)
	assert.Equal(t, "answer [masked]", tu.VisibleText())
	assert.False(t, tu.Redact(maskKeys), "nothing left to mask")

	// The display copy and digest survive the document, are valid, and are
	// never sent.
	doc := tu.AppendJSON(nil)
	require.NoError(t, schema.Validate(schema.Turn, doc), "%s", doc)
	back, err := replay.UnmarshalTurn(doc)
	require.NoError(t, err)
	assert.Equal(t, tu.Blocks, back.Blocks)
	wire := string(signed.AppendWire(nil))
	assert.NotContains(t, wire, "display")
	assert.NotContains(t, wire, "digest")
}
