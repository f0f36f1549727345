package bedrock_test

import (
	"errors"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/bedrock"
	"github.com/reasonreplay/replay/formats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// converseRequest builds a Converse request (CLI input form, with modelId)
// whose assistant messages are the response messages of two fixtures:
// a signed Claude answer, then a Claude tool turn (redactedContent, toolUse).
func converseRequest(t *testing.T, model string) []byte {
	t.Helper()
	answer := gjson.GetBytes(read(t, "claude-thinking.json"), "output.message").Raw
	tool := gjson.GetBytes(read(t, "redacted-tool-use.json"), "output.message").Raw
	require.NotEmpty(t, answer)
	require.NotEmpty(t, tool)
	return []byte(`{"modelId":"` + model + `","additionalModelRequestFields":{"thinking":{"type":"enabled","budget_tokens":2048}},` +
		`"toolConfig":{"tools":[{"toolSpec":{"name":"lookup_order","inputSchema":{"json":{"type":"object"}}}}]},"messages":[` +
		`{"role":"user","content":[{"text":"What is the capital of France?"}]},` + answer + `,` +
		`{"role":"user","content":[{"text":"And my order A-1042?"}]},` + tool + `,` +
		`{"role":"user","content":[{"toolResult":{"toolUseId":"call_0b5f2a7e9c3d41d8","content":[{"text":"shipped"}]}}]}]}`)
}

func TestAuditRequest(t *testing.T) {
	body := converseRequest(t, claude)
	r, err := replay.AuditRequest(bedrock.API, body)
	require.NoError(t, err)
	assert.True(t, r.Clean(), "%v", r.Err())
	assert.Equal(t, 2, r.Turns)
	assert.Equal(t, 2, r.Items)
	assert.Equal(t, 1, r.Signed)
	assert.Equal(t, map[replay.Format]int{formats.AnthropicClaude: 2}, r.Formats)
	assert.Equal(t, claude, r.Target.Model)
	assert.True(t, r.Target.Thinking)
	assert.True(t, r.Target.Tools)

	h, tg, err := bedrock.Codec{}.DecodeRequest(body)
	require.NoError(t, err)
	assert.Equal(t, []string{"/messages/1", "/messages/3"}, h.Pointers)
	assert.Equal(t, claude, tg.Model)
	sig := gjson.GetBytes(read(t, "claude-thinking.json"), "output.message.content.0.reasoningContent.reasoningText.signature").String()
	require.IsType(t, &replay.ReasoningText{}, h.Turns[0].Blocks[0])
	assert.Equal(t, replay.Some(sig), h.Turns[0].Blocks[0].(*replay.ReasoningText).Signature)
	data := gjson.GetBytes(read(t, "redacted-tool-use.json"), "output.message.content.0.reasoningContent.redactedContent").String()
	require.IsType(t, &replay.Encrypted{}, h.Turns[1].Blocks[0])
	assert.Equal(t, data, h.Turns[1].Blocks[0].(*replay.Encrypted).Data)
	assert.Equal(t, "call_0b5f2a7e9c3d41d8", h.Turns[1].Blocks[1].(*replay.ToolCall).ID)

	// The request builder dropped the redactedContent of the tool turn.
	broken, err := sjson.DeleteBytes(body, "messages.3.content.0")
	require.NoError(t, err)
	r, err = replay.AuditRequest(bedrock.API, broken)
	require.NoError(t, err)
	require.Len(t, r.Violations, 1)
	v := r.Violations[0]
	assert.Equal(t, bedrock.API+"/thinking-first", v.Rule)
	assert.Equal(t, "/messages/3", v.Pointer)
	assert.Equal(t, "ValidationException: The model returned the following errors: messages.N.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block", v.Predicted)
	assert.True(t, r.Rejects())

	// Without thinking on, the same history is accepted.
	off, err := sjson.DeleteBytes(broken, "additionalModelRequestFields")
	require.NoError(t, err)
	r, err = replay.AuditRequest(bedrock.API, off)
	require.NoError(t, err)
	assert.True(t, r.Clean(), "%v", r.Err())

	// An assistant message with every block removed.
	empty, err := sjson.SetRawBytes(body, "messages.1.content", []byte(`[]`))
	require.NoError(t, err)
	r, err = replay.AuditRequest(bedrock.API, empty)
	require.NoError(t, err)
	require.Len(t, r.Violations, 1)
	assert.Equal(t, bedrock.API+"/empty-content", r.Violations[0].Rule)
	assert.Equal(t, "/messages/1", r.Violations[0].Pointer)
}

func TestAuditRequestModel(t *testing.T) {
	// The HTTP body names no model: a Qwen turn then reads as unknown
	// reasoning, and no Claude rule applies.
	qwenMsg := gjson.GetBytes(read(t, "qwen-unsigned.json"), "output.message").Raw
	body := []byte(`{"messages":[{"role":"user","content":[{"text":"Hi"}]},` + qwenMsg + `]}`)
	r, err := replay.AuditRequest(bedrock.API, body)
	require.NoError(t, err)
	assert.True(t, r.Clean(), "%v", r.Err())
	assert.Equal(t, map[replay.Format]int{replay.FormatUnknown: 1}, r.Formats)

	// The codec's model, when set, wins over the body's.
	h, tg, err := bedrock.Codec{Model: qwen}.DecodeRequest(body)
	require.NoError(t, err)
	assert.Equal(t, qwen, tg.Model)
	assert.Equal(t, formats.Qwen, h.Turns[0].Blocks[0].(*replay.ReasoningText).Format)

	// Kimi writes its reasoning in <think> tags: split as in responses.
	kimiMsg := gjson.GetBytes(read(t, "kimi-think-tags.json"), "output.message").Raw
	h, _, err = bedrock.Codec{}.DecodeRequest([]byte(`{"modelId":"` + kimi + `","messages":[` + kimiMsg + `]}`))
	require.NoError(t, err)
	require.Len(t, h.Turns[0].Blocks, 2)
	rt := h.Turns[0].Blocks[0].(*replay.ReasoningText)
	assert.Equal(t, formats.Kimi, rt.Format)
	assert.Equal(t, "Two apples plus three apples.", rt.Text)
}

func TestAuditRequestErrors(t *testing.T) {
	for _, body := range []string{`not json`, `[]`, `{"contents":[]}`,
		`{"messages":[{"role":"assistant","content":"a string"}]}`,
		`{"messages":[{"role":"assistant"}]}`} {
		_, err := replay.AuditRequest(bedrock.API, []byte(body))
		assert.True(t, errors.Is(err, replay.ErrMalformed), "%s: %v", body, err)
	}
	_, err := replay.AuditRequest(bedrock.API, []byte(`{"messages":[{"role":"user","content":[]},{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":5}}}]}]}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "/messages/1/content/0/reasoningContent/reasoningText/text: ")
}

// A last assistant message cut off before its signature or its tool input
// reads as an unfinished turn: the core rules fire. The same message
// complete reads clean.
func TestAuditRequestCutTurn(t *testing.T) {
	const head = `{"modelId":"` + claude + `","messages":[{"role":"user","content":[{"text":"Hi"}]},{"role":"assistant","content":[`
	complete := head + `{"reasoningContent":{"reasoningText":{"text":"Look it up.","signature":"c2lnLTE="}}},{"toolUse":{"toolUseId":"t1","name":"lookup","input":{"q":"x"}}}]}]}`
	r, err := replay.AuditRequest(bedrock.API, []byte(complete))
	require.NoError(t, err)
	assert.True(t, r.Clean(), "%v", r.Err())

	for name, body := range map[string]string{
		"no signature": head + `{"reasoningContent":{"reasoningText":{"text":"Look it up."}}},{"toolUse":{"toolUseId":"t1","name":"lookup","input":{"q":"x"}}}]}]}`,
		"no input":     head + `{"reasoningContent":{"reasoningText":{"text":"Look it up.","signature":"c2lnLTE="}}},{"toolUse":{"toolUseId":"t1","name":"lookup"}}]}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			h, _, err := bedrock.Codec{}.DecodeRequest([]byte(body))
			require.NoError(t, err)
			require.Len(t, h.Turns, 1)
			assert.False(t, h.Turns[0].Complete)
			r, err := replay.AuditRequest(bedrock.API, []byte(body))
			require.NoError(t, err)
			assert.Contains(t, ruleIDs(r), "replay/incomplete-turn")
		})
	}
	// Only the last assistant message can be cut: an earlier one without a
	// tool input reads as `{}`, as in a response.
	earlier := head + `{"toolUse":{"toolUseId":"t0","name":"lookup"}}]},{"role":"user","content":[{"text":"more"}]},{"role":"assistant","content":[{"text":"ok"}]}]}`
	h, _, err := bedrock.Codec{}.DecodeRequest([]byte(earlier))
	require.NoError(t, err)
	assert.True(t, h.Turns[0].Complete)
	assert.Equal(t, "{}", h.Turns[0].Blocks[0].(*replay.ToolCall).Arguments)
}

func ruleIDs(r replay.Report) []string {
	var out []string
	for _, v := range r.Violations {
		out = append(out, v.Rule)
	}
	return out
}

// In a request, a reasoningContent block that lost everything it carried
// (its redactedContent deleted) is a damaged reasoning item, not a block
// of another shape: the audit judges it and a store can put it back. In a
// response, a reasoningContent of an unknown shape is still kept verbatim.
func TestDecodeRequestEmptiedReasoningContent(t *testing.T) {
	body := []byte(`{"modelId":"` + claude + `","messages":[{"role":"user","content":[{"text":"Hi"}]},` +
		`{"role":"assistant","content":[{"reasoningContent":{}},{"text":"Done."}]},{"role":"user","content":[{"text":"Thanks."}]}]}`)
	h, _, err := bedrock.Codec{}.DecodeRequest(body)
	require.NoError(t, err)
	require.Len(t, h.Turns, 1)
	enc, ok := h.Turns[0].Blocks[0].(*replay.Encrypted)
	require.True(t, ok, "%T", h.Turns[0].Blocks[0])
	assert.Equal(t, "", enc.Data)
	assert.Equal(t, formats.AnthropicClaude, enc.Format)
	assert.True(t, enc.Unfinished)
	assert.False(t, enc.Replayable())
	r, err := replay.AuditRequest(bedrock.API, body)
	require.NoError(t, err)
	require.True(t, r.Rejects())
	var rules []string
	for _, v := range r.Violations {
		rules = append(rules, v.Rule)
	}
	assert.Contains(t, rules, replay.RuleUnfinishedItem)

	tu, err := bedrock.Codec{Model: claude}.Decode([]byte(`{"output":{"message":{"role":"assistant","content":[{"reasoningContent":{}},{"text":"Done."}]}},"stopReason":"end_turn"}`))
	require.NoError(t, err)
	nat, ok := tu.Blocks[0].(*replay.Native)
	require.True(t, ok, "%T", tu.Blocks[0])
	assert.Equal(t, `{"reasoningContent":{}}`, string(nat.Raw))
}
