package chatcompat

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/chatstream"
	"github.com/reasonreplay/replay/internal/gemsig"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
)

// This file holds the rules of the hosts' later contracts: DeepSeek's
// refusal of content parts, Kimi K3's and K2.7's, MiniMax-M3's
// reasoning_split, and Gemini's signatures through chat completions.

// requestMessages returns the request's messages, as the pass that read
// it found them (absent without a request).
func requestMessages(h *replay.History) jsonw.Val { return kit.Body(h).Get("messages") }

// ruleContentPart: DeepSeek reads an assistant message's content as a
// string or text parts; a part of another type (the reasoning as a
// `thinking` part, as clients that store Anthropic-style blocks send it)
// fails the request's deserialisation.
var ruleContentPart = replay.Rule{
	ID:       RuleDeepSeekContentPart,
	Severity: replay.SeverityReject,
	Doc:      "An assistant message's content is a string or text parts: the reasoning goes in reasoning_content, never as a `thinking` content part.",
	Symptoms: []replay.Symptom{{Match: "messages\\[\\d+\\]: unknown variant .?thinking.?, expected .?text", Fix: codecs.FixReencode}},
	Check: func(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
		requestMessages(h).Each(func(i int, m jsonw.Val) bool {
			if !m.Get("role").Is("assistant") || !m.Get("content").IsArray() {
				return true
			}
			m.Get("content").Each(func(k int, part jsonw.Val) bool {
				typ := part.Get("type").Str()
				if typ == "text" {
					return true
				}
				report(replay.Violation{Turn: -1, Block: -1, Pointer: "/messages/" + strconv.Itoa(i) + "/content/" + strconv.Itoa(k),
					Message:   "the assistant message's content holds a " + strconv.Quote(typ) + " part, which DeepSeek does not take",
					Predicted: fmt.Sprintf(errDeepSeekPart, i, typ),
					Fix:       "send the reasoning as reasoning_content and the content as a string (Encode does)"})
				return false
			})
			return true
		})
	},
}

// rulePreservedAlways: Kimi K3 keeps preserved thinking on; an assistant
// message without its reasoning_content reads no thinking for that turn.
// (Tool-call messages are RuleKimiMissing's, which predicts the rejection.)
var rulePreservedAlways = replay.Rule{
	ID:       RulePreservedMissing,
	Severity: replay.SeverityDegrade,
	Doc:      "Preserved thinking is always on: every assistant message carries its reasoning_content, unmodified.",
	Check: func(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
		as, _ := assistants(h)
		for _, a := range as {
			if present, _ := hasReasoning(h, a); present || a.calls {
				continue
			}
			ti, ptr, _ := where(a)
			report(replay.Violation{Turn: ti, Block: -1, Pointer: ptr,
				Message: "preserved thinking is always on for this model and this assistant message has no reasoning_content: the host reads no thinking for it",
				Fix:     "send the turn's reasoning_content back unmodified on every assistant message"})
		}
	},
}

// ruleThinkingRequired: Kimi K2.7 Code always thinks; a request that turns
// thinking off is refused.
var ruleThinkingRequired = replay.Rule{
	ID:       RuleKimiThinkingRequired,
	Severity: replay.SeverityReject,
	Doc:      "Thinking is not turned off (`thinking: {\"type\": \"disabled\"}`) for a model that always thinks.",
	Symptoms: []replay.Symptom{{Match: `invalid thinking: only type=enabled is allowed`, Fix: codecs.FixConfigure}},
	Check: func(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
		if !kit.Body(h).Path("thinking.type").Is("disabled") {
			return
		}
		report(replay.Violation{Turn: -1, Block: -1, Pointer: "/thinking/type",
			Message:   "thinking is turned off for a model that always thinks",
			Predicted: errKimiThinking,
			Fix:       "leave the thinking parameter out (or send {\"type\": \"enabled\"})"})
	},
}

// ruleMiniMaxDetails: with `reasoning_split: true`, MiniMax returns the
// reasoning as reasoning_details and wants the full array back on each
// assistant message (hermes-agent#46648). What happens otherwise is not
// documented as a rejection: the reasoning is lost.
var ruleMiniMaxDetails = replay.Rule{
	ID:       RuleMiniMaxDetails,
	Severity: replay.SeverityDegrade,
	Doc:      "With reasoning_split, each assistant message carries its reasoning_details back whole (every item, its text as received).",
	Check: func(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
		if !kit.Body(h).Get("reasoning_split").True() {
			return
		}
		as, _ := assistants(h)
		for _, a := range as {
			if !a.msg.Exists() {
				continue
			}
			ti, ptr, _ := where(a)
			sent := detailsText(a.msg.Get("reasoning_details"))
			switch captured, known := turnText(h, a); {
			case !a.msg.Get("reasoning_details").IsArray() || a.msg.Get("reasoning_details").Len() == 0:
				// A tool-call message had reasoning (MiniMax-M3 reasons before
				// it calls); another, when its captured turn says so.
				if !a.calls && (!known || captured == "") || strings.Contains(a.msg.Get("content").Str(), "</think>") {
					continue
				}
				report(replay.Violation{Turn: ti, Block: -1, Pointer: ptr,
					Message: "the request uses reasoning_split but this assistant message has no reasoning_details: MiniMax reads no reasoning for it",
					Fix:     "send the message's reasoning_details back whole, as received (Encode does)"})
			case known && sent != captured:
				report(replay.Violation{Turn: ti, Block: -1, Pointer: ptr + "/reasoning_details",
					Message: "the message's reasoning_details are not the ones captured: MiniMax wants them back whole",
					Fix:     "send the captured reasoning_details back whole, every item as received"})
			}
		}
	},
}

// detailsText joins the texts of reasoning_details' reasoning.text items.
func detailsText(det jsonw.Val) string {
	var b strings.Builder
	det.Each(func(_ int, d jsonw.Val) bool {
		if d.Get("type").Is(string(replay.KindText)) {
			b.WriteString(d.Get("text").Str())
		}
		return true
	})
	return b.String()
}

// turnText joins the reasoning text a's captured turn holds; known is false
// when a has no turn.
func turnText(h *replay.History, a assistant) (string, bool) {
	if a.turn < 0 || a.turn >= len(h.Turns) {
		return "", false
	}
	var b strings.Builder
	for _, blk := range h.Turns[a.turn].Blocks {
		if x, ok := blk.(*replay.ReasoningText); ok {
			b.WriteString(x.Text)
		}
	}
	return b.String(), true
}

// ruleGeminiMissing: through chat completions, Gemini 3 validates the
// current turn (the assistant messages after the last user message) as on
// its own API: the first tool call of each assistant message carries its
// thought signature. Gemini 2.5 as on its own API: reject where the turn
// shows the model signs, else a risk.
func ruleGeminiMissing(vertex bool) replay.Rule {
	return replay.Rule{
		ID:       RuleGeminiMissing,
		Severity: replay.SeverityReject,
		Doc: "The first tool call of each assistant message of the current turn carries its thought signature " +
			"(extra_content.google.thought_signature; extra_content.vertex on Vertex AI), on Gemini 3 and later; on Gemini 2.5 where the turn shows the model signs.",
		Symptoms: []replay.Symptom{{Match: `missing a .?thought_signature`, Fix: codecs.FixRestore}},
		Check: func(h *replay.History, t *replay.Target, report func(replay.Violation)) {
			msgs := requestMessages(h)
			model := t.Model
			if len(h.Request) > 0 && model == "" {
				model = kit.Body(h).Get("model").Str()
			}
			if !msgs.Exists() || !gemsig.ValidatesSignatures(model) {
				return
			}
			n := kit.Items(msgs)
			current, content, contents := 0, make([]int, n), -1
			for i := 0; i < n; i++ {
				switch role := itemOf(msgs, i).Get("role").Str(); {
				case role == "user":
					current = i + 1
					contents++
				case role == "system" || role == "developer":
				case role == "tool" && i > 0 && itemOf(msgs, i-1).Get("role").Is("tool"):
				default:
					contents++
				}
				content[i] = contents
			}
			type first struct {
				i    int
				name string
			}
			var unsigned []first
			signed := false
			for i := current; i < n; i++ {
				m := itemOf(msgs, i)
				calls := m.Get("tool_calls")
				if !m.Get("role").Is("assistant") || kit.Items(calls) == 0 {
					continue
				}
				call := itemOf(calls, 0)
				if hasSignature(call.Result()) {
					signed = true
					continue
				}
				unsigned = append(unsigned, first{i, strings.Clone(call.Path("function.name").Str())})
			}
			sev := replay.SeverityReject
			if !gemsig.RequiresSignatures(model) && !signed {
				sev = replay.SeverityRisk
			}
			for _, u := range unsigned {
				where := "extra_content.google.thought_signature"
				if vertex {
					where = "extra_content.vertex.thought_signature"
				}
				report(replay.Violation{Turn: -1, Block: -1, Severity: sev, Pointer: "/messages/" + strconv.Itoa(u.i) + "/tool_calls/0",
					Message:   fmt.Sprintf("tool call %q is the first call of an assistant message of the current turn and has no %s", u.name, where),
					Predicted: gemsig.MissingText(vertex, u.name, content[u.i]),
					Fix:       "send each tool call's signature back on the same call (Encode or Patch the turn as decoded)"})
			}
		},
	}
}

// itemOf returns item i of v as gjson's Array lists v's items: an
// array's elements, or v itself as the one item of any other value.
func itemOf(v jsonw.Val, i int) jsonw.Val {
	if v.IsArray() {
		return v.Index(i)
	}
	if i == 0 && !v.IsNull() {
		return v
	}
	return jsonw.Val{}
}

// hasSignature reports whether a chat tool call carries a Gemini thought
// signature in any of the places gateways put it.
func hasSignature(call gjson.Result) bool {
	if sig, _, ok, err := gemsig.ReadExtra(call); err == nil && ok && sig != "" {
		return true
	}
	for _, k := range chatstream.RawSigKeys {
		if v := call.Get(k); v.Type == gjson.String && v.Str != "" {
			return true
		}
	}
	return false
}
