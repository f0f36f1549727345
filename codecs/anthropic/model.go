package anthropic

import (
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/claude"
	"github.com/reasonreplay/replay/internal/jsonw"
)

// This file holds the rules that depend on the model a request names: the
// thinking configurations each model refuses, whether it takes
// `thinking.block_binding`, and the Claude Code version it requires.

// thinkingRefused reports whether model m refuses `thinking.type` typ, and
// the error text when it is known ("" when only the refusal is).
//
//   - "enabled" (manual budget): refused by Opus 4.7 and later, Sonnet 5 and
//     later, Haiku 5.5, Fable and Mythos (thinking-troubleshooting table;
//     Opus 5.5's and Vertex Opus 4.7's text).
//   - "disabled": refused by Opus 5.5, Sonnet 5.5 (which takes
//     "between_tools" instead), Fable and Mythos (thinking cannot be turned
//     off). Opus 5.5's text; Sonnet 5.5's names between_tools, its wording
//     past the first sentence unconfirmed.
//   - "adaptive": refused before the 4.6 models.
func thinkingRefused(m claude.Model, typ string) (bool, string) {
	if !m.Known() {
		return false, ""
	}
	full := func(t string) string {
		return `"thinking.type.` + t + `" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`
	}
	first := func(t string) string { return `"thinking.type.` + t + `" is not supported for this model.` }
	always := m.Family == "fable" || m.Family == "mythos"
	switch typ {
	case "enabled":
		switch {
		case m.Family == "opus" && m.AtLeast(4, 7), m.Family == "sonnet" && m.AtLeast(5, 0),
			m.Family == "haiku" && m.AtLeast(5, 5), always:
			return true, full(typ)
		}
	case "disabled":
		switch {
		case m.Family == "opus" && m.AtLeast(5, 5):
			return true, full(typ)
		case m.Family == "sonnet" && m.AtLeast(5, 5), always:
			return true, first(typ)
		}
	case "adaptive":
		if !m.AtLeast(4, 6) {
			return true, ""
		}
	}
	return false, ""
}

// checkThinkingType: the request's `thinking.type` is one its model takes.
func (c Codec) checkThinkingType(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	if c.Format() != formats.AnthropicClaude {
		return
	}
	root := requestRoot(h)
	typ := root.Path("thinking.type").Str()
	model := t.Model
	if model == "" {
		model = root.Get("model").Str()
	}
	if typ == "" || model == "" {
		return
	}
	bad, text := thinkingRefused(claude.Parse(model), typ)
	if !bad {
		return
	}
	fix := "send thinking {\"type\": \"adaptive\"} with output_config.effort"
	if claude.Parse(model).Is("sonnet", 5, 5) && typ == "disabled" {
		fix = "send thinking {\"type\": \"between_tools\"} to turn off up-front thinking"
	}
	report(replay.Violation{Turn: -1, Block: -1, Pointer: "/thinking/type",
		Message:   model + " does not take thinking type " + strconv.Quote(typ),
		Predicted: text,
		Fix:       fix})
}

// checkBlockBindingModel: `thinking.block_binding` goes only to the models
// that take it; any other answers that it is an extra input, whatever the
// headers (opencode#46777, on Vertex with claude-sonnet-5 and haiku-4.5).
func (c Codec) checkBlockBindingModel(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	root := requestRoot(h)
	bb := root.Path("thinking.block_binding")
	model := t.Model
	if model == "" {
		model = root.Get("model").Str()
	}
	if !bb.Exists() || c.Format() != formats.AnthropicClaude || claude.Parse(model).TakesBlockBinding() {
		return
	}
	report(replay.Violation{Turn: -1, Block: -1, Pointer: "/thinking/block_binding",
		Message:   model + " does not take thinking.block_binding (only the preserved-thinking models do)",
		Predicted: bindingPath(root.Path("thinking.type").Str(), bb) + ": " + predictExtraInputs,
		Fix:       "leave thinking.block_binding out for this model (send it only to models that take it, and only where the beta header arrives)"})
}

// bindingPath is the location the API names for a refused block_binding:
// `thinking.<type>.block_binding`, down to prefix_mismatch_behavior when
// the request sets it.
func bindingPath(typ string, bb jsonw.Val) string {
	p := "thinking"
	if typ != "" {
		p += "." + typ
	}
	p += ".block_binding"
	if bb.Get("prefix_mismatch_behavior").Exists() {
		p += ".prefix_mismatch_behavior"
	}
	return p
}

// clientMinimum is the first Claude Code version Anthropic accepts for a
// model, for the models whose gate is known ("" for the others).
func clientMinimum(m claude.Model) string {
	switch {
	case m.Is("fable", 5, 2):
		return "2.1.321"
	case m.Is("fable", 5, 1):
		return "2.1.251"
	}
	return ""
}

// claudeCodeVersion returns the version a `claude-cli/X.Y.Z` user agent
// names, or "".
func claudeCodeVersion(ua string) string {
	const pre = "claude-cli/"
	i := strings.Index(ua, pre)
	if i < 0 {
		return ""
	}
	v := ua[i+len(pre):]
	if j := strings.IndexAny(v, " ;()"); j >= 0 {
		v = v[:j]
	}
	return v
}

// versionBefore reports whether dotted version a is before b.
func versionBefore(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for k := 0; k < len(as) || k < len(bs); k++ {
		var x, y int
		if k < len(as) {
			x, _ = strconv.Atoi(as[k])
		}
		if k < len(bs) {
			y, _ = strconv.Atoi(bs[k])
		}
		if x != y {
			return x < y
		}
	}
	return false
}

// checkClientVersion: a request with Claude Code's user agent to a model
// that needs a newer Claude Code is refused before any thinking is read.
// It is not a replay error: no change to the reasoning helps.
func (c Codec) checkClientVersion(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	if t.Headers == nil || c.Format() != formats.AnthropicClaude {
		return
	}
	have := claudeCodeVersion(t.Headers.Get("User-Agent"))
	model := t.Model
	if model == "" {
		model = requestRoot(h).Get("model").Str()
	}
	need := clientMinimum(claude.Parse(model))
	if have == "" || need == "" || !versionBefore(have, need) {
		return
	}
	report(replay.Violation{Turn: -1, Block: -1,
		Message:   "Claude Code " + have + " is older than the first version Anthropic accepts for " + model + " (" + need + "); the request is refused whatever its reasoning",
		Predicted: "Claude Code " + have + " does not support this model; version " + need + " or newer is required. Run 'claude update', or update the Claude desktop app, then try again.",
		Fix:       "update Claude Code (`claude update`); the conversation's reasoning needs no change"})
}
