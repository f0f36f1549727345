package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// A chat.completion body with a leftover empty delta beside its message
// (Perplexity) is read as a body: its <think> reasoning and its answer are
// kept, not lost to a one-line JSON Lines stream of an empty delta.
func TestDecodeBodyWithLeftoverDelta(t *testing.T) {
	code, out, errOut := runCLI("", "decode", "-v", "../../testdata/chatcompat/perplexity-body.json")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "a JSON body")
	blocks := gjson.Get(out, "blocks").Array()
	require.Len(t, blocks, 2, out)
	assert.Equal(t, "reasoning.text", blocks[0].Get("type").Str)
	assert.Equal(t, "\nThe search result lists the Brest tides for today; the morning high tide is the one asked for.\n", blocks[0].Get("text").Str)
	assert.Equal(t, "\nHigh tide at Brest is at 06:12 [1].", blocks[1].Get("text").Str)
	assert.True(t, gjson.Get(out, "complete").Bool())

	// A chunk is still an event.
	g := sniff(nil, []byte(`{"object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"x"}}]}`))
	assert.True(t, g.event)
	g = sniff(nil, []byte(`{"model":"m","choices":[{"index":0,"delta":{"content":"x"}}]}`))
	assert.True(t, g.event, "a chunk without object")
	g = sniff(nil, []byte(`{"object":"chat.completion","model":"m","choices":[{"index":0,"message":{"content":"x"},"delta":{}}]}`))
	assert.False(t, g.event)
}
