package chatcompat

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/require"
)

func fixture(t testing.TB, name string) []byte {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "chatcompat", name))
	require.NoError(t, err)
	return b
}

func sweep(t *testing.T, c Codec, name string) codectest.Result {
	res := codectest.SweepStream(t, c.NewFrameDecoder, stream.Options{}, fixture(t, name))
	if res.Err == nil {
		codectest.Golden(t, filepath.Join("..", "..", "testdata", "chatcompat", name+".golden.json"), res.Document())
	}
	return res
}

func TestDecodeDeepSeekToolCall(t *testing.T) {
	c := New(APIDeepSeek, "", "deepseek-v4-flash")
	require.Equal(t, "deepseek-v4", c.Profile.Name)
	tu, err := c.Decode(fixture(t, "deepseek-tool-call.json"))
	require.NoError(t, err)
	require.Len(t, tu.Blocks, 2, "empty content gives no text block")
	r := tu.Blocks[0].(*replay.ReasoningText)
	require.Equal(t, "The user wants the tide table for Brest. I will call the tides tool.", r.Text)
	require.Equal(t, formats.DeepSeek, r.Format)
	call := tu.Blocks[1].(*replay.ToolCall)
	require.Equal(t, "call_00_Qm7TzPx2Lk9", call.ID)
	require.Equal(t, `{"port": "Brest"}`, call.Arguments)
	require.Equal(t, "tool_calls", tu.FinishReason)
	require.True(t, tu.Complete)
	codectest.RoundTripDocument(t, tu)

	// Encode -> the request message -> decode keeps the reasoning, ids, order.
	msg, err := c.Encode(tu)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":null,"reasoning_content":"The user wants the tide table for Brest. I will call the tides tool.","tool_calls":[{"id":"call_00_Qm7TzPx2Lk9","type":"function","function":{"name":"tides","arguments":"{\"port\": \"Brest\"}"}}]}`, string(msg))
	back, err := c.Decode([]byte(`{"choices":[{"message":` + string(msg) + `,"finish_reason":"tool_calls"}]}`))
	require.NoError(t, err)
	require.Equal(t, tu.Blocks, back.Blocks)
}

func TestDecodeNoReasoning(t *testing.T) {
	tu, err := New(APIDeepSeek, "", "").Decode([]byte(`{"choices":[{"message":{"role":"assistant","content":"4","reasoning_content":null},"finish_reason":"stop"}]}`))
	require.NoError(t, err)
	require.Len(t, tu.Blocks, 1)
	require.Equal(t, "4", tu.Blocks[0].(*replay.Text).Text)
}

func TestDecodeErrors(t *testing.T) {
	c := New(APIDeepSeek, "", "")
	_, err := c.Decode(fixture(t, "error-429.json"))
	var pe *replay.ProviderError
	require.ErrorAs(t, err, &pe)
	// The HTTP status is the caller's: the codec is stateless.
	require.Equal(t, replay.ProviderError{API: "deepseek", Type: "rate_limit_error", Code: "rate_limit_exceeded", Message: "Rate limit reached for requests"}, *pe)

	_, err = c.Decode(fixture(t, "no-message.json"))
	require.ErrorIs(t, err, replay.ErrMalformed)
	require.Contains(t, err.Error(), "invalid response structure")
	require.Contains(t, err.Error(), "/choices/0/message")

	_, err = c.Decode([]byte(`not json`))
	require.ErrorIs(t, err, replay.ErrMalformed)
}

func TestStreamMirroredTagsTools(t *testing.T) {
	c := New(APIGeneric, "vllm", "qwen3-32b")
	res := sweep(t, c, "mirrored-tags-tools.sse")
	require.NoError(t, res.Err)
	tu := res.Turn
	require.Len(t, tu.Blocks, 3)
	require.Equal(t, "haha — é", tu.Blocks[0].(*replay.ReasoningText).Text, "mirrored fields once, repeated tokens kept")
	require.Equal(t, "Voilà: use `<think>` tags  ok", tu.Blocks[1].(*replay.Text).Text, "tags stripped, code literal; leaked reasoning dropped after native")
	call := tu.Blocks[2].(*replay.ToolCall)
	require.Equal(t, "call_9", call.ID)
	require.Equal(t, `{"q": "Brest"}`, call.Arguments)
	require.JSONEq(t, `{"prompt_tokens":9,"completion_tokens":30}`, string(tu.Usage))
	require.Equal(t, stream.EventDone, res.Events[len(res.Events)-1].Kind)
}

func TestStreamCloserOnly(t *testing.T) {
	res := sweep(t, New(APIGeneric, "sglang", ""), "closer-only.sse")
	require.NoError(t, res.Err)
	require.Len(t, res.Turn.Blocks, 2)
	r := res.Turn.Blocks[0].(*replay.ReasoningText)
	require.Equal(t, "The user greets me.", r.Text)
	require.JSONEq(t, `{"source":"content"}`, string(r.Extra))
	require.Equal(t, "\n\nHello there.", res.Turn.Blocks[1].(*replay.Text).Text)
}

func TestStreamMidstreamError(t *testing.T) {
	c := New(APIDeepSeek, "", "deepseek-v4-flash")
	res := codectest.SweepStream(t, c.NewFrameDecoder, stream.Options{}, fixture(t, "midstream-error.sse"))
	var pe *replay.ProviderError
	require.ErrorAs(t, res.Err, &pe)
	require.Equal(t, "overloaded", pe.Code)
	require.Equal(t, "Service overloaded", pe.Message)
	require.False(t, res.Turn.Complete)
	r := res.Turn.Blocks[0].(*replay.ReasoningText)
	require.Equal(t, "Thinking", r.Text)
	require.True(t, r.Unfinished)
	require.False(t, r.Replayable())
}

func TestStreamTruncated(t *testing.T) {
	data := fixture(t, "closer-only.sse")
	res := codectest.FeedPush(New(APIGeneric, "", "").NewFrameDecoder(), stream.Options{}, [][]byte{data[:len(data)/2]})
	require.True(t, errors.Is(res.Err, io.ErrUnexpectedEOF))
	require.False(t, res.Turn.Complete)
}

func TestGeminiSignature(t *testing.T) {
	c := New(APIGeneric, "gemini-openai", "gemini-3-flash")
	res := sweep(t, c, "gemini-signature.sse")
	require.NoError(t, res.Err)
	require.Len(t, res.Turn.Blocks, 2)
	sig := res.Turn.Blocks[0].(*replay.Encrypted)
	require.Equal(t, "EpQBCpEBAXLI2nyQ0vGk3b7mM0X1y9T0", sig.Data)
	require.True(t, sig.Attached)
	require.Equal(t, "function-call-4a1b", sig.ID.Value())
	call := res.Turn.Blocks[1].(*replay.ToolCall)
	require.Nil(t, call.Extra, "the signature is not kept twice")
	msg, err := c.Encode(res.Turn)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":null,"tool_calls":[{"id":"function-call-4a1b","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Lyon\"}"},"extra_content":{"google":{"thought_signature":"EpQBCpEBAXLI2nyQ0vGk3b7mM0X1y9T0"}}}]}`, string(msg))
	patched, err := c.Patch([]byte(`{"role":"assistant","tool_calls":[{"id":"function-call-4a1b","type":"function","function":{"name":"weather","arguments":"{}"}}]}`), res.Turn)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","tool_calls":[{"id":"function-call-4a1b","type":"function","function":{"name":"weather","arguments":"{}"},"extra_content":{"google":{"thought_signature":"EpQBCpEBAXLI2nyQ0vGk3b7mM0X1y9T0"}}}]}`, string(patched))
}

func turnWith(reasoning string, calls bool, f replay.Format) *replay.Turn {
	t := &replay.Turn{Complete: true}
	if reasoning != "" {
		r := &replay.ReasoningText{Text: reasoning}
		r.Format = f
		t.Blocks = append(t.Blocks, r)
	}
	if calls {
		t.Blocks = append(t.Blocks, &replay.ToolCall{ID: "call_1", Name: "f", Arguments: "{}"})
	} else {
		t.Blocks = append(t.Blocks, &replay.Text{Text: "done"})
	}
	return t
}

func TestEncodeProfiles(t *testing.T) {
	plain := turnWith("", false, "")
	for _, tc := range []struct {
		c    Codec
		turn *replay.Turn
		want string
	}{
		{New(APIDeepSeek, "deepseek", "deepseek-r1"), turnWith("why", false, formats.DeepSeek), `{"role":"assistant","content":"done"}`},
		{New(APIDeepSeek, "", "deepseek-v4-pro"), plain, `{"role":"assistant","content":"done","reasoning_content":""}`},
		{New(APIDeepSeek, "", "deepseek-chat"), plain, `{"role":"assistant","content":"done"}`},
		{New(APIGeneric, "moonshot", "kimi-k2-thinking"), turnWith("plan", true, formats.Kimi), `{"role":"assistant","content":null,"reasoning_content":"plan","tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]}`},
		{New(APIGeneric, "vllm", ""), turnWith("plan", false, replay.FormatUnknown), `{"role":"assistant","content":"done"}`},
		{New(APIXAI, "", "grok-3-mini"), turnWith("plan", false, formats.XAIChat), `{"role":"assistant","content":"done"}`},
	} {
		got, err := tc.c.Encode(tc.turn)
		require.NoError(t, err)
		require.Equal(t, tc.want, string(got), tc.c.Profile.Name)
	}
}

func TestMiniMaxRawContent(t *testing.T) {
	c := New(APIGeneric, "minimax", "MiniMax-M2.5")
	body := `{"model":"MiniMax-M2.5","choices":[{"message":{"role":"assistant","content":"<think>\nCheck the units.\n</think>\n\n12 km"},"finish_reason":"stop"}]}`
	tu, err := c.Decode([]byte(body))
	require.NoError(t, err)
	require.Equal(t, "\n\n12 km", tu.VisibleText())
	msg, err := c.Encode(tu)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":"<think>\nCheck the units.\n</think>\n\n12 km"}`, string(msg), "the content goes back as it came")
}

func TestResolve(t *testing.T) {
	for _, tc := range []struct{ provider, model, api, profile string }{
		{"deepseek", "deepseek-v4-flash", "deepseek", "deepseek-v4"},
		{"deepseek", "deepseek-reasoner", "deepseek", "deepseek-v3"},
		{"", "deepseek-r1-0528", "deepseek", "deepseek-r1"},
		{"xai", "grok-3-mini", "xai", "xai"},
		{"moonshot", "kimi-k2-thinking", "openai-compatible", "kimi"},
		{"zai", "glm-4.7", "openai-compatible", "glm"},
		{"groq", "qwen/qwen3-32b", "openai-compatible", "groq"},
		{"huggingface", "deepseek-ai/DeepSeek-R1", "openai-compatible", "generic"},
		{"ollama", "", "openai-compatible", "generic"},
		{"dashscope", "qwen3-max", "openai-compatible", "qwen"},
	} {
		c, err := replay.Resolve(tc.provider, tc.model)
		require.NoError(t, err)
		require.Equal(t, tc.api, c.API(), "%s %s", tc.provider, tc.model)
		require.Equal(t, tc.profile, c.(Codec).Profile.Name, "%s %s", tc.provider, tc.model)
	}
	require.Equal(t, "deepseek-r1", ProfileFor("deepseek", "deepseek-r1").Name)
}

// TestGeminiRawSignatures: signatures a gateway put directly on the tool
// calls (`thoughtSignature`, `thought_signature`) are read as bound Gemini
// signatures and written back in the member they came from, by Encode and
// by Patch; a lone surrogate in one is refused at the member.
func TestGeminiRawSignatures(t *testing.T) {
	c := New(APIGeneric, "gemini-openai", "gemini-3-flash")
	res := sweep(t, c, "gemini-raw-signatures.sse")
	require.NoError(t, res.Err)
	require.Equal(t, `{"version":2,"provenance":{"api":"openai-compatible","provider":"gemini-openai","model":"gemini-3-flash"},"complete":true,"finish_reason":"tool_calls","blocks":[`+
		`{"type":"reasoning.encrypted","data":"Ct0BAXLI2nwQkYc1f0T1mM0X1y9T0a==","id":"call_weather_1","format":"google-gemini-v1","attached":true,"source":"thoughtSignature"},`+
		`{"type":"tool_call","id":"call_weather_1","name":"weather","arguments":"{\"city\":\"Lyon\"}"},`+
		`{"type":"reasoning.encrypted","data":"EqQBCpEBZmFrZSBzaWduYXR1cmU=","id":"call_time_2","format":"google-gemini-v1","attached":true,"source":"thought_signature"},`+
		`{"type":"tool_call","id":"call_time_2","name":"local_time","arguments":"{\"tz\":\"Europe/Paris\"}"}]}`, string(res.Turn.AppendJSON(nil)))
	msg, err := c.Encode(res.Turn)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":null,"tool_calls":[`+
		`{"id":"call_weather_1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Lyon\"}"},"thoughtSignature":"Ct0BAXLI2nwQkYc1f0T1mM0X1y9T0a=="},`+
		`{"id":"call_time_2","type":"function","function":{"name":"local_time","arguments":"{\"tz\":\"Europe/Paris\"}"},"thought_signature":"EqQBCpEBZmFrZSBzaWduYXR1cmU="}]}`, string(msg))
	patched, err := c.Patch([]byte(`{"role":"assistant","tool_calls":[{"id":"call_time_2","type":"function","function":{"name":"local_time","arguments":"{}"}}]}`), res.Turn)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","tool_calls":[{"id":"call_time_2","type":"function","function":{"name":"local_time","arguments":"{}"},"thought_signature":"EqQBCpEBZmFrZSBzaWduYXR1cmU="}]}`, string(patched))

	// The body reader gives the same turn.
	body, err := c.Decode([]byte(`{"model":"gemini-3-flash","choices":[{"message":` + string(msg) + `,"finish_reason":"tool_calls"}]}`))
	require.NoError(t, err)
	require.Equal(t, string(res.Turn.AppendJSON(nil)), string(body.AppendJSON(nil)))

	lone := `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","thoughtSignature":"Ct0\udc00","function":{"name":"f","arguments":"{}"}}]}}]}` + "\n\n"
	r := codectest.SweepStream(t, c.NewFrameDecoder, stream.Options{}, []byte(lone))
	require.Equal(t, "replay: openai-compatible: event 0: /choices/0/delta/tool_calls/0/thoughtSignature: malformed input: a lone surrogate escape in a thought signature: it names no character, and decoding it would alter bytes that must be kept exact", r.Err.Error())
}
