package bedrock_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/bedrock"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/schema"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	f10 = "This model doesn't support the reasoningContent.reasoningText.signature field. Remove reasoningContent.reasoningText.signature and try again."
	r1  = "User messages cannot contain reasoning content. Please remove the reasoning content and try again."
	sig = "EqQBCkYIBxgCKkBzaWduZWQtYnktY2xhdWRlLWZvci10ZXN0cy1vbmx5"
)

// A Claude signature in a request to a Qwen model: read as Claude's (not
// relabelled as Qwen's own), and refused with the exact F10 text.
func TestClaudeHistoryToQwen(t *testing.T) {
	body := read(t, "claude-history-to-qwen.request")
	h, tg, err := bedrock.Codec{}.DecodeRequest(body)
	require.NoError(t, err)
	rt := h.Turns[0].Blocks[0].(*replay.ReasoningText)
	assert.Equal(t, formats.AnthropicClaude, rt.Format)
	assert.Equal(t, sig, rt.Signature.Value())
	assert.Equal(t, "qwen.qwen3-235b-a22b-2507-v1:0", tg.Model)

	r, err := replay.AuditRequest(bedrock.API, body)
	require.NoError(t, err)
	require.Len(t, r.Violations, 1, "%v", r.Violations)
	v := r.Violations[0]
	assert.Equal(t, bedrock.RuleSignatureField, v.Rule)
	assert.Equal(t, f10, v.Predicted)
	assert.Equal(t, replay.SeverityReject, v.Severity)
	assert.Equal(t, "/messages/1", v.Pointer)
}

// F10 whatever the item claims: a Qwen-labelled item with an empty
// signature member, a Gemini signature, to gpt-oss or Qwen; quiet without
// the member, and for Claude.
func TestSignatureFieldAnyFormat(t *testing.T) {
	call := &replay.ToolCall{ID: "t1", Name: "f", Arguments: "{}"}
	for _, it := range []*replay.ReasoningText{
		text("qwen thought", formats.Qwen, replay.Some("")),
		text("gemini thought", formats.GoogleGemini, replay.Some("CiQGEMINI")),
		text("claude thought", formats.AnthropicClaude, replay.Some(sig)),
	} {
		for _, model := range []string{"openai.gpt-oss-120b-1:0", qwen, "deepseek.v3-v1:0"} {
			got := audit([]*replay.Turn{turn(it, call)}, replay.Target{Model: model})
			require.Equal(t, []string{"bedrock-converse/signature-field t0 b0 " + f10}, got, "%s %s", it.Format, model)
		}
	}
	require.Empty(t, audit([]*replay.Turn{turn(text("qwen thought", formats.Qwen, replay.Opt[string]{}), call)}, replay.Target{Model: qwen}))
	require.Empty(t, audit([]*replay.Turn{turn(text("qwen thought", formats.Qwen, replay.NullOf[string]()), call)}, replay.Target{Model: qwen}),
		"a null signature is not written")
	require.Empty(t, audit([]*replay.Turn{turn(text("claude thought", formats.AnthropicClaude, replay.Some(sig)), call)}, replay.Target{Model: claude}))
}

// DeepSeek R1 on Bedrock takes no reasoning back at all; V3 does.
func TestDeepSeekR1RefusesReasoning(t *testing.T) {
	ds := text("deepseek thought", formats.DeepSeek, replay.Opt[string]{})
	say := &replay.Text{Text: "ok"}
	for _, model := range []string{"us.deepseek.r1-v1:0", "deepseek.r1-v1:0"} {
		got := audit([]*replay.Turn{turn(ds, say), turn(text("c", formats.AnthropicClaude, replay.Some(sig)), say)}, replay.Target{Model: model})
		require.Equal(t, []string{"bedrock-converse/reasoning-input t0 b0 " + r1, "bedrock-converse/reasoning-input t1 b0 " + r1}, got, model)
	}
	require.Empty(t, audit([]*replay.Turn{turn(ds, say)}, replay.Target{Model: "deepseek.v3-v1:0"}))
	require.Empty(t, audit([]*replay.Turn{turn(say)}, replay.Target{Model: "us.deepseek.r1-v1:0"}))
}

// Issue 11: an unknown reasoningContent variant decodes to a document that
// reads back and validates, and encodes back verbatim (its own bytes).
func TestUnknownReasoningVariantReadsBack(t *testing.T) {
	tu, err := bedrock.Codec{Model: claude}.Decode(read(t, "unknown-reasoning-variant.json"))
	require.NoError(t, err)
	o := tu.Blocks[0].(*replay.Native)
	assert.Equal(t, "reasoningContent", o.Kind)
	doc := tu.AppendJSON(nil)
	back, err := replay.UnmarshalTurn(doc)
	require.NoError(t, err)
	assert.Equal(t, doc, back.AppendJSON(nil))
	require.NoError(t, schema.Validate(schema.Turn, doc))
	out, err := bedrock.Codec{}.Encode(back)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"assistant","content":[{"reasoningContent": {"reasoningSummary": {"text": "Checked the stock first."}}},{"text":"It ships from Lyon."}]}`, string(out))
}

// Issue 11: lone surrogate escapes in a signature, redactedContent or
// signed text are refused at the member, in bodies and streams.
func TestLoneSurrogateRefused(t *testing.T) {
	for ptr, block := range map[string]string{
		"/output/message/content/0/reasoningContent/reasoningText/signature": `{"reasoningContent":{"reasoningText":{"text":"a","signature":"Eq\ud800"}}}`,
		"/output/message/content/0/reasoningContent/reasoningText/text":      `{"reasoningContent":{"reasoningText":{"text":"a\udc00","signature":"Eq"}}}`,
		"/output/message/content/0/reasoningContent/redactedContent":         `{"reasoningContent":{"redactedContent":"cnNu\ud800"}}`,
	} {
		_, err := bedrock.Codec{Model: claude}.Decode([]byte(`{"output":{"message":{"role":"assistant","content":[` + block + `]}},"stopReason":"end_turn"}`))
		var e *replay.Error
		require.True(t, errors.As(err, &e), "%s: %v", ptr, err)
		assert.Equal(t, ptr, e.Pointer)
	}
	// Unsigned visible text keeps its (replaced) character: nothing signed.
	_, err := bedrock.Codec{Model: qwen}.Decode([]byte(`{"output":{"message":{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":"a\ud800"}}}]}},"stopReason":"end_turn"}`))
	require.NoError(t, err)
	s := `{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"reasoningContent":{"signature":"Eq\ud800"}}}}` + "\n"
	fd := bedrock.Codec{Model: claude}.NewFrameDecoder()
	_, err = stream.Decode(strings.NewReader(s), kit.Decoding(fd), stream.Options{Framing: stream.FramingJSONL})
	require.ErrorIs(t, err, replay.ErrMalformed)
}

func turn(bs ...replay.Block) *replay.Turn { return &replay.Turn{Complete: true, Blocks: bs} }
