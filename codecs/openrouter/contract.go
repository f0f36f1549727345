package openrouter

import (
	"fmt"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
)

// Rule ids of the OpenRouter contract.
const (
	// RuleDuplicateItem: one reasoning item sent twice across the history.
	RuleDuplicateItem = "openrouter/duplicate-item"
	// RuleGeminiReasoningMissing: a Gemini 3 tool loop sent back without
	// its reasoning.
	RuleGeminiReasoningMissing = "openrouter/gemini-reasoning-missing"
)

// Contract returns what OpenRouter requires on replay: the reasoning_details
// of each assistant message sent back unmodified and in order (the upstream
// enforces its own contract behind it: Anthropic signatures, Gemini 3
// signatures in tool loops, OpenAI encrypted items), and each item sent
// once across the whole history.
//
// OpenRouter is a gateway: the formats it accepts back are those of the
// model's vendor, told from the slug ("anthropic/claude-sonnet-4.5" ->
// anthropic-claude-v1), none when the codec was built without a model.
func (c Codec) Contract() replay.ReplayContract {
	return replay.ReplayContract{
		API:     API,
		ToolIDs: true,
		Gateway: true,
		Accepts: vendorFormats(c.Model),
		Summary: "Send each assistant message's reasoning_details back exactly as received, in the same order, " +
			"and each item once across the history. It matters most in tool loops: Anthropic and Gemini 3 " +
			"upstreams reject a continuation whose reasoning was dropped or changed. Reasoning of earlier turns " +
			"may be dropped whole.",
		Rules: []replay.Rule{ruleDuplicate, ruleGeminiUnsigned},
	}
}

// vendorFormats tells the formats a gateway model slug's vendor mints
// ("anthropic/claude-sonnet-4.5" -> anthropic-claude-v1), nil when the slug
// does not say.
func vendorFormats(model string) []replay.Format {
	m := strings.ToLower(model)
	vendor, _, ok := strings.Cut(m, "/")
	if !ok {
		vendor = ""
	}
	switch {
	case vendor == "anthropic" || strings.Contains(m, "claude"):
		return []replay.Format{formats.AnthropicClaude}
	case vendor == "google" || strings.Contains(m, "gemini"):
		return []replay.Format{formats.GoogleGemini}
	case vendor == "openai":
		return []replay.Format{formats.OpenAIResponses}
	case vendor == "x-ai":
		return []replay.Format{formats.XAIResponses}
	}
	if f, ok := vendorFormat[vendor]; ok {
		return []replay.Format{f}
	}
	return nil
}

// vendorFormat maps the other vendor prefixes of OpenRouter model slugs to
// the format of their reasoning.
var vendorFormat = map[string]replay.Format{
	"deepseek": formats.DeepSeek, "moonshotai": formats.Kimi, "z-ai": formats.GLM, "minimax": formats.MiniMax,
	"qwen": formats.Qwen, "mistralai": formats.Mistral, "cohere": formats.Cohere,
}

// dedupKey is the key OpenRouter de-duplicates reasoning_details by:
// summary -> summary; encrypted -> id, else data; text -> text, else
// signature. It holds the item's own string, so building it allocates
// nothing.
type dedupKey struct {
	field string
	value string
}

func detailKey(it replay.ReasoningItem) (dedupKey, bool) {
	switch it := it.(type) {
	case *replay.Summary:
		return dedupKey{"summary", it.Summary}, true
	case *replay.Encrypted:
		if id := it.ID.Value(); id != "" {
			return dedupKey{"encrypted.id", id}, true
		}
		return dedupKey{"encrypted.data", it.Data}, true
	case *replay.ReasoningText:
		if it.Text != "" {
			return dedupKey{"text", it.Text}, true
		}
		return dedupKey{"signature", it.Signature.Value()}, true
	}
	return dedupKey{}, false
}

var ruleDuplicate = replay.Rule{
	ID:       RuleDuplicateItem,
	Severity: replay.SeverityReject,
	Doc:      "Each reasoning item is sent once across the whole history.",
	Check: func(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
		seen := map[dedupKey][2]int{}
		for ti, t := range h.Turns {
			for bi, b := range t.Blocks {
				it, ok := b.(replay.ReasoningItem)
				if !ok || !replay.Replayable(it) {
					continue
				}
				k, ok := detailKey(it)
				if !ok {
					continue
				}
				if first, dup := seen[k]; dup {
					v := replay.Violation{Turn: ti, Block: bi,
						Message: fmt.Sprintf("the same %s item was already sent at turn %d, block %d", it.Kind(), first[0], first[1]),
						Fix:     "send each reasoning item once: keep it on the assistant message that produced it"}
					if id := it.Meta().ID.Value(); id != "" {
						v.Predicted = "Duplicate item found with id " + id + ". Remove duplicate items from your input and try again."
					}
					report(v)
					continue
				}
				seen[k] = [2]int{ti, bi}
			}
		}
	},
}

// isGemini3 reports whether an OpenRouter model slug names a Gemini 3 model.
func isGemini3(model string) bool {
	return strings.Contains(strings.ToLower(model), "gemini-3")
}

var ruleGeminiUnsigned = replay.Rule{
	ID:       RuleGeminiReasoningMissing,
	Severity: replay.SeverityReject,
	Doc:      "A Gemini 3 tool call in the current tool loop is sent with the google-gemini-v1 encrypted item OpenRouter gave it.",
	Check: func(h *replay.History, t *replay.Target, report func(replay.Violation)) {
		if len(h.Turns) == 0 || !isGemini3(t.Model) {
			return
		}
		ti := len(h.Turns) - 1
		last := h.Turns[ti]
		signed := map[string]bool{}
		anySig := false
		for _, b := range last.Blocks {
			if e, ok := b.(*replay.Encrypted); ok && e.Format == formats.GoogleGemini && replay.Replayable(e) {
				signed[e.ID.Value()] = true
				anySig = true
			}
		}
		for bi, b := range last.Blocks {
			c, ok := b.(*replay.ToolCall)
			if !ok {
				continue
			}
			if signed[c.ID] || (anySig && c.ID == "") {
				return
			}
			report(replay.Violation{Turn: ti, Block: bi,
				Message: fmt.Sprintf("the tool call %q of the current tool loop has no Gemini reasoning detail", c.ID),
				Predicted: "Gemini models require OpenRouter reasoning details to be preserved in each request. " +
					"Please refer to our docs: https://openrouter.ai/docs/use-cases/reasoning-tokens#preserving-reasoning-blocks.",
				Fix: "send the assistant message's reasoning_details back unmodified (the reasoning.encrypted item whose id is the tool call id)"})
			return
		}
	},
}
