package openrouter

import (
	"fmt"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/claude"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
)

// Rule ids of the OpenRouter contract.
const (
	// RuleDuplicateItem: one reasoning item sent twice across the history.
	RuleDuplicateItem = "openrouter/duplicate-item"
	// RuleGeminiReasoningMissing: a Gemini 3 tool loop sent back without
	// its reasoning.
	RuleGeminiReasoningMissing = "openrouter/gemini-reasoning-missing"
	// RuleSignedReasoningMissing: the tool loop of a model whose upstream
	// signs its reasoning (Anthropic) sent back with thinking on but
	// without the signed reasoning_details (none, or only the plain
	// `reasoning` string).
	RuleSignedReasoningMissing = "openrouter/signed-reasoning-missing"
)

// errAnthropicThinkingFirst is Anthropic's 400 for a final assistant
// message that does not start with thinking while thinking is on
// (anomalyco/opencode #3077; OpenRouterTeam/ai-sdk-provider #177 through
// OpenRouter). Anthropic prefixes it with the block's location in its own
// messages array, which OpenRouter builds.
const errAnthropicThinkingFirst = "Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"

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
		Rules: []replay.Rule{ruleDuplicate, ruleGeminiUnsigned, ruleSignedMissing},
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
	if f := vendorFormat(vendor); f != "" {
		return []replay.Format{f}
	}
	return nil
}

// vendorFormat returns the format of the reasoning of the other vendor
// prefixes of OpenRouter model slugs, "" for any other.
func vendorFormat(vendor string) replay.Format {
	switch vendor {
	case "deepseek":
		return formats.DeepSeek
	case "moonshotai":
		return formats.Kimi
	case "z-ai":
		return formats.GLM
	case "minimax":
		return formats.MiniMax
	case "qwen":
		return formats.Qwen
	case "mistralai":
		return formats.Mistral
	case "cohere":
		return formats.Cohere
	}
	return ""
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
	Symptoms: []replay.Symptom{{Match: `duplicate item found with id`, Fix: codecs.FixDropDuplicates}},
	Severity: replay.SeverityReject,
	Doc:      "Each reasoning item is sent once across the whole history.",
	Check: func(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
		seen := map[dedupKey][2]int{}
		for ti, t := range h.Turns {
			for bi, b := range t.Blocks {
				it, ok := b.(replay.ReasoningItem)
				if !ok || !it.Replayable() {
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
	Symptoms: []replay.Symptom{{Match: `require openrouter reasoning details to be preserved`, Fix: codecs.FixRestore}},
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
			if e, ok := b.(*replay.Encrypted); ok && e.Format == formats.GoogleGemini && e.Replayable() {
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

// signingUpstream tells, from a model slug, the format of an upstream that
// signs its reasoning and rejects a tool loop sent back without it (the
// vendor's own rule, enforced behind OpenRouter), or "" when the slug's
// vendor does not. Gemini has its own rule (RuleGeminiReasoningMissing).
func signingUpstream(model string) replay.Format {
	if f := vendorFormats(model); len(f) == 1 && f[0] == formats.AnthropicClaude {
		return f[0]
	}
	return ""
}

// signedFor reports whether the turn carries a replayable signed item of
// format f: a signed reasoning.text, or an encrypted (redacted) item.
func signedFor(t *replay.Turn, f replay.Format) bool {
	for _, it := range t.Items() {
		if it.Meta().Format != f || !it.Replayable() {
			continue
		}
		switch x := it.(type) {
		case *replay.ReasoningText:
			if x.Signed() {
				return true
			}
		case *replay.Encrypted:
			return true
		}
	}
	return false
}

// inToolLoop reports whether the last assistant message is the one the
// request continues with tool results: it has tool calls and, when the
// request is known, only tool messages follow it.
func inToolLoop(h *replay.History) bool {
	last := h.Turns[len(h.Turns)-1]
	if len(last.ToolCalls()) == 0 {
		return false
	}
	root := kit.Body(h)
	if !root.Exists() {
		return true
	}
	seen, loop := false, true
	root.Get("messages").Each(func(_ int, m jsonw.Val) bool {
		switch role := m.Get("role").Str(); {
		case role == "assistant":
			seen, loop = true, true
		case seen && role != "tool":
			loop = false
		}
		return true
	})
	return loop
}

var ruleSignedMissing = replay.Rule{
	ID:       RuleSignedReasoningMissing,
	Symptoms: []replay.Symptom{{Match: claude.SymThinkingFirst, Fix: codecs.FixRestore}},
	Severity: replay.SeverityReject,
	Doc: "With reasoning on, the assistant message of the current tool loop of a model whose upstream signs " +
		"its reasoning (Anthropic) carries its signed reasoning_details, as the direct API requires.",
	Check: func(h *replay.History, t *replay.Target, report func(replay.Violation)) {
		f := signingUpstream(t.Model)
		if f == "" || !t.Thinking || len(h.Turns) == 0 || !inToolLoop(h) {
			return
		}
		ti := len(h.Turns) - 1
		last := h.Turns[ti]
		if signedFor(last, f) {
			return
		}
		msg := "the assistant message of the current tool loop has no reasoning_details"
		for _, it := range last.Items() {
			if x, ok := it.(*replay.ReasoningText); ok && x.Format == "" && !x.Signed() {
				msg = "the assistant message of the current tool loop carries only the plain reasoning string, without the signed reasoning_details"
				break
			}
		}
		report(replay.Violation{Turn: ti, Block: -1,
			Message:   msg + " (" + string(f) + " upstream, thinking on)",
			Predicted: errAnthropicThinkingFirst,
			Fix:       "send the message's reasoning_details back exactly as received (the reasoning.text items with their signatures), or turn reasoning off for this request"})
	},
}
