package cohere_test

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
	"github.com/reasonreplay/replay/codecs/cohere"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/schema"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const dir = "../../testdata/cohere"

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
	c := cohere.Codec{Model: "command-a-reasoning-08-2025"}
	return codectest.SweepStream(t, c.NewFrameDecoder, optsFor(name), read(t, name))
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
			base := strings.ReplaceAll(name, ".", "-")
			codectest.Golden(t, filepath.Join(dir, "golden", base+".turn.json"), res.Document())
			ev := strings.Join(codectest.EventSummary(res.Events), "\n") + "\nerr: " + fmt.Sprint(res.Err) + "\n"
			codectest.Golden(t, filepath.Join(dir, "golden", base+".events.txt"), []byte(ev))
			require.NoError(t, schema.Validate(schema.Turn, res.Turn.AppendJSON(nil)))
			codectest.RoundTripDocument(t, res.Turn)
		})
	}
}

func TestBodyFixtures(t *testing.T) {
	for _, name := range []string{"thinking.json", "thinking-tool-call.json"} {
		t.Run(name, func(t *testing.T) {
			tu, err := cohere.Codec{}.Decode(read(t, name))
			require.NoError(t, err)
			codectest.Golden(t, filepath.Join(dir, "golden", strings.ReplaceAll(name, ".", "-")+".turn.json"), codectest.Indent(tu.AppendJSON(nil)))
			require.NoError(t, schema.Validate(schema.Turn, tu.AppendJSON(nil)))
			codectest.RoundTripDocument(t, tu)
		})
	}
}

func TestThinkingStream(t *testing.T) {
	sse := decodeFixture(t, "thinking.sse")
	jsonl := decodeFixture(t, "thinking.jsonl")
	require.Equal(t, string(sse.Document()), string(jsonl.Document()), "SSE and JSONL give the same turn")
	require.NoError(t, sse.Err)
	tu := sse.Turn
	require.Len(t, tu.Blocks, 2)
	rt := tu.Blocks[0].(*replay.ReasoningText)
	require.Equal(t, "A weekhas 7 days, so 3 weeks are 21 days; add 4 → 25.", rt.Text, "pieces joined exactly, nothing added")
	require.Equal(t, formats.Cohere, rt.Format)
	require.True(t, rt.Replayable())
	require.Equal(t, "That is **25 days**.", tu.VisibleText())
	require.Equal(t, "COMPLETE", tu.FinishReason)
	require.Equal(t, "command-a-reasoning-08-2025", tu.Provenance.Model)
	require.JSONEq(t, `{"billed_units":{"input_tokens":9,"output_tokens":41},"tokens":{"input_tokens":820,"output_tokens":45}}`, string(tu.Usage))
}

func TestToolCallStream(t *testing.T) {
	res := decodeFixture(t, "thinking-tool-call.jsonl")
	require.NoError(t, res.Err)
	tu := res.Turn
	require.Equal(t, `I should look up the "opening hours" first.`, tu.Blocks[0].(*replay.ReasoningText).Text)
	plan := tu.Blocks[1].(*replay.Native)
	require.Equal(t, "tool_plan", plan.Kind)
	require.Equal(t, `"I will check the museum's hours."`, string(plan.Raw))
	calls := tu.ToolCalls()
	require.Len(t, calls, 1)
	require.Equal(t, "get_hours_q8w2e4r6t1y3", calls[0].ID)
	require.Equal(t, `{"place": "Rijksmuseum"}`, calls[0].Arguments)
	require.Equal(t, "TOOL_CALL", tu.FinishReason)
}

func TestDoneTerminator(t *testing.T) {
	data := append(read(t, "thinking.sse"), "data: [DONE]\n\n"...)
	res := codectest.SweepStream(t, cohere.Codec{Model: "command-a-reasoning-08-2025"}.NewFrameDecoder, stream.Options{}, data)
	require.NoError(t, res.Err)
	require.Equal(t, string(decodeFixture(t, "thinking.sse").Document()), string(res.Document()))
	// [DONE] alone does not complete a turn.
	res = codectest.FeedPush(cohere.Codec{}.NewFrameDecoder(), stream.Options{}, [][]byte{[]byte("data: [DONE]\n\n")})
	require.ErrorIs(t, res.Err, io.ErrUnexpectedEOF)
}

func TestCutAndError(t *testing.T) {
	res := decodeFixture(t, "cut-mid-thinking.jsonl")
	require.ErrorIs(t, res.Err, io.ErrUnexpectedEOF)
	rt := res.Turn.Blocks[0].(*replay.ReasoningText)
	require.Equal(t, "Step one: read the question", rt.Text)
	require.True(t, rt.Unfinished)
	require.False(t, res.Turn.Complete)

	res = decodeFixture(t, "stream-error.jsonl")
	var pe *replay.ProviderError
	require.ErrorAs(t, res.Err, &pe)
	require.Equal(t, "internal server error, please try again", pe.Message)
	require.False(t, res.Turn.Complete)
	require.True(t, res.Turn.Blocks[0].(*replay.ReasoningText).Unfinished)

	_, err := cohere.Codec{}.Decode(read(t, "error-body.json"))
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "invalid request: model 'command-z' not found", pe.Message)
}

func TestMalformed(t *testing.T) {
	for _, body := range []string{``, `[]`, `{"message":5}`, `{"message":{"content":[5]}}`,
		`{"message":{"content":[{"type":"thinking","thinking":3}]}}`, `{"message":{"content":[],"tool_calls":[{"function":{}}]}}`} {
		_, err := cohere.Codec{}.Decode([]byte(body))
		require.ErrorIs(t, err, replay.ErrMalformed, body)
	}
	for _, s := range []string{"nope\n", `[1]` + "\n",
		`{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"x"}}}}` + "\n",
		`{"type":"content-start","index":-2}` + "\n",
		`{"type":"content-start","index":0,"delta":{"message":{"content":{"type":"text","text":5}}}}` + "\n",
		`{"type":"tool-call-start","index":0,"delta":{"message":{"tool_calls":{}}}}` + "\n",
	} {
		res := codectest.FeedPush(cohere.Codec{}.NewFrameDecoder(), stream.Options{Framing: stream.FramingJSONL}, [][]byte{[]byte(s)})
		require.ErrorIs(t, res.Err, replay.ErrMalformed, s)
		require.False(t, res.Turn.Complete)
	}
}

func TestLimits(t *testing.T) {
	c := cohere.Codec{Limits: replay.Limits{MaxItem: 8}}
	res := codectest.FeedPush(c.NewFrameDecoder(), stream.Options{}, [][]byte{read(t, "thinking.sse")})
	var le *replay.LimitError
	require.ErrorAs(t, res.Err, &le)
	_, err := c.Decode(read(t, "thinking.json"))
	require.ErrorAs(t, err, &le)
}

func TestSweepLimits(t *testing.T) {
	for _, name := range []string{"thinking.sse", "thinking-tool-call.jsonl"} {
		t.Run(name, func(t *testing.T) {
			codectest.SweepLimits(t, cohere.Codec{}.NewFrameDecoder, optsFor(name).Framing, read(t, name))
		})
	}
}

func TestBodyLimits(t *testing.T) {
	for _, name := range []string{"thinking.json", "thinking-tool-call.json"} {
		t.Run(name, func(t *testing.T) {
			codectest.CheckBodyLimits(t, func(l replay.Limits) replay.ReasoningCodec { return cohere.Codec{Limits: l} }, read(t, name))
		})
	}
}

// Every kept string counts, each against MaxItem and all against MaxTurn;
// a limit error says where.
func TestLimitsCountEveryString(t *testing.T) {
	body := []byte(`{"message":{"role":"assistant","content":[{"type":"thinking","thinking":"abc"}],` +
		`"tool_calls":[{"id":"call_0123456789","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"TOOL_CALL"}`)
	_, err := cohere.Codec{Limits: replay.Limits{MaxItem: 8}}.Decode(body)
	var le *replay.LimitError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, replay.LimitError{What: "item size", Limit: 8, API: cohere.API, Event: -1, Block: 1}, *le)
	_, err = cohere.Codec{Limits: replay.Limits{MaxTurn: 10}}.Decode(body)
	require.ErrorAs(t, err, &le)
	assert.Equal(t, replay.LimitError{What: "turn size", Limit: 10, API: cohere.API, Event: -1, Block: 1}, *le)

	// In a stream, the error names the event.
	fd := cohere.Codec{}.NewFrameDecoder()
	fd.SetLimits(replay.Limits{MaxItem: 4})
	res := codectest.FeedPush(fd, stream.Options{Framing: stream.FramingJSONL}, [][]byte{[]byte(
		`{"type":"content-start","index":0,"delta":{"message":{"content":{"type":"thinking","thinking":"ab"}}}}` + "\n" +
			`{"type":"content-delta","index":0,"delta":{"message":{"content":{"thinking":"cde"}}}}` + "\n")})
	require.ErrorAs(t, res.Err, &le)
	assert.Equal(t, replay.LimitError{What: "item size", Limit: 4, API: cohere.API, Event: 1, Block: 0}, *le)
	assert.False(t, res.Turn.Complete)
	assert.True(t, res.Turn.Blocks[0].(*replay.ReasoningText).Unfinished)
}

func handles(tu *replay.Turn) []string {
	var out []string
	for _, b := range tu.Blocks {
		switch b := b.(type) {
		case *replay.ReasoningText:
			out = append(out, fmt.Sprintf("thinking %q %s", b.Text, b.Format))
		case *replay.Text:
			out = append(out, fmt.Sprintf("text %q", b.Text))
		case *replay.ToolCall:
			out = append(out, fmt.Sprintf("call %s %s %s", b.ID, b.Name, b.Arguments))
		case *replay.Native:
			out = append(out, fmt.Sprintf("native %s %s", b.Kind, b.Raw))
		}
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	for _, name := range []string{"thinking.sse", "thinking-tool-call.jsonl", "thinking.json", "thinking-tool-call.json"} {
		t.Run(name, func(t *testing.T) {
			c := cohere.Codec{}
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
			back, err := c.Decode([]byte(`{"message":` + string(enc) + `}`))
			require.NoError(t, err)
			require.Equal(t, handles(tu), handles(back))
		})
	}
	tu, err := cohere.Codec{}.Decode(read(t, "thinking-tool-call.json"))
	require.NoError(t, err)
	enc, err := cohere.Codec{}.Encode(tu)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":[{"type":"thinking","thinking":"Need the exchange rate."}],"tool_plan":"I will look up the EUR to USD rate.","tool_calls":[{"id":"fx_rate_k3j5h7g9","type":"function","function":{"name":"fx_rate","arguments":"{\"base\":\"EUR\",\"quote\":\"USD\"}"}}]}`, string(enc))
}

func TestCitationsVerbatim(t *testing.T) {
	body := `{"message":{"role":"assistant","content":[{"type":"text","text":"Paris."}],"citations":[{"start":0,"end":5,"text":"Paris","sources":[{"type":"document","id":"doc:0"}]}]},"finish_reason":"COMPLETE"}`
	tu, err := cohere.Codec{}.Decode([]byte(body))
	require.NoError(t, err)
	enc, err := cohere.Codec{}.Encode(tu)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":[{"type":"text","text":"Paris."}],"citations":[{"start":0,"end":5,"text":"Paris","sources":[{"type":"document","id":"doc:0"}]}]}`, string(enc))
}

func TestPatch(t *testing.T) {
	c := cohere.Codec{}
	tu, err := c.Decode(read(t, "thinking.json"))
	require.NoError(t, err)
	out, err := c.Patch([]byte(`{"role": "assistant", "content": "Soft rain on the roof\nwhispers through the sleeping town\npuddles hold the sky"}`), tu)
	require.NoError(t, err)
	require.Equal(t, `{"role": "assistant", "content": [{"type":"thinking","thinking":"The user asks for a haiku about rain; 5-7-5 syllables."},{"type":"text","text":"Soft rain on the roof\nwhispers through the sleeping town\npuddles hold the sky"}]}`, string(out))
	again, err := c.Patch(out, tu)
	require.NoError(t, err)
	require.Equal(t, string(out), string(again))

	tc, err := c.Decode(read(t, "thinking-tool-call.json"))
	require.NoError(t, err)
	out, err = c.Patch([]byte(`{"role":"assistant","tool_plan":"p","tool_calls":[]}`), tc)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","tool_plan":"p","tool_calls":[],"content":[{"type":"thinking","thinking":"Need the exchange rate."}]}`, string(out))
	_, err = c.Patch([]byte(`{"content":{}}`), tc)
	require.ErrorIs(t, err, replay.ErrMalformed)
}

func TestContract(t *testing.T) {
	rules := cohere.Codec{}.Contract().Rules
	audit := func(bs ...replay.Block) []string {
		rep := replay.ReplayContract{Rules: rules}.Audit(replay.History{Turns: []*replay.Turn{{Complete: true, Blocks: bs}}}, replay.Target{API: cohere.API})
		var out []string
		for _, v := range rep.Violations {
			out = append(out, fmt.Sprintf("%s b%d", v.Rule, v.Block))
		}
		return out
	}
	own := &replay.ReasoningText{Text: "mine"}
	own.Format = formats.Cohere
	require.Empty(t, audit(own, &replay.Text{Text: "x"}))
	sum := &replay.Summary{Summary: "s"}
	sum.Format = formats.OpenAIResponses
	ds := &replay.ReasoningText{Text: "d"}
	ds.Format = formats.DeepSeek
	require.Equal(t, []string{"cohere/inexpressible b0", "cohere/foreign-reasoning b1"}, audit(sum, ds))
}

func TestRegistered(t *testing.T) {
	c, err := replay.Lookup("cohere", "", "command-a-reasoning-08-2025")
	require.NoError(t, err)
	require.Equal(t, cohere.Codec{Model: "command-a-reasoning-08-2025"}, c)
	c, err = replay.Resolve("cohere", "")
	require.NoError(t, err)
	require.Equal(t, cohere.API, c.API())
}

func TestErrorsTyped(t *testing.T) {
	_, err := cohere.Codec{}.Decode([]byte(`{`))
	require.True(t, errors.Is(err, replay.ErrMalformed))
}

func Example() {
	events := `{"type":"message-start","delta":{"message":{"role":"assistant"}}}
{"type":"content-start","index":0,"delta":{"message":{"content":{"type":"thinking","thinking":""}}}}
{"type":"content-delta","index":0,"delta":{"message":{"content":{"thinking":"3 + 4 = 7."}}}}
{"type":"content-end","index":0}
{"type":"content-start","index":1,"delta":{"message":{"content":{"type":"text","text":""}}}}
{"type":"content-delta","index":1,"delta":{"message":{"content":{"text":"7"}}}}
{"type":"content-end","index":1}
{"type":"message-end","delta":{"finish_reason":"COMPLETE"}}
`
	c := cohere.Codec{}
	turn, err := stream.Decode(strings.NewReader(events), c, stream.Options{Framing: stream.FramingJSONL})
	if err != nil {
		panic(err)
	}
	msg, _ := c.Encode(turn)
	fmt.Println(turn.Items()[0].Meta().Format)
	fmt.Println(string(msg))
	// Output:
	// cohere-v1
	// {"role":"assistant","content":[{"type":"thinking","thinking":"3 + 4 = 7."},{"type":"text","text":"7"}]}
}

// Issue 11: the finish reason, usage and error message are bounded like
// every other kept string, in bodies and streams.
func TestResponseMembersLimited(t *testing.T) {
	big := strings.Repeat("x", 64)
	lim := replay.Limits{MaxItem: 32}
	for name, body := range map[string]string{
		"finish_reason": `{"id":"r","finish_reason":"` + big + `","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]}}`,
		"usage":         `{"id":"r","finish_reason":"COMPLETE","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]},"usage":{"note":"` + big + `"}}`,
		"error message": `{"id":"r","message":"` + big + `"}`,
	} {
		_, err := cohere.Codec{Limits: lim}.Decode([]byte(body))
		var le *replay.LimitError
		require.ErrorAs(t, err, &le, name)
		assert.Equal(t, "item size", le.What, name)
	}
	for name, end := range map[string]string{
		"finish_reason": `{"type":"message-end","delta":{"finish_reason":"` + big + `"}}`,
		"usage":         `{"type":"message-end","delta":{"finish_reason":"COMPLETE","usage":{"note":"` + big + `"}}}`,
		"error":         `{"type":"message-end","delta":{"finish_reason":"ERROR","error":"` + big + `"}}`,
	} {
		data := `{"type":"message-start","id":"r","delta":{"message":{"role":"assistant"}}}` + "\n" + end + "\n"
		_, err := stream.Decode(strings.NewReader(data), cohere.Codec{Limits: lim}, stream.Options{Framing: stream.FramingJSONL})
		var le *replay.LimitError
		require.ErrorAs(t, err, &le, name)
		assert.Equal(t, "item size", le.What, name)
	}
}

// A content-start or citation-start without its member keeps nothing: no
// block without bytes (which Encode refuses) is ever made, so what decodes
// also encodes, before and after a trip through the document.
func TestStartWithoutMember(t *testing.T) {
	data := []byte(`{"type":"content-start","index":0}` + "\n" +
		`{"type":"citation-start","index":0}` + "\n" +
		`{"type":"content-start","index":1,"delta":{"message":{"content":{"type":"image","url":"u"}}}}` + "\n" +
		`{"type":"message-end","delta":{"finish_reason":"COMPLETE"}}` + "\n")
	res := codectest.SweepStream(t, cohere.Codec{}.NewFrameDecoder, stream.Options{Framing: stream.FramingJSONL}, data)
	require.NoError(t, res.Err)
	tu := res.Turn
	require.Len(t, tu.Blocks, 1, "only the start that carries content")
	n, ok := tu.Blocks[0].(*replay.Native)
	require.True(t, ok)
	assert.Equal(t, "content-start", n.Kind)
	assert.Equal(t, `{"type":"image","url":"u"}`, string(n.Raw))
	enc, err := cohere.Codec{}.Encode(tu)
	require.NoError(t, err, "every block has its bytes")
	assert.Equal(t, `{"role":"assistant","content":[]}`, string(enc), "a streamed content of another type is not sent back")
}
