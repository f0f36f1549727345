package bedrock

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/claude"
	"github.com/tidwall/gjson"
)

// sent reports whether Encode writes b.
func sent(b replay.Block) bool {
	switch b := b.(type) {
	case *replay.Summary:
		return false
	case replay.ReasoningItem:
		return b.Replayable()
	case *replay.Text:
		return b.Text != ""
	case *replay.ToolCall:
		return !b.Unfinished
	case *replay.Native:
		return !b.Unfinished && b.Kind != "contentBlockStart" && b.Kind != "contentBlockDelta"
	}
	return false
}

// contentIndex returns, for each block of t, its index in the encoded
// content array, or -1 when it is not sent.
func contentIndex(t *replay.Turn, bi int) int {
	k := 0
	for i, b := range t.Blocks {
		if !sent(b) {
			if i == bi {
				return -1
			}
			continue
		}
		if i == bi {
			return k
		}
		k++
	}
	return -1
}

// The rule ids of the Converse replay contract ([Codec.Contract]).
const (
	// RuleClaudeSignature: reasoning text sent to a Claude model carries a signature.
	RuleClaudeSignature = API + "/claude-signature"
	// RuleForeignSignature: a Claude model takes back only what Claude minted.
	RuleForeignSignature = API + "/foreign-signature"
	// RuleSignatureNonClaude: no signature goes to a model that did not mint it.
	RuleSignatureNonClaude = API + "/signature-non-claude"
	// RuleSignatureField: no reasoningText signature member, whoever minted
	// it and even empty, goes to a model that is not Claude.
	RuleSignatureField = API + "/signature-field"
	// RuleReasoningInput: DeepSeek R1 takes no reasoningContent back at all.
	RuleReasoningInput = API + "/reasoning-input"
	// RuleThinkingFirst: with Claude thinking on, the tool turn starts with its reasoning.
	RuleThinkingFirst = API + "/thinking-first"
	// RuleEmptyContent: an assistant message has content.
	RuleEmptyContent = API + "/empty-content"
	// RuleReasoningOnly: an assistant message is not reasoning alone.
	RuleReasoningOnly = API + "/reasoning-only"
	// RuleReasoningMembers: every reasoningContent block has a shape
	// Converse takes (reasoningText with a string text, or redactedContent).
	RuleReasoningMembers = API + "/reasoning-members"
	// RuleBlockOrder: with Claude, an assistant message holding reasoning
	// starts with it.
	RuleBlockOrder = API + "/block-order"
)

const errPrefix = "ValidationException: The model returned the following errors: "

// symBedrock is the envelope in which Bedrock relays a model's own error
// (Claude's, from the Messages API): the rules below own those texts when
// it wraps them ([replay.Symptom].Within).
const symBedrock = `ValidationException|The model returned the following errors|"__type"\s*:`

var rules = []replay.Rule{
	{
		ID:       RuleClaudeSignature,
		Symptoms: []replay.Symptom{{Match: claude.SymSignatureRequired, Fix: codecs.FixDropReasoning, Within: symBedrock}},
		Severity: replay.SeverityReject,
		Doc:      "Reasoning text sent to a Claude model carries a non-empty signature; Claude rejects unsigned thinking, whoever minted the text.",
		Check: func(h *replay.History, tg *replay.Target, report func(replay.Violation)) {
			if !isClaude(tg.Model) {
				return
			}
			for ti, t := range h.Turns {
				for bi, b := range t.Blocks {
					x, ok := b.(*replay.ReasoningText)
					// Unsigned items of a signing format are the core
					// rule's (replay/empty-signature) and are not sent.
					if !ok || !sent(x) || x.Signed() || signsText(x.Format) {
						continue
					}
					report(replay.Violation{Turn: ti, Block: bi,
						Message:   fmt.Sprintf("unsigned %s reasoning text would be sent to the Claude model %s", formatName(x.Format), tg.Model),
						Predicted: errPrefix + "messages.N.content." + strconv.Itoa(contentIndex(t, bi)) + ".thinking.signature: Field required",
						Fix:       "drop the item, or carry it over as plain text outside reasoningContent"})
				}
			}
		},
	},
	{
		ID: RuleForeignSignature,
		Symptoms: []replay.Symptom{{Match: claude.SymInvalidSignature, Fix: codecs.FixDropReasoning, Within: symBedrock,
			Also: []string{replay.RuleForeignFormat, replay.RuleEmptySignature}}},
		Covers:   []string{replay.RuleForeignFormat},
		Severity: replay.SeverityReject,
		Doc:      "A Claude model takes back only signatures and redactedContent that Claude minted (on Anthropic, Bedrock or Vertex).",
		Check: func(h *replay.History, tg *replay.Target, report func(replay.Violation)) {
			if !isClaude(tg.Model) {
				return
			}
			for ti, t := range h.Turns {
				for bi, b := range t.Blocks {
					it, ok := b.(replay.ReasoningItem)
					if !ok || !sent(b) || it.Meta().Format.Family() == formats.AnthropicClaude.Family() {
						continue
					}
					pred := ""
					switch x := it.(type) {
					case *replay.ReasoningText:
						if !x.Signed() {
							continue
						}
						pred = "messages.N.content." + strconv.Itoa(contentIndex(t, bi)) + ": Invalid signature in thinking block"
					case *replay.Encrypted:
						if f := x.Format; f == "" || f == replay.FormatUnknown {
							continue // issuer not known: cannot tell
						}
					default:
						continue
					}
					report(replay.Violation{Turn: ti, Block: bi,
						Message:   fmt.Sprintf("a %s signature or blob would be sent to the Claude model %s", formatName(it.Meta().Format), tg.Model),
						Predicted: pred,
						Fix:       "drop the item: a signature is valid only for the issuer that minted it"})
				}
			}
		},
	},
	{
		ID:       RuleSignatureField,
		Symptoms: []replay.Symptom{{Match: `doesn't support the reasoningContent\.reasoningText\.signature field`, Fix: codecs.FixDropReasoning}},
		Covers:   []string{replay.RuleForeignFormat},
		Severity: replay.SeverityReject,
		Doc:      "A reasoningText sent to a model that is not Claude has no signature member, whatever format the item claims (F10).",
		Check: func(h *replay.History, tg *replay.Target, report func(replay.Violation)) {
			if tg.Model == "" || isClaude(tg.Model) {
				return
			}
			for ti, t := range h.Turns {
				for bi, b := range t.Blocks {
					x, ok := b.(*replay.ReasoningText)
					if !ok || !sent(x) || !x.Signature.IsPresent() || isR1(tg.Model) {
						continue
					}
					report(replay.Violation{Turn: ti, Block: bi,
						Message:   fmt.Sprintf("a reasoningText with a signature member (%s) would be sent to %s, which is not Claude", formatName(x.Format), tg.Model),
						Predicted: "This model doesn't support the reasoningContent.reasoningText.signature field. Remove reasoningContent.reasoningText.signature and try again.",
						Fix:       "drop the item, or send its text without the signature member"})
				}
			}
		},
	},
	{
		ID:       RuleReasoningInput,
		Symptoms: []replay.Symptom{{Match: `user messages cannot contain reasoning content`, Fix: codecs.FixDropReasoning}},
		Covers:   []string{replay.RuleForeignFormat},
		Severity: replay.SeverityReject,
		Doc:      "DeepSeek R1 on Bedrock refuses reasoningContent in the messages it is sent (langchain-aws #401, PR #1229).",
		Check: func(h *replay.History, tg *replay.Target, report func(replay.Violation)) {
			if !isR1(tg.Model) {
				return
			}
			for ti, t := range h.Turns {
				for bi, b := range t.Blocks {
					if _, ok := b.(replay.ReasoningItem); !ok || !sent(b) {
						continue
					}
					report(replay.Violation{Turn: ti, Block: bi,
						Message:   "reasoningContent would be sent to DeepSeek R1, which takes no reasoning back",
						Predicted: "User messages cannot contain reasoning content. Please remove the reasoning content and try again.",
						Fix:       "drop every reasoningContent block from the history sent to R1"})
				}
			}
		},
	},
	{
		ID:       RuleSignatureNonClaude,
		Severity: replay.SeverityRisk,
		Doc:      "No Claude signature or redactedContent is sent to a model that is not Claude.",
		Check: func(h *replay.History, tg *replay.Target, report func(replay.Violation)) {
			if tg.Model == "" || isClaude(tg.Model) {
				return
			}
			for ti, t := range h.Turns {
				for bi, b := range t.Blocks {
					it, ok := b.(replay.ReasoningItem)
					if !ok || !sent(b) || it.Meta().Format.Family() != formats.AnthropicClaude.Family() || isR1(tg.Model) {
						continue
					}
					if x, ok := it.(*replay.ReasoningText); ok && x.Signature.IsPresent() {
						continue // the signature member is refused outright (RuleSignatureField)
					}
					report(replay.Violation{Turn: ti, Block: bi,
						Message: fmt.Sprintf("Claude reasoning would be sent to %s, which cannot verify it; Bedrock has answered replayed reasoning on non-Claude models with a ValidationException", tg.Model),
						Fix:     "drop the item, or carry its text over as plain text"})
				}
			}
		},
	},
	{
		ID:       RuleThinkingFirst,
		Symptoms: []replay.Symptom{{Match: claude.SymThinkingFirst, Fix: codecs.FixRestore, Within: symBedrock}},
		Severity: replay.SeverityReject,
		Doc:      "With Claude thinking enabled, the last assistant turn that calls a tool starts with its thinking or redacted block.",
		Check: func(h *replay.History, tg *replay.Target, report func(replay.Violation)) {
			if !tg.Thinking || !isClaude(tg.Model) || len(h.Turns) == 0 {
				return
			}
			ti := len(h.Turns) - 1
			t := h.Turns[ti]
			if len(t.ToolCalls()) == 0 {
				return
			}
			for bi, b := range t.Blocks {
				if !sent(b) {
					continue
				}
				found := ""
				switch b := b.(type) {
				case *replay.ReasoningText, *replay.Encrypted:
					return
				case *replay.Text:
					found = "text"
				case *replay.ToolCall:
					found = "tool_use"
				case *replay.Native:
					found = b.Kind
				default:
					found = "content"
				}
				report(replay.Violation{Turn: ti, Block: bi,
					Message:   "the assistant turn with the tool call does not start with its thinking block",
					Predicted: errPrefix + "messages.N.content.0.type: Expected `thinking` or `redacted_thinking`, but found `" + found + "`. When `thinking` is enabled, a final `assistant` message must start with a thinking block",
					Fix:       "replay the turn's reasoningContent blocks unmodified, first, as they came (Encode or Patch do)"})
				return
			}
		},
	},
	{
		ID:       RuleEmptyContent,
		Symptoms: []replay.Symptom{{Match: `the content field in the message object at messages\.\S+ is empty`, Fix: codecs.FixDropReasoning}},
		Severity: replay.SeverityReject,
		Doc:      "Every assistant turn sends at least one content block.",
		Check: func(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
			for ti, t := range h.Turns {
				hasBlock := false
				for _, b := range t.Blocks {
					if sent(b) {
						hasBlock = true
						break
					}
				}
				if !hasBlock {
					report(replay.Violation{Turn: ti, Block: -1,
						Message:   "the assistant turn has no content block left to send",
						Predicted: "The content field in the Message object at messages.N is empty. Add a ContentBlock object to the content field and try again.",
						Fix:       "drop the turn, or keep at least one text or toolUse block"})
				}
			}
		},
	},
	{
		ID:       RuleReasoningOnly,
		Symptoms: []replay.Symptom{{Match: `does not support assistant message prefill`, Fix: codecs.FixDropReasoning}},
		Severity: replay.SeverityRisk,
		Doc: "An assistant turn of reasoning alone is taken as prefill, which Claude 5 and later (Sonnet 5, Fable 5.1, the 5.5 " +
			"models) reject; a risk on other models.",
		Check: func(h *replay.History, tg *replay.Target, report func(replay.Violation)) {
			var sev replay.Severity
			if m := claude.Parse(tg.Model); isClaude(tg.Model) && m.AtLeast(5, 0) {
				sev = replay.SeverityReject
			}
			for ti, t := range h.Turns {
				reasoning, other := false, false
				for _, b := range t.Blocks {
					if !sent(b) {
						continue
					}
					if _, ok := b.(replay.ReasoningItem); ok {
						reasoning = true
					} else {
						other = true
					}
				}
				if reasoning && !other {
					report(replay.Violation{Turn: ti, Block: -1, Severity: sev,
						Message:   "the assistant turn holds only reasoningContent",
						Predicted: "This model does not support assistant message prefill. The conversation must end with a user message.",
						Fix:       "drop the turn's reasoning, or the turn"})
				}
			}
		},
	},
	{
		ID:       RuleReasoningMembers,
		Severity: replay.SeverityReject,
		Doc: "Every reasoningContent block is {reasoningText: {text, signature?}} with a string text (\"\" under an omitted display, " +
			"never null) or {redactedContent}: reasoning sent as reasoningContent.text (a gpt-oss client's shape) is not one.",
		Symptoms: []replay.Symptom{{Match: `reasoningcontent\.reasoningtext\.text' failed to satisfy constraint: member must not be null`, Fix: codecs.FixDropReasoning}},
		Check: func(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
			for ti, t := range h.Turns {
				for bi, b := range t.Blocks {
					nat, ok := b.(*replay.Native)
					if !ok || nat.Kind != "reasoningContent" || !sent(b) {
						continue
					}
					rc := gjson.GetBytes(nat.Raw, "reasoningContent")
					v := replay.Violation{Turn: ti, Block: bi}
					if p := blockPointer(h, ti, t, bi); p != "" {
						v.Pointer = p + "/reasoningContent"
					}
					switch {
					case rc.Get("reasoningText.text").Type == gjson.Null && rc.Get("reasoningText.text").Exists():
						v.Message = "a reasoningText whose text is null"
						v.Predicted = "1 validation error detected: Value at 'messages." + messageIndex(h, ti) + ".member.content." +
							strconv.Itoa(contentIndex(t, bi)) + ".member.reasoningContent.reasoningText.text' failed to satisfy constraint: Member must not be null"
						v.Fix = "send the text as captured (\"\" when the display was omitted), or drop the block"
					case rc.Get("text").Exists() && !rc.Get("reasoningText").Exists() && !rc.Get("redactedContent").Exists():
						v.Message = "reasoning sent as reasoningContent.text: Converse takes reasoningText.text (the exact error text is not known)"
						v.Fix = "send it as {\"reasoningContent\":{\"reasoningText\":{\"text\":...}}} (Encode does), or drop it"
					default:
						continue
					}
					report(v)
				}
			}
		},
	},
	{
		ID:       RuleBlockOrder,
		Severity: replay.SeverityReject,
		Doc:      "With Claude, an assistant message that holds reasoningContent starts with it (Claude's rule, relayed by Bedrock).",
		Symptoms: []replay.Symptom{{Match: claude.SymFirstBlock, Fix: codecs.FixRestore, Within: symBedrock}},
		Check: func(h *replay.History, tg *replay.Target, report func(replay.Violation)) {
			if !isClaude(tg.Model) {
				return
			}
			for ti, t := range h.Turns {
				first, reasoning := -1, false
				for bi, b := range t.Blocks {
					if !sent(b) {
						continue
					}
					if first < 0 {
						first = bi
					}
					if isReasoning(b) {
						reasoning = true
					}
				}
				if !reasoning || first < 0 || isReasoning(t.Blocks[first]) {
					continue
				}
				found := anthropicType(t.Blocks[first])
				report(replay.Violation{Turn: ti, Block: first,
					Message: "the assistant message holds reasoningContent but starts with " + found,
					Predicted: errPrefix + "messages." + messageIndex(h, ti) + ".content.0: If an assistant message contains any thinking blocks, " +
						"the first block must be `thinking` or `redacted_thinking`. Found `" + found + "`.",
					Fix: "send the message's blocks in the order the response had them, reasoningContent first (Encode does)"})
			}
		},
	},
}

// isReasoning reports whether b is sent as a reasoningContent block.
func isReasoning(b replay.Block) bool {
	switch x := b.(type) {
	case replay.ReasoningItem:
		return true
	case *replay.Native:
		return x.Kind == "reasoningContent"
	}
	return false
}

// anthropicType names a block as the Messages API Bedrock relays to names it.
func anthropicType(b replay.Block) string {
	switch x := b.(type) {
	case *replay.Text:
		return "text"
	case *replay.ToolCall:
		return "tool_use"
	case *replay.Native:
		return x.Kind
	}
	return "content"
}

// messageIndex returns the request message index of turn ti, from the
// history's pointers ("N" when they are not known).
func messageIndex(h *replay.History, ti int) string {
	if ti < len(h.Pointers) {
		if n, ok := strings.CutPrefix(h.Pointers[ti], "/messages/"); ok {
			return n
		}
	}
	return "N"
}

// blockPointer is the JSON Pointer of block bi of turn ti in the request,
// when the history's pointers are known ("" otherwise).
func blockPointer(h *replay.History, ti int, t *replay.Turn, bi int) string {
	if ti < len(h.Pointers) && strings.HasPrefix(h.Pointers[ti], "/messages/") {
		return h.Pointers[ti] + "/content/" + strconv.Itoa(contentIndex(t, bi))
	}
	return ""
}

// accepted is the format a model takes back as its own: its family's, or
// Claude's when no model is named (the only issuer that signs here).
func accepted(model string) replay.Format {
	if model == "" {
		return formats.AnthropicClaude
	}
	return formatFor(model, false)
}

func formatName(f replay.Format) string {
	if f == "" {
		return "unlabelled"
	}
	return string(f)
}

// Contract returns the Converse replay contract.
func (c Codec) Contract() replay.ReplayContract {
	return replay.ReplayContract{
		API: API, ToolIDs: true,
		// The model named decides whose items go back as they are: Claude
		// signatures on Claude, each other family's unsigned text on its own
		// family; with no model, Claude (the only issuer that signs here).
		Accepts: []replay.Format{accepted(c.Model)},
		Summary: "Send the assistant message back with its reasoningContent blocks unmodified and in order. " +
			"A Claude reasoningText goes back with its text and signature, redactedContent as it came; Claude " +
			"requires them on the turn that called a tool when thinking is on. No signature or blob is sent to a " +
			"model that did not mint it; unsigned reasoning of other models (Kimi, Qwen, DeepSeek, gpt-oss) " +
			"has no documented replay requirement and may be dropped.",
		Rules: rules,
	}
}

// signsText reports whether format f signs its reasoning text.
func signsText(f replay.Format) bool {
	t, _ := codecs.TraitsOf(f)
	return t.SignsText
}
