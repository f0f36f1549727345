package anthropic

import (
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A delta like the one before it (only its string differs) is read by
// matching its shape; these tests hold that reading to the full one. The
// "full" variant of a stream puts a space after the delta member's colon
// in every other event, so that no event has its predecessor's shape and
// each is read in full.

type run struct {
	doc    string
	events []stream.Event
	err    string
	shaped int // events read by matching
}

func decodeLines(t *testing.T, lines []string, full bool, limits replay.Limits) run {
	t.Helper()
	d := &StreamDecoder{}
	d.SetLimits(limits)
	var r run
	var evs []stream.Event
	var err error
	for i, l := range lines {
		if full && i%2 == 1 {
			l = strings.Replace(l, `"delta":{`, `"delta": {`, 1)
		}
		before := d.run.Matched()
		evs, err = d.Decode(nil, []byte(l), evs[:0])
		r.shaped += d.run.Matched() - before
		if err != nil {
			r.err = err.Error()
			return r
		}
		r.events = append(r.events, evs...)
	}
	tu, err := d.Finish()
	if err != nil {
		r.err = err.Error()
		return r
	}
	r.doc = string(tu.AppendJSON(nil))
	return r
}

// both decodes lines both ways, requires the same outcome, and returns
// the matched reading.
func both(t *testing.T, lines []string, limits replay.Limits) run {
	t.Helper()
	m := decodeLines(t, lines, false, limits)
	f := decodeLines(t, lines, true, limits)
	require.Zero(t, f.shaped, "the full variant is read in full")
	assert.Equal(t, f.err, m.err)
	assert.Equal(t, f.doc, m.doc)
	require.Equal(t, len(f.events), len(m.events))
	for i := range f.events {
		assert.Equal(t, f.events[i].Kind, m.events[i].Kind, "event %d", i)
		assert.Equal(t, f.events[i].Delta, m.events[i].Delta, "event %d", i)
		assert.Equal(t, f.events[i].Block, m.events[i].Block, "event %d", i)
	}
	return m
}

func thinkingDelta(ix, text string) string {
	return `{"type":"content_block_delta","index":` + ix + `,"delta":{"type":"thinking_delta","thinking":"` + text + `"}}`
}

func TestMatchedDeltasReadAsInFull(t *testing.T) {
	lines := []string{
		`{"type":"message_start","message":{"id":"msg_1","model":"claude-x","usage":{"input_tokens":3}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
		thinkingDelta("0", `step 1`),
		thinkingDelta("0", `the \"value\" doubles →\n`),
		thinkingDelta("0", ``),
		thinkingDelta("0", `caf\u00e9 \ud83c\udf0a é`),
		thinkingDelta("0", `tab\there/slash\/`),
		`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"CkYI+/=="}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"wave \ud83c"}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"\udf0a done"}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":" \u00e9"}}`,
		`{"type":"content_block_stop","index":1}`,
		`{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}`,
		`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"a\": "}}`,
		`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"\"b\"}"}}`,
		`{"type":"content_block_stop","index":2}`,
		`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}`,
		`{"type":"message_stop"}`,
	}
	m := both(t, lines, replay.Limits{})
	require.Empty(t, m.err)
	assert.Equal(t, 8, m.shaped, "each delta after the first of its kind is matched")
	assert.Contains(t, m.doc, `"text":"step 1the \"value\" doubles →\ncafé 🌊 étab\there/slash/"`)
	assert.Contains(t, m.doc, `"signature":"EqQBCkYI+/=="`)
	assert.Contains(t, m.doc, `"text":"wave 🌊 done é"`)
	assert.Contains(t, m.doc, `"arguments":"{\"a\": \"b\"}"`)
}

func TestMatchedDeltasKeepTheLimits(t *testing.T) {
	var lines []string
	lines = append(lines, `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`)
	for i := 0; i < 10; i++ {
		lines = append(lines, thinkingDelta("0", "0123456789"))
	}
	m := both(t, lines, replay.Limits{MaxItem: 45})
	assert.Contains(t, m.err, "item size")
	assert.Equal(t, 4, m.shaped, "the fifth delta, matched, passes the limit")
	m = both(t, lines, replay.Limits{MaxTurn: 75})
	assert.Contains(t, m.err, "turn size")
}

func TestMatchedDeltasRefuseALoneSurrogate(t *testing.T) {
	lines := []string{
		`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
		thinkingDelta("0", `a`),
		thinkingDelta("0", `b\u00e9`),
		thinkingDelta("0", `c\ud800d`),
	}
	m := both(t, lines, replay.Limits{})
	assert.Contains(t, m.err, "lone surrogate")
	assert.Contains(t, m.err, "/delta/thinking")
	assert.Equal(t, 2, m.shaped)
}

func TestMatchedDeltaAfterItsBlockClosed(t *testing.T) {
	lines := []string{
		`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
		thinkingDelta("0", `a`),
		thinkingDelta("0", `b`),
		`{"type":"content_block_stop","index":0}`,
		thinkingDelta("0", `c`),
	}
	m := both(t, lines, replay.Limits{})
	assert.NotEmpty(t, m.err, "a delta for a closed block is refused")
	assert.Equal(t, 1, m.shaped, "the delta after the stop is read in full")

	// A message_stop in between: what follows it changes nothing.
	lines = append(lines[:4:4], `{"type":"message_stop"}`, thinkingDelta("0", `c`))
	m = both(t, lines, replay.Limits{})
	require.Empty(t, m.err)
	assert.Equal(t, 1, m.shaped)
	assert.Contains(t, m.doc, `"text":"ab"`)
}

// FuzzShapeSameAsFull puts fuzzed strings in runs of deltas of one shape
// (thinking, signature, text, tool input) and requires the stream to
// decode as it does with every event read in full: the same turn, events
// and error.
func FuzzShapeSameAsFull(f *testing.F) {
	f.Add(`step 1`, `the \"edge\"\n`, `\ud83c`)
	f.Add(`a`, `\udf0a b`, ``)
	f.Add(`a", "x":"y`, `\q`, "\xff")
	f.Add(`\ud800`, `é→`, `\u00e9\\`)
	f.Add(`a`, `x\ud800`, `y`)
	f.Fuzz(func(t *testing.T, a, b, c string) {
		delta := func(ix, typ, member, v string) string {
			return `{"type":"content_block_delta","index":` + ix + `,"delta":{"type":"` + typ + `","` + member + `":"` + v + `"}}`
		}
		lines := []string{
			`{"type":"message_start","message":{"id":"msg_1","model":"claude-x"}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
			delta("0", "thinking_delta", "thinking", a), delta("0", "thinking_delta", "thinking", b),
			delta("0", "thinking_delta", "thinking", c), delta("0", "thinking_delta", "thinking", a),
			delta("0", "signature_delta", "signature", b), delta("0", "signature_delta", "signature", c),
			`{"type":"content_block_stop","index":0}`,
			`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
			delta("1", "text_delta", "text", c), delta("1", "text_delta", "text", a), delta("1", "text_delta", "text", b),
			`{"type":"content_block_stop","index":1}`,
			`{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}`,
			delta("2", "input_json_delta", "partial_json", a), delta("2", "input_json_delta", "partial_json", b),
			`{"type":"content_block_stop","index":2}`,
			`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}`,
			`{"type":"message_stop"}`,
		}
		data := []byte("data: " + strings.Join(lines, "\n\ndata: ") + "\n\n")
		codectest.SameAsReshaped(t, func() codecs.FrameDecoder { return &StreamDecoder{Limits: replay.Limits{MaxItem: 64}} },
			stream.Options{Framing: stream.FramingSSE}, data)
	})
}
