package openrouter_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/openrouter"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const loneWhy = ": malformed input: a lone surrogate escape in %s: it names no character, and decoding it would alter bytes that must be kept exact"

func loneErr(event, ptr, what string) string {
	pre := "replay: openrouter: "
	if event != "" {
		pre += "event " + event + ": "
	}
	return pre + ptr + strings.Replace(loneWhy, "%s", what, 1)
}

// sse builds a stream of chat chunks from deltas (each a delta object),
// ending with finish_reason "stop" and [DONE].
func sse(deltas ...string) []byte {
	var b strings.Builder
	for _, d := range deltas {
		b.WriteString(`data: {"model":"anthropic/claude-sonnet-4.5","choices":[{"index":0,"delta":` + d + `}]}` + "\n\n")
	}
	b.WriteString(`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n")
	return []byte(b.String())
}

func detailDelta(members string) string {
	return `{"reasoning_details":[{"type":"reasoning.text","format":"anthropic-claude-v1","index":0` + members + `}]}`
}

// TestLoneSurrogates: a lone surrogate escape where bytes must stay exact
// (a signature, signed text, an encrypted blob, an id, a format, a tool
// call id) is refused at the member, the same way however the stream is
// split; in unsigned reasoning and visible text it reads as U+FFFD.
func TestLoneSurrogates(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stream []byte
		err    string
		text   string // the first block's text when there is no error
	}{
		{"signature", sse(detailDelta(`,"text":"ok","signature":"c2ln\ud800"`)),
			loneErr("0", "/choices/0/delta/reasoning_details/0/signature", "a signature"), ""},
		{"signed text, lone half held to the end of a fragment", read(t, "lone-surrogate-signed.sse"),
			loneErr("1", "/choices/0/delta/reasoning_details/0/text", "signed reasoning text"), ""},
		{"signed text, signature first", sse(detailDelta(`,"text":"","signature":"c2ln"`), detailDelta(`,"text":"a\udc00b"`)),
			loneErr("1", "/choices/0/delta/reasoning_details/0/text", "signed reasoning text"), ""},
		{"signed text, high half at the end", sse(detailDelta(`,"text":"a\ud83c"`), detailDelta(`,"text":"","signature":"c2ln"`)),
			loneErr("0", "/choices/0/delta/reasoning_details/0/text", "signed reasoning text"), ""},
		{"encrypted data", sse(`{"reasoning_details":[{"type":"reasoning.encrypted","data":"ZGF0\udfff","index":0}]}`),
			loneErr("0", "/choices/0/delta/reasoning_details/0/data", "an encrypted blob"), ""},
		{"item id", sse(`{"reasoning_details":[{"type":"reasoning.encrypted","data":"ZA==","id":"rs_\ud800","index":0}]}`),
			loneErr("0", "/choices/0/delta/reasoning_details/0/id", "an item id"), ""},
		{"format", sse(`{"reasoning_details":[{"type":"reasoning.text","text":"t","format":"x\ud800","index":0}]}`),
			loneErr("0", "/choices/0/delta/reasoning_details/0/format", "a format"), ""},
		{"tool call id", sse(`{"tool_calls":[{"index":0,"id":"call_\ud800","function":{"name":"f","arguments":"{}"}}]}`),
			loneErr("0", "/choices/0/delta/tool_calls/0/id", "a tool call id"), ""},
		{"unsigned text", sse(detailDelta(`,"text":"a\ud800b"`)), "", "a\uFFFDb"},
		{"plain reasoning", sse(`{"reasoning":"x\udc00"}`), "", "x\uFFFD"},
		{"escaped backslash is no escape", sse(detailDelta(`,"text":"a\\ud800","signature":"c2ln"`)), "", `a\ud800`},
		{"pair split across deltas of signed text", sse(detailDelta(`,"text":"\ud83c"`), detailDelta(`,"text":"\udf0a","signature":"c2ln"`)), "", "🌊"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := codectest.SweepStream(t, newFD, stream.Options{}, tc.stream)
			if tc.err == "" {
				require.NoError(t, res.Err)
				require.Equal(t, tc.text, res.Turn.Blocks[0].(*replay.ReasoningText).Text)
				return
			}
			require.ErrorIs(t, res.Err, replay.ErrMalformed)
			require.Equal(t, tc.err, res.Err.Error())
			assert.False(t, res.Turn.Complete)
			for _, it := range res.Turn.Items() {
				assert.False(t, it.Replayable())
			}
		})
	}
}

// TestLoneSurrogatesBody: the body reader refuses the same members.
func TestLoneSurrogatesBody(t *testing.T) {
	msg := func(m string) []byte { return []byte(`{"choices":[{"message":` + m + `,"finish_reason":"stop"}]}`) }
	for _, tc := range []struct{ body, err string }{
		{`{"role":"assistant","reasoning_details":[{"type":"reasoning.text","text":"t","signature":"s\ud800"}]}`,
			loneErr("", "/choices/0/message/reasoning_details/0/signature", "a signature")},
		{`{"role":"assistant","reasoning_details":[{"type":"reasoning.text","text":"t\udc00","signature":"s"}]}`,
			loneErr("", "/choices/0/message/reasoning_details/0/text", "signed reasoning text")},
		{`{"role":"assistant","reasoning_details":[{"type":"reasoning.encrypted","data":"\ud800"}]}`,
			loneErr("", "/choices/0/message/reasoning_details/0/data", "an encrypted blob")},
		{`{"role":"assistant","content":null,"tool_calls":[{"id":"c\ud800","type":"function","function":{"name":"f","arguments":"{}"}}]}`,
			loneErr("", "/choices/0/message/tool_calls/0/id", "a tool call id")},
	} {
		_, err := openrouter.Codec{}.Decode(msg(tc.body))
		require.ErrorIs(t, err, replay.ErrMalformed, tc.body)
		require.Equal(t, tc.err, err.Error())
	}
	tu, err := openrouter.Codec{}.Decode(msg(`{"role":"assistant","reasoning_details":[{"type":"reasoning.text","text":"t\udc00"}]}`))
	require.NoError(t, err)
	require.Equal(t, "t\uFFFD", tu.Blocks[0].(*replay.ReasoningText).Text)
}

// TestManyToolCalls: the tool call past MaxBlocks is a LimitError (not a
// malformed index, not a panic), in a stream and in a body.
func TestManyToolCalls(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"tool_calls":[`)
	for i := 0; i <= 20; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"index":` + itoa(i) + `,"id":"c` + itoa(i) + `","type":"function","function":{"name":"f","arguments":"{}"}}`)
	}
	b.WriteString(`]}`)
	lim := replay.Limits{MaxBlocks: 20}
	res := codectest.FeedPush(newFD(), stream.Options{Limits: lim}, [][]byte{sse(b.String())})
	var le *replay.LimitError
	require.True(t, errors.As(res.Err, &le), "%v", res.Err)
	require.Equal(t, "replay: openrouter: event 0: block 20: block count exceeds the limit of 20", res.Err.Error())

	// The default limit: the 100,001st call of a stream.
	big := `{"tool_calls":[{"index":100000,"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}`
	res = codectest.FeedPush(newFD(), stream.Options{}, [][]byte{sse(big)})
	require.True(t, errors.As(res.Err, &le), "%v", res.Err)
	require.Equal(t, "replay: openrouter: event 0: block 0: block count exceeds the limit of 100000", res.Err.Error())

	body := `{"choices":[{"message":{"role":"assistant","content":null,` + strings.TrimPrefix(b.String(), "{") + `}]}`
	_, err := openrouter.Codec{Limits: lim}.Decode([]byte(body))
	require.True(t, errors.As(err, &le), "%v", err)
	require.Equal(t, "replay: openrouter: block 20: block count exceeds the limit of 20", err.Error())
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

// TestGeminiRawSignatures: a gateway that puts Gemini signatures directly
// on its tool calls (`thoughtSignature`, `thought_signature`): read as
// bound signature items, the same from a stream and a body, written back
// on the calls (never into reasoning_details) by Encode and Patch.
func TestGeminiRawSignatures(t *testing.T) {
	res := sweep(t, "gemini-raw-signatures.sse")
	require.NoError(t, res.Err)
	want := `{"version":2,"provenance":{"api":"openrouter","provider":"openrouter","model":"gemini-3-flash"},"complete":true,"finish_reason":"tool_calls","blocks":[` +
		`{"type":"reasoning.encrypted","data":"Ct0BAXLI2nwQkYc1f0T1mM0X1y9T0a==","id":"call_weather_1","format":"google-gemini-v1","attached":true,"source":"thoughtSignature"},` +
		`{"type":"tool_call","id":"call_weather_1","name":"weather","arguments":"{\"city\":\"Lyon\"}"},` +
		`{"type":"reasoning.encrypted","data":"EqQBCpEBZmFrZSBzaWduYXR1cmU=","id":"call_time_2","format":"google-gemini-v1","attached":true,"source":"thought_signature"},` +
		`{"type":"tool_call","id":"call_time_2","name":"local_time","arguments":"{\"tz\":\"Europe/Paris\"}"}]}`
	require.Equal(t, want, string(res.Turn.AppendJSON(nil)))
	c := openrouter.Codec{}
	msg, err := c.Encode(res.Turn)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":null,"tool_calls":[`+
		`{"id":"call_weather_1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Lyon\"}"},"thoughtSignature":"Ct0BAXLI2nwQkYc1f0T1mM0X1y9T0a=="},`+
		`{"id":"call_time_2","type":"function","function":{"name":"local_time","arguments":"{\"tz\":\"Europe/Paris\"}"},"thought_signature":"EqQBCpEBZmFrZSBzaWduYXR1cmU="}]}`, string(msg))
	body, err := c.Decode([]byte(`{"model":"gemini-3-flash","choices":[{"message":` + string(msg) + `,"finish_reason":"tool_calls"}]}`))
	require.NoError(t, err)
	require.Equal(t, want, string(body.AppendJSON(nil)))
	patched, err := c.Patch([]byte(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_weather_1","type":"function","function":{"name":"weather","arguments":"{}"}}]}`), res.Turn)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":null,"tool_calls":[{"id":"call_weather_1","type":"function","function":{"name":"weather","arguments":"{}"},"thoughtSignature":"Ct0BAXLI2nwQkYc1f0T1mM0X1y9T0a=="}]}`, string(patched))
}
