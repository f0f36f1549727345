package openai_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/openai"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// decodeStream decodes a fixture whole, without goldens.
func decodeStream(t *testing.T, name string, c openai.Codec) *replay.Turn {
	t.Helper()
	opts := stream.Options{}
	if strings.HasSuffix(name, ".jsonl") {
		opts.Framing = stream.FramingJSONL
	}
	tu, err := stream.Decode(bytes.NewReader(read(t, name)), c, opts)
	require.NoError(t, err)
	return tu
}

// hostIDs lists the ids and ciphertext a host minted in a turn: none of
// them may reach OpenAI or Azure.
func hostIDs(tu *replay.Turn) []string {
	var out []string
	for _, b := range tu.Blocks {
		switch x := b.(type) {
		case replay.ReasoningItem:
			out = append(out, x.Meta().ID.Value())
			if e, ok := x.(*replay.Encrypted); ok {
				out = append(out, e.Data)
			}
		case *replay.Text:
			out = append(out, x.ID)
		case *replay.ToolCall:
			out = append(out, x.ItemID)
		}
	}
	return out
}

// TestCarryWalkResponsesHosts: no item, item id or ciphertext minted by a
// Responses-compatible host (Ollama, Copilot, DeepSeek, OpenRouter, LM
// Studio, an unnamed local server) ever reaches OpenAI or Azure, by Carry
// then Encode, whatever the target's account; the visible text and the
// tool calls (without their host ids) do.
func TestCarryWalkResponsesHosts(t *testing.T) {
	hosts := []string{"ollama", "copilot", "deepseek", "openrouter", "lmstudio", "vllm"}
	fixtures := []string{"summary-encrypted.sse", "two-reasoning-calls.sse", "reasoning-text-out-of-order.jsonl"}
	targets := []replay.Target{
		{API: openai.API, Provider: "openai", Model: "gpt-5"},
		{API: openai.API, Provider: "openai", Model: "gpt-5", Account: "org-target"},
		{API: openai.API, Provider: "azure", Model: "gpt-5"},
		{API: openai.API, Provider: "azure", Model: "gpt-5", Account: "org-target", Store: true},
	}
	for _, host := range hosts {
		for _, fx := range fixtures {
			src := decodeStream(t, fx, openai.Codec{Provider: host})
			src.Provenance.Account = "org-host"
			for _, it := range src.Items() {
				require.NotContains(t, []replay.Format{formats.OpenAIResponses, formats.AzureOpenAIResponses}, it.Meta().Format, host)
			}
			minted := hostIDs(src)
			for _, tg := range targets {
				carried, notices := replay.Carry(replay.History{Turns: []*replay.Turn{src}}, tg, replay.DefaultPolicy())
				require.NotEmpty(t, notices, "%s %s: every loss gets a notice", host, fx)
				for _, tu := range carried.Turns {
					for _, it := range tu.Items() {
						require.False(t, it.Replayable() && it.Kind() != replay.KindText && it.Kind() != replay.KindSummary,
							"%s %s -> %s: a host item is kept: %#v", host, fx, tg.Provider, it)
					}
					out, err := openai.Codec{Provider: tg.Provider, Stored: tg.Store}.Encode(tu)
					require.NoError(t, err)
					for _, id := range minted {
						if id != "" {
							require.NotContains(t, string(out), `"`+id+`"`, "%s %s -> %s", host, fx, tg.Provider)
						}
					}
					require.False(t, strings.Contains(string(out), `"type":"reasoning"`) || strings.Contains(string(out), `"item_reference"`),
						"%s %s -> %s: %s", host, fx, tg.Provider, out)
					require.Equal(t, len(src.ToolCalls()), int(gjson.GetBytes(out, `#(type=="function_call")#|#`).Int()), "tool calls are kept")
				}
			}
		}
	}
}
