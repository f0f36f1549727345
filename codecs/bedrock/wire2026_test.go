package bedrock_test

import (
	"errors"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/bedrock"
	"github.com/reasonreplay/replay/formats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rulesOf returns the violations of one rule in an audit of body.
func rulesOf(t *testing.T, rule string, body []byte) []replay.Violation {
	t.Helper()
	r, err := replay.AuditRequest(bedrock.API, body)
	require.NoError(t, err)
	var out []replay.Violation
	for _, v := range r.Violations {
		if v.Rule == rule {
			out = append(out, v)
		}
	}
	return out
}

// A request's reasoningText.text: null is read (kept verbatim as a native
// reasoningContent block) and reported with Bedrock's validation text; a
// response never carries one and still reads as malformed.
func TestNullReasoningText(t *testing.T) {
	body := read(t, "claude-null-reasoning-text.request")
	h, _, err := bedrock.Codec{}.DecodeRequest(body)
	require.NoError(t, err)
	nat, ok := h.Turns[0].Blocks[0].(*replay.Native)
	require.True(t, ok, "%T", h.Turns[0].Blocks[0])
	assert.Equal(t, "reasoningContent", nat.Kind)
	assert.JSONEq(t, `{"reasoningContent":{"reasoningText":{"text":null,"signature":"EtQCCkYIDBgCKkDvbnVsbC10ZXh0LWZvci10ZXN0cy1vbmx5LXNpZ25lZA=="}}}`, string(nat.Raw))

	vs := rulesOf(t, bedrock.RuleReasoningMembers, body)
	require.Len(t, vs, 1)
	assert.Equal(t, "1 validation error detected: Value at 'messages.1.member.content.0.member.reasoningContent.reasoningText.text' failed to satisfy constraint: Member must not be null", vs[0].Predicted)
	assert.Equal(t, "/messages/1/content/0/reasoningContent", vs[0].Pointer)
	assert.Equal(t, replay.SeverityReject, vs[0].Severity)

	_, err = bedrock.Codec{}.Decode([]byte(`{"output":{"message":{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":null}}}]}},"stopReason":"end_turn"}`))
	assert.True(t, errors.Is(err, replay.ErrMalformed), "%v", err)
}

// gpt-oss reasoning sent as reasoningContent.text (a client's shape, not
// Converse's) is reported; sent as reasoningText it is not.
func TestFlattenedReasoningContent(t *testing.T) {
	body := read(t, "gpt-oss-flattened-reasoning.request")
	vs := rulesOf(t, bedrock.RuleReasoningMembers, body)
	require.Len(t, vs, 1)
	assert.Equal(t, "", vs[0].Predicted, "Bedrock's text for it is not known")
	assert.Equal(t, "/messages/1/content/0/reasoningContent", vs[0].Pointer)
	assert.Contains(t, vs[0].Message, "reasoningContent.text")

	ok := []byte(`{"modelId":"openai.gpt-oss-120b-1:0","messages":[{"role":"user","content":[{"text":"q"}]},` +
		`{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":"Look it up."}}},{"text":"Porto."}]},{"role":"user","content":[{"text":"thanks"}]}]}`)
	assert.Empty(t, rulesOf(t, bedrock.RuleReasoningMembers, ok))
	// A reasoningContent variant Converse may add later is kept and not judged.
	other := []byte(`{"modelId":"openai.gpt-oss-120b-1:0","messages":[{"role":"user","content":[{"text":"q"}]},` +
		`{"role":"assistant","content":[{"reasoningContent":{"reasoningSummary":{"text":"s"}}},{"text":"Porto."}]},{"role":"user","content":[{"text":"thanks"}]}]}`)
	assert.Empty(t, rulesOf(t, bedrock.RuleReasoningMembers, other))
}

// A turn of reasoning alone is the prefill error on Claude 5 and later, a
// risk elsewhere.
func TestReasoningOnlyByModel(t *testing.T) {
	body := func(model string) []byte {
		return []byte(`{"modelId":"` + model + `","messages":[{"role":"user","content":[{"text":"q"}]},` +
			`{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":"Look.","signature":"` + sig + `"}}}]},{"role":"user","content":[{"text":"go on"}]}]}`)
	}
	for model, want := range map[string]replay.Severity{
		"anthropic.claude-sonnet-5-v1:0":                replay.SeverityReject,
		"us.anthropic.claude-fable-5-1-v1:0":            replay.SeverityReject,
		"anthropic.claude-sonnet-5-5":                   replay.SeverityReject,
		"anthropic.claude-sonnet-4-5-20250929-v1:0":     replay.SeverityRisk,
		"anthropic.claude-3-7-sonnet-20250219-v1:0":     replay.SeverityRisk,
		"arn:aws:bedrock:us-east-1::foundation-model/x": replay.SeverityRisk,
	} {
		vs := rulesOf(t, bedrock.RuleReasoningOnly, body(model))
		require.Len(t, vs, 1, model)
		assert.Equal(t, want, vs[0].Severity, model)
		assert.Equal(t, "This model does not support assistant message prefill. The conversation must end with a user message.", vs[0].Predicted)
	}
}

func TestBlockOrderOnClaude(t *testing.T) {
	msg := func(model string, content string) []byte {
		return []byte(`{"modelId":"` + model + `","messages":[{"role":"user","content":[{"text":"q"}]},{"role":"assistant","content":[` + content +
			`]},{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_1","content":[{"text":"Porto"}]}}]}]}`)
	}
	reasoning := `{"reasoningContent":{"reasoningText":{"text":"Look.","signature":"` + sig + `"}}}`
	call := `{"toolUse":{"toolUseId":"tooluse_1","name":"lookup_order","input":{}}}`
	claude := "anthropic.claude-sonnet-4-5-20250929-v1:0"
	for content, found := range map[string]string{
		`{"text":"Checking."},` + reasoning + `,` + call: "text",
		call + `,` + reasoning:                           "tool_use",
	} {
		vs := rulesOf(t, bedrock.RuleBlockOrder, msg(claude, content))
		require.Len(t, vs, 1, content)
		assert.Equal(t, "ValidationException: The model returned the following errors: messages.1.content.0: If an assistant message contains any thinking blocks, the first block must be `thinking` or `redacted_thinking`. Found `"+found+"`.", vs[0].Predicted)
	}
	for name, body := range map[string][]byte{
		"reasoning first":       msg(claude, reasoning+`,{"text":"Checking."},`+call),
		"redacted first":        msg(claude, `{"reasoningContent":{"redactedContent":"ZGF0YQ=="}},`+call),
		"no reasoning":          msg(claude, `{"text":"Checking."},`+call),
		"not claude":            msg("qwen.qwen3-32b-v1:0", `{"text":"Checking."},{"reasoningContent":{"reasoningText":{"text":"Look."}}},`+call),
		"omitted display first": read(t, "claude-null-reasoning-text.request"),
	} {
		assert.Empty(t, rulesOf(t, bedrock.RuleBlockOrder, body), name)
	}
}

// Under an omitted display Claude's reasoningText comes back with an empty
// text and its signature: decoded as a signed item, encoded back as it came,
// and never a violation by itself.
func TestOmittedReasoningText(t *testing.T) {
	codec := bedrock.Codec{Model: "anthropic.claude-sonnet-5-v1:0"}
	tu, err := codec.Decode(read(t, "claude-omitted-reasoning.json"))
	require.NoError(t, err)
	rt := tu.Blocks[0].(*replay.ReasoningText)
	assert.Equal(t, "", rt.Text)
	assert.Equal(t, "EvMBCkYIDBgCKkDvbWl0dGVkLWRpc3BsYXktZm9yLXRlc3RzLW9ubHk=", rt.Signature.Value())
	assert.Equal(t, formats.AnthropicClaude, rt.Format)
	msg, err := codec.Encode(tu)
	require.NoError(t, err)
	assert.JSONEq(t, `{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":"","signature":"EvMBCkYIDBgCKkDvbWl0dGVkLWRpc3BsYXktZm9yLXRlc3RzLW9ubHk="}}},`+
		`{"toolUse":{"toolUseId":"tooluse_2Hn6vB8","name":"lookup_order","input":{"id":"B-2210"}}}]}`, string(msg))
	req := `{"modelId":"anthropic.claude-sonnet-5-v1:0","additionalModelRequestFields":{"thinking":{"type":"adaptive"}},` +
		`"toolConfig":{"tools":[{"toolSpec":{"name":"lookup_order","inputSchema":{"json":{"type":"object"}}}}]},"messages":[{"role":"user","content":[{"text":"q"}]},` +
		string(msg) + `,{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_2Hn6vB8","content":[{"text":"Porto"}]}}]}]}`
	r, err := replay.AuditRequest(bedrock.API, []byte(req))
	require.NoError(t, err)
	assert.True(t, r.Clean(), "%v", r.Err())
}
