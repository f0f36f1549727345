package anthropic

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/stretchr/testify/require"
)

type otherCodec struct{ Codec }

func (otherCodec) API() string { return "gemini" }

// With a Gemini codec that also lists vertex, model patterns decide.
func TestResolveVertexByModel(t *testing.T) {
	var r replay.Registry
	r.MustRegister(entry)
	r.MustRegister(replay.Entry{API: "gemini", Providers: []string{"vertex", "aistudio"}, Models: []string{"gemini-*", "gemma-*"},
		New: func(string, string) replay.ReasoningCodec { return otherCodec{} }})
	for model, api := range map[string]string{
		"gemini-3-pro": "gemini", "claude-opus-4-6": API, "claude-sonnet-4-5@20250929": API,
	} {
		c, err := r.Resolve("vertex", model)
		require.NoError(t, err)
		require.Equal(t, api, c.API(), model)
	}
	c, err := r.Resolve("bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0")
	require.NoError(t, err)
	require.Equal(t, Codec{Provider: "bedrock"}, c)
}
