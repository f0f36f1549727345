package replay_test

import (
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// accepting is a stub codec whose contract declares the formats it accepts.
// A gateway stub accepts the formats of the model's vendor; the gemini stub
// documents the placeholder signature for Gemini 3 models.
type accepting struct {
	stub
	accepts []replay.Format
}

// stubSentinel is the placeholder the gemini stub documents.
const stubSentinel = "skip_thought_signature_validator"

func (a accepting) Contract() replay.ReplayContract {
	rc := replay.ReplayContract{API: a.api, Accepts: a.accepts}
	switch a.api {
	case "openrouter":
		rc.Gateway = true
		switch vendor, _, _ := strings.Cut(a.model, "/"); vendor {
		case "anthropic":
			rc.Accepts = []replay.Format{formats.AnthropicClaude}
		case "openai":
			rc.Accepts = []replay.Format{formats.OpenAIResponses}
		case "google":
			rc.Accepts = []replay.Format{formats.GoogleGemini}
		}
	case "gemini":
		if strings.Contains(a.model, "gemini-3") {
			rc.Placeholder = &replay.Encrypted{ItemMeta: replay.ItemMeta{Format: formats.GoogleGemini, Attached: true}, Data: stubSentinel}
		}
	}
	return rc
}

// policyRegistry registers stub codecs for the APIs the policy tests use.
func policyRegistry(t testing.TB) *replay.Registry {
	r := &replay.Registry{}
	add := func(api string, providers []string, accepts ...replay.Format) {
		require.NoError(t, r.Register(replay.Entry{API: api, Providers: providers,
			New: func(p, m string) replay.ReasoningCodec { return accepting{stub{api, p, m}, accepts} }}))
	}
	add("openrouter", []string{"openrouter"}) // a gateway: accepts nothing declared
	add("anthropic", []string{"anthropic", "bedrock"}, formats.AnthropicClaude)
	add("gemini", []string{"aistudio", "vertex"}, formats.GoogleGemini)
	add("openai-responses", []string{"openai"}, formats.OpenAIResponses)
	add("deepseek", []string{"deepseek"}, formats.DeepSeek)
	add("openai-compatible", []string{"vllm"}, replay.FormatUnknown) // a host with no format of its own
	return r
}

func claudeText(text, sig string) *replay.ReasoningText {
	return &replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: formats.AnthropicClaude}, Text: text, Signature: replay.Some(sig)}
}

func turnOf(api, provider string, blocks ...replay.Block) *replay.Turn {
	return &replay.Turn{Provenance: replay.Provenance{API: api, Provider: provider}, Complete: true, Blocks: blocks}
}

// scenario builds a history whose block 0 of turn 0 falls in a case.
type scenario struct {
	history []*replay.Turn
	target  replay.Target
	text    string // the item's visible text, "" when it has none
}

func scenarios() map[replay.Case]func() scenario {
	return map[replay.Case]func() scenario{
		replay.CaseFailedTurn: func() scenario {
			tu := turnOf("anthropic", "anthropic", claudeText("half a thought", "c2ln"))
			tu.Complete = false
			return scenario{[]*replay.Turn{tu}, replay.Target{API: "anthropic", Provider: "anthropic"}, "half a thought"}
		},
		replay.CaseNotReplayable: func() scenario {
			it := claudeText("no signature came", "")
			return scenario{[]*replay.Turn{turnOf("anthropic", "anthropic", it, &replay.Text{Text: "ok"})},
				replay.Target{API: "anthropic", Provider: "anthropic"}, "no signature came"}
		},
		replay.CaseForeignOpaque: func() scenario {
			red := &replay.Encrypted{ItemMeta: replay.ItemMeta{Format: formats.AnthropicClaude}, Data: "RURBVEE="}
			return scenario{[]*replay.Turn{turnOf("anthropic", "anthropic", red, &replay.Text{Text: "ok"})},
				replay.Target{API: "gemini", Provider: "aistudio", Model: "gemini-3-pro-preview"}, ""}
		},
		replay.CaseForeignText: func() scenario {
			return scenario{[]*replay.Turn{turnOf("anthropic", "anthropic", claudeText("weigh both options", "U0lH"), &replay.Text{Text: "ok"})},
				replay.Target{API: "openai-responses", Provider: "openai", Model: "gpt-5"}, "weigh both options"}
		},
		replay.CaseIdentityMismatch: func() scenario {
			enc := &replay.Encrypted{ItemMeta: replay.ItemMeta{Format: formats.OpenAIResponses}, Data: "gAAAAABo-org-a"}
			tu := turnOf("openai-responses", "openai", enc, &replay.Text{Text: "ok"})
			tu.Provenance.Account = "org-a"
			return scenario{[]*replay.Turn{tu}, replay.Target{API: "openai-responses", Provider: "openai", Account: "org-b"}, ""}
		},
		replay.CaseBackendMismatch: func() scenario {
			th := &replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: formats.GoogleGemini}, Text: "check the units", Signature: replay.Some("Q2lS")}
			return scenario{[]*replay.Turn{turnOf("gemini", "aistudio", th, &replay.Text{Text: "ok"})},
				replay.Target{API: "gemini", Provider: "vertex", Model: "gemini-3-pro-preview"}, "check the units"}
		},
		replay.CaseUnread: func() scenario {
			tu := turnOf("anthropic", "anthropic", claudeText("list the files", "RXFv"), &replay.Text{Text: "ok"})
			tu.Provenance.Model, tu.Provenance.Account = "claude-sonnet-5-5", "org-a"
			return scenario{[]*replay.Turn{tu},
				replay.Target{API: "anthropic", Provider: "anthropic", Model: "claude-sonnet-5-5", Account: "org-b"}, "list the files"}
		},
		replay.CaseSameFamily: func() scenario {
			return scenario{[]*replay.Turn{turnOf("anthropic", "anthropic", claudeText("list the files", "RXFv"), &replay.Text{Text: "ok"})},
				replay.Target{API: "anthropic", Provider: "bedrock"}, "list the files"}
		},
		replay.CaseSameIssuer: func() scenario {
			return scenario{[]*replay.Turn{turnOf("anthropic", "anthropic", claudeText("list the files", "RXFv"), &replay.Text{Text: "ok"})},
				replay.Target{API: "anthropic", Provider: "anthropic"}, "list the files"}
		},
		replay.CaseUnsignedCall: func() scenario {
			call := &replay.ToolCall{ID: "toolu_01", Name: "lookup", Arguments: `{"q":"go"}`}
			return scenario{[]*replay.Turn{turnOf("anthropic", "anthropic", call)},
				replay.Target{API: "gemini", Provider: "aistudio", Model: "gemini-3-pro-preview", Tools: true}, ""}
		},
	}
}

func allowed(row replay.PolicyRow, a replay.Action) bool {
	for _, x := range row.Allowed {
		if x == a {
			return true
		}
	}
	return false
}

// TestPolicyTableCells runs one subtest per cell of the table: every case
// against every action, allowed or refused.
func TestPolicyTableCells(t *testing.T) {
	reg := policyRegistry(t)
	sc := scenarios()
	require.Len(t, sc, len(replay.PolicyTable()), "a scenario per case")
	for _, row := range replay.PolicyTable() {
		for _, a := range []replay.Action{replay.Keep, replay.ToText, replay.Drop, replay.Sentinel} {
			row, a := row, a
			t.Run(string(row.Case)+"/"+string(a), func(t *testing.T) {
				s := sc[row.Case]()
				before := docs(s.history)
				pol := replay.DefaultPolicy()
				pol[row.Case] = a
				out, notes := reg.Carry(replay.History{Turns: s.history}, s.target, pol)
				assert.Equal(t, before, docs(s.history), "Carry never modifies its input")
				want := a
				if !allowed(row, a) {
					want = row.Default
				}
				if want == replay.ToText && s.text == "" {
					want = replay.Drop
				}
				if row.Case == replay.CaseUnsignedCall {
					checkCall(t, out.Turns[0], notes, want)
					return
				}
				orig := s.history[0].Blocks[0]
				switch want {
				case replay.Keep:
					assert.Empty(t, notes)
					require.Equal(t, len(s.history[0].Blocks), len(out.Turns[0].Blocks))
					assert.Equal(t, orig, out.Turns[0].Blocks[0])
					assert.NotSame(t, orig, out.Turns[0].Blocks[0], "a new history")
				case replay.Drop:
					require.NotEmpty(t, notes)
					assert.Equal(t, replay.Notice{Turn: 0, Block: 0, Case: row.Case, Action: replay.Drop, Reason: notes[0].Reason}, notes[0])
					assert.Len(t, out.Turns[0].Blocks, len(s.history[0].Blocks)-1)
					for _, b := range out.Turns[0].Blocks {
						_, isItem := b.(replay.ReasoningItem)
						assert.False(t, isItem, "the item is gone")
					}
				case replay.ToText:
					require.Len(t, notes, 1)
					assert.Equal(t, replay.ToText, notes[0].Action)
					assert.Equal(t, row.Case, notes[0].Case)
					assert.Equal(t, &replay.Text{Text: s.text + "\n\n"}, out.Turns[0].Blocks[0])
					assert.NotContains(t, out.Turns[0].Blocks[0].(*replay.Text).Text, "<think")
				}
				if !allowed(row, a) && a != row.Default && len(notes) > 0 {
					assert.Contains(t, notes[0].Reason, "is not allowed for "+string(row.Case))
				}
			})
		}
	}
}

func checkCall(t *testing.T, out *replay.Turn, notes []replay.Notice, want replay.Action) {
	t.Helper()
	if want == replay.Sentinel {
		require.Len(t, out.Blocks, 2)
		assert.Equal(t, &replay.Encrypted{ItemMeta: replay.ItemMeta{Format: formats.GoogleGemini, Attached: true}, Data: stubSentinel}, out.Blocks[0])
		require.Len(t, notes, 1)
		assert.Equal(t, replay.Notice{Turn: 0, Block: 0, Case: replay.CaseUnsignedCall, Action: replay.Sentinel, Reason: notes[0].Reason}, notes[0])
		return
	}
	require.Len(t, out.Blocks, 1)
	assert.IsType(t, &replay.ToolCall{}, out.Blocks[0])
	assert.Empty(t, notes)
}

func docs(ts []*replay.Turn) []string {
	var out []string
	for _, t := range ts {
		out = append(out, string(t.AppendJSON(nil)))
	}
	return out
}

func TestPolicyTableIsComplete(t *testing.T) {
	seen := map[replay.Case]bool{}
	for _, r := range replay.PolicyTable() {
		assert.False(t, seen[r.Case], "one row per case")
		seen[r.Case] = true
		assert.True(t, allowed(r, r.Default), "%s: the default is allowed", r.Case)
		assert.NotEmpty(t, r.Doc)
	}
	// Never send another issuer's signature or ciphertext: only drop is
	// allowed where that would happen.
	for _, r := range replay.PolicyTable() {
		if r.Case == replay.CaseForeignOpaque || r.Case == replay.CaseIdentityMismatch {
			assert.Equal(t, []replay.Action{replay.Drop}, r.Allowed)
		}
	}
	p := replay.DefaultPolicy()
	p[replay.CaseForeignText] = replay.ToText
	assert.Equal(t, replay.Drop, replay.DefaultPolicy()[replay.CaseForeignText], "DefaultPolicy returns a fresh copy")
}

func TestCarryOpenAIReasoningGoesWithItsFollower(t *testing.T) {
	reg := policyRegistry(t)
	rs := func() []replay.Block {
		meta := replay.ItemMeta{Format: formats.OpenAIResponses, ID: replay.Some("rs_01")}
		return []replay.Block{
			&replay.Summary{ItemMeta: meta, Summary: "Compare the two plans."},
			&replay.Encrypted{ItemMeta: meta, Data: "gAAAAABo-minted-by-a"},
			&replay.ToolCall{ID: "call_1", ItemID: "fc_01", Name: "plan", Arguments: "{}"},
			&replay.Summary{ItemMeta: replay.ItemMeta{Format: formats.OpenAIResponses, ID: replay.Some("rs_02")}, Summary: "Answer."},
			&replay.Text{Text: "Done.", ID: "msg_02"},
		}
	}
	tu := turnOf("openai-responses", "openai", rs()...)
	tu.Provenance.Account = "org-a"

	// Same issuer: everything kept, ids included.
	out, notes := reg.Carry(replay.History{Turns: []*replay.Turn{tu}}, replay.Target{API: "openai-responses", Provider: "openai", Account: "org-a"}, nil)
	assert.Empty(t, notes)
	assert.Equal(t, rs(), out.Turns[0].Blocks)

	// Another organisation: the ciphertext cannot go, so the whole rs_01
	// item goes (its summary too) and fc_01 loses its id; rs_02 stays.
	out, notes = reg.Carry(replay.History{Turns: []*replay.Turn{tu}}, replay.Target{API: "openai-responses", Provider: "openai", Account: "org-b"}, nil)
	want := rs()[2:]
	want[0] = &replay.ToolCall{ID: "call_1", Name: "plan", Arguments: "{}"}
	assert.Equal(t, want, out.Turns[0].Blocks)
	require.Len(t, notes, 3)
	assert.Equal(t, []int{0, 1, 2}, []int{notes[0].Block, notes[1].Block, notes[2].Block})
	for _, n := range notes {
		assert.Equal(t, replay.CaseIdentityMismatch, n.Case)
		assert.Equal(t, replay.Drop, n.Action)
	}
	assert.Contains(t, notes[0].Reason, `dropped with the other parts of item "rs_01"`)
	assert.Contains(t, notes[2].Reason, `"fc_01" is not sent`)
	assert.Equal(t, "fc_01", tu.Blocks[2].(*replay.ToolCall).ItemID, "the input is untouched")
}

func TestCarryThroughAGatewayByModelVendor(t *testing.T) {
	reg := policyRegistry(t)
	tu := turnOf("anthropic", "anthropic", claudeText("plan", "RXFv"), &replay.Text{Text: "ok"})
	out, notes := reg.Carry(replay.History{Turns: []*replay.Turn{tu}}, replay.Target{API: "openrouter", Model: "anthropic/claude-sonnet-4.5"}, nil)
	assert.Empty(t, notes)
	assert.Len(t, out.Turns[0].Blocks, 2)
	out, notes = reg.Carry(replay.History{Turns: []*replay.Turn{tu}}, replay.Target{API: "openrouter", Model: "openai/gpt-5"}, nil)
	require.Len(t, notes, 1)
	assert.Equal(t, replay.CaseForeignText, notes[0].Case)
	assert.Equal(t, []replay.Block{&replay.Text{Text: "ok"}}, out.Turns[0].Blocks)
}

func TestCarryNativeAndUnfinishedBlocks(t *testing.T) {
	reg := policyRegistry(t)
	tu := turnOf("anthropic", "anthropic",
		&replay.Native{Kind: "server_tool_use", Raw: []byte(`{"type":"server_tool_use","id":"srvtoolu_1"}`)},
		&replay.ToolCall{ID: "toolu_2", Name: "read", Arguments: `{"p":`, Unfinished: true},
		&replay.Text{Text: "x", ID: "msg_1", Extra: []byte(`{"phase":"final"}`)})
	out, notes := reg.Carry(replay.History{Turns: []*replay.Turn{tu}}, replay.Target{API: "anthropic", Provider: "anthropic"}, nil)
	require.Len(t, notes, 1)
	assert.Equal(t, replay.Notice{Turn: 0, Block: 1, Case: replay.CaseNotReplayable, Action: replay.Drop, Reason: `the tool call "toolu_2" is unfinished`}, notes[0])
	assert.Len(t, out.Turns[0].Blocks, 2)
	assert.Equal(t, "msg_1", out.Turns[0].Blocks[1].(*replay.Text).ID, "same API: ids kept")

	out, notes = reg.Carry(replay.History{Turns: []*replay.Turn{tu}}, replay.Target{API: "gemini", Provider: "aistudio", Model: "gemini-2.5-pro"}, nil)
	require.Len(t, notes, 2)
	assert.Equal(t, replay.CaseForeignOpaque, notes[0].Case)
	assert.Contains(t, notes[0].Reason, "server_tool_use element belongs to anthropic")
	assert.Equal(t, []replay.Block{&replay.Text{Text: "x"}}, out.Turns[0].Blocks, "source-API ids and members are not carried")
}

func TestCarrySentinelOnlyForGemini3(t *testing.T) {
	reg := policyRegistry(t)
	call := &replay.ToolCall{ID: "c1", Name: "f", Arguments: "{}"}
	signed := turnOf("gemini", "aistudio",
		&replay.Encrypted{ItemMeta: replay.ItemMeta{Format: formats.GoogleGemini, Attached: true}, Data: "Q2lT"}, call,
		&replay.ToolCall{ID: "c2", Name: "g", Arguments: "{}"})
	pol := replay.Policy{replay.CaseUnsignedCall: replay.Sentinel}
	out, notes := reg.Carry(replay.History{Turns: []*replay.Turn{signed}}, replay.Target{API: "gemini", Provider: "aistudio", Model: "gemini-3-flash"}, pol)
	assert.Empty(t, notes, "a signed first call needs nothing; parallel calls after it need no signature")
	assert.Equal(t, signed.Blocks, out.Turns[0].Blocks)

	unsigned := turnOf("anthropic", "anthropic", call)
	for _, tg := range []replay.Target{
		{API: "gemini", Provider: "aistudio", Model: "gemini-2.5-pro"},
		{API: "openrouter", Model: "google/gemini-3-pro-preview"},
	} {
		out, notes = reg.Carry(replay.History{Turns: []*replay.Turn{unsigned}}, tg, pol)
		assert.Empty(t, notes, "%+v", tg)
		assert.Equal(t, []replay.Block{call}, out.Turns[0].Blocks)
	}
}

func TestCarryUnattributedReasoning(t *testing.T) {
	reg := policyRegistry(t)
	plain := &replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: replay.FormatUnknown}, Text: "local thoughts"}
	tu := turnOf("openai-compatible", "vllm", plain, &replay.Text{Text: "hi"})
	out, notes := reg.Carry(replay.History{Turns: []*replay.Turn{tu}}, replay.Target{API: "openai-compatible", Provider: "vllm"}, nil)
	assert.Empty(t, notes)
	assert.Len(t, out.Turns[0].Blocks, 2)
	// A target whose contract names its own format does not take
	// unattributed reasoning back (its encoder would leave it out): Carry
	// says so, also when the target's provider is not given.
	dsTurn := turnOf("deepseek", "deepseek", plain, &replay.Text{Text: "hi"})
	for _, tg := range []replay.Target{{API: "deepseek", Provider: "deepseek"}, {API: "deepseek"}} {
		out, notes = reg.Carry(replay.History{Turns: []*replay.Turn{dsTurn}}, tg, nil)
		require.Len(t, notes, 1, "%+v", tg)
		assert.Equal(t, replay.CaseForeignText, notes[0].Case)
		assert.Equal(t, []replay.Block{&replay.Text{Text: "hi"}}, out.Turns[0].Blocks)
	}
	out, notes = reg.Carry(replay.History{Turns: []*replay.Turn{tu}}, replay.Target{API: "anthropic", Provider: "anthropic"}, replay.Policy{replay.CaseForeignText: replay.ToText})
	require.Len(t, notes, 1)
	assert.Equal(t, replay.CaseForeignText, notes[0].Case)
	assert.Equal(t, "local thoughts\n\nhi", out.Turns[0].VisibleText())
	assert.True(t, strings.HasSuffix(notes[0].String(), "sent as plain text, its signature and format dropped"))
}

// A reasoning item minted by a host with no format of its own is not sent
// to OpenAI; its follower's host-minted item id goes with it, and so does
// the message's (issue: ids minted by an unknown host).
func TestCarryUnattributedItemTakesFollowerIDs(t *testing.T) {
	reg := policyRegistry(t)
	rs := &replay.Encrypted{ItemMeta: replay.ItemMeta{Format: replay.FormatUnknown, ID: replay.Some("rs_host_1")}, Data: "aG9zdA=="}
	call := &replay.ToolCall{ID: "call_1", Name: "lookup", Arguments: "{}", ItemID: "fc_host_1"}
	tu := turnOf("openai-responses", "lmstudio", rs, call)
	out, notes := reg.Carry(replay.History{Turns: []*replay.Turn{tu}}, replay.Target{API: "openai-responses", Provider: "openai"}, nil)
	require.Len(t, notes, 2)
	assert.Equal(t, replay.CaseForeignOpaque, notes[0].Case)
	assert.Contains(t, notes[1].Reason, `"fc_host_1" is not sent`)
	assert.Equal(t, []replay.Block{&replay.ToolCall{ID: "call_1", Name: "lookup", Arguments: "{}"}}, out.Turns[0].Blocks)
}
