package anthropic_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// predictions lists each violation as "pointer predicted".
func predictions(vs []replay.Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Pointer+" "+v.Predicted)
	}
	return out
}

// body is a Messages request whose messages are msgs, joined.
func body(head string, msgs ...string) []byte {
	return []byte(`{"model":"claude-opus-5-5","max_tokens":1024,` + head + `"messages":[` + strings.Join(msgs, ",") + `]}`)
}

const (
	user1    = `{"role":"user","content":"Tides for Brest?"}`
	user2    = `{"role":"user","content":"And Cherbourg?"}`
	toolUse1 = `{"type":"tool_use","id":"toolu_01","name":"tide_table","input":{"port":"Brest"}}`
	result1  = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"06:12"}]}`
)

func think(text, sig string) string {
	return `{"type":"thinking","thinking":"` + text + `","signature":"` + sig + `"}`
}

func assistant(blocks ...string) string {
	return `{"role":"assistant","content":[` + strings.Join(blocks, ",") + `]}`
}

// An omitted-display tool loop (Opus 5.5, Sonnet 5.5: empty signed thinking
// between tool calls) is never a violation by itself: decoded, encoded and
// audited as the next request, it is clean.
func TestOmittedDisplayBetweenToolsIsClean(t *testing.T) {
	for _, model := range []string{"claude-opus-5-5", "claude-sonnet-5-5"} {
		codec := anthropic.Codec{Provider: "anthropic"}
		tu, err := stream.Decode(strings.NewReader(string(read(t, "omitted-between-tools.sse"))), codec, stream.Options{})
		require.NoError(t, err)
		msg, err := codec.Encode(tu)
		require.NoError(t, err)
		req := `{"model":"` + model + `","max_tokens":1024,"thinking":{"type":"adaptive","display":"omitted"},"tools":[{"name":"tide_table","input_schema":{"type":"object"}}],"messages":[` +
			user1 + `,` + string(msg) + `,{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01Pm4Rz8Kd2Wx6Nb9Tq3Lc5V","content":"06:12"},` +
			`{"type":"tool_result","tool_use_id":"toolu_01Hs6Yv2Qn9Lk4Xd8Wb3Rt7M","content":"07:40"}]}]}`
		h, tg, err := codec.DecodeRequest([]byte(req))
		require.NoError(t, err)
		h.Turns = []*replay.Turn{tu}
		tg.Model, tg.Provider = model, "anthropic"
		rep := replay.AuditReplay(h, tg)
		assert.True(t, rep.Clean(), "%s: %v", model, rep.Err())
		assert.Equal(t, 2, rep.Signed, "the two empty blocks are signed items")
	}
}

func TestBlankAndEmptiedThinking(t *testing.T) {
	captured := &replay.Turn{Blocks: []replay.Block{
		&replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: "anthropic-claude-v1"}, Text: "Look it up.", Signature: replay.Some("c2lnMQ==")},
		&replay.ToolCall{ID: "toolu_01", Name: "tide_table", Arguments: `{"port":"Brest"}`},
	}}
	omitted := &replay.Turn{Blocks: []replay.Block{
		&replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: "anthropic-claude-v1"}, Text: "", Signature: replay.Some("c2lnMg==")},
		&replay.Text{Text: "06:12."},
	}}
	run := func(req []byte) []string {
		return predictions(audit(t, anthropic.RuleThinkingModified, replay.History{Turns: []*replay.Turn{captured, omitted}, Request: req}, replay.Target{}))
	}
	// An earlier message's thinking emptied under its signature.
	assert.Equal(t, []string{"/messages/1/content/0/thinking messages.1.content.0.thinking: each thinking block must contain thinking"},
		run(body("", user1, assistant(think("", "c2lnMQ=="), toolUse1), result1, assistant(think("", "c2lnMg=="), `{"type":"text","text":"06:12."}`), user2)))
	// White space only, in any message.
	assert.Equal(t, []string{"/messages/1/content/0/thinking messages.1.content.0.thinking: each thinking block must contain non-whitespace thinking"},
		run(body("", user1, assistant(think(`\n `, "c2lnMQ=="), toolUse1), result1, assistant(think("", "c2lnMg=="), `{"type":"text","text":"06:12."}`), user2)))
	// As captured: the earlier text kept, the omitted one empty.
	assert.Empty(t, run(body("", user1, assistant(think("Look it up.", "c2lnMQ=="), toolUse1), result1, assistant(think("", "c2lnMg=="), `{"type":"text","text":"06:12."}`), user2)))
	// An empty text under a signature nothing captured is not judged.
	assert.Empty(t, run(body("", user1, assistant(think("", "c2lnOQ=="), toolUse1), result1, assistant(think("", "c2lnMg=="), `{"type":"text","text":"06:12."}`), user2)))
}

func TestBlockMembers(t *testing.T) {
	req := body("", user1, assistant(`{"type":"thinking","thinking":"Look.","signature":"c2ln","cache_control":{"type":"ephemeral"}}`,
		`{"type":"redacted_thinking","data":"ZGF0YQ==","cache_control":{"type":"ephemeral"}}`,
		`{"type":"text","text":"06:12.","cache_control":{"type":"ephemeral"}}`), user2)
	assert.Equal(t, []string{
		"/messages/1/content/0/cache_control messages.1.content.0.thinking.cache_control: Extra inputs are not permitted",
		"/messages/1/content/1/cache_control messages.1.content.1.redacted_thinking.cache_control: Extra inputs are not permitted",
	}, predictions(audit(t, anthropic.RuleBlockMembers, replay.History{Request: req}, replay.Target{})))
	assert.Empty(t, audit(t, anthropic.RuleBlockMembers, replay.History{Request: body("", user1, assistant(think("Look.", "c2ln"), `{"type":"text","text":"06:12.","cache_control":{"type":"ephemeral"}}`), user2)}, replay.Target{}))
}

func TestBlockOrder(t *testing.T) {
	run := func(msgs ...string) []replay.Violation {
		return audit(t, anthropic.RuleBlockOrder, replay.History{Request: body("", msgs...)}, replay.Target{})
	}
	vs := run(user1, assistant(`{"type":"text","text":"Checking."}`, think("Look.", "c2ln"), toolUse1), result1)
	require.Len(t, vs, 1)
	assert.Equal(t, replay.SeverityReject, vs[0].Severity)
	assert.Equal(t, "messages.1.content.0: If an assistant message contains any thinking blocks, the first block must be `thinking` or `redacted_thinking`. Found `text`.", vs[0].Predicted)
	assert.Equal(t, "/messages/1/content/0/type", vs[0].Pointer)

	vs = run(user1, assistant(toolUse1, think("Look.", "c2ln"), `{"type":"text","text":"x"}`), result1)
	require.Len(t, vs, 1)
	assert.Equal(t, "messages.1.content.0: If an assistant message contains any thinking blocks, the first block must be `thinking` or `redacted_thinking`. Found `tool_use`.", vs[0].Predicted)

	vs = run(user1, assistant(think("Look.", "c2ln")), user2)
	assert.Equal(t, []string{"/messages/1/content/0 messages.1: The final block in an assistant message cannot be `thinking`."}, predictions(vs))
	vs = run(user1, assistant(think("Look.", "c2ln"), `{"type":"text","text":"x"}`, `{"type":"redacted_thinking","data":"ZGF0YQ=="}`), user2)
	assert.Equal(t, []string{"/messages/1/content/2 messages.1: The final block in an assistant message cannot be `redacted_thinking`."}, predictions(vs))

	// Adaptive thinking has answered with white-space text first: a risk.
	vs = run(user1, assistant(`{"type":"text","text":"\n\n"}`, think("4", "c2ln"), `{"type":"text","text":"2 + 2 = 4"}`), user2)
	require.Len(t, vs, 1)
	assert.Equal(t, replay.SeverityRisk, vs[0].Severity)

	for name, msgs := range map[string][]string{
		"thinking first":         {user1, assistant(think("Look.", "c2ln"), toolUse1), result1},
		"compaction first":       {user1, assistant(`{"type":"compaction","content":"sum","signature":"Y21w"}`, think("Look.", "c2ln"), `{"type":"text","text":"x"}`), user2},
		"no thinking":            {user1, assistant(`{"type":"text","text":"x"}`, toolUse1), result1},
		"string content":         {user1, `{"role":"assistant","content":"06:12."}`, user2},
		"thinking between tools": {user1, assistant(think("", "c2ln"), toolUse1, think("", "c2lu"), `{"type":"tool_use","id":"toolu_02","name":"t","input":{}}`), result1},
	} {
		assert.Empty(t, run(msgs...), name)
	}
	// Hosts' blocks are not judged by Claude's layout.
	assert.Empty(t, replay.ReplayContract{Rules: rules(t, anthropic.Codec{Provider: "minimax"}, anthropic.RuleBlockOrder)}.Audit(replay.History{Request: body("", user1, assistant(think("Look.", "c2ln")), user2)}, replay.Target{}).Violations)
}

func rules(t *testing.T, c anthropic.Codec, id string) []replay.Rule {
	for _, r := range c.Contract().Rules {
		if r.ID == id {
			return []replay.Rule{r}
		}
	}
	t.Fatalf("no rule %s", id)
	return nil
}

func TestSystemPosition(t *testing.T) {
	sys := `{"role":"system","content":"Answer in French."}`
	vs := audit(t, anthropic.RuleSystemPosition, replay.History{Request: body("", user1, `{"role":"assistant","content":"06:12."}`, sys, user2)}, replay.Target{})
	assert.Equal(t, []string{"/messages/2 messages.2: role 'system' must precede an 'assistant' message or end the array"}, predictions(vs))
	for name, msgs := range map[string][]string{
		"before an assistant message": {user1, sys, `{"role":"assistant","content":"06:12."}`, user2},
		"last":                        {user1, `{"role":"assistant","content":"06:12."}`, user2, sys},
	} {
		assert.Empty(t, audit(t, anthropic.RuleSystemPosition, replay.History{Request: body("", msgs...)}, replay.Target{}), name)
	}
}

func TestThinkingType(t *testing.T) {
	full := func(typ string) string {
		return `"thinking.type.` + typ + `" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`
	}
	for _, c := range []struct{ model, typ, want string }{
		{"claude-opus-5-5", "enabled", full("enabled")},
		{"claude-opus-5-5", "disabled", full("disabled")},
		{"claude-opus-4-7", "enabled", full("enabled")},
		{"claude-sonnet-5-5", "disabled", `"thinking.type.disabled" is not supported for this model.`},
		{"claude-sonnet-5-5", "enabled", full("enabled")},
		{"claude-fable-5-2", "disabled", `"thinking.type.disabled" is not supported for this model.`},
		{"claude-haiku-5-5", "enabled", full("enabled")},
		{"claude-sonnet-4-5", "adaptive", ""},
	} {
		vs := audit(t, anthropic.RuleThinkingType, replay.History{Request: body(`"thinking":{"type":"`+c.typ+`"},`, user1)}, replay.Target{Model: c.model})
		require.Len(t, vs, 1, c.model+" "+c.typ)
		assert.Equal(t, c.want, vs[0].Predicted, c.model+" "+c.typ)
		assert.Equal(t, "/thinking/type", vs[0].Pointer)
	}
	vs := audit(t, anthropic.RuleThinkingType, replay.History{Request: body(`"thinking":{"type":"disabled"},`, user1)}, replay.Target{Model: "claude-sonnet-5-5"})
	assert.Contains(t, vs[0].Fix, "between_tools")
	for _, c := range []struct{ model, typ string }{
		{"claude-sonnet-5-5", "between_tools"}, {"claude-sonnet-5-5", "adaptive"}, {"claude-opus-5-5", "adaptive"},
		{"claude-sonnet-5", "disabled"}, {"claude-sonnet-4-6", "enabled"}, {"claude-sonnet-4-5", "enabled"}, {"claude-haiku-4-5", "disabled"},
		{"MiniMax-M3", "enabled"},
	} {
		assert.Empty(t, audit(t, anthropic.RuleThinkingType, replay.History{Request: body(`"thinking":{"type":"`+c.typ+`"},`, user1)}, replay.Target{Model: c.model}), c.model+" "+c.typ)
	}
	// A host's model names are not Claude's.
	assert.Empty(t, replay.ReplayContract{Rules: rules(t, anthropic.Codec{Provider: "deepseek"}, anthropic.RuleThinkingType)}.Audit(replay.History{Request: body(`"thinking":{"type":"enabled"},`, user1)}, replay.Target{Model: "claude-opus-5-5"}).Violations)
}

func TestBlockBindingModels(t *testing.T) {
	req := func(typ string) []byte {
		return body(`"thinking":{"type":"`+typ+`","block_binding":{"prefix_mismatch_behavior":"drop_block"}},`, user1)
	}
	for _, c := range []struct{ model, typ, want string }{
		{"claude-sonnet-5", "adaptive", "thinking.adaptive.block_binding.prefix_mismatch_behavior: Extra inputs are not permitted"},
		{"claude-haiku-4-5", "enabled", "thinking.enabled.block_binding.prefix_mismatch_behavior: Extra inputs are not permitted"},
	} {
		vs := audit(t, anthropic.RuleBetaRequired, replay.History{Request: req(c.typ)}, replay.Target{Model: c.model})
		assert.Equal(t, []string{"/thinking/block_binding " + c.want}, predictions(vs), c.model)
	}
	for _, m := range []string{"claude-fable-5-1", "claude-fable-5-2", "claude-mythos-5-1", "claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5"} {
		assert.Empty(t, audit(t, anthropic.RuleBetaRequired, replay.History{Request: req("adaptive")}, replay.Target{Model: m}), m)
	}
	// The header does not arrive: refused on a model that takes the member.
	vs := audit(t, anthropic.RuleBetaRequired, replay.History{Request: req("adaptive")},
		replay.Target{Model: "claude-fable-5-1", Headers: http.Header{"Anthropic-Version": {"2023-06-01"}}})
	assert.Equal(t, []string{"/thinking/block_binding thinking.adaptive.block_binding.prefix_mismatch_behavior: Extra inputs are not permitted"}, predictions(vs))
}

func TestClientVersion(t *testing.T) {
	ua := func(v string) http.Header { return http.Header{"User-Agent": {"claude-cli/" + v + " (external, cli)"}} }
	vs := audit(t, anthropic.RuleClientVersion, replay.History{Request: body("", user1)}, replay.Target{Model: "claude-fable-5-2", Headers: ua("2.1.300")})
	require.Len(t, vs, 1)
	assert.Equal(t, "Claude Code 2.1.300 does not support this model; version 2.1.321 or newer is required. Run 'claude update', or update the Claude desktop app, then try again.", vs[0].Predicted)
	vs = audit(t, anthropic.RuleClientVersion, replay.History{Request: body("", user1)}, replay.Target{Model: "claude-fable-5-1", Headers: ua("2.1.236")})
	require.Len(t, vs, 1)
	assert.Equal(t, "Claude Code 2.1.236 does not support this model; version 2.1.251 or newer is required. Run 'claude update', or update the Claude desktop app, then try again.", vs[0].Predicted)
	for name, tg := range map[string]replay.Target{
		"new enough":      {Model: "claude-fable-5-2", Headers: ua("2.1.321")},
		"newer":           {Model: "claude-fable-5-1", Headers: ua("2.2.0")},
		"no gate known":   {Model: "claude-opus-5-5", Headers: ua("2.0.1")},
		"another client":  {Model: "claude-fable-5-2", Headers: http.Header{"User-Agent": {"anthropic-sdk-go/1.30"}}},
		"headers unknown": {Model: "claude-fable-5-2"},
	} {
		assert.Empty(t, audit(t, anthropic.RuleClientVersion, replay.History{Request: body("", user1)}, tg), name)
	}
}

// MiniMax's /anthropic takes a tool turn without thinking (the loss is
// silent) and DeepSeek's answers with its own text: the Messages API's
// thinking-first text is predicted for neither.
func TestThinkingFirstIsClaudes(t *testing.T) {
	req := body(`"thinking":{"type":"enabled","budget_tokens":2048},`, user1, assistant(toolUse1), result1)
	for _, p := range []string{"minimax", "deepseek"} {
		assert.Empty(t, replay.ReplayContract{Rules: rules(t, anthropic.Codec{Provider: p}, anthropic.RuleThinkingFirst)}.Audit(replay.History{Request: req}, replay.Target{Thinking: true}).Violations, p)
	}
	for _, p := range []string{"anthropic", "kimi"} {
		assert.Len(t, replay.ReplayContract{Rules: rules(t, anthropic.Codec{Provider: p}, anthropic.RuleThinkingFirst)}.Audit(replay.History{Request: req}, replay.Target{Thinking: true}).Violations, 1, p)
	}
}

// The Claude facts of November 2026 that drop thinking silently: the audit
// reports them as anthropic/unread-thinking (degrade), Carry drops them.
func TestUnreadNovember(t *testing.T) {
	turn := func(model, provider, account string) *replay.Turn {
		tu := claudeTurn(signed("c2lnMQ=="))
		tu.Provenance.Model, tu.Provenance.Provider, tu.Provenance.Account = model, provider, account
		return tu
	}
	for _, c := range []struct {
		name string
		tu   *replay.Turn
		tg   replay.Target
		want string
	}{
		{"fable 5.2 to fable 5.1", turn("claude-fable-5-2", "anthropic", ""), replay.Target{Model: "claude-fable-5-1", Provider: "anthropic"},
			"only Fable 5.2 and Mythos 5.2 read claude-fable-5-2 thinking blocks; claude-fable-5-1 drops them: the API drops the turn's thinking without an error"},
		{"opus 5.5 to haiku 5.5", turn("claude-opus-5-5", "anthropic", ""), replay.Target{Model: "claude-haiku-5-5", Provider: "anthropic"},
			"claude-haiku-5-5 drops thinking blocks of another model (claude-opus-5-5) as model_binding_mismatch: the API drops the turn's thinking without an error"},
		{"claude code to bedrock", turn("claude-opus-5-5", "claude-code", ""), replay.Target{Model: "claude-opus-5-5", Provider: "bedrock"},
			"Bedrock's organisation check removes thinking blocks minted in a Claude app (claude-code): the API drops the turn's thinking without an error"},
		{"another aws account", turn("claude-fable-5-1", "bedrock", "111122223333"), replay.Target{Model: "claude-fable-5-1", Provider: "bedrock", Account: "444455556666"},
			"Bedrock's organisation check removes thinking blocks minted by another AWS account (111122223333, not 444455556666): the API drops the turn's thinking without an error"},
	} {
		codec := anthropic.Codec{Provider: c.tg.Provider}
		vs := replay.ReplayContract{Rules: rules(t, codec, anthropic.RuleUnread)}.Audit(replay.History{Turns: []*replay.Turn{c.tu}}, c.tg).Violations
		require.Len(t, vs, 1, c.name)
		assert.Equal(t, replay.SeverityDegrade, vs[0].Severity, c.name)
		assert.Equal(t, c.want, vs[0].Message, c.name)
		_, notices := replay.Carry(replay.History{Turns: []*replay.Turn{c.tu}}, replay.Target{API: "anthropic", Provider: c.tg.Provider, Model: c.tg.Model, Account: c.tg.Account}, nil)
		require.NotEmpty(t, notices, c.name)
		assert.Equal(t, replay.CaseUnread, notices[0].Case, c.name)
		assert.Equal(t, replay.Drop, notices[0].Action, c.name)
	}
	for name, c := range map[string]struct {
		tu *replay.Turn
		tg replay.Target
	}{
		"fable 5.2 to mythos 5.2":  {turn("claude-fable-5-2", "anthropic", ""), replay.Target{Model: "claude-mythos-5-2", Provider: "anthropic"}},
		"haiku 5.5 to opus 5.5":    {turn("claude-haiku-5-5", "anthropic", ""), replay.Target{Model: "claude-opus-5-5", Provider: "anthropic"}},
		"claude code to the api":   {turn("claude-opus-5-5", "claude-code", ""), replay.Target{Model: "claude-opus-5-5", Provider: "anthropic"}},
		"the same aws account":     {turn("claude-fable-5-1", "bedrock", "111122223333"), replay.Target{Model: "claude-fable-5-1", Provider: "bedrock", Account: "111122223333"}},
		"another account, the api": {turn("claude-fable-5-1", "anthropic", "org-a"), replay.Target{Model: "claude-fable-5-1", Provider: "anthropic", Account: "org-b"}},
	} {
		codec := anthropic.Codec{Provider: c.tg.Provider}
		assert.Empty(t, replay.ReplayContract{Rules: rules(t, codec, anthropic.RuleUnread)}.Audit(replay.History{Turns: []*replay.Turn{c.tu}}, c.tg).Violations, name)
	}
}
