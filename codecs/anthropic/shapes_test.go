package anthropic_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/schema"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sweepAs sweeps a fixture through the stream decoder of a provider, checks
// its golden document, the schema and the document round trip.
func sweepAs(t *testing.T, provider, name string) *replay.Turn {
	t.Helper()
	res := codectest.SweepStream(t, func() codecs.FrameDecoder { return anthropic.Codec{Provider: provider}.NewFrameDecoder() },
		stream.Options{}, read(t, name))
	require.NoError(t, res.Err)
	doc := res.Document()
	codectest.Golden(t, filepath.Join(dir, "golden", strings.TrimSuffix(name, ".sse")+".turn.json"), doc)
	require.NoError(t, schema.Validate(schema.Turn, doc))
	codectest.RoundTripDocument(t, res.Turn)
	return res.Turn
}

func TestStreamCompactionThreshold(t *testing.T) {
	tu := sweepAs(t, "anthropic", "compaction-threshold.sse")
	require.Len(t, tu.Blocks, 2)
	x, ok := tu.Blocks[0].(*replay.Compaction)
	require.True(t, ok, "%T", tu.Blocks[0])
	assert.Equal(t, formats.AnthropicClaude, x.Format)
	assert.Equal(t, `Summary of the conversation: the user is building a web scraper in Go; "retry" logic is done.`, x.Content.Value())
	assert.Equal(t, replay.Absent, x.Signature.Presence(), "threshold compaction is unsigned")
	msg, err := anthropic.Codec{}.Encode(tu)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"assistant","content":[{"type":"compaction","content":"Summary of the conversation: the user is building a web scraper in Go; \"retry\" logic is done."},{"type":"text","text":"Based on our conversation so far, next is rate limiting."}]}`, string(msg))
}

func TestStreamCompactionSigned(t *testing.T) {
	tu := sweepAs(t, "anthropic", "compaction-signed.sse")
	x := tu.Blocks[0].(*replay.Compaction)
	assert.Equal(t, "Q21wU2lnAQ+/xy9Zz==", x.Signature.Value(), "signature pieces appended byte-exact")
	assert.Equal(t, "compaction", tu.FinishReason)
	// Signed compaction goes first, whatever the order in the turn.
	moved := &replay.Turn{Provenance: tu.Provenance, Complete: true, Blocks: []replay.Block{&replay.Text{Text: "ok"}, x}}
	msg, err := anthropic.Codec{}.Encode(moved)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"assistant","content":[{"type":"compaction","content":"Earlier: three files read, the parser fixed, tests green.","signature":"Q21wU2lnAQ+/xy9Zz=="},{"type":"text","text":"ok"}]}`, string(msg))
	// Never to a DeepSeek host, never from another API.
	msg, err = anthropic.Codec{Provider: "deepseek"}.Encode(moved)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"assistant","content":[{"type":"text","text":"ok"}]}`, string(msg))
}

func TestStreamTransformationsAndFallback(t *testing.T) {
	tu := sweepAs(t, "anthropic", "transformations-fallback.sse")
	assert.Equal(t, "claude-opus-5-5", tu.Provenance.Model, "the model that minted the thinking")
	assert.Equal(t, "claude-fable-5-1", tu.Provenance.RequestedModel)
	require.Len(t, tu.Transformations, 2, "the final message_delta's list replaces message_start's")
	assert.Equal(t, replay.Transformation{Type: "thinking_dropped", Reason: "model_binding_mismatch", Path: "messages.5.content.0"}, tu.Transformations[1])
	// Policy uses the serving model: Opus 5.5 thinking is not read by Fable
	// 5.1 on Bedrock, so Carry drops it with a notice.
	out, notes := replay.Carry(replay.History{Turns: []*replay.Turn{tu}}, replay.Target{API: "anthropic", Provider: "bedrock", Model: "claude-fable-5-1"}, nil)
	require.Len(t, notes, 1)
	assert.Equal(t, replay.CaseUnread, notes[0].Case)
	assert.Equal(t, "claude-fable-5-1 reads claude-opus-5-5 thinking blocks only on the Claude API, not on bedrock", notes[0].Reason)
	for _, b := range out.Turns[0].Blocks {
		_, isItem := b.(replay.ReasoningItem)
		assert.False(t, isItem)
	}
	// The audit says the same, as silent loss.
	rep := replay.AuditReplay(replay.History{Turns: []*replay.Turn{tu}}, replay.Target{API: "anthropic", Provider: "bedrock", Model: "claude-fable-5-1"})
	var got []string
	for _, v := range rep.Violations {
		got = append(got, v.Rule+" "+string(v.Severity))
	}
	assert.Equal(t, []string{"anthropic/unread-thinking degrade"}, got)
}

func TestBodyTransformationsCompaction(t *testing.T) {
	body := `{"type":"message","model":"claude-fable-5-1","content":[{"type":"compaction","content":"sum","signature":"c2ln"},{"type":"text","text":"hi"}],"input_transformations":[{"type":"thinking_mismatch_allowed","path":"messages.1.content.0","reason":"end_user_binding_mismatch","note":"x"}],"stop_reason":"end_turn"}`
	tu, err := anthropic.Codec{Provider: "anthropic"}.Decode([]byte(body))
	require.NoError(t, err)
	require.Len(t, tu.Transformations, 1)
	assert.Equal(t, `{"note":"x"}`, string(tu.Transformations[0].Extra))
	assert.Equal(t, "c2ln", tu.Blocks[0].(*replay.Compaction).Signature.Value())
	_, err = anthropic.Codec{}.Decode([]byte(`{"type":"message","content":[],"input_transformations":{}}`))
	require.ErrorIs(t, err, replay.ErrMalformed)
	_, err = anthropic.Codec{}.Decode([]byte(`{"type":"message","content":[{"type":"compaction","content":1}]}`))
	require.ErrorIs(t, err, replay.ErrMalformed)
}

func TestHostFormats(t *testing.T) {
	ds := sweepAs(t, "deepseek", "deepseek-anthropic.sse")
	th := ds.Blocks[0].(*replay.ReasoningText)
	assert.Equal(t, formats.DeepSeekAnthropic, th.Format)
	assert.Equal(t, "5d0c2a7e-1f4b-4c3a-9e21-7b6f0d9a4c11", th.Signature.Value())
	mm := sweepAs(t, "minimax", "minimax-anthropic.sse")
	assert.Equal(t, formats.MiniMaxAnthropic, mm.Blocks[0].(*replay.ReasoningText).Format)
	for p, f := range map[string]replay.Format{"anthropic": formats.AnthropicClaude, "bedrock": formats.AnthropicClaude,
		"bedrock-mantle": formats.AnthropicClaude, "vertex": formats.AnthropicClaude, "": formats.AnthropicClaude,
		"kimi": formats.KimiAnthropic, "moonshot": formats.KimiAnthropic, "DeepSeek": formats.DeepSeekAnthropic, "some-proxy": replay.FormatUnknown} {
		assert.Equal(t, f, anthropic.Codec{Provider: p}.Format(), p)
	}
	// A DeepSeek signature never reaches Claude: Encode for Claude leaves
	// it out, Carry drops it, the audit rejects it.
	msg, err := anthropic.Codec{Provider: "anthropic"}.Encode(ds)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"assistant","content":[{"type":"tool_use","id":"call_00_Xq3","name":"get_weather","input":{"city":"Paris"}}]}`, string(msg))
	msg, err = anthropic.Codec{Provider: "deepseek"}.Encode(ds)
	require.NoError(t, err)
	assert.Contains(t, string(msg), `"signature":"5d0c2a7e-1f4b-4c3a-9e21-7b6f0d9a4c11"`)
	for _, p := range []string{"anthropic", "bedrock", "vertex"} {
		out, notes := replay.Carry(replay.History{Turns: []*replay.Turn{ds, mm}}, replay.Target{API: "anthropic", Provider: p, Model: "claude-opus-5-5"}, nil)
		require.Len(t, notes, 2, p)
		assert.Equal(t, replay.CaseForeignText, notes[0].Case, p)
		for _, tu := range out.Turns {
			assert.Empty(t, tu.Items(), p)
		}
		rep := replay.AuditReplay(replay.History{Turns: []*replay.Turn{ds, mm}}, replay.Target{API: "anthropic", Provider: p})
		require.True(t, rep.Rejects(), p)
		assert.Equal(t, "anthropic/foreign-signature", rep.Violations[0].Rule)
		assert.Equal(t, "Invalid `signature` in `thinking` block", rep.Violations[0].Predicted)
	}
	// MiniMax takes its own back.
	rep := replay.AuditReplay(replay.History{Turns: []*replay.Turn{mm}}, replay.Target{API: "anthropic", Provider: "minimax"})
	assert.True(t, rep.Clean(), "%v", rep.Err())
}

func TestDeepSeekHostThinkingRule(t *testing.T) {
	req := func(assistant string) []byte {
		return []byte(`{"model":"deepseek-v4-pro","thinking":{"type":"enabled","budget_tokens":1024},"messages":[{"role":"user","content":"weather?"},` + assistant + `,{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_00_Xq3","content":"sunny"}]}]}`)
	}
	rep, err := replay.Lookup("anthropic", "deepseek", "deepseek-v4-pro")
	require.NoError(t, err)
	rc := rep.Contract()
	var rule replay.Rule
	for _, r := range rc.Rules {
		if r.ID == anthropic.RuleHostThinking {
			rule = r
		}
	}
	bad := replay.ReplayContract{Rules: []replay.Rule{rule}}.Audit(replay.History{Request: req(`{"role":"assistant","content":[{"type":"tool_use","id":"call_00_Xq3","name":"get_weather","input":{"city":"Paris"}}]}`)}, replay.Target{})
	require.Len(t, bad.Violations, 1)
	assert.Equal(t, "The `content[].thinking` in the thinking mode must be passed back to the API.", bad.Violations[0].Predicted)
	assert.Equal(t, "/messages/1", bad.Violations[0].Pointer)
	good := replay.ReplayContract{Rules: []replay.Rule{rule}}.Audit(replay.History{Request: req(`{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"tool_use","id":"call_00_Xq3","name":"get_weather","input":{}}]}`)}, replay.Target{})
	assert.Empty(t, good.Violations)
	off := []byte(strings.Replace(string(req(`{"role":"assistant","content":"x"}`)), `"enabled","budget_tokens":1024`, `"disabled"`, 1))
	assert.Empty(t, replay.ReplayContract{Rules: []replay.Rule{rule}}.Audit(replay.History{Request: off}, replay.Target{}).Violations, "thinking disabled")
}

// TestDeepInputJSONDelta: a server_tool_use whose input_json_delta pieces
// assemble into JSON nested far deeper than the readers allow is kept as
// it came (not parsed into the block), with no stack overflow.
func TestDeepInputJSONDelta(t *testing.T) {
	const depth = 200000
	var b strings.Builder
	b.WriteString(`{"type":"message_start","message":{"model":"claude-fable-5-1"}}` + "\n")
	b.WriteString(`{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}` + "\n")
	for i := 0; i < depth/1000; i++ {
		b.WriteString(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"` + strings.Repeat("[", 1000) + `"}}` + "\n")
	}
	for i := 0; i < depth/1000; i++ {
		b.WriteString(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"` + strings.Repeat("]", 1000) + `"}}` + "\n")
	}
	b.WriteString(`{"type":"content_block_stop","index":0}` + "\n" + `{"type":"message_stop"}` + "\n")
	tu, err := stream.Decode(strings.NewReader(b.String()), anthropic.Codec{}, stream.Options{Framing: stream.FramingJSONL})
	require.NoError(t, err)
	n := tu.Blocks[0].(*replay.Native)
	assert.Equal(t, `{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}`, string(n.Raw), "too deep to set: the start's input is kept")
}

// Kimi's `/anthropic` endpoint streams unsigned thinking: its blocks are
// Kimi's format, kept for Kimi and never carried to Claude.
func TestKimiHost(t *testing.T) {
	tu := sweepAs(t, "kimi", "kimi-anthropic.sse")
	require.Len(t, tu.Blocks, 3)
	th := tu.Blocks[0].(*replay.ReasoningText)
	assert.Equal(t, formats.KimiAnthropic, th.Format)
	assert.Equal(t, "The user asks for the \"largest\" file in src/; list it first → then compare sizes.\n", th.Text)
	assert.False(t, th.Signature.IsPresent())
	assert.Equal(t, `{"path": "src/"}`, tu.Blocks[2].(*replay.ToolCall).Arguments)
	out, notes := replay.Carry(replay.History{Turns: []*replay.Turn{tu}}, replay.Target{API: "anthropic", Provider: "anthropic", Model: "claude-opus-5-5"}, nil)
	require.NotEmpty(t, notes)
	assert.Empty(t, out.Turns[0].Items())
}
