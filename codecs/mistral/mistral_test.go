package mistral_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/codecs/mistral"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/schema"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/require"
)

const dir = "../../testdata/mistral"

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	return b
}

func optsFor(name string) stream.Options {
	if strings.HasSuffix(name, ".sse") {
		return stream.Options{}
	}
	return stream.Options{Framing: stream.FramingJSONL}
}

func decodeFixture(t testing.TB, name string) codectest.Result {
	t.Helper()
	return codectest.SweepStream(t, mistral.Codec{}.NewFrameDecoder, optsFor(name), read(t, name))
}

func TestStreamFixtures(t *testing.T) {
	var files []string
	for _, pat := range []string{"*.jsonl", "*.sse"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		require.NoError(t, err)
		files = append(files, m...)
	}
	require.NotEmpty(t, files)
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			res := decodeFixture(t, name)
			base := strings.TrimSuffix(strings.TrimSuffix(name, ".jsonl"), ".sse")
			codectest.Golden(t, filepath.Join(dir, "golden", base+".turn.json"), res.Document())
			ev := strings.Join(codectest.EventSummary(res.Events), "\n") + "\nerr: " + fmt.Sprint(res.Err) + "\n"
			codectest.Golden(t, filepath.Join(dir, "golden", base+".events.txt"), []byte(ev))
			require.NoError(t, schema.Validate(schema.Turn, res.Turn.AppendJSON(nil)))
			codectest.RoundTripDocument(t, res.Turn)
		})
	}
}

func TestBodyFixtures(t *testing.T) {
	for _, name := range []string{"magistral-thinking.json", "thinking-tool-call.json"} {
		t.Run(name, func(t *testing.T) {
			tu, err := mistral.Codec{}.Decode(read(t, name))
			require.NoError(t, err)
			codectest.Golden(t, filepath.Join(dir, "golden", strings.TrimSuffix(name, ".json")+".body.turn.json"), codectest.Indent(tu.AppendJSON(nil)))
			require.NoError(t, schema.Validate(schema.Turn, tu.AppendJSON(nil)))
			codectest.RoundTripDocument(t, tu)
		})
	}
}

func TestMagistralStream(t *testing.T) {
	res := decodeFixture(t, "magistral-thinking.sse")
	require.NoError(t, res.Err)
	tu := res.Turn
	require.True(t, tu.Complete)
	require.Len(t, tu.Blocks, 2)
	rt := tu.Blocks[0].(*replay.ReasoningText)
	require.Equal(t, "A train leaves at 9:40 and the trip takes 2 h 35 min, so it arrives at 12:15.", rt.Text)
	require.Equal(t, formats.Mistral, rt.Format)
	require.Equal(t, replay.Absent, rt.Signature.Presence())
	require.Nil(t, rt.Extra)
	require.True(t, rt.Replayable())
	require.Equal(t, "It arrives at **12:15**.", tu.VisibleText())
	require.Equal(t, "magistral-medium-2509", tu.Provenance.Model)
	require.Equal(t, "stop", tu.FinishReason)
}

func TestMixedDelta(t *testing.T) {
	res := decodeFixture(t, "small-mixed-delta.jsonl")
	require.NoError(t, res.Err)
	rt := res.Turn.Blocks[0].(*replay.ReasoningText)
	require.Equal(t, "Sum the digits: 4+5+6 = 15.", rt.Text)
	require.Equal(t, `{"closed":true}`, string(rt.Extra))
	require.Equal(t, "15", res.Turn.VisibleText())
	require.Len(t, res.Turn.Blocks, 2)
	// The reasoning closes before the text of the same delta starts.
	sum := codectest.EventSummary(res.Events)
	require.Equal(t, []string{
		`reasoning_start block=0 item=reasoning.text`,
		`reasoning_delta block=0 delta="Sum the digits: " item=reasoning.text`,
		`reasoning_delta block=0 delta="4+5+6 = 15" item=reasoning.text`,
		`reasoning_delta block=0 delta="." item=reasoning.text`,
		`reasoning_end block=0 item=reasoning.text`,
		`text_delta block=1 delta="1"`,
		`text_delta block=1 delta="5"`,
		`done block=-1`,
	}, sum)
}

func TestToolCall(t *testing.T) {
	res := decodeFixture(t, "thinking-tool-call.jsonl")
	require.NoError(t, res.Err)
	calls := res.Turn.ToolCalls()
	require.Len(t, calls, 1)
	require.Equal(t, "Xq7LmN2pR", calls[0].ID)
	require.Equal(t, "get_rate", calls[0].Name)
	require.Equal(t, `{"from": "EUR", "to": "JPY"}`, calls[0].Arguments)
	require.Equal(t, "tool_calls", res.Turn.FinishReason)

	body, err := mistral.Codec{}.Decode(read(t, "thinking-tool-call.json"))
	require.NoError(t, err)
	require.Equal(t, `{"city":"Oslo","days":1}`, body.ToolCalls()[0].Arguments)
	require.Equal(t, "The user wants tomorrow's forecast for Oslo.", body.Blocks[0].(*replay.ReasoningText).Text)
}

func TestBodyJoinsParts(t *testing.T) {
	tu, err := mistral.Codec{}.Decode(read(t, "magistral-thinking.json"))
	require.NoError(t, err)
	rt := tu.Blocks[0].(*replay.ReasoningText)
	require.Equal(t, "Seven squared is 49; add 1 to get 50.", rt.Text)
	require.Equal(t, `{"closed":true}`, string(rt.Extra))
	require.Equal(t, "The answer is 50.", tu.VisibleText())
	require.Equal(t, "magistral-small-2509", tu.Provenance.Model)
}

func TestPlainStringContent(t *testing.T) {
	tu, err := mistral.Codec{}.Decode([]byte(`{"model":"mistral-small-2603","choices":[{"message":{"role":"assistant","content":"Hi there"},"finish_reason":"stop"}]}`))
	require.NoError(t, err)
	require.Len(t, tu.Blocks, 1)
	require.Equal(t, "Hi there", tu.VisibleText())
}

func TestVerbatimChunks(t *testing.T) {
	body := `{"choices":[{"message":{"content":[{"type":"thinking","thinking":[{"type":"reference","reference_ids":[1]}]},{"type":"reference","reference_ids":[2]},{"type":"text","text":"x"}]},"finish_reason":"stop"}]}`
	tu, err := mistral.Codec{}.Decode([]byte(body))
	require.NoError(t, err)
	require.Equal(t, "thinking", tu.Blocks[0].(*replay.Native).Kind)
	require.Equal(t, `{"type":"thinking","thinking":[{"type":"reference","reference_ids":[1]}]}`, string(tu.Blocks[0].(*replay.Native).Raw))
	require.Equal(t, "reference", tu.Blocks[1].(*replay.Native).Kind)
	enc, err := mistral.Codec{}.Encode(tu)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"reference","reference_ids":[1]}]},{"type":"reference","reference_ids":[2]},{"type":"text","text":"x"}]}`, string(enc))
	patched, err := mistral.Codec{}.Patch([]byte(`{"role":"assistant","content":"x"}`), tu)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"reference","reference_ids":[1]}]},{"type":"text","text":"x"}]}`, string(patched))
}

// TestThinkingWithOtherParts: a thinking chunk whose parts are not all text
// decodes, from a body and from a stream, to the same blocks, in a document
// that reads back and validates (it was a "thinking"-typed item that
// UnmarshalTurn and the schema refuse).
func TestThinkingWithOtherParts(t *testing.T) {
	content := `[{"type":"thinking","thinking":[{"type":"text","text":"look it up"},{"type":"reference","reference_ids":[3]}],"closed":true},{"type":"text","text":"Found it."}]`
	body, err := mistral.Codec{}.Decode([]byte(`{"model":"magistral-medium-2609","choices":[{"message":{"role":"assistant","content":` + content + `},"finish_reason":"stop"}]}`))
	require.NoError(t, err)
	sse := "data: {\"model\":\"magistral-medium-2609\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":" + content + "},\"finish_reason\":\"stop\"}]}\n\n"
	res := codectest.SweepStream(t, func() codecs.FrameDecoder { return mistral.Codec{}.NewFrameDecoder() }, stream.Options{}, []byte(sse))
	require.NoError(t, res.Err)
	want := `{"version":2,"provenance":{"api":"mistral","provider":"mistral","model":"magistral-medium-2609"},"complete":true,"finish_reason":"stop","blocks":[` +
		`{"type":"native","kind":"thinking","raw":{"type":"thinking","thinking":[{"type":"text","text":"look it up"},{"type":"reference","reference_ids":[3]}],"closed":true}},` +
		`{"type":"text","text":"Found it."}]}`
	for name, tu := range map[string]*replay.Turn{"body": body, "stream": res.Turn} {
		doc := tu.AppendJSON(nil)
		require.Equal(t, want, string(doc), name)
		require.NoError(t, schema.Validate(schema.Turn, codectest.Indent(doc)), name)
		back, err := replay.UnmarshalTurn(doc)
		require.NoError(t, err, name)
		require.Equal(t, string(doc), string(back.AppendJSON(nil)), name)
	}
}

func TestCutAndError(t *testing.T) {
	res := decodeFixture(t, "cut-mid-thinking.jsonl")
	require.ErrorIs(t, res.Err, io.ErrUnexpectedEOF)
	rt := res.Turn.Blocks[0].(*replay.ReasoningText)
	require.Equal(t, "Let me think about the boundary cases", rt.Text)
	require.True(t, rt.Unfinished)
	require.False(t, res.Turn.Complete)
	enc, err := mistral.Codec{}.Encode(res.Turn)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":""}`, string(enc))

	res = decodeFixture(t, "stream-error.jsonl")
	var pe *replay.ProviderError
	require.ErrorAs(t, res.Err, &pe)
	require.Equal(t, "Service unavailable, please retry", pe.Message)
	require.Equal(t, "service_unavailable", pe.Type)
	require.Equal(t, "1503", pe.Code)
	require.True(t, res.Turn.Blocks[0].(*replay.ReasoningText).Unfinished)

	_, err = mistral.Codec{}.Decode(read(t, "error-body.json"))
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "Invalid model: magistral-huge", pe.Message)
}

func TestMalformed(t *testing.T) {
	for _, body := range []string{``, `[]`, `{"choices":[]}`, `{"choices":[{"message":{"content":5}}]}`,
		`{"choices":[{"message":{"content":[{"type":"thinking","thinking":5}]}}]}`,
		`{"choices":[{"message":{"content":[],"tool_calls":[{"function":{}}]}}]}`} {
		_, err := mistral.Codec{}.Decode([]byte(body))
		require.ErrorIs(t, err, replay.ErrMalformed, body)
	}
	for _, s := range []string{"nope\n", `{"choices":{}}` + "\n", `{"choices":[{"delta":{"content":5}}]}` + "\n",
		`{"choices":[{"delta":{},"finish_reason":"stop"}]}` + "\n" + `{"choices":[{"delta":{"content":"x"}}]}` + "\n"} {
		res := codectest.FeedPush(mistral.Codec{}.NewFrameDecoder(), stream.Options{Framing: stream.FramingJSONL}, [][]byte{[]byte(s)})
		require.ErrorIs(t, res.Err, replay.ErrMalformed, s)
		require.False(t, res.Turn.Complete, s)
	}
}

func TestLimits(t *testing.T) {
	c := mistral.Codec{Limits: replay.Limits{MaxItem: 8}}
	res := codectest.FeedPush(c.NewFrameDecoder(), stream.Options{}, [][]byte{read(t, "magistral-thinking.sse")})
	var le *replay.LimitError
	require.ErrorAs(t, res.Err, &le)
	require.Equal(t, 8, le.Limit)
	_, err := c.Decode(read(t, "magistral-thinking.json"))
	require.ErrorAs(t, err, &le)
}

func handles(tu *replay.Turn) []string {
	var out []string
	for _, b := range tu.Blocks {
		switch b := b.(type) {
		case *replay.ReasoningText:
			out = append(out, fmt.Sprintf("thinking %q %s extra=%s", b.Text, b.Format, b.Extra))
		case *replay.Text:
			out = append(out, fmt.Sprintf("text %q", b.Text))
		case *replay.ToolCall:
			out = append(out, fmt.Sprintf("call %s %s %s", b.ID, b.Name, b.Arguments))
		default:
			out = append(out, fmt.Sprintf("%T", b))
		}
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	for _, name := range []string{"magistral-thinking.sse", "small-mixed-delta.jsonl", "thinking-tool-call.jsonl", "magistral-thinking.json", "thinking-tool-call.json"} {
		t.Run(name, func(t *testing.T) {
			c := mistral.Codec{}
			var tu *replay.Turn
			var err error
			if strings.HasSuffix(name, ".json") {
				tu, err = c.Decode(read(t, name))
			} else {
				tu, err = stream.Decode(bytes.NewReader(read(t, name)), c, optsFor(name))
			}
			require.NoError(t, err)
			enc, err := c.Encode(tu)
			require.NoError(t, err)
			back, err := c.Decode([]byte(`{"choices":[{"message":` + string(enc) + `,"finish_reason":"stop"}]}`))
			require.NoError(t, err)
			require.Equal(t, handles(tu), handles(back))
		})
	}
	tu, err := mistral.Codec{}.Decode(read(t, "thinking-tool-call.json"))
	require.NoError(t, err)
	enc, err := mistral.Codec{}.Encode(tu)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"The user wants tomorrow's forecast for Oslo."}],"closed":true}],"tool_calls":[{"id":"k2P9sVw3T","type":"function","function":{"name":"forecast","arguments":"{\"city\":\"Oslo\",\"days\":1}"}}]}`, string(enc))
}

func TestPatch(t *testing.T) {
	c := mistral.Codec{}
	tu, err := c.Decode(read(t, "magistral-thinking.json"))
	require.NoError(t, err)
	thinking := `{"type":"thinking","thinking":[{"type":"text","text":"Seven squared is 49; add 1 to get 50."}],"closed":true}`
	out, err := c.Patch([]byte(`{"role": "assistant", "content": "The answer is 50.", "prefix": false}`), tu)
	require.NoError(t, err)
	require.Equal(t, `{"role": "assistant", "content": [`+thinking+`,{"type":"text","text":"The answer is 50."}], "prefix": false}`, string(out))
	again, err := c.Patch(out, tu)
	require.NoError(t, err)
	require.Equal(t, string(out), string(again), "patching twice replaces the old thinking")

	tc, err := c.Decode(read(t, "thinking-tool-call.json"))
	require.NoError(t, err)
	out, err = c.Patch([]byte(`{"role":"assistant","tool_calls":[{"id":"k2P9sVw3T","type":"function","function":{"name":"forecast","arguments":"{}"}}]}`), tc)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","tool_calls":[{"id":"k2P9sVw3T","type":"function","function":{"name":"forecast","arguments":"{}"}}],"content":[{"type":"thinking","thinking":[{"type":"text","text":"The user wants tomorrow's forecast for Oslo."}],"closed":true}]}`, string(out))
	_, err = c.Patch([]byte(`{"content":5}`), tc)
	require.ErrorIs(t, err, replay.ErrMalformed)
}

func TestContract(t *testing.T) {
	rules := mistral.Codec{}.Contract().Rules
	audit := func(bs ...replay.Block) []string {
		rep := replay.ReplayContract{Rules: rules}.Audit(replay.History{Turns: []*replay.Turn{{Complete: true, Blocks: bs}}}, replay.Target{API: mistral.API})
		var out []string
		for _, v := range rep.Violations {
			out = append(out, fmt.Sprintf("%s b%d", v.Rule, v.Block))
		}
		return out
	}
	own := &replay.ReasoningText{Text: "mine"}
	own.Format = formats.Mistral
	require.Empty(t, audit(own, &replay.Text{Text: "x"}))

	claude := &replay.ReasoningText{Text: "t", Signature: replay.Some("EqSIG")}
	claude.Format = formats.AnthropicClaude
	enc := &replay.Encrypted{Data: "gAAAA"}
	enc.Format = formats.OpenAIResponses
	kimi := &replay.ReasoningText{Text: "k"}
	kimi.Format = formats.Kimi
	require.Equal(t, []string{
		"mistral/inexpressible b0", "mistral/foreign-reasoning b0",
		"mistral/inexpressible b1",
		"mistral/foreign-reasoning b2",
	}, audit(claude, enc, kimi))
}

func TestRegistered(t *testing.T) {
	c, err := replay.Resolve("", "magistral-medium-2509")
	require.NoError(t, err)
	require.Equal(t, mistral.API, c.API())
	c, err = replay.Lookup("mistral", "mistral", "")
	require.NoError(t, err)
	require.Equal(t, mistral.Codec{Provider: "mistral"}, c)
}

func TestErrorsTyped(t *testing.T) {
	_, err := mistral.Codec{}.Decode([]byte(`{`))
	require.True(t, errors.Is(err, replay.ErrMalformed))
}

func Example() {
	events := `{"model":"magistral-medium-2509","choices":[{"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"2+2 is 4."}]}]}}]}
{"model":"magistral-medium-2509","choices":[{"delta":{"content":"4"},"finish_reason":"stop"}]}
`
	c := mistral.Codec{}
	turn, err := stream.Decode(strings.NewReader(events), c, stream.Options{Framing: stream.FramingJSONL})
	if err != nil {
		panic(err)
	}
	msg, _ := c.Encode(turn)
	fmt.Println(turn.Items()[0].Meta().Format)
	fmt.Println(string(msg))
	// Output:
	// mistral-v1
	// {"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"2+2 is 4."}]},{"type":"text","text":"4"}]}
}
