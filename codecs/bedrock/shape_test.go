package bedrock_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/bedrock"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var jsonl = stream.Options{Framing: stream.FramingJSONL}

// pad is ConverseStream's padding member, of a length that varies.
func pad(i int) string { return `,"p":"` + strings.Repeat("x", 3+i*5%11) + `"` }

// delta is a contentBlockDelta of block cbi, padded.
func delta(cbi, i int, d string) string {
	return `{"contentBlockDelta":{"contentBlockIndex":` + strconv.Itoa(cbi) + `,"delta":` + d + pad(i) + "}}\n"
}

// converseRuns is a ConverseStream whose deltas come in runs of one shape:
// reasoning text (with escapes, a \u escape, a lone surrogate and an empty
// piece), two signature pieces, text and tool input.
func converseRuns() string {
	var b strings.Builder
	b.WriteString(`{"messageStart":{"role":"assistant"}}` + "\n")
	for i, p := range []string{`Step one`, `: \"weigh\" it,\n`, ``, ` caf\u00e9`, ` \ud800 lone`, ` done.`} {
		b.WriteString(delta(0, i, `{"reasoningContent":{"text":"`+p+`"}}`))
	}
	for i, p := range []string{`EqAB`, `CdEF`} {
		b.WriteString(delta(0, i, `{"reasoningContent":{"signature":"`+p+`"}}`))
	}
	b.WriteString(`{"contentBlockStop":{"contentBlockIndex":0}}` + "\n")
	for i, p := range []string{`Hello`, ` world`, ``, `.`} {
		b.WriteString(delta(1, i, `{"text":"`+p+`"}`))
	}
	b.WriteString(`{"contentBlockStop":{"contentBlockIndex":1}}` + "\n")
	b.WriteString(`{"contentBlockStart":{"contentBlockIndex":2,"start":{"toolUse":{"toolUseId":"tu_1","name":"f"}}}}` + "\n")
	for i, p := range []string{`{\"a\":`, `1}`} {
		b.WriteString(delta(2, i, `{"toolUse":{"input":"`+p+`"}}`))
	}
	b.WriteString(`{"contentBlockStop":{"contentBlockIndex":2}}` + "\n")
	b.WriteString(`{"messageStop":{"stopReason":"tool_use"}}` + "\n")
	b.WriteString(`{"metadata":{"usage":{"inputTokens":1,"outputTokens":2,"totalTokens":3}}}` + "\n")
	return b.String()
}

func matched(t *testing.T, c bedrock.Codec, opts stream.Options, data []byte) int {
	t.Helper()
	fd := c.NewFrameDecoder()
	codectest.FeedPush(fd, opts, [][]byte{data})
	return bedrock.Matched(fd)
}

func TestShapeRunsReadAsInFull(t *testing.T) {
	c := bedrock.Codec{Model: claude}
	data := []byte(converseRuns())
	res := codectest.SameAsReshaped(t, c.NewFrameDecoder, jsonl, data)
	require.NoError(t, res.Err)
	require.Len(t, res.Turn.Blocks, 3)
	rt := res.Turn.Blocks[0].(*replay.ReasoningText)
	assert.Equal(t, "Step one: \"weigh\" it,\n café \ufffd lone done.", rt.Text)
	assert.Equal(t, replay.Some("EqABCdEF"), rt.Signature)
	assert.Equal(t, "Hello world.", res.Turn.Blocks[1].(*replay.Text).Text)
	call := res.Turn.Blocks[2].(*replay.ToolCall)
	assert.Equal(t, []string{"tu_1", "f", `{"a":1}`}, []string{call.ID, call.Name, call.Arguments})
	codectest.SweepStream(t, c.NewFrameDecoder, jsonl, data)
	// Each run's first delta is read in full, the others by matching.
	assert.Equal(t, 5+1+3+1, matched(t, c, jsonl, data))
	assert.Zero(t, matched(t, c, jsonl, codectest.Reshape(data)), "a reshaped stream is read in full")
}

// Tags split out of text deltas read by matching as out of those read in
// full.
func TestShapeThinkTags(t *testing.T) {
	c := bedrock.Codec{Model: kimi}
	var b strings.Builder
	for i, p := range []string{` `, `<think>`, ` weigh`, ` it</th`, `ink> The`, ` answer.`} {
		b.WriteString(delta(0, i, `{"text":"`+p+`"}`))
	}
	b.WriteString(`{"contentBlockStop":{"contentBlockIndex":0}}` + "\n" + `{"messageStop":{"stopReason":"end_turn"}}` + "\n")
	data := []byte(b.String())
	res := codectest.SameAsReshaped(t, c.NewFrameDecoder, jsonl, data)
	require.NoError(t, res.Err)
	require.Len(t, res.Turn.Blocks, 3)
	assert.Equal(t, " ", res.Turn.Blocks[0].(*replay.Text).Text)
	assert.Equal(t, " weigh it", res.Turn.Blocks[1].(*replay.ReasoningText).Text)
	assert.Equal(t, " The answer.", res.Turn.Blocks[2].(*replay.Text).Text)
	codectest.SweepStream(t, c.NewFrameDecoder, jsonl, data)
	assert.Equal(t, 5, matched(t, c, jsonl, data))
}

// A limit, or a lone surrogate in a signature, is refused inside a run of
// matched deltas exactly where the full read refuses it.
func TestShapeRunsRefuse(t *testing.T) {
	c := bedrock.Codec{Model: claude}
	data := []byte(converseRuns())
	for _, lc := range []struct {
		l              replay.Limits
		event, matched int
	}{
		// The reasoning text is 8, 22, 22, 28, 37 then 43 bytes long
		// after events 1 to 6; events 2 to 6 are matched.
		{replay.Limits{MaxItem: 10}, 2, 1},
		{replay.Limits{MaxItem: 25}, 4, 3},
		{replay.Limits{MaxTurn: 35}, 5, 4},
	} {
		opts := stream.Options{Framing: stream.FramingJSONL, Limits: lc.l}
		res := codectest.SameAsReshaped(t, c.NewFrameDecoder, opts, data)
		var le *replay.LimitError
		require.ErrorAs(t, res.Err, &le, "%+v", lc.l)
		assert.Equal(t, lc.event, le.Event, "%+v: the delta that crosses the limit", lc.l)
		assert.Equal(t, 0, le.Block)
		assert.Equal(t, lc.matched, matched(t, c, opts, data), "%+v: the limit is hit by a matched delta", lc.l)
	}

	for _, member := range []string{"signature", "redactedContent"} {
		var b strings.Builder
		for i, p := range []string{`EqAB`, `Cd\u00e9F`, `Gh\ud800`, `IJ`} {
			b.WriteString(delta(0, i, `{"reasoningContent":{"`+member+`":"`+p+`"}}`))
		}
		data := []byte(b.String())
		res := codectest.SameAsReshaped(t, c.NewFrameDecoder, jsonl, data)
		var e *replay.Error
		require.ErrorAs(t, res.Err, &e, member)
		assert.Equal(t, 2, e.Event, member)
		assert.Contains(t, e.Error(), "a lone surrogate escape in a signature or redactedContent")
		assert.Equal(t, 2, matched(t, c, jsonl, data), member)
	}
}

// A delta that repeats the bytes of the last one after its block stopped
// is read as the full read reads it: a reasoning delta opens a new block,
// a tool input delta is refused.
func TestShapeStateChangeBetweenSameBytes(t *testing.T) {
	c := bedrock.Codec{Model: claude}
	rd := delta(0, 0, `{"reasoningContent":{"text":"again"}}`)
	stop := `{"contentBlockStop":{"contentBlockIndex":0}}` + "\n"
	data := []byte(rd + rd + stop + rd + stop + `{"messageStop":{"stopReason":"end_turn"}}` + "\n")
	res := codectest.SameAsReshaped(t, c.NewFrameDecoder, jsonl, data)
	require.NoError(t, res.Err)
	require.Len(t, res.Turn.Blocks, 2)
	assert.Equal(t, "againagain", res.Turn.Blocks[0].(*replay.ReasoningText).Text)
	assert.Equal(t, "again", res.Turn.Blocks[1].(*replay.ReasoningText).Text)
	assert.Equal(t, 1, matched(t, c, jsonl, data))

	td := delta(0, 0, `{"toolUse":{"input":"{}"}}`)
	data = []byte(`{"contentBlockStart":{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"tu_1","name":"f"}}}}` + "\n" +
		td + td + stop + td)
	res = codectest.SameAsReshaped(t, c.NewFrameDecoder, jsonl, data)
	require.ErrorIs(t, res.Err, replay.ErrMalformed)
	assert.Contains(t, res.Err.Error(), "toolUse delta without a toolUse contentBlockStart")
	assert.Equal(t, "{}{}", res.Turn.Blocks[0].(*replay.ToolCall).Arguments)
	assert.Equal(t, 1, matched(t, c, jsonl, data))
}

// In the binary event stream the event type is in a header: a frame is
// read by matching only when its type is the learned one too.
func TestShapeEventStream(t *testing.T) {
	c := bedrock.Codec{Model: claude}
	es := stream.Options{Framing: stream.FramingEventStream}
	data := []byte(converseRuns())
	want := codectest.FeedPush(c.NewFrameDecoder(), jsonl, [][]byte{data})
	bin := toEventStream(t, data)
	got := codectest.SweepStream(t, c.NewFrameDecoder, es, bin)
	require.NoError(t, got.Err)
	assert.Equal(t, string(want.Document()), string(got.Document()))
	assert.Equal(t, codectest.EventSummary(want.Events), codectest.EventSummary(got.Events))
	assert.Equal(t, 10, matched(t, c, es, bin))

	payload := []byte(`{"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"again"}}}`)
	ev := func(typ string) []byte {
		return frame([]header{{":message-type", "event"}, {":event-type", typ}, {":content-type", "application/json"}}, payload)
	}
	var s []byte
	for _, typ := range []string{"contentBlockDelta", "contentBlockDelta", "someLaterEvent", "contentBlockDelta"} {
		s = append(s, ev(typ)...)
	}
	s = append(s, frame([]header{{":message-type", "event"}, {":event-type", "messageStop"}, {":content-type", "application/json"}}, []byte(`{"stopReason":"end_turn"}`))...)
	res := codectest.SweepStream(t, c.NewFrameDecoder, es, s)
	require.NoError(t, res.Err)
	assert.Equal(t, "againagainagain", res.Turn.Blocks[0].(*replay.ReasoningText).Text, "the event of another type is not a delta")
	assert.Equal(t, 1, matched(t, c, es, s))
}

// Text deltas with escapes (a newline in every one) are decoded without
// an allocation each: the allocations per event stay well under 0.1.
func TestEscapedTextAllocatesLittle(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 2000; i++ {
		b.WriteString(delta(0, i, `{"text":"line `+strconv.Itoa(i)+`\n"}`))
	}
	b.WriteString(`{"contentBlockStop":{"contentBlockIndex":0}}` + "\n" + `{"messageStop":{"stopReason":"end_turn"}}` + "\n")
	data := []byte(b.String())
	var text string
	allocs := testing.AllocsPerRun(5, func() {
		tu, err := stream.Decode(bytes.NewReader(data), bedrock.Codec{Model: claude}, jsonl)
		require.NoError(t, err)
		text = tu.Blocks[0].(*replay.Text).Text
	})
	assert.True(t, strings.HasPrefix(text, "line 0\nline 1\nline 2\n"), text[:20])
	assert.Len(t, text, len("line \n")*2000+10+2*90+3*900+4*1000)
	assert.Less(t, allocs/2002, 0.1, "%v allocations", allocs)
}

// A piece decoded by matching is written as read in full: with the
// padding before it (the piece is not the first hole), with escapes (a
// \u escape, a lone surrogate) in text the tag splitter reads, and in
// reasoning text next to a signature piece in one delta.
func TestShapeDecodedPieces(t *testing.T) {
	front := func(cbi, i int, d string) string {
		return `{"contentBlockDelta":{"p":"` + strings.Repeat("y", 1+i%4) + `","contentBlockIndex":` + strconv.Itoa(cbi) + `,"delta":` + d + "}}\n"
	}
	var b strings.Builder
	for i, p := range []string{`a\"b`, ` \\c\n`, ``, ` caf\u00e9`, ` \ud800!`, `\t<think> x\"`, `y</think> z`} {
		b.WriteString(front(0, i, `{"text":"`+p+`"}`))
	}
	b.WriteString(`{"contentBlockStop":{"contentBlockIndex":0}}` + "\n")
	for i, p := range []string{`Q\"1`, `Q\/2`, `Q\u00e93`} {
		b.WriteString(front(1, i, `{"reasoningContent":{"text":"`+p+`","signature":"S`+strconv.Itoa(i)+`"}}`))
	}
	b.WriteString(`{"contentBlockStop":{"contentBlockIndex":1}}` + "\n" + `{"messageStop":{"stopReason":"end_turn"}}` + "\n")
	data := []byte(b.String())
	for _, c := range []bedrock.Codec{{Model: claude}, {Model: kimi}} {
		res := codectest.SameAsReshaped(t, c.NewFrameDecoder, jsonl, data)
		require.NoError(t, res.Err)
		var texts []string
		for _, bl := range res.Turn.Blocks {
			switch x := bl.(type) {
			case *replay.Text:
				texts = append(texts, "T:"+x.Text)
			case *replay.ReasoningText:
				texts = append(texts, "R:"+x.Text+"|"+x.Signature.Value())
			}
		}
		if c.Model == claude {
			assert.Equal(t, []string{"T:a\"b \\c\n café \ufffd!\t<think> x\"y</think> z", "R:Q\"1Q/2Qé3|S0S1S2"}, texts)
		} else {
			assert.Equal(t, []string{"T:a\"b \\c\n café \ufffd!\t", "R: x\"y|", "T: z", "R:Q\"1Q/2Qé3|S0S1S2"}, texts)
		}
		codectest.SweepStream(t, c.NewFrameDecoder, jsonl, data)
		assert.Equal(t, 6+2, matched(t, c, jsonl, data))
	}
}
