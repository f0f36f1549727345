package all_test

import (
	"testing"

	"github.com/reasonreplay/replay"
	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResolve pins which codec the default registry picks for common
// provider and model pairs.
func TestResolve(t *testing.T) {
	for _, c := range []struct{ provider, model, api string }{
		{"anthropic", "claude-sonnet-4-5", "anthropic"},
		{"vertex", "claude-opus-4-6@20260101", "anthropic"},
		{"bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "bedrock-converse"},
		{"bedrock", "moonshot.kimi-k2-thinking", "bedrock-converse"},
		{"openai", "gpt-5", "openai-responses"},
		{"azure", "o4-mini", "openai-responses"},
		{"xai", "grok-4-fast", "openai-responses"},
		{"xai", "grok-3-mini", "xai"},
		{"deepseek", "deepseek-reasoner", "deepseek"},
		{"moonshot", "kimi-k2-thinking", "openai-compatible"},
		{"vllm", "Qwen/Qwen3-32B", "openai-compatible"},
		{"mistral", "magistral-medium-latest", "mistral"},
		{"cohere", "command-a-reasoning-08-2025", "cohere"},
		{"openrouter", "anthropic/claude-sonnet-4.5", "openrouter"},
		{"", "claude-opus-4-1", "anthropic"},
		{"somewhere", "unknown-model", "openrouter"},
	} {
		codec, err := replay.Resolve(c.provider, c.model)
		require.NoError(t, err)
		assert.Equal(t, c.api, codec.API(), "%s %s", c.provider, c.model)
	}
}

// TestEveryAPINameIsRegistered: the API names the command line accepts.
func TestEveryAPINameIsRegistered(t *testing.T) {
	for _, api := range []string{"openrouter", "anthropic", "openai-responses", "deepseek", "xai",
		"openai-compatible", "bedrock-converse", "mistral", "cohere"} {
		c, err := replay.Lookup(api, "", "")
		require.NoError(t, err, api)
		assert.Equal(t, api, c.API())
	}
}
