package bedrock_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/bedrock"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/require"
)

// asResponse wraps an encoded assistant message as a Converse response so
// that Decode reads it back.
func asResponse(msg []byte) []byte {
	return []byte(`{"output":{"message":` + string(msg) + `},"stopReason":"end_turn"}`)
}

// handles lists every reasoning item's kind, signature, data and index,
// and every tool call id, in order.
func handles(tu *replay.Turn) []string {
	var out []string
	for _, b := range tu.Blocks {
		switch b := b.(type) {
		case *replay.ReasoningText:
			out = append(out, fmt.Sprintf("text %q sig=%s:%q %s", b.Text, b.Signature.Presence(), b.Signature.Value(), b.Format))
		case *replay.Encrypted:
			out = append(out, fmt.Sprintf("encrypted %q %s", b.Data, b.Format))
		case *replay.Text:
			out = append(out, "visible "+strconv.Quote(b.Text))
		case *replay.ToolCall:
			out = append(out, "call "+b.ID+" "+b.Name+" "+compact(b.Arguments))
		case *replay.Native:
			out = append(out, "native "+string(b.Raw))
		case *replay.Opaque:
			out = append(out, "opaque "+string(b.Raw))
		}
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	cases := []struct{ file, model string }{
		{"claude-thinking.jsonl", claude},
		{"claude-tool-use.jsonl", claude},
		{"redacted-tool-use.jsonl", ""},
		{"kimi-unsigned-tool-use.jsonl", kimi},
		{"kimi-think-tags.jsonl", kimi},
		{"kimi-think-tags.json", kimi},
		{"claude-thinking.json", claude},
		{"redacted-tool-use.json", ""},
		{"qwen-unsigned.json", qwen},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			c := bedrock.Codec{Model: tc.model}
			var tu *replay.Turn
			var err error
			if strings.HasSuffix(tc.file, ".jsonl") {
				tu, err = stream.Decode(bytes.NewReader(read(t, tc.file)), c, stream.Options{Framing: stream.FramingJSONL})
			} else {
				tu, err = c.Decode(read(t, tc.file))
			}
			require.NoError(t, err)
			enc, err := c.Encode(tu)
			require.NoError(t, err)
			back, err := c.Decode(asResponse(enc))
			require.NoError(t, err)
			require.Equal(t, handles(tu), handles(back))
			// And once more: encoding is stable.
			enc2, err := c.Encode(back)
			require.NoError(t, err)
			require.Equal(t, string(enc), string(enc2))
		})
	}
}

func TestEncodeShape(t *testing.T) {
	c := bedrock.Codec{Model: claude}
	tu, err := stream.Decode(bytes.NewReader(read(t, "claude-tool-use.jsonl")), c, stream.Options{Framing: stream.FramingJSONL})
	require.NoError(t, err)
	enc, err := c.Encode(tu)
	require.NoError(t, err)
	codectest.Golden(t, filepath.Join(dir, "golden", "claude-tool-use.request.json"), codectest.Indent(enc))
	require.True(t, bytes.HasPrefix(enc, []byte(`{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":"The user wants the weather in Lyon; I should call get_weather.","signature":"Er`)))
	require.Contains(t, string(enc), `{"toolUse":{"toolUseId":"tooluse_Qm3vX8rT2LkPz9aW","name":"get_weather","input":{"city":"Lyon","unit":"celsius"}}}`)
}

func TestEncodeLeavesOut(t *testing.T) {
	unsigned := &replay.ReasoningText{Text: "claude text without signature"}
	unsigned.Format = formats.AnthropicClaude
	empty := &replay.ReasoningText{Text: "x", Signature: replay.Some("")}
	empty.Format = formats.AnthropicClaude
	sum := &replay.Summary{Summary: "a summary"}
	sum.Format = formats.OpenAIResponses
	null := &replay.ReasoningText{Text: "kimi", Signature: replay.NullOf[string]()}
	null.Format = formats.Kimi
	tu := &replay.Turn{Complete: true, Blocks: []replay.Block{unsigned, empty, sum, null, &replay.Text{},
		&replay.ToolCall{ID: "a", Name: "f", Arguments: `{"x":`, Unfinished: true}, &replay.Text{Text: "ok"}}}
	enc, err := bedrock.Codec{}.Encode(tu)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":"kimi"}}},{"text":"ok"}]}`, string(enc))

	_, err = bedrock.Codec{}.Encode(&replay.Turn{Blocks: []replay.Block{&replay.ToolCall{ID: "a", Name: "f", Arguments: `[1]`}}})
	require.ErrorIs(t, err, replay.ErrMalformed)
}

func TestOpaqueAndNativeVerbatim(t *testing.T) {
	body := []byte(`{"output":{"message":{"content":[{"reasoningContent":{"futureKind":{"x":1}}},{"image":{"format":"png","source":{"bytes":"AAAA"}}},{"text":"ok"}]}}}`)
	tu, err := bedrock.Codec{Model: claude}.Decode(body)
	require.NoError(t, err)
	o := tu.Blocks[0].(*replay.Native)
	require.Equal(t, "reasoningContent", o.Kind)
	require.Equal(t, `{"reasoningContent":{"futureKind":{"x":1}}}`, string(o.Raw))
	n := tu.Blocks[1].(*replay.Native)
	require.Equal(t, "image", n.Kind)
	enc, err := bedrock.Codec{}.Encode(tu)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":[{"reasoningContent":{"futureKind":{"x":1}}},{"image":{"format":"png","source":{"bytes":"AAAA"}}},{"text":"ok"}]}`, string(enc))
}

func TestPatch(t *testing.T) {
	c := bedrock.Codec{Model: claude}
	tu, err := stream.Decode(bytes.NewReader(read(t, "claude-tool-use.jsonl")), c, stream.Options{Framing: stream.FramingJSONL})
	require.NoError(t, err)
	sig := tu.Blocks[0].(*replay.ReasoningText).Signature.Value()
	// The caller's message: tool call first, then the text, with spacing
	// of its own and an extra member.
	msg := []byte(`{"role": "assistant", "content": [ {"toolUse": {"toolUseId": "tooluse_Qm3vX8rT2LkPz9aW", "name": "get_weather", "input": {"city": "Lyon"}}}, {"text": "Let me look that up."} ], "x": 1}`)
	out, err := c.Patch(msg, tu)
	require.NoError(t, err)
	want := `{"role": "assistant", "content": [{"text": "Let me look that up."}]}`
	_ = want
	require.Equal(t, `{"role": "assistant", "content": [{"toolUse": {"toolUseId": "tooluse_Qm3vX8rT2LkPz9aW", "name": "get_weather", "input": {"city": "Lyon"}}},{"reasoningContent":{"reasoningText":{"text":"The user wants the weather in Lyon; I should call get_weather.","signature":"`+sig+`"}}},{"text": "Let me look that up."}], "x": 1}`, string(out))

	// Anchored by tool call id when there is no text.
	msg = []byte(`{"role":"assistant","content":[{"toolUse":{"toolUseId":"tooluse_Qm3vX8rT2LkPz9aW","name":"get_weather","input":{}}}]}`)
	tu2 := &replay.Turn{Complete: true, Blocks: []replay.Block{tu.Blocks[0], tu.Blocks[2]}}
	out, err = c.Patch(msg, tu2)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":"The user wants the weather in Lyon; I should call get_weather.","signature":"`+sig+`"}}},{"toolUse":{"toolUseId":"tooluse_Qm3vX8rT2LkPz9aW","name":"get_weather","input":{}}}]}`, string(out))

	// Patching twice gives the same message: old reasoning is replaced.
	again, err := c.Patch(out, tu2)
	require.NoError(t, err)
	require.Equal(t, string(out), string(again))

	// No anchor found: appended.
	out, err = c.Patch([]byte(`{"role":"assistant","content":[]}`), tu2)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":"The user wants the weather in Lyon; I should call get_weather.","signature":"`+sig+`"}}}]}`, string(out))

	_, err = c.Patch([]byte(`{"role":"assistant","content":"hi"}`), tu2)
	require.ErrorIs(t, err, replay.ErrMalformed)
	_, err = c.Patch([]byte(`nope`), tu2)
	require.ErrorIs(t, err, replay.ErrMalformed)
}

func audit(turns []*replay.Turn, tg replay.Target) []string {
	rep := bedrock.Codec{}.Contract().Audit(replay.History{Turns: turns}, tg)
	var out []string
	for _, v := range rep.Violations {
		out = append(out, fmt.Sprintf("%s t%d b%d %s", v.Rule, v.Turn, v.Block, v.Predicted))
	}
	return out
}

func text(s string, f replay.Format, sig replay.Opt[string]) *replay.ReasoningText {
	x := &replay.ReasoningText{Text: s, Signature: sig}
	x.Format = f
	return x
}

func TestContract(t *testing.T) {
	signed := text("claude thought", formats.AnthropicClaude, replay.Some("EqSIG"))
	kimiText := text("kimi thought", formats.Kimi, replay.Opt[string]{})
	gemini := text("", formats.GoogleGemini, replay.Some("CiQGEMINI"))
	novaBlob := &replay.Encrypted{Data: "cnNu"}
	novaBlob.Format = replay.Format("amazon-nova-v1")
	unknownBlob := &replay.Encrypted{Data: "cnNu"}
	unknownBlob.Format = replay.FormatUnknown
	call := &replay.ToolCall{ID: "t1", Name: "f", Arguments: "{}"}
	say := &replay.Text{Text: "hi"}
	claudeT := replay.Target{API: bedrock.API, Model: claude, Thinking: true, Tools: true}
	kimiT := replay.Target{API: bedrock.API, Model: kimi}

	// Clean: Claude turn with its signed thinking first.
	require.Empty(t, audit([]*replay.Turn{turn(signed, say, call)}, claudeT))
	// Clean: Kimi's own unsigned text back to Kimi.
	require.Empty(t, audit([]*replay.Turn{turn(kimiText, call)}, kimiT))

	// claude-signature: unsigned Kimi text to Claude.
	require.Equal(t, []string{
		"bedrock-converse/claude-signature t0 b0 ValidationException: The model returned the following errors: messages.N.content.0.thinking.signature: Field required",
	}, audit([]*replay.Turn{turn(kimiText, say)}, replay.Target{Model: claude}))

	// foreign-signature: a Gemini signature, and a blob of a known other
	// issuer, to Claude; an unknown issuer's blob is not judged.
	require.Equal(t, []string{
		"bedrock-converse/foreign-signature t0 b0 messages.N.content.0: Invalid signature in thinking block",
		"bedrock-converse/foreign-signature t0 b1 ",
	}, audit([]*replay.Turn{turn(gemini, novaBlob, unknownBlob, say)}, replay.Target{Model: claude}))

	// signature-field: a Claude signature to Kimi (F10).
	require.Equal(t, []string{"bedrock-converse/signature-field t0 b0 This model doesn't support the reasoningContent.reasoningText.signature field. Remove reasoningContent.reasoningText.signature and try again."},
		audit([]*replay.Turn{turn(signed, say)}, kimiT))
	require.Empty(t, audit([]*replay.Turn{turn(signed, say)}, replay.Target{}), "no target model: nothing to judge")

	// thinking-first: the tool-call turn without its thinking.
	require.Equal(t, []string{
		"bedrock-converse/thinking-first t1 b0 ValidationException: The model returned the following errors: messages.N.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`. When `thinking` is enabled, a final `assistant` message must start with a thinking block",
	}, audit([]*replay.Turn{turn(say), turn(say, call)}, claudeT))
	require.Equal(t, []string{
		"bedrock-converse/thinking-first t0 b0 ValidationException: The model returned the following errors: messages.N.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block",
	}, audit([]*replay.Turn{turn(call)}, claudeT))
	noThinking := claudeT
	noThinking.Thinking = false
	require.Empty(t, audit([]*replay.Turn{turn(say, call)}, noThinking))

	// empty-content and reasoning-only.
	unfinished := text("cut", formats.AnthropicClaude, replay.Opt[string]{})
	unfinished.Unfinished = true
	require.Equal(t, []string{
		"bedrock-converse/empty-content t0 b-1 The content field in the Message object at messages.N is empty. Add a ContentBlock object to the content field and try again.",
	}, audit([]*replay.Turn{turn(unfinished)}, replay.Target{}))
	require.Equal(t, []string{
		"bedrock-converse/reasoning-only t0 b-1 This model does not support assistant message prefill. The conversation must end with a user message.",
	}, audit([]*replay.Turn{turn(signed)}, replay.Target{}))
}

func TestAuditThroughRegistry(t *testing.T) {
	kimiText := text("kimi thought", formats.Kimi, replay.Opt[string]{})
	rep := replay.AuditReplay(replay.History{Turns: []*replay.Turn{{Complete: true, Blocks: []replay.Block{kimiText, &replay.Text{Text: "x"}}}}},
		replay.Target{API: "bedrock-converse", Model: claude})
	require.True(t, rep.Rejects())
	require.Equal(t, "bedrock-converse/claude-signature", rep.Violations[0].Rule)
}

func Example() {
	events := `{"messageStart":{"role":"assistant"}}
{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"Six times seven is 42."}}}}
{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"reasoningContent":{"signature":"EqABCkYIBhgCKkA"}}}}
{"contentBlockStop":{"contentBlockIndex":0}}
{"contentBlockDelta":{"contentBlockIndex":1,"delta":{"text":"42"}}}
{"contentBlockStop":{"contentBlockIndex":1}}
{"messageStop":{"stopReason":"end_turn"}}
`
	c := bedrock.Codec{Model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0"}
	turn, err := stream.Decode(strings.NewReader(events), c, stream.Options{Framing: stream.FramingJSONL})
	if err != nil {
		panic(err)
	}
	fmt.Println(turn.Items()[0].Meta().Format)
	msg, _ := c.Encode(turn)
	fmt.Println(string(msg))
	// Output:
	// anthropic-claude-v1
	// {"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":"Six times seven is 42.","signature":"EqABCkYIBhgCKkA"}}},{"text":"42"}]}
}
