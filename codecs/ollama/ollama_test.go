package ollama_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/ollama"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/schema"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const dir = "../../testdata/ollama"

var jsonl = stream.Options{Framing: stream.FramingJSONL}

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	return b
}

func decodeFixture(t testing.TB, name string) codectest.Result {
	t.Helper()
	return codectest.SweepStream(t, ollama.Codec{}.NewFrameDecoder, jsonl, read(t, name))
}

// handles sums up a turn's blocks, one line each.
func handles(tu *replay.Turn) []string {
	var out []string
	for _, b := range tu.Blocks {
		switch x := b.(type) {
		case *replay.ReasoningText:
			out = append(out, fmt.Sprintf("thinking %q %s unfinished=%v extra=%s", x.Text, x.Format, x.Unfinished, x.Extra))
		case *replay.Text:
			out = append(out, fmt.Sprintf("text %q", x.Text))
		case *replay.ToolCall:
			out = append(out, fmt.Sprintf("call %q %q %s unfinished=%v extra=%s", x.ID, x.Name, x.Arguments, x.Unfinished, x.Extra))
		default:
			out = append(out, fmt.Sprintf("%T", b))
		}
	}
	return out
}

func TestStreamFixtures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	require.Len(t, files, 7)
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			res := decodeFixture(t, name)
			base := strings.TrimSuffix(name, ".jsonl")
			codectest.Golden(t, filepath.Join(dir, "golden", base+".turn.json"), res.Document())
			ev := strings.Join(codectest.EventSummary(res.Events), "\n") + "\nerr: " + fmt.Sprint(res.Err) + "\n"
			codectest.Golden(t, filepath.Join(dir, "golden", base+".events.txt"), []byte(ev))
			require.NoError(t, schema.Validate(schema.Turn, res.Turn.AppendJSON(nil)))
			codectest.RoundTripDocument(t, res.Turn)
			codectest.SameAsReshaped(t, ollama.Codec{}.NewFrameDecoder, jsonl, read(t, name))
		})
	}
}

func TestBodyFixtures(t *testing.T) {
	for _, name := range []string{"chat.json", "tool-call.json"} {
		t.Run(name, func(t *testing.T) {
			tu, err := ollama.Codec{}.Decode(read(t, name))
			require.NoError(t, err)
			codectest.Golden(t, filepath.Join(dir, "golden", strings.TrimSuffix(name, ".json")+".body.turn.json"), codectest.Indent(tu.AppendJSON(nil)))
			require.NoError(t, schema.Validate(schema.Turn, tu.AppendJSON(nil)))
			codectest.RoundTripDocument(t, tu)
		})
	}
}

// A stream and the body Ollama answers without streaming give the same
// blocks, usage and finish reason.
func TestStreamAsBody(t *testing.T) {
	for fixture, body := range map[string]string{"thinking.jsonl": "chat.json", "tool-loop.jsonl": "tool-call.json"} {
		res := codectest.FeedPush(ollama.Codec{}.NewFrameDecoder(), jsonl, [][]byte{read(t, fixture)})
		require.NoError(t, res.Err)
		tu, err := ollama.Codec{}.Decode(read(t, body))
		require.NoError(t, err)
		assert.Equal(t, handles(tu), handles(res.Turn), fixture)
		assert.Equal(t, tu.FinishReason, res.Turn.FinishReason)
		assert.Equal(t, tu.Provenance, res.Turn.Provenance)
	}
}

func TestThinkingStream(t *testing.T) {
	res := decodeFixture(t, "thinking.jsonl")
	require.NoError(t, res.Err)
	tu := res.Turn
	assert.True(t, tu.Complete)
	assert.Equal(t, []string{
		"thinking \"The user asks how many \\\"r\\\" are in strawberry.\\nCount: s-t-r-a-w-b-e-r-r-y → 3.\" unknown unfinished=false extra=",
		"text \"There are **3** \\\"r\\\"s in “strawberry”.\"",
	}, handles(tu))
	assert.Equal(t, replay.Provenance{API: "ollama", Provider: "ollama", Model: "qwen3:8b"}, tu.Provenance)
	assert.Equal(t, "stop", tu.FinishReason)
	assert.Equal(t, `{"total_duration":1500000000,"load_duration":20000000,"prompt_eval_count":18,"prompt_eval_duration":80000000,"eval_count":42,"eval_duration":1300000000}`, string(tu.Usage))
	assert.True(t, tu.Items()[0].Replayable())
}

func TestToolCalls(t *testing.T) {
	res := decodeFixture(t, "tool-loop.jsonl")
	require.NoError(t, res.Err)
	assert.Equal(t, []string{
		`thinking "Need the weather in Tokyo; call get_weather." unknown unfinished=false extra=`,
		`call "call_k3x9q2m7" "get_weather" {"city":"Tokyo","unit":"celsius"} unfinished=false extra={"function":{"index":0}}`,
	}, handles(res.Turn))
	// Versions before ids: none is invented.
	res = decodeFixture(t, "tool-call-no-id.jsonl")
	require.NoError(t, res.Err)
	assert.Equal(t, []string{
		`call "" "get_weather" {"city":"Tokyo"} unfinished=false extra=`,
		`call "" "get_time" {"tz":"Asia/Tokyo"} unfinished=false extra=`,
	}, handles(res.Turn))
}

// With think unset, a model's <think> tags in content (split anywhere)
// are split out: reasoning, then the answer; the tags are gone.
func TestThinkTags(t *testing.T) {
	res := decodeFixture(t, "think-tags.jsonl")
	require.NoError(t, res.Err)
	assert.Equal(t, []string{
		"thinking \"\\nLet me add 17 and 25: 42.\\n\" unknown unfinished=false extra={\"source\":\"content\"}",
		"text \"\\n\\n17 + 25 = 42.\"",
	}, handles(res.Turn))
	// A native thinking member is authoritative: tags then carry nothing.
	data := `{"message":{"content":"","thinking":"native"},"done":false}` + "\n" +
		`{"message":{"content":"<think>tagged</think>answer"},"done":true}` + "\n"
	res = codectest.SweepStream(t, ollama.Codec{}.NewFrameDecoder, jsonl, []byte(data))
	require.NoError(t, res.Err)
	assert.Equal(t, []string{`thinking "native" unknown unfinished=false extra=`, `text "answer"`}, handles(res.Turn))
}

func TestCutAndErrors(t *testing.T) {
	res := decodeFixture(t, "cut-mid-thinking.jsonl")
	require.ErrorIs(t, res.Err, io.ErrUnexpectedEOF)
	assert.False(t, res.Turn.Complete)
	assert.Equal(t, []string{`thinking "First, list the files" unknown unfinished=true extra=`}, handles(res.Turn))
	assert.False(t, res.Turn.Items()[0].Replayable())

	res = decodeFixture(t, "stream-error.jsonl")
	var pe *replay.ProviderError
	require.ErrorAs(t, res.Err, &pe)
	assert.Equal(t, "an error was encountered while running the model", pe.Message)
	assert.Equal(t, "ollama", pe.API)
	assert.Same(t, pe, res.Turn.Error)
	assert.False(t, res.Turn.Complete)
	for _, it := range res.Turn.Items() {
		assert.False(t, it.Replayable())
	}

	_, err := ollama.Codec{}.Decode(read(t, "error.json"))
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, `model "qwen9:1b" not found, try pulling it first`, pe.Message)

	for _, bad := range []string{`[1]`, `{"message":"x","done":true}`, `{"message":{"content":1},"done":true}`,
		`{"message":{"thinking":{}},"done":true}`, `{"message":{"tool_calls":{}},"done":true}`,
		`{"message":{"tool_calls":[{"function":{"name":1,"arguments":{}}}]},"done":true}`,
		`{"message":{"tool_calls":[{"id":"c\ud800","function":{"name":"f","arguments":{}}}]},"done":true}`,
		`{"message":{"tool_calls":[{"function":{"name":"f","arguments":[1]}}]},"done":true}`,
		`{"message":{"content":"x"},"done":false}`, `{"message":{"content":"x"},"done":"yes"}`} {
		_, err := ollama.Codec{}.Decode([]byte(bad))
		require.ErrorIs(t, err, replay.ErrMalformed, bad)
	}
	for _, bad := range []string{"not json\n", `{"message":{"content":1},"done":false}` + "\n", `{"done":"yes"}` + "\n"} {
		res := codectest.FeedPush(ollama.Codec{}.NewFrameDecoder(), jsonl, [][]byte{[]byte(bad)})
		require.ErrorIs(t, res.Err, replay.ErrMalformed, bad)
	}
}

func TestLineAfterDoneIgnored(t *testing.T) {
	data := string(read(t, "last-piece.jsonl")) + `{"message":{"content":"late"},"done":false}` + "\nnot json\n"
	res := codectest.SweepStream(t, ollama.Codec{}.NewFrameDecoder, jsonl, []byte(data))
	require.NoError(t, res.Err)
	assert.Equal(t, []string{`text "That's a fantastic question!"`}, handles(res.Turn))
}

func TestLimits(t *testing.T) {
	for _, name := range []string{"thinking.jsonl", "tool-loop.jsonl", "think-tags.jsonl"} {
		codectest.SweepLimits(t, ollama.Codec{}.NewFrameDecoder, stream.FramingJSONL, read(t, name))
	}
	for _, name := range []string{"chat.json", "tool-call.json"} {
		codectest.CheckBodyLimits(t, func(l replay.Limits) replay.ReasoningCodec { return ollama.Codec{Limits: l} }, read(t, name))
	}
}

// Each run of one kind of piece is read in full at its first line, by
// matching after; a line of another shape (a tool call, the last line) is
// read in full.
func TestShapeCounts(t *testing.T) {
	for name, want := range map[string]int{"thinking.jsonl": 3, "tool-loop.jsonl": 1, "think-tags.jsonl": 3, "last-piece.jsonl": 1} {
		fd := ollama.Codec{}.NewFrameDecoder()
		codectest.FeedPush(fd, jsonl, [][]byte{read(t, name)})
		assert.Equal(t, want, ollama.Matched(fd), name)
		fd = ollama.Codec{}.NewFrameDecoder()
		codectest.FeedPush(fd, jsonl, [][]byte{codectest.Reshape(read(t, name))})
		assert.Zero(t, ollama.Matched(fd), name)
	}
}

// shapeRuns is a stream of runs of one shape: thinking pieces with
// escapes, a \u escape, a surrogate pair split across two lines, a lone
// half and an empty piece, then content pieces likewise.
func shapeRuns() []byte {
	var b strings.Builder
	line := func(member, piece string, i int) {
		fmt.Fprintf(&b, `{"model":"m","created_at":"2026-11-20T10:00:%02dZ","message":{"role":"assistant","content":"","%s":"%s"},"done":false}`+"\n", i, member, piece)
	}
	i := 0
	for _, p := range []string{`Step`, ` one: \"weigh\" it,\n`, ``, ` caf\u00e9 \ud83d`, `\ude00 then`, ` \ud800 lone`, ` done.`} {
		line("thinking", p, i)
		i++
	}
	b.WriteString(`{"model":"m","created_at":"2026-11-20T10:01:00Z","message":{"role":"assistant","content":"A"},"done":false}` + "\n")
	for _, p := range []string{`nswer \"quoted\"`, ``, ` \u00e9\ud83d`, `\ude00.`} {
		fmt.Fprintf(&b, `{"model":"m","created_at":"2026-11-20T10:01:%02dZ","message":{"role":"assistant","content":"%s"},"done":false}`+"\n", i, p)
		i++
	}
	b.WriteString(`{"model":"m","created_at":"2026-11-20T10:02:00Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}` + "\n")
	return []byte(b.String())
}

func TestShapeRunsReadAsInFull(t *testing.T) {
	data := shapeRuns()
	res := codectest.SameAsReshaped(t, ollama.Codec{}.NewFrameDecoder, jsonl, data)
	require.NoError(t, res.Err)
	assert.Equal(t, []string{
		"thinking \"Step one: \\\"weigh\\\" it,\\n café 😀 then \ufffd lone done.\" unknown unfinished=false extra=",
		"text \"Answer \\\"quoted\\\" é😀.\"",
	}, handles(res.Turn))
	codectest.SweepStream(t, ollama.Codec{}.NewFrameDecoder, jsonl, data)
	fd := ollama.Codec{}.NewFrameDecoder()
	codectest.FeedPush(fd, jsonl, [][]byte{data})
	assert.Equal(t, 6+4, ollama.Matched(fd))
}

// decode -> encode -> decode keeps ids, names, arguments, order and text
// byte for byte; the encoded message is what Ollama takes back.
func TestRoundTrip(t *testing.T) {
	c := ollama.Codec{}
	for _, name := range []string{"chat.json", "tool-call.json"} {
		tu, err := c.Decode(read(t, name))
		require.NoError(t, err)
		msg, err := c.Encode(tu)
		require.NoError(t, err)
		back, err := c.Decode([]byte(`{"message":` + string(msg) + `,"done":true}`))
		require.NoError(t, err, string(msg))
		assert.Equal(t, handles(tu), handles(back), name)
	}
	tu, err := c.Decode(read(t, "tool-call.json"))
	require.NoError(t, err)
	msg, err := c.Encode(tu)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"assistant","content":"","thinking":"Need the weather in Tokyo; call get_weather.",`+
		`"tool_calls":[{"id":"call_k3x9q2m7","function":{"index":0,"name":"get_weather","arguments":{"city":"Tokyo","unit":"celsius"}}}]}`, string(msg))
	// A call without an id goes back without one; arguments that are no
	// object are refused with a typed error.
	msg, err = c.Encode(&replay.Turn{Blocks: []replay.Block{&replay.ToolCall{Name: "ls"}}})
	require.NoError(t, err)
	assert.Equal(t, `{"role":"assistant","content":"","tool_calls":[{"function":{"name":"ls","arguments":{}}}]}`, string(msg))
	_, err = c.Encode(&replay.Turn{Blocks: []replay.Block{&replay.ToolCall{Name: "run", Arguments: "echo hi"}}})
	require.ErrorIs(t, err, replay.ErrMalformed)
}

func TestEncodeSkipsWhatOllamaHasNoFieldFor(t *testing.T) {
	signed := &replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: "anthropic-claude-v1"}, Text: "claude", Signature: replay.Some("sig")}
	open := &replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: replay.FormatUnknown}, Text: "mine"}
	cut := &replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: replay.FormatUnknown, Unfinished: true}, Text: "cut"}
	enc := &replay.Encrypted{ItemMeta: replay.ItemMeta{Format: "openai-responses-v1"}, Data: "gAAA"}
	msg, err := ollama.Codec{}.Encode(&replay.Turn{Blocks: []replay.Block{signed, open, cut, enc, &replay.Text{Text: "hi"}}})
	require.NoError(t, err)
	assert.Equal(t, `{"role":"assistant","content":"hi","thinking":"mine"}`, string(msg))
}

func TestPatch(t *testing.T) {
	c := ollama.Codec{}
	tu, err := c.Decode(read(t, "chat.json"))
	require.NoError(t, err)
	out, err := c.Patch([]byte(`{"role":"assistant","content":"There are 3.","images":null}`), tu)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"assistant","content":"There are 3.","images":null,"thinking":"The user asks how many \"r\" are in strawberry.\nCount: s-t-r-a-w-b-e-r-r-y → 3."}`, string(out))
	out, err = c.Patch([]byte(`{"role":"assistant","content":"x"}`), &replay.Turn{})
	require.NoError(t, err)
	assert.Equal(t, `{"role":"assistant","content":"x"}`, string(out))
	_, err = c.Patch([]byte(`[1]`), tu)
	require.ErrorIs(t, err, replay.ErrMalformed)
}

func TestDecodeRequest(t *testing.T) {
	h, tg, err := ollama.Codec{}.DecodeRequest(read(t, "history.request"))
	require.NoError(t, err)
	assert.Equal(t, replay.Target{API: "ollama", Provider: "ollama", Model: "gpt-oss:20b", Tools: true, Thinking: true}, tg)
	require.Len(t, h.Turns, 2)
	assert.Equal(t, []string{"/messages/1", "/messages/3"}, h.Pointers)
	assert.Equal(t, []string{
		`thinking "Need the weather in Tokyo; call get_weather." unknown unfinished=false extra=`,
		`call "call_k3x9q2m7" "get_weather" {"city": "Tokyo", "unit": "celsius"} unfinished=false extra={"function":{"index":0}}`,
	}, handles(h.Turns[0]))
	assert.Equal(t, []string{`thinking "The tool says 22°C, clear." unknown unfinished=false extra=`, `text "It is 22 °C and clear in Tokyo."`}, handles(h.Turns[1]))
	for _, tu := range h.Turns {
		assert.True(t, tu.Complete)
	}

	h, tg, err = ollama.Codec{}.DecodeRequest(read(t, "history-cut.request"))
	require.NoError(t, err)
	assert.True(t, tg.Thinking)
	require.Len(t, h.Turns, 1)
	assert.False(t, h.Turns[0].Complete, "a tool call without arguments")
	assert.Equal(t, []string{`thinking "I will call ls." unknown unfinished=false extra=`, `call "" "ls"  unfinished=true extra=`}, handles(h.Turns[0]))

	rep, err := replay.AuditRequest("ollama", read(t, "history-cut.request"))
	require.NoError(t, err)
	var ids []string
	for _, v := range rep.Violations {
		ids = append(ids, v.Rule)
	}
	assert.Contains(t, ids, "replay/incomplete-turn")

	for _, bad := range []string{`{}`, `{"messages":{}}`, `[1]`, `{"messages":[{"role":"assistant","content":1}]}`} {
		_, _, err := ollama.Codec{}.DecodeRequest([]byte(bad))
		require.ErrorIs(t, err, replay.ErrMalformed, bad)
	}
}

func TestReadRequestStripFix(t *testing.T) {
	c := ollama.Codec{}
	body := read(t, "history.request")
	r, err := c.ReadRequest(body)
	require.NoError(t, err)
	require.Len(t, r.Elements, 5)
	assert.Equal(t, []int{-1, 0, -1, 1, -1}, []int{r.Elements[0].Turn, r.Elements[1].Turn, r.Elements[2].Turn, r.Elements[3].Turn, r.Elements[4].Turn})
	require.Len(t, r.Bound, 1)
	assert.Equal(t, `[{"type":"function"`, string(body[r.Bound[0].Start:r.Bound[0].Start+19]))

	raw := body[r.Elements[3].Start:r.Elements[3].End]
	out, ch := c.Strip(raw)
	assert.Equal(t, `{"role": "assistant", "content": "It is 22 °C and clear in Tokyo."}`, string(out))
	require.Len(t, ch, 1)
	assert.Equal(t, "/thinking", ch[0].Pointer)
	same, ch := c.Strip([]byte(`{"role":"assistant","content":"x"}`))
	assert.Equal(t, `{"role":"assistant","content":"x"}`, string(same))
	assert.Empty(t, ch)

	fixed, _, changes := c.Fix("drop-reasoning", r, func(turn int) bool { return turn == 1 }, nil)
	require.Len(t, changes, 1)
	assert.Equal(t, "/messages/3/thinking", changes[0].Pointer)
	h, _, err := c.DecodeRequest(fixed)
	require.NoError(t, err)
	assert.Len(t, h.Turns[0].Items(), 1, "turn 0 kept its thinking")
	assert.Empty(t, h.Turns[1].Items())
	same2, _, changes := c.Fix("backfill-reasoning-content", r, nil, nil)
	assert.Equal(t, string(body), string(same2))
	assert.Empty(t, changes)
}

func TestContractRules(t *testing.T) {
	rc := ollama.Codec{}.Contract()
	assert.Equal(t, "ollama", rc.API)
	assert.Equal(t, []replay.Format{replay.FormatUnknown}, rc.Accepts)
	assert.False(t, rc.ToolIDs, "tool results name their call by tool_name")
	target := replay.Target{API: "ollama", Provider: "ollama", Model: "qwen3:8b"}
	audit := func(blocks ...replay.Block) map[string]string {
		rep := replay.AuditReplay(replay.History{Turns: []*replay.Turn{{Complete: true, Blocks: blocks}}}, target)
		out := map[string]string{}
		for _, v := range rep.Violations {
			out[v.Rule] = v.Message
		}
		return out
	}
	own := &replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: replay.FormatUnknown}, Text: "mine"}
	assert.Empty(t, audit(own, &replay.Text{Text: "ok"}), "Ollama's own thinking")
	foreign := &replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: "deepseek-v1"}, Text: "theirs"}
	got := audit(foreign)
	assert.Equal(t, "deepseek-v1 reasoning text would be sent as a Ollama thinking", got[ollama.RuleForeignReasoning])
	enc := &replay.Encrypted{ItemMeta: replay.ItemMeta{Format: "openai-responses-v1"}, Data: "gAAA"}
	got = audit(enc)
	assert.Equal(t, "an encrypted openai-responses-v1 item cannot be sent to Ollama", got[ollama.RuleInexpressible])
	assert.NotContains(t, audit(own), ollama.RuleInexpressible)
}

func TestResolveAndLookup(t *testing.T) {
	c, err := replay.Lookup("ollama", "ollama", "qwen3:8b")
	require.NoError(t, err)
	assert.Equal(t, ollama.Codec{Provider: "ollama", Model: "qwen3:8b"}, c)
	for _, m := range []string{"gpt-oss:20b", "qwen3:8b", "deepseek-r1:8b", ""} {
		c, err := replay.Resolve("Ollama", m)
		require.NoError(t, err)
		assert.Equal(t, "ollama", c.API(), m)
	}
}

func TestBodyFromStreamRefused(t *testing.T) {
	// A stream's first line given as a body: not done, refused.
	line := strings.SplitN(string(read(t, "thinking.jsonl")), "\n", 2)[0]
	_, err := ollama.Codec{}.Decode([]byte(line))
	require.ErrorIs(t, err, replay.ErrMalformed)
	assert.True(t, errors.Is(err, replay.ErrMalformed))
}
