package replay_test

import (
	"testing"

	"github.com/reasonreplay/replay"
	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/reasonreplay/replay/formats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// geminiCalls is a Gemini turn with three parallel calls and no ids, the
// first signed, as Gemini 3 sends them.
func geminiCalls() *replay.Turn {
	sig := &replay.Encrypted{Data: "U2lnbmVkRmlyc3Q="}
	sig.Format, sig.Attached = formats.GoogleGemini, true
	return &replay.Turn{Complete: true, Provenance: replay.Provenance{API: "gemini", Provider: "aistudio", Model: "gemini-3-pro-preview"},
		Blocks: []replay.Block{
			sig,
			&replay.ToolCall{Name: "get_weather", Arguments: `{"city":"Paris"}`},
			&replay.ToolCall{Name: "get_weather", Arguments: `{"city":"Tokyo"}`},
			&replay.ToolCall{Name: "get_time", Arguments: `{}`},
		}}
}

func callIDs(h replay.History) []string {
	var out []string
	for _, t := range h.Turns {
		for _, c := range t.ToolCalls() {
			out = append(out, c.ID)
		}
	}
	return out
}

// Gemini calls have no ids; Anthropic, OpenAI, OpenRouter, Bedrock and the
// chat hosts need unique non-empty ones that the tool results echo.
func TestCarryMintsToolIDs(t *testing.T) {
	in := replay.History{Turns: []*replay.Turn{geminiCalls()}}
	target := replay.Target{API: "anthropic", Provider: "anthropic", Model: "claude-sonnet-4-5", Tools: true}

	before := replay.AuditReplay(in, target)
	var flagged []replay.Violation
	for _, v := range before.Violations {
		if v.Rule == replay.RuleToolCallID {
			flagged = append(flagged, v)
		}
	}
	require.Len(t, flagged, 3)
	assert.Equal(t, replay.SeverityReject, flagged[0].Severity)
	assert.Equal(t, 1, flagged[0].Block)
	assert.Equal(t, `the function call "get_weather" has an empty id; anthropic claude-sonnet-4-5 requires a non-empty id that its tool result echoes`, flagged[0].Message)

	out, notices := replay.Carry(in, target, nil)
	ids := callIDs(out)
	want := []string{"1tdK2xdNr", "G4eghG4vv", "7peWTfkER"}
	assert.Equal(t, want, ids)
	var minted []replay.Notice
	for _, n := range notices {
		if n.Case == replay.CaseToolCallID {
			minted = append(minted, n)
		}
	}
	require.Len(t, minted, 3)
	for i, n := range minted {
		assert.Equal(t, replay.MintID, n.Action)
		assert.Equal(t, 0, n.Turn)
		assert.Equal(t, i+1, n.Block, "the block of the call in the history given to Carry")
		assert.Equal(t, "", n.OldID)
		assert.Equal(t, want[i], n.NewID)
	}
	assert.Equal(t, `the function call "get_weather" has no id and anthropic claude-sonnet-4-5 requires one; it is sent as "1tdK2xdNr": send its result with that id`, minted[0].Reason)
	assert.Empty(t, in.Turns[0].ToolCalls()[0].ID, "the input is not modified")

	// Deterministic: the same history carried again gets the same ids.
	again, _ := replay.Carry(in, target, nil)
	assert.Equal(t, want, callIDs(again))

	// The encoded request carries them, and the audit is clean of the rule.
	enc, err := replay.Default().Lookup("anthropic", "anthropic", "")
	require.NoError(t, err)
	msg, err := enc.Encode(out.Turns[0])
	require.NoError(t, err)
	for _, id := range want {
		assert.Contains(t, string(msg), `"id":"`+id+`"`)
	}
	assert.NotContains(t, string(msg), `"id":""`)
	for _, v := range replay.AuditReplay(out, target).Violations {
		assert.NotEqual(t, replay.RuleToolCallID, v.Rule, "%v", v)
	}

	// Gemini itself needs no ids: nothing minted, nothing flagged.
	gem := replay.Target{API: "gemini", Provider: "aistudio", Model: "gemini-3-pro-preview"}
	same, notices := replay.Carry(in, gem, nil)
	assert.Equal(t, []string{"", "", ""}, callIDs(same))
	assert.Empty(t, notices)
	for _, v := range replay.AuditReplay(in, gem).Violations {
		assert.NotEqual(t, replay.RuleToolCallID, v.Rule)
	}
}

func TestCarryToolIDsDuplicates(t *testing.T) {
	turn := func(ids ...string) *replay.Turn {
		tu := &replay.Turn{Complete: true, Provenance: replay.Provenance{API: "openai-compatible", Provider: "vllm"}}
		for i, id := range ids {
			tu.Blocks = append(tu.Blocks, &replay.ToolCall{ID: id, Name: "f", Arguments: `{"n":` + string(rune('0'+i)) + `}`})
		}
		return tu
	}
	// Hosts that number calls per response repeat ids across turns; a
	// caller bug repeats one within a turn.
	in := replay.History{Turns: []*replay.Turn{turn("call_0", "call_1"), turn("call_0", "call_0")}}
	target := replay.Target{API: "openai-responses", Provider: "openai", Model: "gpt-5", Tools: true}
	rep := replay.AuditReplay(in, target)
	var got []string
	for _, v := range rep.Violations {
		if v.Rule == replay.RuleToolCallID {
			got = append(got, string(v.Severity)+" "+v.Message)
		}
	}
	assert.Equal(t, []string{
		`risk the function call "f" has the id "call_0" of a call in turn 0; a target that requires unique ids rejects it`,
		`reject the function call "f" has the id "call_0" of an earlier call in the same turn; its result cannot be told apart`,
	}, got)

	out, notices := replay.Carry(in, target, nil)
	ids := callIDs(out)
	assert.Equal(t, []string{"call_0", "call_1"}, ids[:2], "the first of each id keeps it")
	assert.Len(t, ids, 4)
	assert.NotContains(t, []string{"call_0", "call_1", ""}, ids[2])
	assert.NotContains(t, []string{"call_0", "call_1", "", ids[2]}, ids[3])
	var olds []string
	for _, n := range notices {
		if n.Case == replay.CaseToolCallID {
			olds = append(olds, n.OldID+"->"+n.NewID)
		}
	}
	assert.Equal(t, []string{"call_0->" + ids[2], "call_0->" + ids[3]}, olds)
	for _, v := range replay.AuditReplay(out, target).Violations {
		assert.NotEqual(t, replay.RuleToolCallID, v.Rule, "%v", v)
	}

	// Unique ids are never touched, and a minted id never takes one that a
	// later call already has.
	clean := replay.History{Turns: []*replay.Turn{turn("a", "b"), turn("c")}}
	out, notices = replay.Carry(clean, target, nil)
	assert.Equal(t, []string{"a", "b", "c"}, callIDs(out))
	assert.Empty(t, notices)
}

// Past the few ids kept in a list, duplicates are still found, and a
// minted id never takes an id that a later call holds: the ids sent are
// unique, and every call that kept its id is the first with it.
func TestCarryToolIDsMany(t *testing.T) {
	target := replay.Target{API: "anthropic", Provider: "anthropic", Model: "claude-sonnet-4-5", Tools: true}
	for _, n := range []int{3, 8, 9, 20, 40} {
		tu := &replay.Turn{Complete: true, Provenance: replay.Provenance{API: "anthropic", Provider: "anthropic"}}
		var want []string // the id each call keeps, "" when it is minted
		seen := map[string]bool{}
		for i := range n {
			id := "toolu_" + string(rune('a'+i%7)) // repeats from the eighth call on
			if i%5 == 4 {
				id = "" // no id: minted
			}
			tu.Blocks = append(tu.Blocks, &replay.ToolCall{ID: id, Name: "f", Arguments: `{}`})
			if id != "" && !seen[id] {
				seen[id] = true
				want = append(want, id)
			} else {
				want = append(want, "")
			}
		}
		out, notices := replay.Carry(replay.History{Turns: []*replay.Turn{tu}}, target, nil)
		ids := callIDs(out)
		require.Len(t, ids, n)
		sent := map[string]bool{}
		minted := 0
		for i, id := range ids {
			require.NotEmpty(t, id)
			require.False(t, sent[id], "n=%d: the id %q of call %d was sent before", n, id, i)
			sent[id] = true
			if want[i] != "" {
				require.Equal(t, want[i], id, "n=%d: call %d keeps its id", n, i)
			} else {
				require.False(t, seen[id], "n=%d: call %d was given %q, the id of another call", n, i, id)
				minted++
			}
		}
		assert.Len(t, notices, minted, "n=%d: one notice per minted id", n)
	}
}
