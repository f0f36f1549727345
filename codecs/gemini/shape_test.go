package gemini

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gchunk is one SSE event of a streamGenerateContent response: its parts,
// extra candidate members, and usageMetadata counts from n, as the API
// repeats them in every event.
func gchunk(parts, extra string, n int) string {
	return fmt.Sprintf(`data: {"candidates":[{"content":{"parts":[%s],"role":"model"}%s,"index":0}],`+
		`"usageMetadata":{"promptTokenCount":812,"candidatesTokenCount":%d,"thoughtsTokenCount":%d,"totalTokenCount":%d},`+
		`"modelVersion":"gemini-3-flash-preview","responseId":"r1"}`+"\n\n", parts, extra, n*3, 90+n, 902+n*4)
}

// geminiRuns is a stream whose events come in runs of one shape: thought
// text (with escapes, a \u escape, a lone surrogate and an empty piece),
// a signed call, visible text, and the final signed empty part, the
// usage counts changing in every event.
func geminiRuns() string {
	var b strings.Builder
	n := 0
	add := func(parts, extra string) { b.WriteString(gchunk(parts, extra, n)); n++ }
	for _, p := range []string{`Step one`, `: \"weigh\" it,\n`, ``, ` caf\u00e9`, ` \ud800 lone`, ` done.`} {
		add(`{"text":"`+p+`","thought":true}`, "")
	}
	add(`{"functionCall":{"name":"f","args":{"a":1},"id":"c1"},"thoughtSignature":"QUJD"}`, "")
	for _, p := range []string{`Hello`, ``, ` world`, ` \u2014 done.`} {
		add(`{"text":"`+p+`"}`, "")
	}
	add(`{"text":"","thoughtSignature":"REVG"}`, `,"finishReason":"STOP"`)
	return b.String()
}

func matchedIn(t *testing.T, opts stream.Options, data []byte) int {
	t.Helper()
	fd := newFD()
	codectest.FeedPush(fd, opts, [][]byte{data})
	return fd.(*StreamDecoder).run.Matched()
}

func TestShapeRunsReadAsInFull(t *testing.T) {
	data := []byte(geminiRuns())
	res := codectest.SameAsReshaped(t, newFD, stream.Options{}, data)
	require.NoError(t, res.Err)
	assert.Equal(t, "thought sig call text sig text", kinds(res.Turn))
	assert.Equal(t, "Step one: \"weigh\" it,\n café \ufffd lone done.", res.Turn.Blocks[0].(*replay.ReasoningText).Text)
	assert.Equal(t, "Hello world \u2014 done.", res.Turn.Blocks[3].(*replay.Text).Text)
	assert.Equal(t, []string{"QUJD", "REVG"}, signatures(res.Turn))
	assert.Equal(t, `{"promptTokenCount":812,"candidatesTokenCount":33,"thoughtsTokenCount":101,"totalTokenCount":946}`, string(res.Turn.Usage))
	assert.Equal(t, "gemini-3-flash-preview", res.Turn.Provenance.Model)
	assert.Equal(t, "STOP", res.Turn.FinishReason)
	codectest.SweepStream(t, newFD, stream.Options{}, data)
	// Each run's first event is read in full, the others by matching.
	assert.Equal(t, 5+3, matchedIn(t, stream.Options{}, data))
	assert.Zero(t, matchedIn(t, stream.Options{}, codectest.Reshape(data)), "a reshaped stream is read in full")
}

// The usage counts, holes of the shape, are kept by the same code as in a
// full read: the last event's, within MaxItem.
func TestShapeUsageCounts(t *testing.T) {
	var b strings.Builder
	for n := 0; n < 40; n++ {
		b.WriteString(gchunk(`{"text":"x"}`, "", n))
	}
	b.WriteString(gchunk(`{"text":"."}`, `,"finishReason":"STOP"`, 40))
	data := []byte(b.String())
	res := codectest.SameAsReshaped(t, newFD, stream.Options{}, data)
	require.NoError(t, res.Err)
	assert.Equal(t, `{"promptTokenCount":812,"candidatesTokenCount":120,"thoughtsTokenCount":130,"totalTokenCount":1062}`, string(res.Turn.Usage))
	assert.Equal(t, strings.Repeat("x", 40)+".", res.Turn.Blocks[0].(*replay.Text).Text)
	assert.Equal(t, 39, matchedIn(t, stream.Options{}, data))

	// The usage object grows by a byte when a count gains a digit (event
	// 4: 9 to 12, event 10: 99 to 100, ...): MaxItem refuses it there.
	usage := func(n int) int {
		return len(fmt.Sprintf(`{"promptTokenCount":812,"candidatesTokenCount":%d,"thoughtsTokenCount":%d,"totalTokenCount":%d}`, n*3, 90+n, 902+n*4))
	}
	for _, at := range []int{4, 10, 25} {
		opts := stream.Options{Limits: replay.Limits{MaxItem: usage(at) - 1}}
		require.Less(t, usage(at-1), usage(at))
		res := codectest.SameAsReshaped(t, newFD, opts, data)
		var le *replay.LimitError
		require.ErrorAs(t, res.Err, &le)
		assert.Equal(t, at, le.Event)
		assert.Equal(t, at, matchedIn(t, opts, data), "the limit is hit by a matched event")
	}
}

// A limit is hit inside a run of matched events exactly where the full
// read hits it; a lone surrogate in a signature is refused.
func TestShapeRunsRefuse(t *testing.T) {
	var run strings.Builder
	for n := 0; n < 8; n++ {
		run.WriteString(gchunk(`{"text":"`+strings.Repeat(string(rune('a'+n)), 49)+`\n","thought":true}`, "", n))
	}
	data := []byte(run.String())
	for _, lc := range []struct {
		l     replay.Limits
		event int
	}{
		// The thought text is 50 bytes longer after each event, the usage
		// about 106 bytes (within MaxItem); events 1 to 7 are matched.
		{replay.Limits{MaxItem: 120}, 2},
		{replay.Limits{MaxItem: 230}, 4},
		{replay.Limits{MaxTurn: 330}, 6},
	} {
		opts := stream.Options{Limits: lc.l}
		res := codectest.SameAsReshaped(t, newFD, opts, data)
		var le *replay.LimitError
		require.ErrorAs(t, res.Err, &le, "%+v", lc.l)
		assert.Equal(t, lc.event, le.Event, "%+v", lc.l)
		assert.Equal(t, 0, le.Block, "%+v", lc.l)
		assert.Equal(t, lc.event, matchedIn(t, opts, data), "%+v: the limit is hit by a matched event", lc.l)
	}

	var b strings.Builder
	for n, p := range []string{`a`, `b`, `c`} {
		b.WriteString(gchunk(`{"text":"`+p+`","thoughtSignature":"QUJD"}`, "", n))
	}
	b.WriteString(gchunk(`{"text":"d","thoughtSignature":"QU\ud800"}`, "", 3))
	data = []byte(b.String())
	res := codectest.SameAsReshaped(t, newFD, stream.Options{}, data)
	var e *replay.Error
	require.ErrorAs(t, res.Err, &e)
	assert.Equal(t, 3, e.Event)
	assert.Equal(t, "/candidates/0/content/parts/0/thoughtSignature", e.Pointer)
	assert.Equal(t, 2, matchedIn(t, stream.Options{}, data))
}

// An event that repeats the bytes of the last one after the state changed
// (a call closed the text, a finishReason ended the turn) is read as the
// full read reads it.
func TestShapeStateChangeBetweenSameBytes(t *testing.T) {
	text := gchunk(`{"text":"again"}`, "", 1)
	call := gchunk(`{"functionCall":{"name":"f","args":{},"id":"c1"}}`, "", 1)
	stop := gchunk(`{"text":"end"}`, `,"finishReason":"STOP"`, 1)
	data := []byte(text + text + call + text + stop + stop)
	res := codectest.SameAsReshaped(t, newFD, stream.Options{}, data)
	require.NoError(t, res.Err)
	assert.Equal(t, "text call text text", kinds(res.Turn))
	assert.Equal(t, "againagain", res.Turn.Blocks[0].(*replay.Text).Text)
	assert.Equal(t, "againend", res.Turn.Blocks[2].(*replay.Text).Text)
	assert.Equal(t, "end", res.Turn.Blocks[3].(*replay.Text).Text)
	assert.Equal(t, 2, matchedIn(t, stream.Options{}, data))
}

// Vertex's createTime, candidates other than the one asked for, and a
// usage with more counts than holes read by matching as in full.
func TestShapeOtherResponses(t *testing.T) {
	for _, vary := range []int{0, 2} {
		var b strings.Builder
		for n := 0; n < 5; n++ {
			fmt.Fprintf(&b, `data: {"candidates":[{"content":{"parts":[{"text":"o%d"}]},"index":1},{"content":{"parts":[{"text":"t%d"}]},"index":0}],`+
				`"usageMetadata":{"promptTokenCount":%d,"candidatesTokenCount":%d,"thoughtsTokenCount":%d,"cachedContentTokenCount":%d,"totalTokenCount":%d,"trafficType":"ON_DEMAND"},"createTime":"2026-01-01T00:00:00Z"}`+"\n\n",
				n, n, 800, n, n, 7, 900+vary*n)
		}
		b.WriteString(`data: {"candidates":[{"content":{"parts":[{"text":"."}]},"finishReason":"STOP","index":0}]}` + "\n\n")
		data := []byte(b.String())
		for _, c := range []Codec{{}, {Candidate: 1}} {
			newFD := func() codecs.FrameDecoder { return c.NewFrameDecoder() }
			res := codectest.SameAsReshaped(t, newFD, stream.Options{}, data)
			assert.Equal(t, "vertex", res.Turn.Provenance.Provider)
			if c.Candidate == 0 {
				require.NoError(t, res.Err)
				assert.Equal(t, "t0t1t2t3t4.", res.Turn.Blocks[0].(*replay.Text).Text)
			} else {
				assert.Equal(t, "o0o1o2o3o4", res.Turn.Blocks[0].(*replay.Text).Text)
			}
			assert.Equal(t, fmt.Sprintf(`{"promptTokenCount":800,"candidatesTokenCount":4,"thoughtsTokenCount":4,"cachedContentTokenCount":7,"totalTokenCount":%d,"trafficType":"ON_DEMAND"}`, 900+vary*4), string(res.Turn.Usage))
		}
		// Two texts and two output counts are holes: when the total
		// varies too, no event matches.
		want := 4
		if vary != 0 {
			want = 0
		}
		assert.Equal(t, want, matchedIn(t, stream.Options{}, data), "vary %d", vary)
	}
}

// fields lists every string member of a chunk, its candidates and its
// parts, each once: a response read by matching gets every value a full
// read would.
func TestChunkFieldsCoverChunk(t *testing.T) {
	ch := chunk{cands: make([]cand, 1), parts: make([]partFields, 1)}
	got := map[uintptr]bool{}
	for _, p := range ch.fields(nil) {
		got[reflect.ValueOf(p).Pointer()] = true
	}
	want := map[uintptr]bool{}
	for _, v := range []reflect.Value{reflect.ValueOf(&ch).Elem(), reflect.ValueOf(&ch.cands[0]).Elem(), reflect.ValueOf(&ch.parts[0]).Elem()} {
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.Kind() == reflect.String {
				want[f.Addr().Pointer()] = true
			}
		}
	}
	assert.Equal(t, len(want), len(got))
	for p := range want {
		assert.True(t, got[p], "a string field is not in fields")
	}
}

// Member names are read by their value: an escaped name is the name it
// spells, in the one-pass read as in a part's extra members.
func TestEscapedMemberNames(t *testing.T) {
	body := `{"candidates":[{"content":{"parts":[{"t\u0065xt":"hi","x":1}]},"finishReason":"STOP"}]}`
	tu, err := Codec{}.Decode([]byte(body))
	require.NoError(t, err)
	tx := tu.Blocks[0].(*replay.Text)
	assert.Equal(t, "hi", tx.Text)
	assert.Equal(t, `{"x":1}`, string(tx.Extra))
	res := codectest.SweepStream(t, newFD, stream.Options{}, []byte("data: "+body+"\n\n"))
	require.NoError(t, res.Err)
	assert.Equal(t, "hi", res.Turn.Blocks[0].(*replay.Text).Text)
	assert.Equal(t, `{"x":1}`, string(res.Turn.Blocks[0].(*replay.Text).Extra))
}
