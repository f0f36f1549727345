package anthropic_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/reasonreplay/replay/formats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const bindBase = `{"model":"claude-fable-5-1","max_tokens":1024,"system":"You are terse.","tools":[{"name":"read","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"hi"}]}`

func prefixOf(t *testing.T, body string) string {
	t.Helper()
	h, err := anthropic.PrefixHash([]byte(body))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(h, "sha256:") && len(h) == 71, h)
	return h
}

// TestPrefixHashMembers: one row per documented member, compared or not.
func TestPrefixHashMembers(t *testing.T) {
	base := prefixOf(t, bindBase)
	for _, c := range []struct {
		name     string
		from, to string
		compared bool
	}{
		{"system", `"system":"You are terse."`, `"system":"You are verbose."`, true},
		{"tools", `"tools":[{"name":"read","input_schema":{"type":"object"}}]`, `"tools":[{"name":"read","input_schema":{"type":"object"}},{"name":"write"}]`, true},
		{"messages", `"content":"hi"`, `"content":"hello"`, true},
		{"model", `"model":"claude-fable-5-1"`, `"model":"claude-opus-5-5"`, false},
		{"max_tokens", `"max_tokens":1024`, `"max_tokens":64`, false},
		{"effort and output_config", `"max_tokens":1024`, `"max_tokens":1024,"output_config":{"effort":"low"}`, false},
		{"tool_choice", `"max_tokens":1024`, `"max_tokens":1024,"tool_choice":{"type":"any"}`, false},
		{"metadata", `"max_tokens":1024`, `"max_tokens":1024,"metadata":{"user_id":"u1"}`, false},
		{"context_management", `"max_tokens":1024`, `"max_tokens":1024,"context_management":{"edits":[{"type":"clear_thinking_20251015"}]}`, false},
		{"thinking.display", `"max_tokens":1024`, `"max_tokens":1024,"thinking":{"type":"adaptive","display":"omitted"}`, false},
		{"cache_control in system", `"system":"You are terse."`, `"system":[{"type":"text","text":"You are terse.","cache_control":{"type":"ephemeral"}}]`, true},
		{"cache_control on a tool", `{"name":"read","input_schema":{"type":"object"}}`, `{"name":"read","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}}`, false},
		{"cache_control in a message", `"content":"hi"}`, `"content":"hi","cache_control":{"type":"ephemeral"}}`, false},
		{"deferred tool not referenced", `"tools":[{"name":"read","input_schema":{"type":"object"}}]`, `"tools":[{"name":"read","input_schema":{"type":"object"}},{"name":"search_docs","defer_loading":true}]`, false},
		{"member order and white space", `"max_tokens":1024,"system":"You are terse."`, `"system" : "You are terse.", "max_tokens":1024`, false},
		{"string escapes", `"content":"hi"`, `"content":"\u0068i"`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := strings.Replace(bindBase, c.from, c.to, 1)
			require.NotEqual(t, bindBase, body, "the row changes the body")
			assert.Equal(t, c.compared, prefixOf(t, body) != base)
		})
	}
	// A string system and one text block differ as written (the check is
	// not documented to normalise them): covered by the cache_control row.

	// A deferred tool counts once something referenced it.
	deferred := strings.Replace(bindBase, `"tools":[{"name":"read","input_schema":{"type":"object"}}]`, `"tools":[{"name":"read","input_schema":{"type":"object"}},{"name":"search_docs","defer_loading":true}]`, 1)
	used := strings.Replace(deferred, `{"role":"user","content":"hi"}`, `{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"search_docs","input":{}}]}`, 1)
	usedWithout := strings.Replace(bindBase, `{"role":"user","content":"hi"}`, `{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"search_docs","input":{}}]}`, 1)
	assert.NotEqual(t, prefixOf(t, used), prefixOf(t, usedWithout))
}

func TestPrefixHashThinkingAndCompaction(t *testing.T) {
	with := `{"system":"s","messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"a","signature":"U0lHMQ=="},{"type":"text","text":"A"}]},{"role":"user","content":"q2"}]}`
	without := `{"system":"s","messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"A"}]},{"role":"user","content":"q2"}]}`
	assert.Equal(t, prefixOf(t, with), prefixOf(t, without), "thinking blocks are not part of the prefix")
	// The newest compaction block restarts the messages compared.
	c1 := `{"system":"s","messages":[{"role":"user","content":"old talk"},{"role":"assistant","content":[{"type":"compaction","content":"sum"},{"type":"text","text":"A"}]},{"role":"user","content":"q2"}]}`
	c2 := `{"system":"s","messages":[{"role":"user","content":"other old talk"},{"role":"assistant","content":[{"type":"text","text":"dropped"},{"type":"compaction","content":"sum"},{"type":"text","text":"A"}]},{"role":"user","content":"q2"}]}`
	assert.Equal(t, prefixOf(t, c1), prefixOf(t, c2))
	c3 := strings.Replace(c1, `"content":"sum"`, `"content":"sum2"`, 1)
	assert.NotEqual(t, prefixOf(t, c1), prefixOf(t, c3))
	// PrefixHashBefore(next, n) is the PrefixHash of the request that
	// produced message n.
	first := `{"system":"s","messages":[{"role":"user","content":"q"}],"stream":true}`
	next := `{"system":"s","messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"A"}]},{"role":"user","content":"q2"}],"max_tokens":9}`
	h, err := anthropic.PrefixHashBefore([]byte(next), 1)
	require.NoError(t, err)
	assert.Equal(t, prefixOf(t, first), h)
	for _, bad := range []string{`[]`, `{"messages":{}}`, `{"messages":[]`, strings.Repeat("[", 20000) + strings.Repeat("]", 20000)} {
		_, err := anthropic.PrefixHash([]byte(bad))
		assert.ErrorIs(t, err, replay.ErrMalformed, bad[:min(len(bad), 20)])
	}
	_, err = anthropic.PrefixHashBefore([]byte(next), 4)
	assert.ErrorIs(t, err, replay.ErrMalformed)
}

func signed(sig string) *replay.ReasoningText {
	return &replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: formats.AnthropicClaude}, Text: "t " + sig, Signature: replay.Some(sig)}
}

func claudeTurn(blocks ...replay.Block) *replay.Turn {
	return &replay.Turn{Provenance: replay.Provenance{API: "anthropic", Provider: "anthropic", Model: "claude-fable-5-1"}, Complete: true, Blocks: blocks}
}

// chainTarget enforces binding: an account created after the date.
var chainTarget = replay.Target{API: "anthropic", Provider: "anthropic", Model: "claude-fable-5-1", AccountCreated: time.Date(2026, 9, 3, 0, 0, 0, 0, time.UTC)}

func TestChainRules(t *testing.T) {
	A, B, C, D := signed("QQ=="), signed("Qg=="), signed("Qw=="), signed("RA==")
	call := &replay.ToolCall{ID: "toolu_1", Name: "f", Arguments: "{}"}
	full := func() []replay.Block { return []replay.Block{A, call, B, C, D} }
	chain := audit
	for name, keep := range map[string][]int{
		"all":             {0, 2, 3, 4},
		"drop from start": {3, 4},
		"drop from end":   {0, 2},
		"drop all":        {},
	} {
		tu := claudeTurn(full()...)
		var bs []replay.Block
		for i, b := range tu.Blocks {
			if _, ok := b.(*replay.ReasoningText); !ok {
				bs = append(bs, b)
				continue
			}
			for _, k := range keep {
				if k == i {
					bs = append(bs, b)
				}
			}
		}
		tu.Blocks = bs
		assert.Empty(t, chain(t, anthropic.RuleChainBroken, replay.History{Turns: []*replay.Turn{tu}}, chainTarget), name)
	}
	// A gap in the middle: B is not sent, C follows A. Seen from a request
	// (the captured turn and the message sent).
	tu := claudeTurn(full()...)
	req := `{"model":"claude-fable-5-1","messages":[{"role":"user","content":"q"},{"role":"assistant","content":[` +
		`{"type":"thinking","thinking":"t QQ==","signature":"QQ=="},{"type":"tool_use","id":"toolu_1","name":"f","input":{}},` +
		`{"type":"thinking","thinking":"t Qw==","signature":"Qw=="},{"type":"thinking","thinking":"t RA==","signature":"RA=="}]}]}`
	vs := chain(t, anthropic.RuleChainBroken, replay.History{Turns: []*replay.Turn{tu}, Request: []byte(req), Pointers: []string{"/messages/1"}}, chainTarget)
	require.Len(t, vs, 1)
	assert.Equal(t, "/messages/1/content/2", vs[0].Pointer)
	assert.Equal(t, replay.SeverityReject, vs[0].Severity)
	assert.Equal(t, "a gap in the chain: the block before this one (turn 0, block 2) is not sent while an earlier one is: this block and every later one are invalid", vs[0].Message)
	assert.Equal(t, "messages.1.content.2: Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to \"drop_block\".", vs[0].Predicted)

	// Put back: turn 1 was produced while A was gone (its chain starts
	// empty... recorded as after nothing but A is sent before it).
	t1 := claudeTurn(A, call)
	t2 := claudeTurn(B)
	t2.Provenance.ChainHash = "sha256:" + strings.Repeat("0", 64) // produced after another block
	vs = chain(t, anthropic.RuleChainBroken, replay.History{Turns: []*replay.Turn{t1, t2}}, chainTarget)
	require.Len(t, vs, 1)
	assert.Equal(t, 1, vs[0].Turn)
	assert.Contains(t, vs[0].Message, "a removed block put back")
	// Bind records what turn 2 followed: A. Sent after A, clean.
	bindReq := `{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"t QQ==","signature":"QQ=="},{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}]}`
	require.NoError(t, anthropic.Bind(t2, []byte(bindReq)))
	assert.Empty(t, chain(t, anthropic.RuleChainBroken, replay.History{Turns: []*replay.Turn{t1, t2}}, chainTarget))
	// A gap across turns: A left out (unsigned), B was produced after it.
	t1b := claudeTurn(signed("Wg=="), A, call)
	t1b.Blocks[1] = &replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: formats.AnthropicClaude}, Signature: replay.Some("QQ==")}
	t1b.Blocks[1].(*replay.ReasoningText).Unfinished = true
	vs = chain(t, anthropic.RuleChainBroken, replay.History{Turns: []*replay.Turn{t1b, t2}}, chainTarget)
	require.Len(t, vs, 1)
	assert.Equal(t, 1, vs[0].Turn)
	assert.Equal(t, "a gap in the chain: the block before this one (turn 0, block 1) is not sent while an earlier one (turn 0, block 0) is: this block and every later one are invalid", vs[0].Message)
}

func TestPrefixSeverityByEnforcement(t *testing.T) {
	tu := claudeTurn(signed("QQ=="))
	tu.Provenance.PrefixHash = "sha256:aaaa"
	h := replay.History{Turns: []*replay.Turn{tu}}
	base := replay.Target{Model: "claude-fable-5-1", PrefixHash: "sha256:bbbb"}
	sev := func(tg replay.Target, h replay.History) []replay.Severity {
		var out []replay.Severity
		for _, v := range audit(t, anthropic.RulePrefixMismatch, h, tg) {
			out = append(out, v.Severity)
		}
		return out
	}
	newAcct, oldAcct := base, base
	newAcct.AccountCreated = time.Date(2026, 8, 31, 0, 0, 0, 0, time.UTC)
	oldAcct.AccountCreated = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	batch := oldAcct
	batch.Batch = true
	batch.AccountCreated = newAcct.AccountCreated
	assert.Equal(t, []replay.Severity{replay.SeverityRisk}, sev(base, h), "account age unknown")
	assert.Equal(t, []replay.Severity{replay.SeverityReject}, sev(newAcct, h), "created on the date")
	assert.Empty(t, sev(oldAcct, h), "older account, behaviour not set")
	assert.Equal(t, []replay.Severity{replay.SeverityDegrade}, sev(batch, h), "Batches drop")
	withReq := func(behaviour string) replay.History {
		return replay.History{Turns: h.Turns, Request: []byte(`{"thinking":{"type":"adaptive","block_binding":{"prefix_mismatch_behavior":"` + behaviour + `"}},"messages":[]}`)}
	}
	// With a request but no pointers, the Target's hash is compared.
	assert.Equal(t, []replay.Severity{replay.SeverityReject}, sev(oldAcct, withReq("error")), "explicit error")
	assert.Equal(t, []replay.Severity{replay.SeverityDegrade}, sev(newAcct, withReq("drop_block")), "drop_block: loss")
	// The beta sentence, when the headers are known and lack the beta.
	hdr := newAcct
	hdr.Headers = http.Header{"Anthropic-Beta": {"compact-2026-01-12"}}
	vs := audit(t, anthropic.RulePrefixMismatch, h, hdr)
	require.Len(t, vs, 1)
	assert.Equal(t, "Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to \"drop_block\". That setting requires the `thinking-binding-controls-2026-08-01` value in the `anthropic-beta` header.", vs[0].Predicted)
	hdr.Headers = http.Header{"Anthropic-Beta": {"compact-2026-01-12, thinking-binding-controls-2026-08-01"}}
	assert.NotContains(t, audit(t, anthropic.RulePrefixMismatch, h, hdr)[0].Predicted, "That setting requires")
	// Models that do not check; Mythos 5.1 records the mismatch on Bedrock
	// without acting on it.
	for _, tg := range []replay.Target{{Model: "claude-sonnet-5"}, {Model: "claude-opus-4-7"}, {Model: "claude-mythos-5-1", Provider: "bedrock"}} {
		tg.PrefixHash, tg.AccountCreated = newAcct.PrefixHash, newAcct.AccountCreated
		assert.Empty(t, sev(tg, h), tg.Model)
	}
	// Fable and Mythos 5.2, and Mythos 5.1 off Bedrock, check every account:
	// the account's age does not matter; drop_block and Batches still drop.
	for _, m := range []string{"claude-fable-5-2", "claude-mythos-5-2", "claude-mythos-5-1"} {
		for _, tg := range []replay.Target{base, oldAcct} {
			tg.Model = m
			assert.Equal(t, []replay.Severity{replay.SeverityReject}, sev(tg, h), m)
		}
		tg := newAcct
		tg.Model = m
		assert.Equal(t, []replay.Severity{replay.SeverityDegrade}, sev(tg, withReq("drop_block")), m)
		tg.Batch = true
		assert.Equal(t, []replay.Severity{replay.SeverityDegrade}, sev(tg, h), m)
	}
	tg := base
	tg.Model, tg.Provider = "claude-fable-5-2", "bedrock"
	assert.Equal(t, []replay.Severity{replay.SeverityReject}, sev(tg, h), "fable 5.2 on bedrock")
}

func TestBetaRequiredAndCompactionRules(t *testing.T) {
	req := []byte(`{"thinking":{"type":"adaptive","block_binding":{"prefix_mismatch_behavior":"drop_block"}},"context_management":{"edits":[{"type":"clear_tool_uses_20250919"},{"type":"clear_thinking_20251015"}]},"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"compaction","content":"sum"},{"type":"compaction","content":"s2","signature":"c2ln"}]}]}`)
	tg := replay.Target{Headers: http.Header{}}
	vs := audit(t, anthropic.RuleBetaRequired, replay.History{Request: req}, tg)
	require.Len(t, vs, 2)
	assert.Equal(t, "thinking.adaptive.block_binding.prefix_mismatch_behavior: Extra inputs are not permitted", vs[0].Predicted)
	assert.Equal(t, "messages.1.content.1: `signature` requires anthropic-beta: compact-2026-09-04", vs[1].Predicted)
	assert.Empty(t, audit(t, anthropic.RuleBetaRequired, replay.History{Request: req}, replay.Target{}), "headers unknown")
	tg.Headers.Set("anthropic-beta", "thinking-binding-controls-2026-08-01,compact-2026-09-04")
	assert.Empty(t, audit(t, anthropic.RuleBetaRequired, replay.History{Request: req}, tg))

	captured := claudeTurn(&replay.Compaction{Format: formats.AnthropicClaude, Content: replay.Some("s1"), Signature: replay.Some("c2ln")})
	vs = audit(t, anthropic.RuleCompaction, replay.History{Turns: []*replay.Turn{captured}, Request: req}, tg)
	var got []string
	for _, v := range vs {
		got = append(got, v.Pointer+" "+v.Predicted)
	}
	assert.Equal(t, []string{
		"/context_management/edits/1 context_management: `clear_thinking_20251015` must be the first strategy",
		"/messages/1/content/0 messages.1.content.0: a `compaction` block with `content` requires its `signature`",
		"/messages/1/content/1 messages.1.content.1: `compaction` block `content` does not match its `signature`",
	}, got)
	tg.Headers = nil
	vs = audit(t, anthropic.RuleCompaction, replay.History{Request: req}, tg)
	assert.Equal(t, "messages.1.content.0: `compaction` blocks require a `compact_20260112` strategy in `context_management.edits`.", vs[1].Predicted)
	ok := []byte(strings.Replace(string(req), `{"type":"clear_tool_uses_20250919"},{"type":"clear_thinking_20251015"}`, `{"type":"clear_thinking_20251015"},{"type":"compact_20260112"}`, 1))
	assert.Empty(t, audit(t, anthropic.RuleCompaction, replay.History{Request: ok}, tg))
	// A signed compaction block of another account.
	captured.Provenance.Account = "org-a"
	vs = audit(t, anthropic.RuleCompaction, replay.History{Turns: []*replay.Turn{captured}}, replay.Target{Account: "org-b"})
	require.Len(t, vs, 1)
	assert.Equal(t, `a signed compaction block minted by account "org-a" is sent as "org-b"`, vs[0].Message)
}

func TestSealedReorderAndLenientRequest(t *testing.T) {
	// LiteLLM's "prepend all thinking": the sealed turn's thinking moved
	// ahead of the server-tool blocks it followed.
	tu, err := anthropic.Codec{Provider: "anthropic"}.Decode([]byte(`{"type":"message","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"x"}},{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]},{"type":"thinking","thinking":"ok","signature":"U0lH"},{"type":"text","text":"done"}]}`))
	require.NoError(t, err)
	tu.Seal()
	assert.Empty(t, audit(t, anthropic.RuleThinkingModified, replay.History{Turns: []*replay.Turn{tu}}, replay.Target{}))
	moved := *tu
	moved.Blocks = []replay.Block{tu.Blocks[2], tu.Blocks[0], tu.Blocks[1], tu.Blocks[3]}
	vs := audit(t, anthropic.RuleThinkingModified, replay.History{Turns: []*replay.Turn{&moved}}, replay.Target{})
	require.Len(t, vs, 1)
	assert.Equal(t, 0, vs[0].Block)
	assert.Equal(t, "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.", vs[0].Predicted)

	// Missing required members: a violation with the 400, not unreadable input.
	body := []byte(`{"model":"claude-fable-5-1","messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":null,"signature":"U0lH"},{"type":"redacted_thinking"},{"type":"redacted_thinking","data":7},{"type":"text","text":"a"}]},{"role":"user","content":"next"}]}`)
	rep, err := replay.AuditRequest("anthropic", body)
	require.NoError(t, err)
	var got []string
	for _, v := range rep.Violations {
		if v.Rule == anthropic.RuleMissingSignature {
			got = append(got, v.Predicted)
		}
	}
	assert.Equal(t, []string{
		"messages.1.content.0.thinking.thinking: Input should be a valid string",
		"messages.1.content.1.redacted_thinking.data: Field required",
		"messages.1.content.2.redacted_thinking.data: Input should be a valid string",
	}, got)
}

func TestTextEditUnderIntactSignature(t *testing.T) {
	tu := toolTurn(t)
	th0 := tu.Blocks[0].(*replay.ReasoningText)
	content := `{"role":"assistant","content":[{"type":"thinking","thinking":"edited","signature":"` + th0.Signature.Value() + `"}]}`
	h := replay.History{Turns: []*replay.Turn{tu}, Request: []byte(reqPrefix + content + `,{"role":"user","content":"next"}]}`)}
	// Any byte difference fails, on every model (anthropic-sdk-python#1598):
	// the probes that saw edits accepted on Opus 5.5 and Sonnet 5 are not
	// the contract.
	for _, model := range []string{"claude-opus-5-5", "claude-sonnet-5", "claude-sonnet-4-6", "claude-fable-5-1", "claude-fable-5-2"} {
		vs := audit(t, anthropic.RuleThinkingModified, h, replay.Target{Model: model})
		require.Len(t, vs, 1, model)
		assert.Equal(t, replay.SeverityReject, vs[0].Severity, model)
		assert.Equal(t, "the thinking text differs from the captured one under the captured signature: any byte difference fails the check, on every model", vs[0].Message)
		assert.Equal(t, "messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.", vs[0].Predicted)
	}
}
