package chatcompat

import (
	"fmt"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/stretchr/testify/require"
)

// Chunks of one DeepSeek stream: the envelope is the same in each.
func dsChunk(delta, finish string) string {
	return `{"id":"9c1e","object":"chat.completion.chunk","created":1790000000,"model":"deepseek-v4-flash","system_fingerprint":"fp_1","choices":[{"index":0,"logprobs":null,"delta":` + delta + `,"finish_reason":` + finish + `}]}`
}

// dsThink is a reasoning_content delta (tok is JSON string content,
// escapes as sent).
func dsThink(tok string) string {
	return dsChunk(`{"content":null,"reasoning_content":"`+tok+`"}`, "null")
}

func dsWord(tok string) string { return dsChunk(`{"content":"`+tok+`"}`, "null") }

func dsShaped(fd codecs.FrameDecoder) int { return fd.(*StreamDecoder).dec().core.Shaped() }

func dsStream(lim replay.Limits) func() codecs.FrameDecoder {
	c := New(APIDeepSeek, "", "deepseek-v4-flash")
	c.Limits = lim
	return c.NewFrameDecoder
}

// TestShapedChunksDecodeAsFull: reasoning and content chunks read by the
// shape of the one before (escapes, multi-byte text, surrogate pairs cut
// between two chunks, a lone half, an empty string read in full) make the
// same events and turn as the same chunks read in full.
func TestShapedChunksDecodeAsFull(t *testing.T) {
	payloads := []string{
		dsThink(`step 1, `), dsThink(`the \"edge\" case\n`), dsThink(`日本 é`), dsThink(`a wave \ud83c`), dsThink(`\udf0a, a lone \udc00.`),
		dsThink(``), dsThink(`back`), dsThink(` again`),
		dsWord(`the `), dsWord(`\"answer\" \ud83c`), dsWord(`\udf0a 日本`), dsWord(``), dsWord(`!`),
		dsChunk(`{"content":""}`, `"stop"`), "[DONE]",
	}
	res := codectest.ShapedAsFull(t, dsStream(replay.Limits{}), dsShaped, 5, payloads)
	require.NoError(t, res.Err)
	require.Len(t, res.Turn.Blocks, 2)
	require.Equal(t, "step 1, the \"edge\" case\n日本 éa wave 🌊, a lone \uFFFD.back again", res.Turn.Blocks[0].(*replay.ReasoningText).Text)
	require.Equal(t, "the \"answer\" 🌊 日本!", res.Turn.Blocks[1].(*replay.Text).Text)
}

// TestShapedContentOpensABlock: content read by its shape goes through
// the <think> splitter as in full, and when it opens a block (a tag) the
// next chunk is read in full.
func TestShapedContentOpensABlock(t *testing.T) {
	payloads := []string{
		dsWord(`a`), dsWord(`b`), dsWord(`c <think>x`), dsWord(`y</think> d`), dsWord(`e`), dsWord(`f`),
		dsChunk(`{"content":""}`, `"stop"`),
	}
	res := codectest.ShapedAsFull(t, dsStream(replay.Limits{}), dsShaped, 2, payloads)
	require.NoError(t, res.Err)
	var got []string
	for _, b := range res.Turn.Blocks {
		switch b := b.(type) {
		case *replay.Text:
			got = append(got, "text "+b.Text)
		case *replay.ReasoningText:
			got = append(got, "reasoning "+b.Text)
		}
	}
	require.Equal(t, []string{"text abc ", "reasoning xy", "text  def"}, got)
}

// TestShapedChunksKeepLimits: inside a run of chunks read by their shape,
// MaxItem and MaxTurn stop the stream at the same chunk with the same
// error.
func TestShapedChunksKeepLimits(t *testing.T) {
	var run []string
	for i := 0; i < 8; i++ {
		run = append(run, dsThink(fmt.Sprintf(`token %d, `, i))) // 9 bytes each
	}
	run = append(run, dsChunk(`{"content":""}`, `"stop"`))
	for _, c := range []struct {
		lim    replay.Limits
		shaped int
		err    string
	}{
		{replay.Limits{MaxItem: 55}, 5, "replay: deepseek: event 6: block 0: item size exceeds the limit of 55"},
		{replay.Limits{MaxTurn: 79}, 5, "replay: deepseek: event 6: block 0: turn size exceeds the limit of 79"},
	} {
		res := codectest.ShapedAsFull(t, dsStream(c.lim), dsShaped, c.shaped, run)
		var le *replay.LimitError
		require.ErrorAs(t, res.Err, &le)
		require.Equal(t, c.err, res.Err.Error())
	}
}

// TestShapedChunksAfterAChange: the same chunk bytes again after a tool
// call are read as the full path reads them (a new reasoning item), and
// after the finish they are ignored.
func TestShapedChunksAfterAChange(t *testing.T) {
	call := dsChunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{}"}}]}`, "null")
	payloads := []string{
		dsThink(`a`), dsThink(`b`), dsThink(`b`), call, dsThink(`b`), dsThink(`b`), dsThink(`b`),
		dsChunk(`{"content":""}`, `"tool_calls"`), dsThink(`b`), dsThink(`b`), "[DONE]",
	}
	res := codectest.ShapedAsFull(t, dsStream(replay.Limits{}), dsShaped, 2, payloads)
	require.NoError(t, res.Err)
	require.Len(t, res.Turn.Blocks, 3)
	require.Equal(t, "abb", res.Turn.Blocks[0].(*replay.ReasoningText).Text)
	require.Equal(t, "bbb", res.Turn.Blocks[2].(*replay.ReasoningText).Text)
}
