package bedrock

import (
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
)

// Vendor returns the model vendor named by a Bedrock model id: the segment
// before the first dot, after an optional cross-region prefix ("us.",
// "eu.", "apac.", "global.", ...) and after the last "/" of an ARN. It
// returns "" when the id names no vendor (an application inference
// profile, a bare model name).
func Vendor(model string) string {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	first, rest, ok := strings.Cut(m, ".")
	if !ok {
		return ""
	}
	switch first {
	case "us", "eu", "apac", "global", "jp", "au", "ca", "us-gov", "ap":
		first, _, ok = strings.Cut(rest, ".")
		if !ok {
			return ""
		}
	}
	return first
}

// family classifies a model: "anthropic", "moonshot", "qwen", "deepseek",
// or "" when unknown. The vendor segment decides; a bare model name
// without one is classified by its name.
func family(model string) string {
	switch v := Vendor(model); v {
	case "anthropic":
		return "anthropic"
	case "moonshot", "moonshotai":
		return "moonshot"
	case "qwen":
		return "qwen"
	case "deepseek":
		return "deepseek"
	case "":
	default:
		return v
	}
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "claude"):
		return "anthropic"
	case strings.Contains(m, "kimi"):
		return "moonshot"
	case strings.Contains(m, "qwen") || strings.Contains(m, "qwq"):
		return "qwen"
	case strings.Contains(m, "deepseek"):
		return "deepseek"
	}
	return ""
}

// splitsTags reports whether text blocks of model are split at
// <think>-style tags: Claude's reasoning always comes in reasoningContent,
// and its text is kept as it came.
func splitsTags(model string, keep bool) bool { return !keep && !isClaude(model) }

// isR1 reports whether model is DeepSeek R1, which refuses reasoning
// content in the messages it is sent.
func isR1(model string) bool {
	m := strings.ToLower(model)
	return family(model) == "deepseek" && (strings.Contains(m, ".r1") || strings.Contains(m, "-r1"))
}

// isClaude reports whether model is an Anthropic model.
func isClaude(model string) bool { return family(model) == "anthropic" }

// formatFor returns the format of an item minted by model; signed says
// whether the item carries a signature, which only Claude mints.
func formatFor(model string, signed bool) replay.Format {
	if signed {
		// Only Claude signs on Bedrock: a signature under another model's
		// id (a request replaying Claude history to Qwen) is still
		// Claude's, never relabelled as that model's own.
		return formats.AnthropicClaude
	}
	switch family(model) {
	case "anthropic":
		return formats.AnthropicClaude
	case "moonshot":
		return formats.Kimi
	case "qwen":
		return formats.Qwen
	case "deepseek":
		return formats.DeepSeek
	case "":
		if signed {
			return formats.AnthropicClaude
		}
	}
	return replay.FormatUnknown
}
