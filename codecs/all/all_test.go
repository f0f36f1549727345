package all_test

import (
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/reasonreplay/replay/formats"
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
		// Ollama serves its native API and an OpenAI-compatible one: the
		// provider resolves to its own API whatever the model (the
		// compatible one is picked by path or by name).
		{"ollama", "gpt-oss:20b", "ollama"},
		{"ollama", "qwen3:8b", "ollama"},
		{"ollama", "", "ollama"},
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
		"openai-compatible", "bedrock-converse", "mistral", "cohere", "ollama"} {
		c, err := replay.Lookup(api, "", "")
		require.NoError(t, err, api)
		assert.Equal(t, api, c.API())
	}
}

// TestAccepts: every codec but the gateway names the formats it takes back,
// and Carry keeps a signed Claude item only for targets that accept it.
func TestAccepts(t *testing.T) {
	claude := &replay.Turn{Complete: true, Provenance: replay.Provenance{API: "anthropic", Provider: "anthropic", Model: "claude-sonnet-4-5"},
		Blocks: []replay.Block{
			&replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: formats.AnthropicClaude}, Text: "think", Signature: replay.Some("RXFvQkNr")},
			&replay.Text{Text: "answer"},
		}}
	for _, c := range []struct {
		api, provider, model string
		keeps                bool
	}{
		{"anthropic", "anthropic", "claude-opus-4-6", true},
		{"bedrock-converse", "bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", true},
		{"bedrock-converse", "bedrock", "moonshot.kimi-k2-thinking", false},
		{"openai-responses", "openai", "gpt-5", false},
		{"deepseek", "deepseek", "deepseek-reasoner", false},
		{"openai-compatible", "moonshot", "kimi-k2-thinking", false},
		{"mistral", "mistral", "magistral-medium-latest", false},
		{"cohere", "cohere", "command-a-reasoning-08-2025", false},
		{"ollama", "ollama", "qwen3:8b", false},
		{"openrouter", "openrouter", "anthropic/claude-sonnet-4.5", true},
		{"openrouter", "openrouter", "openai/gpt-5", false},
	} {
		codec, err := replay.Lookup(c.api, c.provider, c.model)
		require.NoError(t, err)
		if c.api != "openrouter" {
			assert.NotEmpty(t, codec.Contract().Accepts, c.api)
		}
		out, _ := replay.Carry(replay.History{Turns: []*replay.Turn{claude}}, replay.Target{API: c.api, Provider: c.provider, Model: c.model}, replay.DefaultPolicy())
		require.Len(t, out.Turns, 1)
		kept := false
		for _, it := range out.Turns[0].Items() {
			if x, ok := it.(*replay.ReasoningText); ok && x.Signature.Value() == "RXFvQkNr" {
				kept = true
			}
		}
		assert.Equal(t, c.keeps, kept, "%s %s", c.api, c.model)
	}
}

// byName are the APIs whose tool results name their call by function
// name, not by id (Gemini's functionResponse.name, Ollama's tool_name):
// the test's own knowledge, independent of the contracts.
var byName = map[string]bool{"gemini": true, "ollama": true}

// Every API that names tool results by call id declares it.
func TestContractsDeclareToolIDs(t *testing.T) {
	for _, api := range replay.Default().APIs() {
		c, err := replay.Default().Lookup(api, "", "")
		require.NoError(t, err)
		assert.Equal(t, !byName[api], c.Contract().ToolIDs, api)
	}
	assert.True(t, strings.HasPrefix(replay.RuleToolCallID, "replay/"))
}
