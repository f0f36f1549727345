package replay_test

import (
	"fmt"

	"github.com/reasonreplay/replay"
	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/reasonreplay/replay/formats"
)

// Carry a turn captured from Claude through OpenRouter to an OpenAI model:
// the Claude signature may not go, so by default its thinking is dropped;
// with the foreign-visible-text case set to to-text it goes as plain text.
func ExampleCarry() {
	turn := &replay.Turn{
		Provenance: replay.Provenance{API: "openrouter", Provider: "openrouter", Model: "anthropic/claude-sonnet-4.5"},
		Complete:   true,
		Blocks: []replay.Block{
			&replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: formats.AnthropicClaude},
				Text: "The user wants the capital.", Signature: replay.Some("RXFvS0JnZ0w=")},
			&replay.Text{Text: "Paris."},
		},
	}
	target := replay.Target{API: "openrouter", Model: "openai/gpt-5"}

	out, notices := replay.Carry(replay.History{Turns: []*replay.Turn{turn}}, target, nil)
	fmt.Printf("%d blocks, %q\n", len(out.Turns[0].Blocks), out.Turns[0].VisibleText())
	for _, n := range notices {
		fmt.Println(n)
	}

	policy := replay.DefaultPolicy()
	policy[replay.CaseForeignText] = replay.ToText
	out, _ = replay.Carry(replay.History{Turns: []*replay.Turn{turn}}, target, policy)
	fmt.Printf("%q\n", out.Turns[0].VisibleText())
	// Output:
	// 1 blocks, "Paris."
	// turn 0 block 0: foreign-visible-text -> drop: anthropic-claude-v1 reasoning is foreign to openrouter openai/gpt-5
	// "The user wants the capital.\n\nParis."
}

// Audit a history before sending it: the turn was captured under one
// OpenAI organisation and is about to be sent under another.
func ExampleAuditReplay() {
	turn := &replay.Turn{
		Provenance: replay.Provenance{API: "openrouter", Account: "org-a"},
		Complete:   true,
		Blocks: []replay.Block{
			&replay.Encrypted{ItemMeta: replay.ItemMeta{Format: formats.OpenAIResponses, ID: replay.Some("rs_01")}, Data: "gAAAAABoRmFrZQ=="},
			&replay.Text{Text: "Done."},
		},
	}
	rep := replay.AuditReplay(replay.History{Turns: []*replay.Turn{turn}},
		replay.Target{API: "openrouter", Model: "openai/gpt-5", Account: "org-b"})
	fmt.Println(rep.Items, "item,", len(rep.Violations), "violation; rejects:", rep.Rejects())
	for _, v := range rep.Violations {
		fmt.Println(v.Rule, v.Severity)
		fmt.Println(v.Predicted)
	}
	// Output:
	// 1 item, 1 violation; rejects: true
	// replay/identity-mismatch reject
	// The encrypted content gAAA... could not be verified. Reason: Encrypted content organization_id did not match the target organization.
}
