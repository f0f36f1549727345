package replay_test

import (
	"encoding/json"
	"math/rand"
	"testing"

	"github.com/reasonreplay/replay"
	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/turnfn"
	"github.com/stretchr/testify/require"
)

var carryStored = turnfn.CarryStored.(func(*replay.Registry, replay.Target, replay.Policy) func(*replay.Turn) (*replay.Turn, []replay.Notice))

// randCarryTurn draws a turn of reasoning items, texts, tool calls, native
// and compaction blocks, with ids and extra members that Carry may take
// away, from a source among the APIs the targets name.
func randCarryTurn(r *rand.Rand) *replay.Turn {
	apis := [][2]string{{"anthropic", "anthropic"}, {"openai-responses", "openai"}, {"gemini", "aistudio"}, {"openrouter", "openrouter"}, {"bedrock-converse", "bedrock"}}
	src := apis[r.Intn(len(apis))]
	tu := &replay.Turn{Provenance: replay.Provenance{API: src[0], Provider: src[1]}, Complete: r.Intn(6) > 0}
	if r.Intn(3) == 0 {
		tu.Provenance.Account = []string{"org-a", "org-b"}[r.Intn(2)]
	}
	extra := func() json.RawMessage {
		if r.Intn(3) == 0 {
			return json.RawMessage(`{"x":1}`)
		}
		return nil
	}
	for range r.Intn(20) {
		switch r.Intn(7) {
		case 0, 1:
			tu.Blocks = append(tu.Blocks, randItem(r))
		case 2:
			tu.Blocks = append(tu.Blocks, &replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: formats.AnthropicClaude}, Text: "t", Signature: replay.Some("c2ln")})
		case 3:
			tu.Blocks = append(tu.Blocks, &replay.Text{Text: "ok", ID: []string{"", "msg_1"}[r.Intn(2)], Extra: extra()})
		case 4:
			tu.Blocks = append(tu.Blocks, &replay.ToolCall{ID: []string{"", "call_1", "call_2"}[r.Intn(3)], Name: "f", Arguments: "{}",
				ItemID: []string{"", "fc_1"}[r.Intn(2)], Unfinished: r.Intn(8) == 0, Extra: extra()})
		case 5:
			tu.Blocks = append(tu.Blocks, &replay.Native{Kind: "web_search_call", Raw: json.RawMessage(`{"type":"web_search_call"}`), Unfinished: r.Intn(8) == 0})
		case 6:
			tu.Blocks = append(tu.Blocks, &replay.Compaction{Format: []replay.Format{formats.OpenAIResponses, formats.AnthropicClaude, ""}[r.Intn(3)], ID: "cmp_1", Data: "enc"})
		}
	}
	return tu
}

// cloneTurn returns a deep copy of tu (by its document, which holds every
// field Carry reads).
func cloneTurn(t *testing.T, tu *replay.Turn) *replay.Turn {
	t.Helper()
	b, err := json.Marshal(tu)
	require.NoError(t, err)
	var c replay.Turn
	require.NoError(t, json.Unmarshal(b, &c))
	return &c
}

// The carry of a stored turn is Carry's turn and notices, block by block,
// sharing what Carry copies unchanged (the turn itself when nothing
// changes), and never changes the turn it reads.
func TestCarryStoredIsCarry(t *testing.T) {
	reg := replay.Default()
	targets := []replay.Target{
		{API: "anthropic", Provider: "anthropic"},
		{API: "anthropic", Provider: "bedrock", Account: "org-b"},
		{API: "openai-responses", Provider: "openai", Model: "gpt-5", Account: "org-a"},
		{API: "gemini", Provider: "aistudio", Model: "gemini-3-pro-preview", Tools: true},
		{API: "openrouter", Provider: "openrouter", Model: "anthropic/claude-sonnet-4.5"},
		{API: "chatcompat", Provider: "deepseek", Model: "deepseek-reasoner"},
	}
	sentinel := replay.DefaultPolicy()
	sentinel[replay.CaseUnsignedCall] = replay.Sentinel
	toText := replay.DefaultPolicy()
	toText[replay.CaseForeignText] = replay.ToText
	toText[replay.CaseSameIssuer] = replay.ToText
	policies := []replay.Policy{nil, sentinel, toText}
	r := rand.New(rand.NewSource(7))
	var same, shared, copied int
	var carry func(*replay.Turn) (*replay.Turn, []replay.Notice)
	var tg replay.Target
	var p replay.Policy
	for i := range 6000 {
		if i%4 == 0 { // one carrier carries a few turns in a row
			tg, p = targets[r.Intn(len(targets))], policies[r.Intn(len(policies))]
			carry = carryStored(reg, tg, p)
		}
		tu := randCarryTurn(r)
		before := cloneTurn(t, tu)
		want, wantNotes := reg.Carry(replay.History{Turns: []*replay.Turn{tu}}, tg, p)
		got, notes := carry(tu)
		require.Equal(t, wantNotes, notes, "draw %d", i)
		if w := *want.Turns[0]; len(w.Blocks) == 0 && len(got.Blocks) == 0 {
			// A turn of no blocks: Carry's is empty, the shared one the
			// stored turn's (nil when it has none).
			w.Blocks = got.Blocks
			require.Equal(t, &w, got, "draw %d", i)
		} else {
			require.Equal(t, want.Turns[0], got, "draw %d", i)
		}
		require.Equal(t, before, cloneTurn(t, tu), "draw %d: the stored turn changed", i)
		if got == tu {
			same++
			continue
		}
		for _, b := range got.Blocks {
			for _, s := range tu.Blocks {
				if b == s {
					shared++
				}
			}
		}
		copied++
	}
	t.Logf("%d carried as themselves, %d rewritten (%d blocks shared)", same, copied, shared)
	// Both kinds are drawn: turns carried as themselves, and turns with
	// some blocks shared and some rewritten.
	require.Greater(t, same, 300)
	require.Greater(t, copied, 500)
	require.Greater(t, shared, 500)
}
