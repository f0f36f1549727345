package bedrock_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/bedrock"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/schema"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/require"
)

const dir = "../../testdata/bedrock-converse"

const (
	claude = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
	kimi   = "moonshot.kimi-k2-thinking"
	qwen   = "qwen.qwen3-32b-v1:0"
)

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	return b
}

// modelFor maps a fixture to the model it was modelled on.
func modelFor(name string) string {
	switch {
	case strings.HasPrefix(name, "claude"), strings.HasPrefix(name, "cut"), strings.HasPrefix(name, "stream-exception"):
		return claude
	case strings.HasPrefix(name, "kimi"):
		return kimi
	case strings.HasPrefix(name, "qwen"):
		return qwen
	}
	return ""
}

func TestStreamFixtures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	sse, err := filepath.Glob(filepath.Join(dir, "*.sse"))
	require.NoError(t, err)
	files = append(files, sse...)
	require.NotEmpty(t, files)
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			opts := stream.Options{Framing: stream.FramingJSONL}
			if strings.HasSuffix(name, ".sse") {
				opts.Framing = stream.FramingSSE
			}
			c := bedrock.Codec{Model: modelFor(name)}
			res := codectest.SweepStream(t, c.NewFrameDecoder, opts, read(t, name))
			golden := strings.TrimSuffix(strings.TrimSuffix(name, ".jsonl"), ".sse")
			codectest.Golden(t, filepath.Join(dir, "golden", golden+".turn.json"), res.Document())
			ev := strings.Join(codectest.EventSummary(res.Events), "\n") + "\nerr: " + errString(res.Err) + "\n"
			codectest.Golden(t, filepath.Join(dir, "golden", golden+".events.txt"), []byte(ev))
			require.NoError(t, schema.Validate(schema.Turn, res.Turn.AppendJSON(nil)))
			codectest.RoundTripDocument(t, res.Turn)
		})
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func TestBodyFixtures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	for _, f := range files {
		name := filepath.Base(f)
		if strings.HasPrefix(name, "error") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			tu, err := bedrock.Codec{Model: modelFor(name)}.Decode(read(t, name))
			require.NoError(t, err)
			codectest.Golden(t, filepath.Join(dir, "golden", strings.TrimSuffix(name, ".json")+".body.turn.json"), codectest.Indent(tu.AppendJSON(nil)))
			require.NoError(t, schema.Validate(schema.Turn, tu.AppendJSON(nil)))
			codectest.RoundTripDocument(t, tu)
		})
	}
}

// secrets are the invented signatures and blob the fixtures were written
// with.
const (
	sigPrefix1 = "EqUvImZaYM"
	redPrefix  = "cnNuX"
)

func TestClaudeStreamExact(t *testing.T) {
	c := bedrock.Codec{Model: claude}
	res := codectest.SweepStream(t, c.NewFrameDecoder, stream.Options{Framing: stream.FramingJSONL}, read(t, "claude-thinking.jsonl"))
	require.NoError(t, res.Err)
	tu := res.Turn
	require.True(t, tu.Complete)
	require.Len(t, tu.Blocks, 2)
	rt := tu.Blocks[0].(*replay.ReasoningText)
	require.Equal(t, "The tank holds 40 litres and leaks 3 litres an hour, so after 6 hours 18 litres are gone.\n\n40 − 18 = 22 litres remain — check: 6×3=18 ✓", rt.Text)
	// The signature arrived in two deltas and is joined byte-exact.
	body, err := bedrock.Codec{Model: claude}.Decode(read(t, "claude-thinking.json"))
	require.NoError(t, err)
	whole := body.Blocks[0].(*replay.ReasoningText)
	require.Equal(t, whole.Signature, rt.Signature, "the streamed signature equals the one the body fixture carries")
	require.Len(t, rt.Signature.Value(), 322)
	require.Equal(t, formats.AnthropicClaude, rt.Format)
	require.Equal(t, replay.Some(0), rt.Index)
	require.True(t, rt.Replayable())
	require.Equal(t, "After six hours **22 litres** remain in the tank.", tu.VisibleText())
	require.Equal(t, "end_turn", tu.FinishReason)
	require.JSONEq(t, `{"inputTokens":38,"outputTokens":71,"totalTokens":109}`, string(tu.Usage))
	require.Equal(t, "bedrock", tu.Provenance.Provider)
	require.Equal(t, claude, tu.Provenance.Model)
}

func TestToolUseStream(t *testing.T) {
	c := bedrock.Codec{Model: claude}
	res := codectest.SweepStream(t, c.NewFrameDecoder, stream.Options{Framing: stream.FramingJSONL}, read(t, "claude-tool-use.jsonl"))
	require.NoError(t, res.Err)
	calls := res.Turn.ToolCalls()
	require.Len(t, calls, 1)
	require.Equal(t, "tooluse_Qm3vX8rT2LkPz9aW", calls[0].ID)
	require.Equal(t, "get_weather", calls[0].Name)
	require.Equal(t, `{"city":"Lyon","unit":"celsius"}`, calls[0].Arguments)
	require.False(t, calls[0].Unfinished)
	_, isReasoning := res.Turn.Blocks[0].(*replay.ReasoningText)
	_, isText := res.Turn.Blocks[1].(*replay.Text)
	require.True(t, isReasoning && isText, "order: reasoning, text, toolUse")
}

func TestRedactedStream(t *testing.T) {
	c := bedrock.Codec{} // no model: the blob's issuer is not known
	res := codectest.SweepStream(t, c.NewFrameDecoder, stream.Options{Framing: stream.FramingJSONL}, read(t, "redacted-tool-use.jsonl"))
	require.NoError(t, res.Err)
	enc := res.Turn.Blocks[0].(*replay.Encrypted)
	require.True(t, strings.HasPrefix(enc.Data, redPrefix))
	require.Len(t, enc.Data, 408)
	require.Equal(t, replay.FormatUnknown, enc.Format)
	require.Equal(t, `{"stops":["A","B"]}`, res.Turn.ToolCalls()[0].Arguments)
}

func TestKimiUnsigned(t *testing.T) {
	c := bedrock.Codec{Model: kimi}
	res := codectest.SweepStream(t, c.NewFrameDecoder, stream.Options{Framing: stream.FramingJSONL}, read(t, "kimi-unsigned-tool-use.jsonl"))
	require.NoError(t, res.Err)
	// Empty text blocks leave nothing in the turn.
	require.Len(t, res.Turn.Blocks, 2)
	rt := res.Turn.Blocks[0].(*replay.ReasoningText)
	require.Equal(t, formats.Kimi, rt.Format)
	require.Equal(t, replay.Absent, rt.Signature.Presence())
	require.Equal(t, replay.Some(1), rt.Index)
	require.True(t, rt.Replayable(), "unsigned Kimi text needs no signature")
	require.Equal(t, "functions.list_files:0", res.Turn.ToolCalls()[0].ID)
}

func TestCutStream(t *testing.T) {
	c := bedrock.Codec{Model: claude}
	res := codectest.SweepStream(t, c.NewFrameDecoder, stream.Options{Framing: stream.FramingJSONL}, read(t, "cut-mid-reasoning.jsonl"))
	require.ErrorIs(t, res.Err, io.ErrUnexpectedEOF)
	require.False(t, res.Turn.Complete)
	rt := res.Turn.Blocks[0].(*replay.ReasoningText)
	require.Equal(t, "First, convert the units to metres, then", rt.Text)
	require.True(t, rt.Unfinished)
	require.False(t, rt.Replayable())
	out, err := c.Encode(res.Turn)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":[]}`, string(out), "nothing unfinished is sent")
}

func TestStreamException(t *testing.T) {
	c := bedrock.Codec{Model: claude}
	res := codectest.SweepStream(t, c.NewFrameDecoder, stream.Options{Framing: stream.FramingJSONL}, read(t, "stream-exception.jsonl"))
	var pe *replay.ProviderError
	require.ErrorAs(t, res.Err, &pe)
	require.Equal(t, 504, pe.Status)
	require.Equal(t, "modelStreamErrorException", pe.Type)
	require.Equal(t, "Model stream error: upstream timed out", pe.Message)
	require.Equal(t, "upstream request timeout", pe.Raw)
	require.Same(t, pe, res.Turn.Error)
	require.False(t, res.Turn.Complete)
	require.True(t, res.Turn.Blocks[0].(*replay.ReasoningText).Unfinished)
	require.Equal(t, stream.EventError, res.Events[len(res.Events)-1].Kind)
}

func TestTypedEvents(t *testing.T) {
	c := bedrock.Codec{Model: claude}
	res := codectest.SweepStream(t, c.NewFrameDecoder, stream.Options{}, read(t, "claude-typed-events.sse"))
	require.NoError(t, res.Err)
	rt := res.Turn.Blocks[0].(*replay.ReasoningText)
	require.Equal(t, "Two plus two is four.", rt.Text)
	require.True(t, rt.Signed())
	require.Equal(t, "4", res.Turn.VisibleText())
}

func TestDecodeBodies(t *testing.T) {
	tu, err := bedrock.Codec{Model: qwen}.Decode(read(t, "qwen-unsigned.json"))
	require.NoError(t, err)
	rt := tu.Blocks[0].(*replay.ReasoningText)
	require.Equal(t, "\nThe user just wants a greeting back.\n", rt.Text, "text kept without trimming")
	require.Equal(t, formats.Qwen, rt.Format)
	require.Equal(t, "\n\nHello!", tu.VisibleText())

	tu, err = bedrock.Codec{}.Decode(read(t, "redacted-tool-use.json"))
	require.NoError(t, err)
	require.Equal(t, `{"order_id":"A-1042","include":["items","status"]}`, compact(tu.ToolCalls()[0].Arguments))
	require.Equal(t, "tool_use", tu.FinishReason)

	// No model, but a signature: only Claude signs on Converse.
	tu, err = bedrock.Codec{}.Decode(read(t, "claude-thinking.json"))
	require.NoError(t, err)
	rt = tu.Blocks[0].(*replay.ReasoningText)
	require.Equal(t, formats.AnthropicClaude, rt.Format)
	require.True(t, strings.HasPrefix(rt.Signature.Value(), sigPrefix1))

	_, err = bedrock.Codec{}.Decode(read(t, "error-validation.json"))
	var pe *replay.ProviderError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "The model returned the following errors: messages.1.content.0: Invalid signature in thinking block", pe.Message)
}

func compact(s string) string {
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' && (i == 0 || s[i-1] != '\\') {
			in = !in
		}
		if !in && (c == ' ' || c == '\n' || c == '\t') {
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func TestDecodeMalformed(t *testing.T) {
	for _, body := range []string{
		``, `[]`, `{"output":{}}`, `{"output":{"message":{"content":{}}}}`,
		`{"output":{"message":{"content":[1]}}}`,
		`{"output":{"message":{"content":[{"text":5}]}}}`,
		`{"output":{"message":{"content":[{"reasoningContent":{"reasoningText":{"text":null}}}]}}}`,
		`{"output":{"message":{"content":[{"reasoningContent":{"reasoningText":{"text":"a","signature":7}}}]}}}`,
		`{"output":{"message":{"content":[{"toolUse":{"name":"f"}}]}}}`,
	} {
		_, err := bedrock.Codec{}.Decode([]byte(body))
		require.ErrorIs(t, err, replay.ErrMalformed, "body %s", body)
		var le *replay.Error
		require.ErrorAs(t, err, &le)
		require.Equal(t, bedrock.API, le.API)
	}
}

func TestStreamMalformed(t *testing.T) {
	for _, s := range []string{
		"not json\n",
		`{"a":{},"b":{}}` + "\n",
		`{"contentBlockDelta":{"contentBlockIndex":-1,"delta":{"text":"x"}}}` + "\n",
		`{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{"}}}}` + "\n",
		`{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"text":"x"}}}` + "\n" + `{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"y"}}}}` + "\n",
		`{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"reasoningContent":{"redactedContent":"x","text":"y"}}}}` + "\n",
		`{"messageStop":{}}` + "\n" + `{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"text":"x"}}}` + "\n",
	} {
		res := codectest.FeedPush(bedrock.Codec{}.NewFrameDecoder(), stream.Options{Framing: stream.FramingJSONL}, [][]byte{[]byte(s)})
		require.ErrorIs(t, res.Err, replay.ErrMalformed, "stream %q", s)
		require.False(t, res.Turn.Complete)
	}
}

func TestStickyError(t *testing.T) {
	d := bedrock.Codec{}.NewFrameDecoder()
	_, err := d.Decode(nil, []byte(`nope`), nil)
	require.ErrorIs(t, err, replay.ErrMalformed)
	_, err2 := d.Decode(nil, []byte(`{"messageStop":{}}`), nil)
	require.Equal(t, err, err2)
	_, err3 := d.Finish()
	require.Equal(t, err, err3)
}

func TestLimits(t *testing.T) {
	c := bedrock.Codec{Model: claude, Limits: replay.Limits{MaxItem: 10}}
	res := codectest.FeedPush(c.NewFrameDecoder(), stream.Options{Framing: stream.FramingJSONL}, [][]byte{read(t, "claude-thinking.jsonl")})
	var le *replay.LimitError
	require.ErrorAs(t, res.Err, &le)
	require.Equal(t, "item size", le.What)
	require.Equal(t, 10, le.Limit)

	c = bedrock.Codec{Model: claude, Limits: replay.Limits{MaxBlocks: 1}}
	res = codectest.FeedPush(c.NewFrameDecoder(), stream.Options{Framing: stream.FramingJSONL}, [][]byte{read(t, "claude-thinking.jsonl")})
	require.ErrorAs(t, res.Err, &le)
	require.Equal(t, "block count", le.What)
	_, err := c.Decode(read(t, "claude-thinking.json"))
	require.ErrorAs(t, err, &le)
}

func TestVendor(t *testing.T) {
	for model, want := range map[string]string{
		"anthropic.claude-3-7-sonnet-20250219-v1:0":                                              "anthropic",
		"us.anthropic.claude-sonnet-4-5-20250929-v1:0":                                           "anthropic",
		"global.anthropic.claude-opus-4-5-20251101-v1:0":                                         "anthropic",
		"arn:aws:bedrock:us-east-1:123456789012:inference-profile/eu.anthropic.claude-haiku-4-5": "anthropic",
		"moonshot.kimi-k2-thinking":                                                              "moonshot",
		"qwen.qwen3-32b-v1:0":                                                                    "qwen",
		"openai.gpt-oss-120b-1:0":                                                                "openai",
		"arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3":            "",
		"claude-sonnet-4-5":                                                                      "",
	} {
		require.Equal(t, want, bedrock.Vendor(model), model)
	}
}

func TestFormatPerModel(t *testing.T) {
	body := []byte(`{"output":{"message":{"content":[{"reasoningContent":{"reasoningText":{"text":"t"}}},{"text":"x"}]}}}`)
	for model, want := range map[string]replay.Format{
		claude:                        formats.AnthropicClaude,
		kimi:                          formats.Kimi,
		"moonshotai.kimi-k2.5":        formats.Kimi,
		qwen:                          formats.Qwen,
		"us.deepseek.r1-v1:0":         formats.DeepSeek,
		"openai.gpt-oss-120b-1:0":     replay.FormatUnknown,
		"us.amazon.nova-premier-v1:0": replay.FormatUnknown,
		"":                            replay.FormatUnknown,
		"claude-opus-4-5":             formats.AnthropicClaude,
	} {
		tu, err := bedrock.Codec{Model: model}.Decode(body)
		require.NoError(t, err)
		require.Equal(t, want, tu.Items()[0].Meta().Format, model)
	}
	// An unsigned Claude text is not replayable.
	tu, err := bedrock.Codec{Model: claude}.Decode(body)
	require.NoError(t, err)
	require.False(t, tu.Items()[0].Replayable())
}

func TestRegistered(t *testing.T) {
	c, err := replay.Lookup("bedrock-converse", "bedrock", kimi)
	require.NoError(t, err)
	require.Equal(t, bedrock.Codec{Provider: "bedrock", Model: kimi}, c)
	c, err = replay.Resolve("bedrock", claude)
	require.NoError(t, err)
	require.Equal(t, bedrock.API, c.API())
}

func TestErrorsAreTyped(t *testing.T) {
	_, err := bedrock.Codec{}.Decode([]byte(`{`))
	require.True(t, errors.Is(err, replay.ErrMalformed))
}

func TestStartKinds(t *testing.T) {
	events := `{"contentBlockStart":{"contentBlockIndex":0,"start":{}}}
{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"text":"a"}}}
{"contentBlockStop":{"contentBlockIndex":0}}
{"contentBlockStart":{"contentBlockIndex":1,"start":{"image":{"format":"png"}}}}
{"contentBlockStop":{"contentBlockIndex":1}}
{"messageStop":{"stopReason":"end_turn"}}
`
	res := codectest.SweepStream(t, bedrock.Codec{}.NewFrameDecoder, stream.Options{Framing: stream.FramingJSONL}, []byte(events))
	require.NoError(t, res.Err)
	require.Len(t, res.Turn.Blocks, 2)
	require.Equal(t, "a", res.Turn.VisibleText())
	require.Equal(t, `{"image":{"format":"png"}}`, string(res.Turn.Blocks[1].(*replay.Native).Raw))
}

func TestThinkTags(t *testing.T) {
	c := bedrock.Codec{Model: kimi}
	res := codectest.SweepStream(t, c.NewFrameDecoder, stream.Options{Framing: stream.FramingJSONL}, read(t, "kimi-think-tags.jsonl"))
	require.NoError(t, res.Err)
	require.Len(t, res.Turn.Blocks, 3)
	require.Equal(t, " ", res.Turn.Blocks[0].(*replay.Text).Text)
	rt := res.Turn.Blocks[1].(*replay.ReasoningText)
	require.Equal(t, " The user asks which file holds the port; config.yaml sets it to 8080.", rt.Text)
	require.Equal(t, formats.Kimi, rt.Format)
	require.False(t, rt.Unfinished)
	require.Equal(t, replay.Some(0), rt.Index)
	require.Equal(t, " The port is `8080`, set in `config.yaml`.", res.Turn.Blocks[2].(*replay.Text).Text)
	require.NotContains(t, res.Turn.VisibleText(), "think>")

	// Never closed: everything after the opener is reasoning.
	res = codectest.SweepStream(t, c.NewFrameDecoder, stream.Options{Framing: stream.FramingJSONL}, read(t, "kimi-think-unclosed.jsonl"))
	require.NoError(t, res.Err)
	require.Equal(t, " ", res.Turn.VisibleText())
	require.Equal(t, " I should read the file first.\n\n<function=read_file>\n<parameter=path>a.txt</parameter>\n</function>", res.Turn.Items()[0].(*replay.ReasoningText).Text)

	// Whole body.
	tu, err := c.Decode(read(t, "kimi-think-tags.json"))
	require.NoError(t, err)
	require.Equal(t, "Two apples plus three apples.", tu.Blocks[0].(*replay.ReasoningText).Text)
	require.Equal(t, "\n\nFive apples.", tu.VisibleText())

	// KeepTags, and Claude's text, are left as they came.
	for _, c := range []bedrock.Codec{{Model: kimi, KeepTags: true}, {Model: claude}} {
		tu, err := c.Decode(read(t, "kimi-think-tags.json"))
		require.NoError(t, err)
		require.Equal(t, "<think>Two apples plus three apples.</think>\n\nFive apples.", tu.VisibleText())
		require.Empty(t, tu.Items())
		res := codectest.FeedPush(c.NewFrameDecoder(), stream.Options{Framing: stream.FramingJSONL}, [][]byte{read(t, "kimi-think-tags.jsonl")})
		require.NoError(t, res.Err)
		require.Equal(t, " <think> The user asks which file holds the port; config.yaml sets it to 8080.</think> The port is `8080`, set in `config.yaml`.", res.Turn.VisibleText())
	}
}

func TestThinkTagsCut(t *testing.T) {
	data := read(t, "kimi-think-tags.jsonl")
	lines := strings.SplitAfter(string(data), "\n")
	cut := strings.Join(lines[:4], "") // inside the reasoning run
	res := codectest.SweepStream(t, bedrock.Codec{Model: kimi}.NewFrameDecoder, stream.Options{Framing: stream.FramingJSONL}, []byte(cut))
	require.ErrorIs(t, res.Err, io.ErrUnexpectedEOF)
	rt := res.Turn.Items()[0].(*replay.ReasoningText)
	require.True(t, rt.Unfinished)
	require.False(t, rt.Replayable())
}

func TestTightLimits(t *testing.T) {
	codectest.SweepLimits(t, bedrock.Codec{Model: claude}.NewFrameDecoder, stream.FramingJSONL, read(t, "claude-tool-use.jsonl"))
	codectest.SweepLimits(t, bedrock.Codec{Model: kimi}.NewFrameDecoder, stream.FramingJSONL, read(t, "kimi-think-tags.jsonl"))
	for _, name := range []string{"claude-thinking.json", "redacted-tool-use.json", "kimi-think-tags.json"} {
		body := read(t, name)
		codectest.CheckBodyLimits(t, func(l replay.Limits) replay.ReasoningCodec {
			return bedrock.Codec{Model: modelFor(name), Limits: l}
		}, body)
	}
}

// A signature in a body counts against the item limit on its own.
func TestBodySignatureLimit(t *testing.T) {
	body := []byte(`{"output":{"message":{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":"ab","signature":"0123456789"}}}]}},"stopReason":"end_turn"}`)
	_, err := bedrock.Codec{Model: claude, Limits: replay.Limits{MaxItem: 5}}.Decode(body)
	var le *replay.LimitError
	require.ErrorAs(t, err, &le)
	require.Equal(t, replay.LimitError{What: "item size", Limit: 5, API: bedrock.API, Event: -1, Block: 0}, *le)
	_, err = bedrock.Codec{Model: claude, Limits: replay.Limits{MaxItem: 10}}.Decode(body)
	require.NoError(t, err)
}
