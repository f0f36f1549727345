package anthropic_test

import (
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func jsonl(lines ...string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }

const (
	startThinking = `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`
	startText     = `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`
	stop0         = `{"type":"content_block_stop","index":0}`
	msgStop       = `{"type":"message_stop"}`
)

func sweepL(t *testing.T, l replay.Limits, data []byte) codectest.Result {
	t.Helper()
	return codectest.SweepStream(t, func() codecs.FrameDecoder { return anthropic.Codec{Limits: l}.NewFrameDecoder() },
		stream.Options{Framing: stream.FramingJSONL}, data)
}

// Issue 11: a lone surrogate escape in a signature, in signed thinking
// text (even half of a pair split across two deltas) or in compaction
// content is refused with a typed error at the member.
func TestStreamLoneSurrogateRefused(t *testing.T) {
	delta := func(typ, member, v string) string {
		return `{"type":"content_block_delta","index":0,"delta":{"type":"` + typ + `","` + member + `":"` + v + `"}}`
	}
	for name, c := range map[string]struct {
		lines []string
		ptr   string
		event int
	}{
		"thinking":           {[]string{startThinking, delta("thinking_delta", "thinking", `a\ud800b`)}, "/delta/thinking", 1},
		"thinking low half":  {[]string{startThinking, delta("thinking_delta", "thinking", `\udc00`)}, "/delta/thinking", 1},
		"thinking split":     {[]string{startThinking, delta("thinking_delta", "thinking", `x\ud83c`), delta("thinking_delta", "thinking", `\udf0a`)}, "/delta/thinking", 1},
		"signature":          {[]string{startThinking, delta("thinking_delta", "thinking", `ok`), delta("signature_delta", "signature", `EqQB\udfff`)}, "/delta/signature", 2},
		"initial thinking":   {[]string{`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"\ud800","signature":""}}`}, "/content_block/thinking", 0},
		"redacted data":      {[]string{`{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"EmwK\udc00"}}`}, "/content_block/data", 0},
		"compaction content": {[]string{`{"type":"content_block_start","index":0,"content_block":{"type":"compaction"}}`, delta("compaction_delta", "content", `sum\ud800`)}, "/delta/content", 1},
	} {
		t.Run(name, func(t *testing.T) {
			res := sweepL(t, replay.Limits{}, jsonl(append(c.lines, stop0, msgStop)...))
			require.ErrorIs(t, res.Err, replay.ErrMalformed)
			var re *replay.Error
			require.ErrorAs(t, res.Err, &re)
			assert.Equal(t, c.ptr, re.Pointer)
			assert.Equal(t, c.event, re.Event)
			assert.Contains(t, re.Error(), "lone surrogate")
			assert.False(t, res.Turn.Complete)
		})
	}
	// A valid pair inside one delta is kept.
	res := sweepL(t, replay.Limits{}, jsonl(startThinking, delta("thinking_delta", "thinking", `wave \ud83c\udf0a`),
		delta("signature_delta", "signature", "EqQB"), stop0, msgStop))
	require.NoError(t, res.Err)
	assert.Equal(t, "wave 🌊", res.Turn.Blocks[0].(*replay.ReasoningText).Text)
}

// Visible text may have a surrogate pair split across two deltas (a host
// cutting by UTF-16 code units): the halves are joined; a half with no
// partner reads as U+FFFD.
func TestStreamTextJoinsSplitSurrogates(t *testing.T) {
	text := func(v string) string {
		return `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"` + v + `"}}`
	}
	res := sweepL(t, replay.Limits{}, jsonl(startText, text(`sea \ud83c`), text(`\udf0a!`), text(`end \ud83c`), stop0, msgStop))
	require.NoError(t, res.Err)
	assert.Equal(t, "sea 🌊!end \uFFFD", res.Turn.Blocks[0].(*replay.Text).Text)
}

// Issue 11 (4): the initial thinking of content_block_start and every
// citations_delta count against MaxItem.
func TestStreamLimitsCountInitialThinkingAndCitations(t *testing.T) {
	l := replay.Limits{MaxItem: 64}
	big := strings.Repeat("t", 65)
	res := sweepL(t, l, jsonl(`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"`+big+`","signature":""}}`, stop0, msgStop))
	var le *replay.LimitError
	require.ErrorAs(t, res.Err, &le)
	assert.Equal(t, "item size", le.What)
	assert.Equal(t, 0, le.Event)

	cite := `{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"type":"char_location","cited_text":"abcdefghij"}}}`
	res = sweepL(t, l, jsonl(startText, cite, stop0, msgStop))
	require.NoError(t, res.Err, "one citation fits")
	res = sweepL(t, l, jsonl(startText, cite, cite, stop0, msgStop))
	require.ErrorAs(t, res.Err, &le)
	assert.Equal(t, "item size", le.What)
	assert.Equal(t, 2, le.Event)
}

// The body decoder refuses the same lone escapes in a response, at the
// member.
func TestDecodeLoneSurrogateRefused(t *testing.T) {
	for ptr, cb := range map[string]string{
		"/content/0/signature": `{"type":"thinking","thinking":"x","signature":"EqQB\ud800"}`,
		"/content/0/thinking":  `{"type":"thinking","thinking":"\udc00","signature":"EqQB"}`,
		"/content/0/data":      `{"type":"redacted_thinking","data":"\ud800"}`,
	} {
		body := `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[` + cb + `],"stop_reason":"end_turn"}`
		_, err := anthropic.Codec{}.Decode([]byte(body))
		require.ErrorIs(t, err, replay.ErrMalformed, ptr)
		var re *replay.Error
		require.ErrorAs(t, err, &re)
		assert.Equal(t, ptr, re.Pointer)
	}
	body := `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"lone \ud800 in visible text"}],"stop_reason":"end_turn"}`
	tu, err := anthropic.Codec{}.Decode([]byte(body))
	require.NoError(t, err)
	assert.Equal(t, "lone \uFFFD in visible text", tu.Blocks[0].(*replay.Text).Text)
}
