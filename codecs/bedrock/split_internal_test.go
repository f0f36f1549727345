package bedrock

import (
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A text with no '<' is kept as the one text block appendSplit makes of
// it, which element does without splitting; a text with a tag is split.
func TestSplitWithoutTag(t *testing.T) {
	texts := []string{"x", "plain answer", " leading and trailing\n\n", "think> /think> no opener", "a\u00e9\u2028b",
		strings.Repeat("long visible text ", 70000)} // past the splitter's 1 MB hold
	for _, text := range texts {
		r := Codec{}.reader(new(kit.Alloc))
		var split replay.Turn
		require.NoError(t, r.appendSplit(&split, text, 0))
		require.Len(t, split.Blocks, 1)
		assert.Equal(t, &replay.Text{Text: text}, split.Blocks[0])
		var direct replay.Turn
		require.NoError(t, r.element(&direct, val(t, `{"text":`+string(jsonw.String(nil, text))+`}`), 0, "/content"))
		assert.Equal(t, split.Blocks, direct.Blocks, "%.40q", text)
	}
	r := Codec{}.reader(new(kit.Alloc))
	var tagged replay.Turn
	require.NoError(t, r.element(&tagged, val(t, `{"text":"<think>why</think>so"}`), 0, "/content"))
	require.Len(t, tagged.Blocks, 2)
	assert.Equal(t, "why", tagged.Blocks[0].(*replay.ReasoningText).Text)
	assert.Equal(t, "so", tagged.Blocks[1].(*replay.Text).Text)
}

// val returns the root of the JSON text s, read on a tape.
func val(t *testing.T, s string) jsonw.Val {
	tp := new(jsonw.Tape)
	require.True(t, tp.Reset(s))
	return tp.Root()
}
