package openrouter

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/require"
)

// Chunks of one stream: the envelope is the same in each, as OpenRouter
// sends it.
const shapeHead = `{"id":"gen-9","provider":"Anthropic","model":"anthropic/claude-sonnet-4.5","object":"chat.completion.chunk","created":1,"choices":[{"index":0,"delta":`

func chunk(delta, finish string) string {
	return shapeHead + delta + `,"finish_reason":` + finish + `}]}`
}

// think is a reasoning.text fragment at index, mirrored in `reasoning`
// (tok is JSON string content, escapes as sent).
func think(tok string, index int) string {
	return chunk(fmt.Sprintf(`{"role":"assistant","content":"","reasoning":"%s","reasoning_details":[{"type":"reasoning.text","text":"%s","format":"anthropic-claude-v1","index":%d}]}`, tok, tok, index), "null")
}

func answer(tok string) string {
	return chunk(`{"role":"assistant","content":"`+tok+`"}`, "null")
}

func sealed(data string) string {
	return chunk(`{"role":"assistant","content":"","reasoning_details":[{"type":"reasoning.encrypted","data":"`+data+`","format":"anthropic-claude-v1","index":0}]}`, "null")
}

var (
	signed = chunk(`{"role":"assistant","content":"","reasoning_details":[{"type":"reasoning.text","text":"","signature":"RXFv","format":"anthropic-claude-v1","index":0}]}`, "null")
	call   = chunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{}"}}]}`, "null")
)

func shaped(fd codecs.FrameDecoder) int { return fd.(*StreamDecoder).dec().Shaped() }

func newStream(lim replay.Limits) func() codecs.FrameDecoder {
	return func() codecs.FrameDecoder { return &StreamDecoder{Limits: lim} }
}

// TestShapedChunksDecodeAsFull: chunks read by the shape of the one before
// (the text and its mirror differing, with escapes, multi-byte text, a
// surrogate pair cut between two chunks, an empty text that is read in
// full) make the same events and turn as the same chunks read in full.
func TestShapedChunksDecodeAsFull(t *testing.T) {
	payloads := []string{
		think(`step 1, `, 0), think(`the \"edge\" case\n`, 0), think(`日本 é`, 0), think(`a wave \ud83c`, 0), think(`\udf0a then \u00e9`, 0),
		think(``, 0), think(`back`, 0), think(` again`, 0),
		signed, call,
		answer(`the `), answer(`\"answer\"`), answer(`, done\n`), answer(`日本`),
		chunk(`{}`, `"tool_calls"`), "[DONE]",
	}
	res := codectest.ShapedAsFull(t, newStream(replay.Limits{}), shaped, 6, payloads)
	require.NoError(t, res.Err)
	it := res.Turn.Blocks[0].(*replay.ReasoningText)
	require.Equal(t, "step 1, the \"edge\" case\n日本 éa wave 🌊 then éback again", it.Text)
	require.Equal(t, "RXFv", it.Signature.Value())
	require.Equal(t, "the \"answer\", done\n日本", res.Turn.Blocks[2].(*replay.Text).Text)
	require.Equal(t, []string{
		`reasoning_start block=0 item=reasoning.text`,
		`reasoning_delta block=0 delta="step 1, " item=reasoning.text`,
		`reasoning_delta block=0 delta="the \"edge\" case\n" item=reasoning.text`,
		`reasoning_delta block=0 delta="日本 é" item=reasoning.text`,
		`reasoning_delta block=0 delta="a wave " item=reasoning.text`,
		`reasoning_delta block=0 delta="🌊 then é" item=reasoning.text`,
		`reasoning_delta block=0 delta="back" item=reasoning.text`,
		`reasoning_delta block=0 delta=" again" item=reasoning.text`,
		`tool_call_start block=1 id="call_1" name="read_file"`,
		`tool_call_delta block=1 delta="{}"`,
		`text_delta block=2 delta="the "`,
		`text_delta block=2 delta="\"answer\""`,
		`text_delta block=2 delta=", done\n"`,
		`text_delta block=2 delta="日本"`,
		`reasoning_end block=0 item=reasoning.text`,
		`tool_call_end block=1`,
		`done block=-1`,
	}, codectest.EventSummary(res.Events))
}

// TestShapedChunksKeepLimitsAndRefusals: inside a run of chunks read by
// their shape, MaxItem and MaxTurn stop the stream at the same chunk with
// the same error, and a lone surrogate half is refused in an encrypted
// blob at once, and in signed text when its signature comes, at the
// chunk that held it.
func TestShapedChunksKeepLimitsAndRefusals(t *testing.T) {
	var run []string
	for i := 0; i < 8; i++ {
		run = append(run, think(fmt.Sprintf(`token %d, `, i), 0)) // 9 bytes each
	}
	run = append(run, signed, chunk(`{}`, `"stop"`))
	for _, c := range []struct {
		lim    replay.Limits
		shaped int
		err    string
	}{
		{replay.Limits{MaxItem: 55}, 5, "replay: openrouter: event 6: block 0: item size exceeds the limit of 55"},
		{replay.Limits{MaxTurn: 110}, 5, "replay: openrouter: event 6: block 0: turn size exceeds the limit of 110"},
	} {
		res := codectest.ShapedAsFull(t, newStream(c.lim), shaped, c.shaped, run)
		var le *replay.LimitError
		require.True(t, errors.As(res.Err, &le), "%v", res.Err)
		require.Equal(t, c.err, res.Err.Error())
	}

	blob := []string{sealed(`QUJD`), sealed(`RUZH`), sealed(`SUpL`), sealed(`TU5P`), sealed(`UF\ud800FS`), sealed(`VFVW`)}
	res := codectest.ShapedAsFull(t, newStream(replay.Limits{}), shaped, 3, blob)
	require.ErrorIs(t, res.Err, replay.ErrMalformed)
	require.Equal(t, "replay: openrouter: event 4: /choices/0/delta/reasoning_details/0/data: malformed input: a lone surrogate escape in an encrypted blob: it names no character, and decoding it would alter bytes that must be kept exact", res.Err.Error())

	text := []string{think(`a`, 0), think(`b`, 0), think(`c \udc00 d`, 0), think(`e`, 0), signed, chunk(`{}`, `"stop"`)}
	res = codectest.ShapedAsFull(t, newStream(replay.Limits{}), shaped, 2, text)
	require.Equal(t, "replay: openrouter: event 2: /choices/0/delta/reasoning_details/0/text: malformed input: a lone surrogate escape in signed reasoning text: it names no character, and decoding it would alter bytes that must be kept exact", res.Err.Error())
}

// TestShapedChunksAfterAChange: the same chunk bytes again after what
// changed the decoder's state (a tool call, a text run, another item, the
// finish) are read as the full path reads them: merged into the item
// their index names, a new text run after a block, ignored after the
// finish.
func TestShapedChunksAfterAChange(t *testing.T) {
	payloads := []string{
		think(`a`, 0), think(`b`, 0), think(`c`, 0), call, think(`c`, 0), think(`c`, 0),
		answer(`x`), answer(`y`), think(`d`, 1), think(`e`, 1), answer(`y`), answer(`y`),
		chunk(`{}`, `"stop"`), answer(`y`), answer(`y`), "[DONE]",
	}
	res := codectest.ShapedAsFull(t, newStream(replay.Limits{}), shaped, 2, payloads)
	require.NoError(t, res.Err)
	var kinds []string
	for _, b := range res.Turn.Blocks {
		kinds = append(kinds, fmt.Sprintf("%T", b))
	}
	require.Equal(t, "*replay.ReasoningText *replay.ToolCall *replay.Text *replay.ReasoningText *replay.Text", strings.Join(kinds, " "))
	require.Equal(t, "abccc", res.Turn.Blocks[0].(*replay.ReasoningText).Text)
	require.Equal(t, "xy", res.Turn.Blocks[2].(*replay.Text).Text)
	require.Equal(t, "de", res.Turn.Blocks[3].(*replay.ReasoningText).Text)
	require.Equal(t, "yy", res.Turn.Blocks[4].(*replay.Text).Text)
}

// FuzzShapedAsFull: chunks of one shape whose strings the fuzzer writes
// (raw JSON string content: escapes, lone halves, invalid bytes, quotes
// that end the string early) decode to the same events, turn and error
// read by their shape as read in full (an invalid chunk's byte offset
// aside: the space that keeps a chunk from its neighbour's shape moves
// it).
func FuzzShapedAsFull(f *testing.F) {
	f.Add(`step 1`, `the \"edge\"\n`, `\ud83c`)
	f.Add(`a`, `\udf0a b`, ``)
	f.Add(`a", "x":"y`, `\q`, "\xff")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		payloads := []string{
			think(a, 0), think(b, 0), think(c, 0), think(a, 0), sealed(b), sealed(c), sealed(a),
			think(b, 0), signed, answer(c), answer(a), answer(b), chunk(`{}`, `"stop"`),
		}
		newFD := newStream(replay.Limits{MaxItem: 64})
		got := codectest.FeedPush(newFD(), stream.Options{}, [][]byte{codectest.SSE(payloads)})
		ref := codectest.FeedPush(newFD(), stream.Options{}, [][]byte{codectest.Reshape(codectest.SSE(payloads))})
		at := regexp.MustCompile(`at byte \d+`)
		require.Equal(t, at.ReplaceAllString(fmt.Sprint(ref.Err), "at byte N"), at.ReplaceAllString(fmt.Sprint(got.Err), "at byte N"))
		require.Equal(t, codectest.EventSummary(ref.Events), codectest.EventSummary(got.Events))
		require.Equal(t, string(ref.Document()), string(got.Document()))
	})
}
