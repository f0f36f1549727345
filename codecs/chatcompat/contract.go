package chatcompat

import (
	"fmt"
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
)

// Rule ids of the chat hosts' contracts.
const (
	// RuleDeepSeekForbidden: reasoning_content sent to DeepSeek R1.
	RuleDeepSeekForbidden = "deepseek/reasoning-content-forbidden"
	// RuleDeepSeekMissing: reasoning_content missing where DeepSeek V3.x
	// (tool loop) or V4 (tools in the request) requires it.
	RuleDeepSeekMissing = "deepseek/reasoning-content-missing"
	// RuleDeepSeekNull: reasoning_content sent as null to DeepSeek.
	RuleDeepSeekNull = "deepseek/reasoning-content-null"
	// RuleKimiMissing: reasoning_content missing on a Kimi thinking tool
	// call message.
	RuleKimiMissing = "kimi/reasoning-content-missing"
	// RuleDeepSeekContentPart: an assistant message's content holds a part
	// DeepSeek does not take (its reasoning as a `thinking` part).
	RuleDeepSeekContentPart = "deepseek/thinking-content-part"
	// RuleKimiThinkingRequired: thinking switched off for a Kimi model that
	// always thinks (K2.7 Code).
	RuleKimiThinkingRequired = "kimi/thinking-required"
	// RuleMiniMaxDetails: with reasoning_split, MiniMax gets each assistant
	// message's reasoning_details back whole.
	RuleMiniMaxDetails = "minimax/reasoning-details-missing"
	// RuleGeminiMissing: on Gemini's (or Vertex AI's) OpenAI-compatible
	// endpoint, the first tool call of each assistant message of the current
	// turn carries its thought signature. The native codec's id: the same
	// contract and texts.
	RuleGeminiMissing = "gemini/missing-signature"
	// RulePreservedMissing: the request asks the host to keep historical
	// thinking (Qwen3.6 preserve_thinking, Kimi keep "all", GLM
	// clear_thinking false) but an earlier assistant message has no
	// reasoning_content.
	RulePreservedMissing = "chat/preserved-thinking-missing"
)

// Exact error texts the hosts return (the message index is the position in
// the request's messages array).
const (
	// DeepSeek V3.1/V3.2 thinking mode with tools (continuedev/continue
	// #9606; hotovo/aider-desk #529).
	errDeepSeekMissing = "Missing `reasoning_content` field in the assistant message at message index %s. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls"
	// DeepSeek V4 (warpdotdev/warp #11587; anomalyco/opencode #24083).
	errDeepSeekV4 = "The `reasoning_content` in the thinking mode must be passed back to the API."
	// Kimi K2 thinking (bytedance/deer-flow #3043; mastra-ai/mastra #12592).
	errKimiMissing = "thinking is enabled but reasoning_content is missing in assistant tool call message at index %s"
	// Z.ai, one report (zai-org/feedback #676).
	errGLMMissing = "The `reasoning_text` in the thinking mode must be passed back to the API."
	// DeepSeek's deserializer on a content part of another type
	// (OpenCoworkAI/open-cowork#231).
	errDeepSeekPart = "Failed to deserialize the JSON body into the target type: messages[%d]: unknown variant `%s`, expected `text`"
	// Kimi K2.7 Code with thinking disabled (can1357/oh-my-pi#3852).
	errKimiThinking = "invalid thinking: only type=enabled is allowed for this model"
)

// symPassedBack is the pattern of DeepSeek V4's text (errDeepSeekV4).
const symPassedBack = "the .?reasoning_content.? in the thinking mode must be passed back"

// switches is what a request body says about thinking.
type switches struct {
	// disabled: thinking is switched off (`thinking: {"type":"disabled"}`,
	// `enable_thinking: false`, chat_template_kwargs.enable_thinking false).
	disabled bool
	// preserve: the request asks the host to read historical thinking
	// (Profile.Preserve).
	preserve bool
}

// requestSwitches reads the switches of h.Request (none without one).
func requestSwitches(h *replay.History, p Profile) switches {
	var s switches
	root := kit.Body(h)
	if !root.Exists() {
		return s
	}
	s.disabled = root.Path("thinking.type").Is("disabled") || root.Get("enable_thinking").Kind() == 'f' ||
		root.Path("chat_template_kwargs.enable_thinking").Kind() == 'f'
	switch p.Name {
	case qwen.Name:
		s.preserve = root.Get("preserve_thinking").True() ||
			root.Path("chat_template_kwargs.preserve_thinking").True()
	case kimi.Name:
		s.preserve = root.Path("thinking.keep").Is("all")
	case glm.Name:
		s.preserve = root.Get("clear_thinking").Kind() == 'f' || root.Path("thinking.clear_thinking").Kind() == 'f'
	}
	s.preserve = s.preserve && !s.disabled
	return s
}

// Contract returns the profile's replay contract and the rules that check
// it. Rules read the request body (History.Request, a chat completions
// request with `messages`) when it is given, to find the member as it will
// be sent; otherwise they check the turns, as [Codec.Encode] would write
// them.
func (c Codec) Contract() replay.ReplayContract {
	p := c.Profile
	rc := replay.ReplayContract{API: c.API(), Accepts: []replay.Format{p.Format}, ToolIDs: true}
	switch {
	case p.Replay == ReplayForbidden:
		rc.Summary = "DeepSeek R1: never send reasoning_content back; the API rejects input messages that carry it (400)."
		rc.Rules = []replay.Rule{ruleForbidden, ruleContentPart}
	case p.Replay == ReplayToolLoop:
		rc.Summary = "DeepSeek V3.1/V3.2 thinking mode: assistant messages inside the current tool loop carry their reasoning_content; older turns' reasoning may be dropped."
		rc.Rules = []replay.Rule{ruleLoopMissing, ruleNull(RuleDeepSeekNull, errDeepSeekV4), ruleContentPart}
	case p.Replay == ReplayAllWithTools:
		rc.Summary = "DeepSeek V4: when the request has tools, every earlier assistant message carries reasoning_content, \"\" where the turn had none (null fails); thinking goes in reasoning_content, never as a content part."
		rc.Rules = []replay.Rule{ruleV4Missing, ruleNull(RuleDeepSeekNull, errDeepSeekV4), ruleContentPart}
	case p.Name == kimiK3.Name:
		rc.Summary = "Kimi K3 always reasons (no thinking parameter) and keeps preserved thinking on: every assistant message carries its reasoning_content as received; a tool-call message without it is rejected."
		rc.Rules = []replay.Rule{kimiMissing(true, false), rulePreservedAlways}
	case p.Name == kimiK27.Name:
		rc.Summary = "Kimi K2.7 Code always thinks (thinking cannot be disabled): assistant messages with tool calls carry a non-empty reasoning_content."
		rc.Rules = []replay.Rule{kimiMissing(true, true), ruleThinkingRequired}
	case p.Replay == ReplayToolCalls:
		rc.Summary = "Kimi K2 thinking: assistant messages with tool calls carry their reasoning_content; with thinking.keep \"all\", every assistant message does."
		rc.Rules = []replay.Rule{ruleKimiMissing}
	case p.Replay == ReplayAll:
		rc.Summary = "GLM: send reasoning_content back with tool results (interleaved thinking) and, with clear_thinking:false, on every earlier turn, unmodified and in order. Missing reasoning degrades (one report of a rejection)."
	case p.Replay == ReplayRawContent:
		rc.Summary = "MiniMax: send the assistant message back complete: content with its <think> block, or, when the request uses reasoning_split (MiniMax-M3 on /v1), its reasoning_details whole."
		rc.Rules = []replay.Rule{ruleMiniMaxDetails}
	case p.Name == geminiOpenAI.Name, p.Name == vertexOpenAI.Name:
		rc.Summary = "Gemini through chat completions: each tool call goes back with its thought signature on the same call (extra_content.google, or extra_content.vertex on Vertex AI); Gemini 3 refuses the current turn's first call of a message without it."
		rc.Rules = []replay.Rule{ruleGeminiMissing(p.Name == vertexOpenAI.Name)}
	default:
		rc.Summary = "Stateless host: reasoning is not sent back (" + p.Name + ")."
	}
	if p.Preserve != "" {
		if p.Replay == ReplayNone {
			rc.Summary += " With " + p.Preserve + " the host reads historical thinking: every assistant message carries its reasoning_content (Codec.Preserve)."
		}
		rc.Rules = append(rc.Rules, rulePreserved(p))
	}
	rc.Summary += " Source: " + p.Source + "."
	return rc
}

// Contracts returns the contract of every profile, in the order of
// [Profiles], for callers that read every rule the codec may check (the
// HTTP layer's error classifier).
func (c Codec) Contracts() []replay.ReplayContract {
	ps := Profiles()
	out := make([]replay.ReplayContract, len(ps))
	for i, p := range ps {
		out[i] = Codec{Name: c.Name, Profile: p}.Contract()
	}
	return out
}

// assistant is one assistant message of a history: its turn, and its
// request message when the request was given.
type assistant struct {
	turn  int
	msg   jsonw.Val // absent when no request
	index int       // message index in the request, -1 when none
	calls bool
}

// assistants lists the history's assistant messages, paired with the
// request's assistant messages in order when the request has as many. It
// also reports the position of the last user message (-1 when none) in
// terms of assistants: the first assistant after it.
func assistants(h *replay.History) (out []assistant, loopStart int) {
	lastUser := -1
	msgs := kit.Body(h).Get("messages")
	n := 0
	msgs.Each(func(_ int, m jsonw.Val) bool {
		switch role := m.Get("role"); {
		case role.Is("assistant"):
			n++
		case role.Is("user"):
			lastUser = n
		}
		return true
	})
	if n > 0 {
		out = make([]assistant, 0, n)
		msgs.ForEach(func(k int, name string, m jsonw.Val) bool {
			if !m.Get("role").Is("assistant") {
				return true
			}
			if name != "" { // an object's member: its index as gjson reads the key
				k = int(gjson.Parse(name).Int())
			}
			a := assistant{turn: -1, msg: m, index: k, calls: kit.Items(m.Get("tool_calls")) > 0}
			if len(out) < len(h.Turns) && n == len(h.Turns) {
				a.turn = len(out)
			}
			out = append(out, a)
			return true
		})
		if lastUser < 0 {
			lastUser = 0
		}
		return out, lastUser
	}
	// Turns only: the current tool loop is the run of trailing turns that
	// end in tool calls.
	loopStart = len(h.Turns)
	for i, t := range h.Turns {
		out = append(out, assistant{turn: i, index: -1, calls: len(t.ToolCalls()) > 0})
	}
	for loopStart > 0 && out[loopStart-1].calls {
		loopStart--
	}
	return out, loopStart
}

// hasReasoning reports whether the message (or, without a request, the
// turn) carries the reasoning field, and whether it is null.
func hasReasoning(h *replay.History, a assistant) (present, null bool) {
	if a.msg.Exists() {
		v := a.msg.Get("reasoning_content")
		return v.Exists() && !v.IsNull(), v.IsNull()
	}
	for _, b := range h.Turns[a.turn].Blocks {
		if x, ok := b.(*replay.ReasoningText); ok && x.Replayable() {
			return true, false
		}
	}
	return false, false
}

func where(a assistant) (turn int, ptr, index string) {
	if a.index >= 0 {
		return a.turn, "/messages/" + strconv.Itoa(a.index), strconv.Itoa(a.index)
	}
	return a.turn, "", "N"
}

var ruleForbidden = replay.Rule{
	ID:       RuleDeepSeekForbidden,
	Symptoms: []replay.Symptom{{Match: `reasoning_content in input|reasoning_content.*(not (be )?(supported|allowed|permitted)|should not)`, Fix: codecs.FixRemoveReasoningContent}},
	Severity: replay.SeverityReject,
	Doc:      "DeepSeek R1 rejects input messages that carry reasoning_content.",
	Check: func(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
		as, _ := assistants(h)
		for _, a := range as {
			if !a.msg.Exists() || !a.msg.Get("reasoning_content").Exists() {
				continue
			}
			ti, ptr, _ := where(a)
			report(replay.Violation{Turn: ti, Block: -1, Pointer: ptr + "/reasoning_content",
				Message:   "reasoning_content on an assistant message sent to DeepSeek R1",
				Predicted: "400 (DeepSeek documents a 400 for reasoning_content in input; exact text unconfirmed)",
				Fix:       "remove reasoning_content from the assistant messages (Encode omits it for this profile)"})
		}
	},
}

var ruleLoopMissing = replay.Rule{
	ID:       RuleDeepSeekMissing,
	Symptoms: []replay.Symptom{{Match: "missing .?reasoning_content.? field", Fix: codecs.FixBackfillReasoningContent}},
	Severity: replay.SeverityReject,
	Doc:      "In thinking mode with tools, every assistant message of the current tool loop carries its reasoning_content.",
	Check: func(h *replay.History, t *replay.Target, report func(replay.Violation)) {
		if !t.Tools || requestSwitches(h, Profile{}).disabled {
			return
		}
		as, loop := assistants(h)
		for i := loop; i < len(as); i++ {
			a := as[i]
			if present, null := hasReasoning(h, a); present || null {
				continue
			}
			ti, ptr, idx := where(a)
			report(replay.Violation{Turn: ti, Block: -1, Pointer: ptr,
				Message:   "an assistant message of the current tool loop has no reasoning_content",
				Predicted: fmt.Sprintf(errDeepSeekMissing, idx),
				Fix:       "send the turn's reasoning_content back as it was received"})
		}
	},
}

var ruleV4Missing = replay.Rule{
	ID:       RuleDeepSeekMissing,
	Symptoms: []replay.Symptom{{Match: symPassedBack, Fix: codecs.FixBackfillReasoningContent, Also: []string{RuleDeepSeekNull}}},
	Severity: replay.SeverityReject,
	Doc:      "DeepSeek V4 with tools: every earlier assistant message carries reasoning_content (\"\" when the turn had none).",
	Check: func(h *replay.History, t *replay.Target, report func(replay.Violation)) {
		if !t.Tools || requestSwitches(h, Profile{}).disabled {
			return
		}
		as, _ := assistants(h)
		for _, a := range as {
			if !a.msg.Exists() {
				continue // Encode back-fills "" for every turn
			}
			if present, null := hasReasoning(h, a); present || null {
				continue
			}
			ti, ptr, _ := where(a)
			report(replay.Violation{Turn: ti, Block: -1, Pointer: ptr,
				Message:   "an assistant message has no reasoning_content while the request has tools",
				Predicted: errDeepSeekV4,
				Fix:       "send reasoning_content on every assistant message: the turn's reasoning, or \"\" when it had none"})
		}
	},
}

func ruleNull(id, predicted string) replay.Rule {
	return replay.Rule{
		ID:       id,
		Severity: replay.SeverityReject,
		Doc:      "reasoning_content is a string (\"\" when there is none), never null.",
		Check: func(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
			as, _ := assistants(h)
			for _, a := range as {
				if _, null := hasReasoning(h, a); !null {
					continue
				}
				ti, ptr, _ := where(a)
				report(replay.Violation{Turn: ti, Block: -1, Pointer: ptr + "/reasoning_content",
					Message:   "reasoning_content is null",
					Predicted: predicted,
					Fix:       "send \"\" (or the turn's reasoning) instead of null"})
			}
		},
	}
}

var ruleKimiMissing = kimiMissing(false, false)

// kimiMissing is the Kimi tool-call rule; always says thinking cannot be
// switched off (K3, K2.7), nonEmpty that an empty reasoning_content reads
// as a missing one (K2.7).
func kimiMissing(always, nonEmpty bool) replay.Rule {
	doc := "With thinking on, every assistant message with tool calls carries its reasoning_content."
	if always {
		doc = "Every assistant message with tool calls carries its reasoning_content (the model always thinks: a thinking switch in the request changes nothing)."
	}
	if nonEmpty {
		doc = "Every assistant message with tool calls carries a non-empty reasoning_content (the model always thinks; an empty one reads as missing)."
	}
	return replay.Rule{
		ID:       RuleKimiMissing,
		Symptoms: []replay.Symptom{{Match: `reasoning_content is missing in assistant tool call message`, Fix: codecs.FixBackfillReasoningContent}},
		Severity: replay.SeverityReject,
		Doc:      doc,
		Check: func(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
			if !always && requestSwitches(h, Profile{}).disabled {
				return
			}
			as, _ := assistants(h)
			for _, a := range as {
				if !a.calls {
					continue
				}
				if present, _ := hasReasoning(h, a); present && !(nonEmpty && a.msg.Exists() && a.msg.Get("reasoning_content").Str() == "") {
					continue
				}
				kimiReport(h, a, report)
			}
		},
	}
}

func kimiReport(h *replay.History, a assistant, report func(replay.Violation)) {
	ti, ptr, idx := where(a)
	report(replay.Violation{Turn: ti, Block: -1, Pointer: ptr,
		Message:   "an assistant tool-call message has no reasoning_content (or an empty one)",
		Predicted: fmt.Sprintf(errKimiMissing, idx),
		Fix:       "send the turn's reasoning_content back on the tool-call message"})
}

// rulePreserved checks, for a host that reads historical thinking when
// the request asks it to (Profile.Preserve), that every assistant message
// of the request carries its reasoning_content. Kimi's tool-call messages
// are left to RuleKimiMissing, which predicts the rejection.
func rulePreserved(p Profile) replay.Rule {
	sev, predicted := replay.SeverityDegrade, ""
	if p.Name == glm.Name {
		sev, predicted = replay.SeverityRisk, errGLMMissing
	}
	var syms []replay.Symptom
	if predicted != "" {
		syms = []replay.Symptom{{Match: "the .?reasoning_text.? in the thinking mode must be passed back", Fix: codecs.FixBackfillReasoningContent}}
	}
	return replay.Rule{
		ID:       RulePreservedMissing,
		Symptoms: syms,
		Severity: sev,
		Doc:      "With " + p.Preserve + ", every assistant message carries its reasoning_content, unmodified.",
		Check: func(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
			if !requestSwitches(h, p).preserve {
				return
			}
			as, _ := assistants(h)
			for _, a := range as {
				if present, _ := hasReasoning(h, a); present || (p.Name == kimi.Name && a.calls) {
					continue
				}
				ti, ptr, _ := where(a)
				report(replay.Violation{Turn: ti, Block: -1, Pointer: ptr,
					Message:   "the request sets " + p.Preserve + " but this assistant message has no reasoning_content: the host reads no thinking for it",
					Predicted: predicted,
					Fix:       "send the turn's reasoning_content back unmodified on every assistant message (chatcompat: Codec.Preserve)"})
			}
		},
	}
}
