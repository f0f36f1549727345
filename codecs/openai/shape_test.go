package openai

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/internal/engine"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/require"
)

// The delta events of a Responses stream are read by matching the shape of
// the last one read in full (see StreamDecoder.matched). These tests feed
// streams whose consecutive deltas share a shape, and the same streams with
// a space inserted after the first comma of every other event, which gives
// each event a shape unlike the last one's and so sends every event down
// the full path: both must decode to the same bytes.

// sse frames the events' data as an SSE stream. With vary, every other
// event gets a space after its first comma.
func sse(events []string, vary bool) []byte {
	var b strings.Builder
	for i, e := range events {
		if vary && i%2 == 1 {
			e = strings.Replace(e, ",", ", ", 1)
		}
		b.WriteString("data: " + e + "\n\n")
	}
	return []byte(b.String())
}

// feedFrames decodes each event with a fresh decoder, frame by frame, and
// reports which events matched the learned shape when they came.
func feedFrames(t *testing.T, d *StreamDecoder, events []string) (matched []int, evs []stream.Event, err error) {
	t.Helper()
	for i, e := range events {
		before := d.run.Matched()
		evs, err = d.Decode(nil, []byte(e), evs)
		if d.run.Matched() > before {
			matched = append(matched, i)
		}
		if err != nil {
			return matched, evs, err
		}
	}
	return matched, evs, nil
}

// unquote is the value of the JSON string literal raw, as encoding/json
// reads it (a lone surrogate becomes U+FFFD).
func unquote(t *testing.T, raw string) string {
	var s string
	require.NoError(t, json.Unmarshal([]byte(raw), &s), raw)
	return s
}

// sameAsFull sweeps the stream and its every-event-full variant and
// requires the same turn, error and events from both.
func sameAsFull(t *testing.T, events []string, limits replay.Limits) codectest.Result {
	t.Helper()
	newFD := func() codecs.FrameDecoder { return &StreamDecoder{Limits: limits} }
	fast := codectest.SweepStream(t, newFD, stream.Options{}, sse(events, false))
	full := codectest.SweepStream(t, newFD, stream.Options{}, sse(events, true))
	require.Equal(t, string(full.Document()), string(fast.Document()))
	require.Equal(t, codectest.EventSummary(full.Events), codectest.EventSummary(fast.Events))
	require.Equal(t, fmt.Sprint(full.Err), fmt.Sprint(fast.Err))
	return fast
}

// deltaRunEvents is a reasoning item, a message and a function call, each
// written by a run of deltas with sequence numbers and obfuscation that
// vary per event, escapes (a lone surrogate among them), an empty delta and
// a repeated event (sequence number seen: skipped).
func deltaRunEvents(t *testing.T) (events []string, summary, text, args string) {
	seq := 0
	ev := func(format string, args ...any) {
		e := fmt.Sprintf(format, args...)
		events = append(events, e[:len(e)-1]+fmt.Sprintf(`,"sequence_number":%d}`, seq))
		seq++
	}
	obf := []string{"k3Jd9x", "a", "", "Zz09", "q"}
	ev(`{"type":"response.created","response":{"id":"resp_1","model":"gpt-5.5","output":[]}}`)
	ev(`{"type":"response.output_item.added","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}}`)
	ev(`{"type":"response.reasoning_summary_part.added","item_id":"rs_1","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}}`)
	deltas := []string{`"**Plan**"`, `"\n\n"`, `" the \"kettle\""`, `" caf\u00e9"`, `" half \ud800 of a pair"`, `" \ud83d\ude00"`, `""`, `" one"`, `" two"`, `" three"`, `" four"`}
	for i, dl := range deltas {
		ev(`{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":0,"delta":%s,"obfuscation":"%s"}`, dl, obf[i%len(obf)])
		summary += unquote(t, dl)
		if i == 3 {
			events = append(events, events[len(events)-1]) // repeated: its sequence number was seen
		}
	}
	sumJSON, _ := json.Marshal(summary)
	ev(`{"type":"response.reasoning_summary_text.done","item_id":"rs_1","output_index":0,"summary_index":0,"text":%s}`, sumJSON)
	ev(`{"type":"response.reasoning_summary_part.done","item_id":"rs_1","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":%s}}`, sumJSON)
	ev(`{"type":"response.output_item.done","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":%s}],"encrypted_content":"gAAAAABenc"}}`, sumJSON)

	ev(`{"type":"response.output_item.added","output_index":1,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"read_file"}}`)
	for i, dl := range []string{`"{\"path\""`, `":"`, `" \"src/a.go\""`, `"}"`} {
		ev(`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1,"delta":%s,"obfuscation":"%s"}`, dl, obf[i%len(obf)])
		args += unquote(t, dl)
	}
	argsJSON, _ := json.Marshal(args)
	ev(`{"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":1,"arguments":%s}`, argsJSON)
	ev(`{"type":"response.output_item.done","output_index":1,"item":{"id":"fc_1","type":"function_call","status":"completed","arguments":%s,"call_id":"call_1","name":"read_file"}}`, argsJSON)

	ev(`{"type":"response.output_item.added","output_index":2,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}}`)
	ev(`{"type":"response.content_part.added","item_id":"msg_1","output_index":2,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}`)
	for i := 0; i < 6; i++ {
		dl := fmt.Sprintf(`" word%d"`, i*7)
		ev(`{"type":"response.output_text.delta","item_id":"msg_1","output_index":2,"content_index":0,"delta":%s,"logprobs":[],"obfuscation":"%s"}`, dl, obf[i%len(obf)])
		text += unquote(t, dl)
	}
	textJSON, _ := json.Marshal(text)
	ev(`{"type":"response.output_text.done","item_id":"msg_1","output_index":2,"content_index":0,"text":%s,"logprobs":[]}`, textJSON)
	ev(`{"type":"response.output_item.done","output_index":2,"item":{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":%s,"annotations":[]}]}}`, textJSON)
	ev(`{"type":"response.completed","response":{"id":"resp_1","status":"completed","model":"gpt-5.5","output":[],"usage":{"input_tokens":1,"output_tokens":2}}}`)
	return events, summary, text, args
}

func TestShapeSameTurnAsFullPath(t *testing.T) {
	events, summary, text, args := deltaRunEvents(t)
	res := sameAsFull(t, events, replay.Limits{})
	require.NoError(t, res.Err)
	tu := res.Turn
	require.True(t, tu.Complete)
	require.Len(t, tu.Blocks, 4)
	require.Equal(t, "**Plan**\n\n the \"kettle\" café half \uFFFD of a pair 😀 one two three four", summary)
	require.Equal(t, summary, tu.Blocks[0].(*replay.Summary).Summary)
	require.Equal(t, "rs_1", tu.Blocks[0].(*replay.Summary).ID.Value())
	require.Equal(t, "gAAAAABenc", tu.Blocks[1].(*replay.Encrypted).Data)
	require.Equal(t, replay.ToolCall{ID: "call_1", Name: "read_file", ItemID: "fc_1", Arguments: `{"path": "src/a.go"}`}, *tu.Blocks[2].(*replay.ToolCall))
	require.Equal(t, `{"path": "src/a.go"}`, args)
	require.Equal(t, " word0 word7 word14 word21 word28 word35", text)
	require.Equal(t, text, tu.Blocks[3].(*replay.Text).Text)
	require.Equal(t, "msg_1", tu.Blocks[3].(*replay.Text).ID)
	// Every delta, once, in order; the repeated event and the empty delta
	// emit nothing.
	require.Equal(t, map[int]string{0: summary}, codectest.MergedDeltas(res.Events, stream.EventReasoningDelta))
	require.Equal(t, map[int]string{2: args}, codectest.MergedDeltas(res.Events, stream.EventToolCallDelta))
	require.Equal(t, map[int]string{3: text}, codectest.MergedDeltas(res.Events, stream.EventTextDelta))
	n := 0
	for _, ev := range res.Events {
		if ev.Kind == stream.EventReasoningDelta {
			n++
		}
	}
	require.Equal(t, 10, n)

	// The deltas after the first of each run matched; nothing else did.
	matched, _, err := feedFrames(t, &StreamDecoder{}, events)
	require.NoError(t, err)
	want := []int{4, 5, 6, 7 /* the repeat */, 8, 9, 10, 11, 12, 13, 14}
	want = append(want, 20, 21, 22) // argument deltas 2-4
	want = append(want, 28, 29, 30, 31, 32)
	require.Equal(t, want, matched)
}

// summaryRun is a reasoning item of n summary deltas of 6 bytes (" stepN",
// N one digit), with sequence numbers.
func summaryRun(n int) []string {
	events := []string{
		`{"type":"response.output_item.added","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]},"sequence_number":0}`,
	}
	for i := 0; i < n; i++ {
		events = append(events, fmt.Sprintf(`{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":0,"delta":" step%d","sequence_number":%d}`, i%10, i+1))
	}
	return append(events, `{"type":"response.completed","response":{"status":"completed","output":[]},"sequence_number":99}`)
}

// Limits are checked on every matched delta as on a delta read in full.
func TestShapeLimitsInMatchedRun(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limits replay.Limits
		want   replay.LimitError
	}{
		// 6 bytes a delta: the 8th makes 48 > 45.
		{"MaxItem", replay.Limits{MaxItem: 45}, replay.LimitError{What: "item size", Limit: 45, API: API, Event: 8, Block: 0}},
		// "rs_1" is not kept until the item is done: 4 deltas are 24 bytes,
		// the 5th makes 30 > 28.
		{"MaxTurn", replay.Limits{MaxTurn: 28}, replay.LimitError{What: "turn size", Limit: 28, API: API, Event: 5, Block: 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			events := summaryRun(12)
			res := sameAsFull(t, events, tc.limits)
			var le *replay.LimitError
			require.ErrorAs(t, res.Err, &le)
			require.Equal(t, tc.want, *le)
			require.False(t, res.Turn.Complete)
			// The text kept is the deltas before the one refused.
			s := res.Turn.Blocks[0].(*replay.Summary)
			require.Equal(t, strings.Repeat(" stepX", tc.want.Event-1), regexpDigits(s.Summary))
			require.True(t, s.Unfinished)

			matched, _, err := feedFrames(t, &StreamDecoder{Limits: tc.limits}, events)
			require.ErrorAs(t, err, &le)
			require.Equal(t, tc.want, *le)
			require.Contains(t, matched, tc.want.Event, "the refused delta was matched, not read in full")
		})
	}
}

// regexpDigits replaces every digit of s by X.
func regexpDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return 'X'
		}
		return r
	}, s)
}

// A lone surrogate in a matched delta reads as U+FFFD, as it does read in
// full: summary text is neither signed nor opaque.
func TestShapeLoneSurrogateInMatchedRun(t *testing.T) {
	events := summaryRun(3)
	lone := `{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":0,"delta":" \udc00","sequence_number":50}`
	events = append(events[:3:3], append([]string{lone}, events[3:]...)...)
	matched, evs, err := feedFrames(t, &StreamDecoder{}, events)
	require.NoError(t, err)
	require.Contains(t, matched, 3)
	require.Equal(t, map[int]string{0: " step0 step1 \uFFFD step2"}, codectest.MergedDeltas(evs, stream.EventReasoningDelta))
	res := sameAsFull(t, events, replay.Limits{})
	require.Equal(t, " step0 step1 \uFFFD step2", res.Turn.Blocks[0].(*replay.Summary).Summary)
}

// A state change between two events of the same bytes: the second is read
// in full, and decoded as the new state says.
func TestShapeStateChangeBetweenSameEvents(t *testing.T) {
	delta := `{"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":0,"delta":" again"}`
	call := `{"type":"response.function_call_arguments.delta","output_index":1,"delta":"{}"}`
	events := []string{
		`{"type":"response.output_item.added","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}}`,
		delta, delta, delta,
		// The item turns out to be a message: its summary block is dropped,
		// and a summary delta for it is no longer read.
		`{"type":"response.output_item.done","output_index":0,"item":{"id":"msg_1","type":"message","content":[{"type":"output_text","text":"Hi"}]}}`,
		delta, delta,
		`{"type":"response.output_item.added","output_index":1,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"f"}}`,
		call, call,
		// The call turns out to be a custom tool call: a new block, and the
		// same delta appends there.
		`{"type":"response.output_item.done","output_index":1,"item":{"id":"ct_1","type":"custom_tool_call","call_id":"call_2","name":"g","input":"x"}}`,
		call, call,
		`{"type":"response.completed","response":{"status":"completed","output":[]}}`,
		delta,
	}
	res := sameAsFull(t, events, replay.Limits{})
	require.NoError(t, res.Err)
	require.Equal(t, []string{
		"reasoning_start block=0 item=reasoning.summary",
		`reasoning_delta block=0 delta=" again"`,
		`reasoning_delta block=0 delta=" again"`,
		`reasoning_delta block=0 delta=" again"`,
		`text_delta block=1 delta="Hi"`,
		`tool_call_start block=2 id="call_1" name="f"`,
		`tool_call_delta block=2 delta="{}"`,
		`tool_call_delta block=2 delta="{}"`,
		`tool_call_start block=3 id="call_2" name="g"`,
		`tool_call_delta block=3 delta="x"`,
		`tool_call_end block=3 id="call_2" name="g"`,
		`tool_call_delta block=3 delta="{}"`,
		`tool_call_delta block=3 delta="{}"`,
		"done block=-1",
	}, codectest.EventSummary(res.Events))
	require.Len(t, res.Turn.Blocks, 2)
	require.Equal(t, "Hi", res.Turn.Blocks[0].(*replay.Text).Text)
	require.Equal(t, "x", res.Turn.Blocks[1].(*replay.ToolCall).Arguments)

	matched, _, err := feedFrames(t, &StreamDecoder{}, events)
	require.NoError(t, err)
	require.Equal(t, []int{2, 3, 9, 12}, matched)
}

// A limit set between two events of the same bytes applies to the second.
func TestShapeSetLimitsBetweenSameEvents(t *testing.T) {
	e := `{"type":"response.output_text.delta","output_index":3,"content_index":0,"delta":"x"}`
	d := &StreamDecoder{}
	evs, err := d.Decode(nil, []byte(e), nil)
	require.NoError(t, err)
	evs, err = d.Decode(nil, []byte(e), evs)
	require.NoError(t, err)
	require.Equal(t, map[int]string{0: "xx"}, codectest.MergedDeltas(evs, stream.EventTextDelta))
	d.SetLimits(replay.Limits{MaxBlocks: 2})
	_, err = d.Decode(nil, []byte(e), evs)
	var le *replay.LimitError
	require.ErrorAs(t, err, &le)
	require.Equal(t, replay.LimitError{What: "block count", Limit: 2, API: API, Event: 2, Block: -1}, *le)
}

// A matched sequence number is the number the full path reads.
func TestSeqNumberAsResult(t *testing.T) {
	for _, raw := range []string{"0", "7", "42", "999999999999999", "1000000000000000", "12345678901234567890",
		"-1", "-0", "0.0", "1.5", "1e3", "2E+2", "16777216", "9007199254740993"} {
		require.Equal(t, result(raw).Int(), seqNumber(raw), raw)
	}
	require.Equal(t, int64(999999999999999), seqNumber("999999999999999"))
}

// escapedRun is summaryRun with deltas written with escapes: each is
// "café\n" (6 bytes) once read.
func escapedRun(n int) []string {
	events := summaryRun(n)
	for i := 1; i <= n; i++ {
		events[i] = fmt.Sprintf(`{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":0,"delta":"caf\u00e9\n","sequence_number":%d}`, i)
	}
	return events
}

// A delta with escapes is unquoted straight into its block, and counted
// before anyone sees it: a delta past a limit leaves no byte behind.
func TestShapeEscapedDeltas(t *testing.T) {
	events := escapedRun(12)
	res := sameAsFull(t, events, replay.Limits{})
	require.NoError(t, res.Err)
	require.Equal(t, strings.Repeat("café\n", 12), res.Turn.Blocks[0].(*replay.Summary).Summary)
	require.Equal(t, map[int]string{0: strings.Repeat("café\n", 12)}, codectest.MergedDeltas(res.Events, stream.EventReasoningDelta))

	for _, tc := range []struct {
		limits replay.Limits
		want   replay.LimitError
	}{
		{replay.Limits{MaxItem: 45}, replay.LimitError{What: "item size", Limit: 45, API: API, Event: 8, Block: 0}},
		{replay.Limits{MaxTurn: 28}, replay.LimitError{What: "turn size", Limit: 28, API: API, Event: 5, Block: 0}},
	} {
		res := sameAsFull(t, events, tc.limits)
		var le *replay.LimitError
		require.ErrorAs(t, res.Err, &le)
		require.Equal(t, tc.want, *le)
		require.Equal(t, strings.Repeat("café\n", tc.want.Event-1), res.Turn.Blocks[0].(*replay.Summary).Summary)
		matched, _, err := feedFrames(t, &StreamDecoder{Limits: tc.limits}, events)
		require.ErrorAs(t, err, &le)
		require.Contains(t, matched, tc.want.Event)
	}

	// A long run of them allocates next to nothing.
	events = escapedRun(2000)
	frames := make([]engine.Frame, len(events))
	for i, e := range events {
		frames[i] = engine.Frame{Data: []byte(e)}
	}
	evs := make([]stream.Event, 0, 8)
	allocs := testing.AllocsPerRun(5, func() {
		d := &StreamDecoder{}
		for _, f := range frames {
			var err error
			if evs, err = d.Decode(f.Type, f.Data, evs[:0]); err != nil {
				t.Fatal(err)
			}
		}
	})
	require.Less(t, allocs/float64(len(frames)), 0.02)
}

// decodeLines decodes each line of data as one frame, forgetting the
// learned shape before each when full is set (every event then goes the
// full path), and returns what a test compares.
func decodeLines(data string, limits replay.Limits, full bool) (events []string, errText, doc string) {
	d := &StreamDecoder{Limits: limits}
	var evs []stream.Event
	var err error
	for _, line := range strings.Split(data, "\n") {
		if full {
			d.run.Forget()
		}
		if evs, err = d.Decode(nil, []byte(line), evs); err != nil {
			break
		}
	}
	tu, ferr := d.Finish()
	return codectest.EventSummary(evs), fmt.Sprint(err, ferr), string(tu.AppendJSON(nil))
}

// Any sequence of events decodes to the same events, error and turn
// whether its deltas are matched or all read in full.
func FuzzShapeSameAsFull(f *testing.F) {
	events, _, _, _ := deltaRunEvents(&testing.T{})
	f.Add(strings.Join(events, "\n"), 0)
	f.Add(strings.Join(escapedRun(6), "\n"), 40)
	f.Add(strings.Join(summaryRun(5), "\n"), 20)
	f.Add(strings.Join(events[:12], "\n"), 3)
	f.Fuzz(func(t *testing.T, data string, maxItem int) {
		limits := replay.Limits{MaxItem: max(0, maxItem%256)}
		fastEv, fastErr, fastDoc := decodeLines(data, limits, false)
		fullEv, fullErr, fullDoc := decodeLines(data, limits, true)
		require.Equal(t, fullEv, fastEv)
		require.Equal(t, fullErr, fastErr)
		require.Equal(t, fullDoc, fastDoc)
	})
}
