package cohere_test

import (
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/cohere"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runs is a stream whose deltas come in runs of one shape: thinking
// pieces (with escapes, a \u escape, a lone surrogate and an empty
// piece), a tool plan, a call's arguments and text pieces.
func runs() string {
	var b strings.Builder
	ev := func(s string) { b.WriteString("data: " + s + "\n\n") }
	ev(`{"id":"x","type":"message-start","delta":{"message":{"role":"assistant"}}}`)
	ev(`{"type":"content-start","index":0,"delta":{"message":{"content":{"type":"thinking","thinking":""}}}}`)
	for _, p := range []string{`Step one`, `: \"weigh\" it,\n`, ``, ` caf\u00e9`, ` \ud800 lone`, ` done.`} {
		ev(`{"type":"content-delta","index":0,"delta":{"message":{"content":{"thinking":"` + p + `"}}}}`)
	}
	ev(`{"type":"content-end","index":0}`)
	for _, p := range []string{`I will `, `look it up.`} {
		ev(`{"type":"tool-plan-delta","delta":{"message":{"tool_plan":"` + p + `"}}}`)
	}
	ev(`{"type":"tool-call-start","index":0,"delta":{"message":{"tool_calls":{"id":"call_1","type":"function","function":{"name":"lookup","arguments":""}}}}}`)
	for _, p := range []string{`{\"q\":`, ` \"hours\"`, `}`} {
		ev(`{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":"` + p + `"}}}}}`)
	}
	ev(`{"type":"tool-call-end","index":0}`)
	ev(`{"type":"content-start","index":1,"delta":{"message":{"content":{"type":"text","text":""}}}}`)
	for _, p := range []string{``, `Open `, `at 9.`} {
		ev(`{"type":"content-delta","index":1,"delta":{"message":{"content":{"text":"` + p + `"}}}}`)
	}
	ev(`{"type":"content-end","index":1}`)
	ev(`{"type":"message-end","delta":{"finish_reason":"COMPLETE"}}`)
	return b.String()
}

func TestShapeRunsReadAsInFull(t *testing.T) {
	data := []byte(runs())
	res := codectest.SameAsReshaped(t, cohere.Codec{}.NewFrameDecoder, stream.Options{}, data)
	require.NoError(t, res.Err)
	assert.Equal(t, []string{
		"thinking \"Step one: \\\"weigh\\\" it,\\n café \ufffd lone done.\" cohere-v1",
		`native tool_plan "I will look it up."`,
		`call call_1 lookup {"q": "hours"}`,
		`text "Open at 9."`,
	}, handles(res.Turn))
	codectest.SweepStream(t, cohere.Codec{}.NewFrameDecoder, stream.Options{}, data)

	fd := cohere.Codec{}.NewFrameDecoder()
	codectest.FeedPush(fd, stream.Options{}, [][]byte{data})
	// Each run's first delta is read in full, the others by matching.
	assert.Equal(t, 5+1+2+2, cohere.Matched(fd))
	fd = cohere.Codec{}.NewFrameDecoder()
	codectest.FeedPush(fd, stream.Options{}, [][]byte{codectest.Reshape(data)})
	assert.Zero(t, cohere.Matched(fd), "a reshaped stream is read in full")
}

// A limit is hit inside a run of matched deltas exactly where the full
// read hits it.
func TestShapeRunsHitLimits(t *testing.T) {
	data := []byte(runs())
	for _, c := range []struct {
		l              replay.Limits
		event, matched int
	}{
		// The thinking is 8, 22, 22, 28, 37 then 43 bytes long after
		// events 2 to 7; events 3 to 7 are matched.
		{replay.Limits{MaxItem: 10}, 3, 1},
		{replay.Limits{MaxItem: 25}, 5, 3},
		{replay.Limits{MaxTurn: 35}, 6, 4},
	} {
		opts := stream.Options{Limits: c.l}
		res := codectest.SameAsReshaped(t, cohere.Codec{}.NewFrameDecoder, opts, data)
		var le *replay.LimitError
		require.ErrorAs(t, res.Err, &le, "%+v", c.l)
		assert.Equal(t, c.event, le.Event, "%+v: the delta that crosses the limit", c.l)
		assert.Equal(t, 0, le.Block)
		fd := cohere.Codec{}.NewFrameDecoder()
		codectest.FeedPush(fd, opts, [][]byte{data})
		assert.Equal(t, c.matched, cohere.Matched(fd), "%+v: the limit is hit by a matched delta", c.l)
	}
}

// A delta that repeats the bytes of the last one after its block closed
// is refused as the full read refuses it.
func TestShapeStateChangeBetweenSameBytes(t *testing.T) {
	delta := `data: {"type":"content-delta","index":0,"delta":{"message":{"content":{"thinking":"again"}}}}` + "\n\n"
	data := []byte(`data: {"type":"content-start","index":0,"delta":{"message":{"content":{"type":"thinking","thinking":""}}}}` + "\n\n" +
		delta + delta + `data: {"type":"content-end","index":0}` + "\n\n" + delta)
	res := codectest.SameAsReshaped(t, cohere.Codec{}.NewFrameDecoder, stream.Options{}, data)
	require.ErrorIs(t, res.Err, replay.ErrMalformed)
	assert.Contains(t, res.Err.Error(), "content-delta for a block that was not started")
	assert.Equal(t, `thinking "againagain" cohere-v1`, handles(res.Turn)[0])
	fd := cohere.Codec{}.NewFrameDecoder()
	codectest.FeedPush(fd, stream.Options{}, [][]byte{data})
	assert.Equal(t, 1, cohere.Matched(fd))
}
