package anthropic_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// audit runs only the named Anthropic rule.
func audit(t *testing.T, rule string, h replay.History, tg replay.Target) []replay.Violation {
	t.Helper()
	for _, r := range (anthropic.Codec{}).Contract().Rules {
		if r.ID == rule {
			return replay.ReplayContract{Rules: []replay.Rule{r}}.Audit(h, tg).Violations
		}
	}
	t.Fatalf("no rule %s", rule)
	return nil
}

func toolTurn(t *testing.T) *replay.Turn { return interleavedTurn(t) }

func TestContractRulesDocumented(t *testing.T) {
	c := anthropic.Codec{}.Contract()
	assert.Equal(t, anthropic.API, c.API)
	assert.Contains(t, c.Summary, "may be dropped")
	var ids []string
	for _, r := range c.Rules {
		ids = append(ids, r.ID)
		assert.NotEmpty(t, r.Doc)
		assert.True(t, strings.HasPrefix(r.ID, "anthropic/"))
	}
	assert.Equal(t, []string{"anthropic/thinking-first", "anthropic/thinking-modified", "anthropic/missing-signature",
		"anthropic/foreign-signature", "anthropic/prefix-mismatch", "anthropic/prefix-unverified", "anthropic/chain-broken", "anthropic/beta-required",
		"anthropic/compaction", "anthropic/unread-thinking", "anthropic/host-thinking", "anthropic/block-order",
		"anthropic/block-members", "anthropic/system-position", "anthropic/thinking-type", "anthropic/client-version"}, ids)
}

func TestThinkingFirstFromTurns(t *testing.T) {
	tu := toolTurn(t)
	// The captured turn starts with a signed thinking block: clean.
	assert.Empty(t, audit(t, "anthropic/thinking-first", replay.History{Turns: []*replay.Turn{tu}}, replay.Target{Thinking: true}))
	// Adaptive mode (Thinking false): never.
	stripped := &replay.Turn{Complete: true, Blocks: tu.Blocks[1:]}
	assert.Empty(t, audit(t, "anthropic/thinking-first", replay.History{Turns: []*replay.Turn{stripped}}, replay.Target{}))

	vs := audit(t, "anthropic/thinking-first", replay.History{Turns: []*replay.Turn{stripped}}, replay.Target{Thinking: true})
	require.Len(t, vs, 1)
	assert.Equal(t, replay.SeverityReject, vs[0].Severity)
	assert.Equal(t, 0, vs[0].Block)
	assert.True(t, strings.HasPrefix(vs[0].Predicted, "Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block"), vs[0].Predicted)

	// An unsigned first thinking block is left out when sent: same 400.
	unsigned := &replay.Turn{Complete: true, Blocks: []replay.Block{
		&replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: formats.AnthropicClaude}, Text: "x", Signature: replay.Some("")},
		&replay.ToolCall{ID: "toolu_1", Name: "f", Arguments: "{}"}}}
	vs = audit(t, "anthropic/thinking-first", replay.History{Turns: []*replay.Turn{unsigned}}, replay.Target{Thinking: true})
	require.Len(t, vs, 1)
	assert.Equal(t, 1, vs[0].Block)

	// A last turn without tool calls is not a tool loop.
	plain := &replay.Turn{Complete: true, Blocks: []replay.Block{&replay.Text{Text: "hi"}}}
	assert.Empty(t, audit(t, "anthropic/thinking-first", replay.History{Turns: []*replay.Turn{plain}}, replay.Target{Thinking: true}))
}

const reqPrefix = `{"model":"claude-sonnet-4-6","thinking":{"type":"enabled","budget_tokens":2048},"messages":[{"role":"user","content":"Convert 250 EUR to JPY with fees."},`

func toolResults() string {
	return `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01Hq8VnZ3kXr5LmT2sPbYc4D","content":"163.2"},{"type":"tool_result","tool_use_id":"toolu_01Mw6RtY8cJd3FgK9nQxZa2E","content":"1%"}]}]}`
}

func encoded(t *testing.T, tu *replay.Turn) string {
	msg, err := anthropic.Codec{}.Encode(tu)
	require.NoError(t, err)
	return string(msg)
}

func TestThinkingFirstFromRequest(t *testing.T) {
	tu := toolTurn(t)
	good := reqPrefix + encoded(t, tu) + "," + toolResults()
	assert.Empty(t, audit(t, "anthropic/thinking-first", replay.History{Turns: []*replay.Turn{tu}, Request: []byte(good)}, replay.Target{Thinking: true}))

	bad := reqPrefix + `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01Hq8VnZ3kXr5LmT2sPbYc4D","name":"get_rate","input":{}}]},` + toolResults()
	vs := audit(t, "anthropic/thinking-first", replay.History{Turns: []*replay.Turn{tu}, Request: []byte(bad)}, replay.Target{Thinking: true})
	require.Len(t, vs, 1)
	assert.Equal(t, "/messages/1/content/0/type", vs[0].Pointer)
	assert.Equal(t, "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking", vs[0].Predicted)

	// Not answered by a tool_result: not the tool loop.
	done := reqPrefix + `{"role":"assistant","content":[{"type":"text","text":"Done."}]},{"role":"user","content":"thanks"}]}`
	assert.Empty(t, audit(t, "anthropic/thinking-first", replay.History{Turns: []*replay.Turn{tu}, Request: []byte(done)}, replay.Target{Thinking: true}))
}

func TestThinkingModified(t *testing.T) {
	tu := toolTurn(t)
	h := func(assistant string) replay.History {
		return replay.History{Turns: []*replay.Turn{tu}, Request: []byte(reqPrefix + assistant + "," + toolResults())}
	}
	assert.Empty(t, audit(t, "anthropic/thinking-modified", h(encoded(t, tu)), replay.Target{}))

	// Patched into a caller-built message: clean too.
	patched, err := anthropic.Codec{}.Patch([]byte(`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01Hq8VnZ3kXr5LmT2sPbYc4D","name":"get_rate","input":{}},{"type":"tool_use","id":"toolu_01Mw6RtY8cJd3FgK9nQxZa2E","name":"get_fees","input":{}}]}`), tu)
	require.NoError(t, err)
	assert.Empty(t, audit(t, "anthropic/thinking-modified", h(string(patched)), replay.Target{}))

	th0 := tu.Blocks[0].(*replay.ReasoningText)
	th2 := tu.Blocks[2].(*replay.ReasoningText)
	thinking := func(th *replay.ReasoningText, text string) string {
		return `{"type":"thinking","thinking":"` + text + `","signature":"` + th.Signature.Value() + `"}`
	}
	use := func(id string) string { return `{"type":"tool_use","id":"` + id + `","name":"f","input":{}}` }
	a, b := "toolu_01Hq8VnZ3kXr5LmT2sPbYc4D", "toolu_01Mw6RtY8cJd3FgK9nQxZa2E"
	for name, c := range map[string]struct {
		content string
		block   int
	}{
		// LiteLLM-style: all thinking first.
		"reordered": {thinking(th0, th0.Text) + "," + thinking(th2, th2.Text) + "," + use(a) + "," + use(b), 1},
		"altered":   {thinking(th0, th0.Text+" (edited)") + "," + use(a) + "," + thinking(th2, th2.Text) + "," + use(b), 0},
		"missing":   {thinking(th0, th0.Text) + "," + use(a) + "," + use(b), 2},
	} {
		vs := audit(t, "anthropic/thinking-modified", h(`{"role":"assistant","content":[`+c.content+`]}`), replay.Target{})
		require.Len(t, vs, 1, name)
		assert.Equal(t, "/messages/1/content/"+itoa(c.block), vs[0].Pointer, name)
		assert.Equal(t, "messages.1.content."+itoa(c.block)+": `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.", vs[0].Predicted, name)
	}
	// Outside a tool loop, dropping a block is allowed, altering one is not.
	closed := func(content string) replay.History {
		return replay.History{Turns: []*replay.Turn{tu}, Request: []byte(reqPrefix + `{"role":"assistant","content":[` + content + `]},{"role":"user","content":"next"}]}`)}
	}
	assert.Empty(t, audit(t, "anthropic/thinking-modified", closed(thinking(th2, th2.Text)), replay.Target{}))
	assert.Len(t, audit(t, "anthropic/thinking-modified", closed(thinking(th2, "x")), replay.Target{}), 1)
}

func itoa(i int) string { return string(rune('0' + i)) }

func TestMissingSignatureInRequest(t *testing.T) {
	tu := toolTurn(t)
	ok := reqPrefix + encoded(t, tu) + "," + toolResults()
	assert.Empty(t, audit(t, "anthropic/missing-signature", replay.History{Request: []byte(ok)}, replay.Target{}))

	bad := reqPrefix + `{"role":"assistant","content":[{"type":"thinking","thinking":"a"},{"type":"thinking","signature":"Eq1"},{"type":"thinking","thinking":"b","signature":""},{"type":"redacted_thinking"},{"type":"tool_use","id":"toolu_01Hq8VnZ3kXr5LmT2sPbYc4D","name":"f","input":{}}]},` + toolResults()
	vs := audit(t, "anthropic/missing-signature", replay.History{Request: []byte(bad)}, replay.Target{})
	require.Len(t, vs, 4)
	assert.Equal(t, "messages.1.content.0.thinking.signature: Field required", vs[0].Predicted)
	assert.Equal(t, "messages.1.content.1.thinking.thinking: Field required", vs[1].Predicted)
	assert.Equal(t, "messages.1.content.2: Invalid `signature` in `thinking` block", vs[2].Predicted)
	assert.Equal(t, "messages.1.content.3.redacted_thinking.data: Field required", vs[3].Predicted)
	assert.Equal(t, "/messages/1/content/2", vs[2].Pointer)
}

func TestForeignSignature(t *testing.T) {
	assert.Empty(t, audit(t, "anthropic/foreign-signature", replay.History{Turns: []*replay.Turn{toolTurn(t)}}, replay.Target{}))
	foreign := &replay.Turn{Blocks: []replay.Block{
		&replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: formats.DeepSeek}, Text: "unsigned text is fine"},
		&replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: formats.GoogleGemini}, Text: "t", Signature: replay.Some("CiQB")},
		&replay.Encrypted{ItemMeta: replay.ItemMeta{Format: formats.OpenAIResponses}, Data: "gAAAAB"},
	}}
	vs := audit(t, "anthropic/foreign-signature", replay.History{Turns: []*replay.Turn{foreign}}, replay.Target{})
	require.Len(t, vs, 2)
	assert.Equal(t, 1, vs[0].Block)
	assert.Equal(t, 2, vs[1].Block)
	assert.Equal(t, "Invalid `signature` in `thinking` block", vs[0].Predicted)
}

func TestPrefixMismatch(t *testing.T) {
	tu := toolTurn(t)
	tu.Provenance.PrefixHash = "sha256:aaaa"
	h := replay.History{Turns: []*replay.Turn{tu}}
	binding := replay.Target{Model: "claude-fable-5-1", PrefixHash: "sha256:bbbb"}
	vs := audit(t, "anthropic/prefix-mismatch", h, binding)
	require.Len(t, vs, 1)
	assert.Equal(t, 0, vs[0].Block)
	assert.Equal(t, "Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to \"drop_block\".", vs[0].Predicted)
	assert.Equal(t, replay.SeverityRisk, vs[0].Severity, "the account's age is not known")

	for name, tg := range map[string]replay.Target{
		"same prefix":           {Model: "claude-fable-5-1", PrefixHash: "sha256:aaaa"},
		"no request hash":       {Model: "claude-fable-5-1"},
		"older model":           {Model: "claude-sonnet-4-5-20250929", PrefixHash: "sha256:bbbb"},
		"mythos 5.1 on bedrock": {Model: "claude-mythos-5-1", Provider: "bedrock", PrefixHash: "sha256:bbbb"},
		"sonnet 5":              {Model: "claude-sonnet-5", PrefixHash: "sha256:bbbb"},
	} {
		assert.Empty(t, audit(t, "anthropic/prefix-mismatch", h, tg), name)
	}
	for _, m := range []string{"claude-opus-5-1", "claude-sonnet-6", "claude-fable-5-1-20260901"} {
		assert.Len(t, audit(t, "anthropic/prefix-mismatch", h, replay.Target{Model: m, PrefixHash: "x"}), 1, m)
	}
}

func TestAuditReplayThroughRegistry(t *testing.T) {
	tu, _ := stream.Decode(bytes.NewReader(read(t, "cut-before-signature.sse")), anthropic.Codec{}, stream.Options{})
	rep := replay.AuditReplay(replay.History{Turns: []*replay.Turn{tu}}, replay.Target{API: "anthropic", Thinking: true})
	var rules []string
	for _, v := range rep.Violations {
		rules = append(rules, v.Rule)
	}
	// The core rules say the turn is incomplete and the item unfinished;
	// the Anthropic rules add nothing that duplicates them.
	assert.Equal(t, []string{"replay/incomplete-turn", "replay/unfinished-item"}, rules)
}

func TestPrefixMismatchChecksOnlyTheLatestTurn(t *testing.T) {
	older := toolTurn(t)
	older.Provenance.PrefixHash = "sha256:earlier"
	latest := toolTurn(t)
	latest.Provenance.PrefixHash = "sha256:aaaa"
	h := replay.History{Turns: []*replay.Turn{older, latest}}
	tg := replay.Target{Model: "claude-fable-5-1", PrefixHash: "sha256:aaaa"}
	assert.Empty(t, audit(t, "anthropic/prefix-mismatch", h, tg), "an earlier turn was produced under a shorter prefix")
	tg.PrefixHash = "sha256:bbbb"
	vs := audit(t, "anthropic/prefix-mismatch", h, tg)
	require.Len(t, vs, 1)
	assert.Equal(t, 1, vs[0].Turn)
}
