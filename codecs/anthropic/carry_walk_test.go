package anthropic_test

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/reasonreplay/replay/formats"
	"github.com/stretchr/testify/require"
)

// TestCarryWalkClaudeTargets: over random histories mixing Claude turns of
// two accounts, Anthropic-compatible host turns and compaction blocks, no
// signature minted by a host, and no compaction signature of another
// account, appears in a request Carry and Encode build for Anthropic,
// Bedrock or Vertex.
func TestCarryWalkClaudeTargets(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	hosts := []string{"deepseek", "minimax", "kimi"}
	for iter := 0; iter < 400; iter++ {
		var turns []*replay.Turn
		for k := 0; k < 1+rng.Intn(5); k++ {
			provider := []string{"anthropic", "bedrock", "vertex", hosts[rng.Intn(3)]}[rng.Intn(4)]
			acct := []string{"org-a", "org-b"}[rng.Intn(2)]
			f := anthropic.Codec{Provider: provider}.Format()
			sig := "SIG-" + provider + "-" + acct
			tu := &replay.Turn{Provenance: replay.Provenance{API: "anthropic", Provider: provider, Account: acct, Model: "claude-opus-4-7"}, Complete: true}
			if rng.Intn(2) == 0 {
				tu.Blocks = append(tu.Blocks, &replay.Compaction{Format: f, Content: replay.Some("sum"), Signature: replay.Some("CMP-" + sig)})
			}
			tu.Blocks = append(tu.Blocks,
				&replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: f}, Text: []string{"", "visible"}[rng.Intn(2)], Signature: replay.Some(sig)},
				&replay.ToolCall{ID: "toolu_" + provider, Name: "f", Arguments: "{}"})
			turns = append(turns, tu)
		}
		for _, p := range []string{"anthropic", "bedrock", "vertex"} {
			tg := replay.Target{API: "anthropic", Provider: p, Account: "org-a", Model: "claude-opus-4-7"}
			out, _ := replay.Carry(replay.History{Turns: turns}, tg, nil)
			for _, tu := range out.Turns {
				msg, err := anthropic.Codec{Provider: p}.Encode(tu)
				require.NoError(t, err)
				for _, h := range hosts {
					require.NotContains(t, string(msg), "SIG-"+h, "host signature sent to %s", p)
				}
				require.NotContains(t, string(msg), "CMP-SIG-anthropic-org-b", p)
				require.NotContains(t, string(msg), "CMP-SIG-bedrock-org-b", p)
				require.NotContains(t, string(msg), "CMP-SIG-vertex-org-b", p)
				for _, b := range tu.Blocks {
					if it, ok := b.(replay.ReasoningItem); ok {
						require.Equal(t, formats.AnthropicClaude, it.Meta().Format)
					}
					if x, ok := b.(*replay.Compaction); ok {
						require.True(t, strings.HasSuffix(x.Signature.Value(), "org-a"))
					}
				}
			}
		}
	}
}
