package mistral

import (
	"fmt"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/stretchr/testify/require"
)

// Chunks of one stream: the envelope is the same in each, as Mistral
// sends it.
func sseChunk(delta, finish string) string {
	return `{"id":"0f3d","object":"chat.completion.chunk","created":1790000000,"model":"magistral-medium-2609","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + finish + `}]}`
}

// think is a thinking chunk (tok is JSON string content, escapes as sent).
func think(tok string) string {
	return sseChunk(`{"content":[{"type":"thinking","thinking":[{"type":"text","text":"`+tok+`"}],"closed":true}]}`, "null")
}

func word(tok string) string { return sseChunk(`{"content":"`+tok+`"}`, "null") }

func shaped(fd codecs.FrameDecoder) int { return fd.(*StreamDecoder).dec().Shaped() }

func newStream(lim replay.Limits) func() codecs.FrameDecoder {
	return func() codecs.FrameDecoder { return &StreamDecoder{Limits: lim} }
}

// TestShapedChunksDecodeAsFull: thinking and text chunks read by the shape
// of the one before (escapes, multi-byte text, a surrogate pair cut
// between two chunks, a lone half, an empty text read in full) make the
// same events and turn as the same chunks read in full; thinking after
// text opens a new item.
func TestShapedChunksDecodeAsFull(t *testing.T) {
	payloads := []string{
		think(`step 1, `), think(`the \"edge\" case\n`), think(`日本 é`), think(`a wave \ud83c`), think(`\udf0a, a lone \udc00.`),
		think(``), think(`back`), think(` again`),
		word(`the `), word(`\"answer\"`), word(`日本`), word(``), word(`!`),
		think(`more`), think(` thought`),
		sseChunk(`{"content":""}`, `"stop"`),
	}
	res := codectest.ShapedAsFull(t, newStream(replay.Limits{}), shaped, 5, payloads)
	require.NoError(t, res.Err)
	require.Len(t, res.Turn.Blocks, 3)
	require.Equal(t, "step 1, the \"edge\" case\n日本 éa wave 🌊, a lone \uFFFD.back again", res.Turn.Blocks[0].(*replay.ReasoningText).Text)
	require.Equal(t, "the \"answer\"日本!", res.Turn.Blocks[1].(*replay.Text).Text)
	require.Equal(t, "more thought", res.Turn.Blocks[2].(*replay.ReasoningText).Text)
	require.JSONEq(t, `{"closed":true}`, string(res.Turn.Blocks[2].(*replay.ReasoningText).Extra))
}

// TestShapedChunksKeepLimits: inside a run of chunks read by their shape,
// MaxItem and MaxTurn stop the stream at the same chunk with the same
// error.
func TestShapedChunksKeepLimits(t *testing.T) {
	var run []string
	for i := 0; i < 8; i++ {
		run = append(run, think(fmt.Sprintf(`token %d, `, i))) // 9 bytes each
	}
	run = append(run, sseChunk(`{"content":""}`, `"stop"`))
	for _, c := range []struct {
		lim    replay.Limits
		shaped int
		err    string
	}{
		{replay.Limits{MaxItem: 55}, 5, "replay: mistral: event 6: block 0: item size exceeds the limit of 55"},
		{replay.Limits{MaxTurn: 90}, 5, "replay: mistral: event 6: block 0: turn size exceeds the limit of 90"},
	} {
		res := codectest.ShapedAsFull(t, newStream(c.lim), shaped, c.shaped, run)
		var le *replay.LimitError
		require.ErrorAs(t, res.Err, &le)
		require.Equal(t, c.err, res.Err.Error())
	}
}

// TestShapedChunksAfterTheFinish: the chunk read by its shape just before
// the finish, sent again after it, is refused as the full path refuses
// it.
func TestShapedChunksAfterTheFinish(t *testing.T) {
	payloads := []string{word(`a`), word(`b`), word(`c`), sseChunk(`{"content":""}`, `"stop"`), word(`c`), word(`c`)}
	res := codectest.ShapedAsFull(t, newStream(replay.Limits{}), shaped, 1, payloads)
	require.Equal(t, "replay: mistral: event 4: /choices/0: malformed input: a chunk after finish_reason", res.Err.Error())
	require.Equal(t, "abc", res.Turn.Blocks[0].(*replay.Text).Text)
}
