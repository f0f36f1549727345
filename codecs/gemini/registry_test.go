package gemini_test

import (
	"testing"

	"github.com/reasonreplay/replay"
	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Vertex serves Claude as well as Gemini: the model decides.
func TestResolveAmongAllCodecs(t *testing.T) {
	for pm, api := range map[[2]string]string{
		{"vertex", "gemini-3-pro-preview"}:                    "gemini",
		{"vertex", "claude-sonnet-4-5@20250929"}:              "anthropic",
		{"vertex", "publishers/google/models/gemini-3-flash"}: "gemini",
		{"aistudio", "gemma-4-26b-a4b-it"}:                    "gemini",
		{"google", ""}:                                        "gemini",
		{"", "models/gemini-2.5-flash"}:                       "gemini",
	} {
		c, err := replay.Resolve(pm[0], pm[1])
		require.NoError(t, err, pm)
		assert.Equal(t, api, c.API(), pm)
	}
}
