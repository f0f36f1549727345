package openai_test

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/openai"
	"github.com/reasonreplay/replay/formats"
	"github.com/stretchr/testify/require"
)

func audit(h replay.History, tg replay.Target) []replay.Violation {
	rep := openai.Codec{Provider: tg.Provider}.Contract().Audit(h, tg)
	return rep.Violations
}

func only(vs []replay.Violation, rule string) []replay.Violation {
	var out []replay.Violation
	for _, v := range vs {
		if v.Rule == rule {
			out = append(out, v)
		}
	}
	return out
}

func TestContractRules(t *testing.T) {
	openaiTurn := sweep(t, "summary-encrypted.sse", openai.Codec{}).Turn
	xaiTurn := sweep(t, "two-reasoning-calls.sse", openai.Codec{Provider: "xai"}).Turn
	goodReq := `{"store":false,"input":[{"role":"user","content":"tea?"},` +
		`{"type":"reasoning","id":"` + rsID + `","summary":[],"encrypted_content":"` + encDone + `"},` +
		`{"type":"message","id":"` + msgID + `","role":"assistant","content":[{"type":"output_text","text":"x"}]}]}`
	cases := []struct {
		rule, predicted string
		trigger, clean  replay.History
		tg              replay.Target
	}{
		{
			rule:      openai.RuleReasoningWithoutFollower,
			predicted: "Item '" + rsID + "' of type 'reasoning' was provided without its required following item.",
			trigger:   replay.History{Turns: []*replay.Turn{{Complete: true, Blocks: openaiTurn.Blocks[:3]}}},
			clean:     replay.History{Turns: []*replay.Turn{openaiTurn}},
		},
		{
			rule:      openai.RuleReasoningWithoutFollower,
			predicted: "Item '" + rsID + "' of type 'reasoning' was provided without its required following item.",
			trigger: replay.History{Turns: []*replay.Turn{openaiTurn}, Request: []byte(`{"store":false,"input":[` +
				`{"type":"reasoning","id":"` + rsID + `","summary":[],"encrypted_content":"` + encDone + `"},` +
				`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"x"}]}]}`)},
			clean: replay.History{Turns: []*replay.Turn{openaiTurn}, Request: []byte(goodReq)},
		},
		{
			rule:      openai.RuleFollowerWithoutReasoning,
			predicted: "Item '" + msgID + "' of type 'message' was provided without its required 'reasoning' item: '" + rsID + "'.",
			trigger: replay.History{Turns: []*replay.Turn{openaiTurn}, Request: []byte(`{"store":false,"input":[` +
				`{"role":"user","content":"tea?"},{"type":"message","id":"` + msgID + `","role":"assistant","content":[]}]}`)},
			clean: replay.History{Turns: []*replay.Turn{openaiTurn}, Request: []byte(goodReq)},
		},
		{
			rule:      openai.RuleStoreFalseNoEncrypted,
			predicted: "Item with id 'rs_local_9k2' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.",
			trigger:   replay.History{Turns: []*replay.Turn{sweep(t, "reasoning-text-out-of-order.jsonl", openai.Codec{Provider: "lmstudio"}).Turn}},
			clean:     replay.History{Turns: []*replay.Turn{openaiTurn}},
		},
		{
			rule:      openai.RuleStoreFalseNoEncrypted,
			predicted: "Item with id '" + rsID + "' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.",
			trigger: replay.History{Turns: []*replay.Turn{openaiTurn}, Request: []byte(`{"store":false,"input":[` +
				`{"type":"item_reference","id":"` + rsID + `"},{"type":"message","id":"` + msgID + `","role":"assistant","content":[]}]}`)},
			clean: replay.History{Turns: []*replay.Turn{openaiTurn}, Request: []byte(goodReq)},
		},
		{
			rule:      openai.RuleEncryptedAltered,
			predicted: "The encrypted content for item " + rsID + " could not be verified.",
			trigger: replay.History{Turns: []*replay.Turn{openaiTurn}, Request: []byte(`{"store":false,"input":[` +
				`{"type":"reasoning","id":"` + rsID + `","summary":[],"encrypted_content":"` + encDone[:40] + `"},` +
				`{"type":"message","id":"` + msgID + `","role":"assistant","content":[]}]}`)},
			clean: replay.History{Turns: []*replay.Turn{openaiTurn}, Request: []byte(goodReq)},
		},
		{
			rule:      openai.RuleEncryptedAltered,
			predicted: "The encrypted content for item " + rsID + " could not be verified. Reason: Encrypted content organization_id did not match the target organization.",
			trigger:   replay.History{Turns: []*replay.Turn{withIssuer(openaiTurn, "org-A")}},
			clean:     replay.History{Turns: []*replay.Turn{withIssuer(openaiTurn, "org-B")}},
			tg:        replay.Target{Account: "org-B"},
		},
		{
			rule:      openai.RuleForeignFormat,
			predicted: "The encrypted content for item rs_5d1e9f0a-1111-4a2b-9c3d-000000000001_us-east-1 could not be verified. Reason: Encrypted content could not be decrypted or parsed.",
			trigger:   replay.History{Turns: []*replay.Turn{xaiTurn}},
			clean:     replay.History{Turns: []*replay.Turn{openaiTurn}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			got := only(audit(tc.trigger, tc.tg), tc.rule)
			require.NotEmpty(t, got, "trigger")
			require.Equal(t, tc.predicted, got[0].Predicted)
			require.Equal(t, replay.SeverityReject, got[0].Severity)
			require.NotEmpty(t, got[0].Fix)
			require.Empty(t, only(audit(tc.clean, tc.tg), tc.rule), "non-trigger")
		})
	}
	// xAI items are at home on xAI.
	require.Empty(t, audit(replay.History{Turns: []*replay.Turn{xaiTurn}}, replay.Target{Provider: "xai"}))
	// store=true: no encrypted content is needed.
	require.Empty(t, only(audit(replay.History{Turns: []*replay.Turn{sweep(t, "reasoning-text-out-of-order.jsonl", openai.Codec{Provider: "lmstudio"}).Turn}},
		replay.Target{Store: true}), openai.RuleStoreFalseNoEncrypted))
}

func withIssuer(t *replay.Turn, iss string) *replay.Turn {
	c := *t
	c.Provenance.Account = iss
	return &c
}

func TestRegistry(t *testing.T) {
	for _, pm := range [][2]string{{"azure", ""}, {"xai", ""}, {"", "gpt-5.5"}, {"", "o4-mini"}, {"openai", "o3"}} {
		c, err := replay.Resolve(pm[0], pm[1])
		require.NoError(t, err)
		require.Equal(t, openai.API, c.API(), pm)
	}
	c, err := replay.Lookup(openai.API, "azure", "")
	require.NoError(t, err)
	require.Equal(t, openai.Codec{Provider: "azure"}, c)
	require.Equal(t, formats.AzureOpenAIResponses, openai.FormatFor("azure"))
	// The issuer is the host: each Responses-compatible host has its own
	// format, none of them OpenAI's.
	for p, f := range map[string]replay.Format{"lmstudio": formats.LMStudioResponses, "ollama": formats.OllamaResponses,
		"copilot": formats.CopilotResponses, "github-copilot": formats.CopilotResponses, "deepseek": formats.DeepSeekResponses,
		"openrouter": formats.OpenRouterResponses, "vllm": replay.FormatUnknown, "": formats.OpenAIResponses} {
		require.Equal(t, f, openai.FormatFor(p), p)
	}
}

// Reasoning items without an id (Codex CLI stores and sends none) are
// compared by their ciphertext: two of them, each sent as returned, are
// not "altered" for sharing the empty id; one whose ciphertext changed is
// not matched to another's.
func TestEncryptedAlteredWithoutIDs(t *testing.T) {
	item := func(enc string) string {
		return `{"type":"reasoning","summary":[],"encrypted_content":"` + enc + `"}`
	}
	msg := `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"x"}]}`
	body := `{"store":false,"input":[{"role":"user","content":"a"},` + item("gAAAAAfirst") + `,` + msg +
		`,{"role":"user","content":"b"},` + item("gAAAAAsecond") + `,` + msg + `]}`
	h, tg, err := openai.Codec{}.DecodeRequest([]byte(body))
	require.NoError(t, err)
	require.Len(t, h.Turns, 2)
	require.Empty(t, only(audit(h, tg), openai.RuleEncryptedAltered))
}
