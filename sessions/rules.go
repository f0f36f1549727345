package sessions

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
)

// The ids of the session's own checks: what stored files add to what the
// library's contracts check on a conversation (AuditReplay reports those
// under their own ids).
const (
	// RuleHollowThinking: a Claude thinking block whose text was emptied
	// after the fact, its signature kept (told from the valid empty blocks
	// of display "omitted" by the model's display and the session's other
	// blocks).
	RuleHollowThinking = "session/hollow-thinking"
	// RuleTruncatedSignature: a Claude signature cut short (too short, or
	// a base64 length no whole signature has).
	RuleTruncatedSignature = "session/truncated-signature"
	// RulePseudoSignature: a signature member that holds no signature: the
	// name of the field the reasoning came in ("reasoning_content"), an
	// imported step number, or text that is not base64.
	RulePseudoSignature = "session/pseudo-signature"
	// RuleOrphanToolResult: a tool result whose call is not in the
	// message before it (or, for OpenAI Responses, anywhere before it).
	RuleOrphanToolResult = "session/orphan-tool-result"
	// RuleOrphanToolUse: a tool call without its result.
	RuleOrphanToolUse = "session/orphan-tool-use"
	// RuleFinalThinking: an assistant message that ends with a thinking
	// block, where no request is built for the contract's block-order rule
	// to read (pi, OpenClaw).
	RuleFinalThinking = "session/final-thinking"
	// RuleEmptyText: an empty text block, which the Messages API refuses.
	RuleEmptyText = "session/empty-text"
	// RuleUnverifiableCompaction: an encrypted compaction item whose
	// minting login or account the session cannot establish.
	RuleUnverifiableCompaction = "session/unverifiable-compaction"
	// RuleMalformedBlock: a stored block the codec of its wire cannot read.
	RuleMalformedBlock = "session/malformed-block"
	// RuleUnreadableRecord: a record that is not valid JSON (a line cut by
	// a crash, say); the agent skips it.
	RuleUnreadableRecord = "session/unreadable-record"
)

// Provider error texts the session checks predict. Sources: the Messages
// API's errors as users report them (anthropics/claude-code #10199,
// #13460, #5060, claude-agent-sdk-typescript #244), OpenAI's Responses
// errors (openai-agents-python #3006), Gemini's function-turn ordering.
const (
	predictInvalidSignature = "Invalid `signature` in `thinking` block"
	predictModified         = "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response."
	predictFinalThinking    = "The final block in an assistant message cannot be `thinking`."
	predictEmptyText        = "text content blocks must be non-empty"
	predictOrphanUse        = "`tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
	predictOrphanResult     = "unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
	predictNoOutput         = "No tool output found for function call %s."
	predictNoCall           = "No tool call found for function call output with call_id %s."
	predictGeminiResponse   = "Please ensure that function response turn comes immediately after a function call turn."
)

// minClaudeSignature is the length under which a Claude signature is taken
// to be cut: the shortest seen whole are over 200 characters (an
// omitted-display block still carries the whole reasoning), the truncated
// ones reported 24.
const minClaudeSignature = 100

// convMsg is one message as the provider receives it: a stored assistant
// message, or consecutive user messages joined.
type convMsg struct {
	m      *message
	user   bool
	blocks []*block
}

// conversation returns the messages the agent sends to the target, blocks
// it drops left out, user messages joined.
func (tm *turnMap) conversation(s *Session) []convMsg {
	var out []convMsg
	for _, m := range s.msgs {
		var bs []*block
		for _, b := range m.blocks {
			if tm.sent(b) {
				bs = append(bs, b)
			}
		}
		if len(bs) == 0 {
			continue
		}
		user := m.role != roleAssistant
		if user && len(out) > 0 && out[len(out)-1].user {
			out[len(out)-1].blocks = append(out[len(out)-1].blocks, bs...)
			continue
		}
		out = append(out, convMsg{m: m, user: user, blocks: bs})
	}
	return out
}

// inProgress returns the index in conv of the assistant message whose tool
// calls the last user message answers (the in-progress tool turn), or -1.
func inProgress(conv []convMsg) int {
	la := -1
	for i := len(conv) - 1; i >= 0; i-- {
		if !conv[i].user {
			la = i
			break
		}
	}
	if la < 0 || la == len(conv)-1 {
		return -1
	}
	uses := map[string]bool{}
	for _, b := range conv[la].blocks {
		if b.kind == kToolUse {
			uses[b.id] = true
		}
	}
	for _, cm := range conv[la+1:] {
		for _, b := range cm.blocks {
			if b.kind == kToolResult && uses[b.id] {
				return la
			}
		}
	}
	return -1
}

// claudeTarget reports whether t accepts Claude's signatures.
func claudeTarget(t replay.Target) bool {
	c, err := replay.Lookup(t.API, t.Provider, t.Model)
	if err != nil {
		return false
	}
	for _, f := range c.Contract().Accepts {
		if f.Family() == formats.AnthropicClaude.Family() {
			return true
		}
	}
	return false
}

func claudeText(b *block) (*replay.ReasoningText, bool) {
	x, ok := b.item.(*replay.ReasoningText)
	return x, ok && x.Format == formats.AnthropicClaude
}

// at prefixes a Messages API error with the path the API gives it.
func at(path, msg string) string {
	if path == "" {
		return msg
	}
	return path + ": " + msg
}

// msgPath returns "messages.N" of a block's "messages.N.content.M".
func msgPath(p string) string {
	if i := strings.Index(p, ".content."); i >= 0 {
		return p[:i]
	}
	return p
}

// check runs the session's own checks on what the agent sends to t.
func (s *Session) check(t replay.Target, tm *turnMap) []Finding {
	conv := tm.conversation(s)
	anth := strings.EqualFold(t.API, apiAnthropic)
	var fs []Finding
	add := func(b *block, rule string, sev replay.Severity, msg, pred, fix string) {
		f := Finding{Rule: rule, Severity: sev, Location: b.loc, Turn: -1, Block: -1, Message: msg, Predicted: pred, Fix: fix, blk: b}
		if pos, ok := tm.pos[b]; ok {
			f.Turn, f.Block = pos[0], pos[1]
		}
		fs = append(fs, f)
	}
	last := -1
	for i := len(conv) - 1; i >= 0; i-- {
		if !conv[i].user {
			last = i
			break
		}
	}

	// Thinking blocks: hollow, truncated, pseudo signatures.
	if anth {
		claude := claudeTarget(t)
		summarized := map[string]bool{} // models seen returning thinking text
		for _, m := range s.msgs {
			for _, b := range m.blocks {
				if x, ok := claudeText(b); ok && x.Text != "" && m.turn != nil {
					summarized[m.turn.Provenance.Model] = true
				}
			}
		}
		for ci, cm := range conv {
			if cm.user {
				continue
			}
			textHere := false
			for _, b := range cm.blocks {
				if x, ok := claudeText(b); ok && x.Text != "" {
					textHere = true
				}
			}
			for _, b := range cm.blocks {
				if b.kind != kThinking {
					continue
				}
				path := tm.path[b]
				if sig := b.sig; sig.present && !sig.null && sig.n > 0 && sig.n < 512 {
					if what := pseudo(sig.short); what != "" {
						add(b, RulePseudoSignature, replay.SeverityReject,
							fmt.Sprintf("the thinking block's signature is %q, %s, not a signature the provider minted", sig.short, what),
							at(path, predictInvalidSignature),
							"drop the block; never write a signature by hand")
						continue
					}
					if _, ok := claudeText(b); ok {
						if !base64Std(sig.short) {
							add(b, RulePseudoSignature, replay.SeverityReject,
								fmt.Sprintf("the thinking block's signature %q is not base64: it is not a Claude signature", clip(sig.short)),
								at(path, predictInvalidSignature),
								"drop the block; never write a signature by hand")
							continue
						}
						if sig.n < minClaudeSignature || sig.n%4 != 0 {
							add(b, RuleTruncatedSignature, replay.SeverityReject,
								fmt.Sprintf("the Claude signature is %d bytes long: it was cut short (whole ones are hundreds of bytes, base64 in groups of four)", sig.n),
								at(path, predictInvalidSignature),
								"drop the block; its signature cannot be restored from the file")
							continue
						}
					}
				}
				x, ok := claudeText(b)
				if !claude || !ok || x.Text != "" || !x.Signed() {
					continue
				}
				model := cm.m.turn.Provenance.Model
				latest := ci == last
				switch {
				case textHere || summarized[model]:
					sev, pred := replay.SeverityRisk, ""
					if latest {
						sev, pred = replay.SeverityReject, at(path, predictModified)
					}
					where := "elsewhere in this session"
					if textHere {
						where = "in the same message"
					}
					add(b, RuleHollowThinking, sev,
						fmt.Sprintf("the thinking text is empty under a kept signature while %s returns its thinking as text %s: the text was emptied after the fact", model, where),
						pred, "drop the block (its text is lost either way); in the in-progress tool turn, rewind that step")
				case !omittedByDefault(model):
					add(b, RuleHollowThinking, replay.SeverityRisk,
						fmt.Sprintf("the thinking text is empty under a signature: %s returns its thinking as text unless the request asked for display \"omitted\", and this session does not say which", model),
						"", "keep it if the agent asks for display \"omitted\"; otherwise drop the block")
				}
			}
		}
	}

	// Tool calls and their results.
	respMode := strings.EqualFold(t.API, apiResponses)
	for ci, cm := range conv {
		if cm.user {
			continue
		}
		var next map[string]bool
		if !respMode && ci+1 < len(conv) && conv[ci+1].user {
			next = ids(conv[ci+1].blocks, kToolResult)
		} else if respMode {
			next = map[string]bool{}
			for _, later := range conv[ci+1:] {
				if later.user {
					for id := range ids(later.blocks, kToolResult) {
						next[id] = true
					}
				}
			}
		}
		for _, b := range cm.blocks {
			if b.kind != kToolUse || next[b.id] {
				continue
			}
			trailing := true
			for _, later := range conv[ci+1:] {
				if len(later.blocks) > 0 {
					trailing = false
				}
			}
			if s.synthesizes {
				continue // the agent answers it before sending
			}
			sev, msg := replay.SeverityReject, fmt.Sprintf("the tool call %q has no result in the next message", b.id)
			if respMode {
				msg = fmt.Sprintf("the function call %q has no output after it", b.id)
			}
			if trailing {
				sev, msg = replay.SeverityRisk, fmt.Sprintf("the session ends with the tool call %q unanswered (the agent stopped while it ran)", b.id)
			}
			pred := ""
			switch {
			case anth:
				pred = at(msgPath(tm.path[b]), fmt.Sprintf(predictOrphanUse, b.id))
			case respMode:
				pred = fmt.Sprintf(predictNoOutput, b.id)
			}
			add(b, RuleOrphanToolUse, sev, msg, pred, "drop the tool call, or answer it with its result")
		}
	}
	seen := map[string]bool{}
	for ci, cm := range conv {
		if !cm.user {
			for id := range ids(cm.blocks, kToolUse) {
				seen[id] = true
			}
			continue
		}
		var prev map[string]bool
		if respMode {
			prev = seen
		} else if ci > 0 && !conv[ci-1].user {
			prev = ids(conv[ci-1].blocks, kToolUse)
		}
		for _, b := range cm.blocks {
			if b.kind != kToolResult || prev[b.id] {
				continue
			}
			pred := ""
			switch {
			case anth:
				pred = at(tm.path[b], fmt.Sprintf(predictOrphanResult, b.id))
			case respMode:
				pred = fmt.Sprintf(predictNoCall, b.id)
			case strings.EqualFold(t.API, apiGemini):
				pred = predictGeminiResponse
			}
			add(b, RuleOrphanToolResult, replay.SeverityReject,
				fmt.Sprintf("the tool result for %q answers no call in the message before it", b.id),
				pred, "drop the tool result")
		}
	}

	if anth {
		for _, cm := range conv {
			if cm.user {
				for _, b := range cm.blocks {
					if b.kind == kUserText && b.empty {
						add(b, RuleEmptyText, replay.SeverityReject, "an empty text block in a user message",
							at(tm.path[b], predictEmptyText), "drop the empty text block")
					}
				}
				continue
			}
			for _, b := range cm.blocks {
				if b.kind == kText && b.empty {
					add(b, RuleEmptyText, replay.SeverityReject, "an empty text block in an assistant message",
						at(tm.path[b], predictEmptyText), "drop the empty text block")
				}
			}
			// The last block the API sees (one the agent converts to text
			// is text). With the request built, the contract's own rule
			// (anthropic/block-order) judges it.
			if tm.req != nil {
				continue
			}
			var lb *block
			for _, b := range cm.m.blocks {
				if h, skip := tm.skip[b]; tm.sent(b) || skip && h.toText {
					lb = b
				}
			}
			if lb != nil && tm.sent(lb) && (lb.kind == kThinking || lb.kind == kRedacted) {
				add(lb, RuleFinalThinking, replay.SeverityReject, "the assistant message ends with a thinking block (the response was cut after its thinking)",
					at(msgPath(tm.path[lb]), predictFinalThinking), "drop the trailing thinking block")
			}
		}
	}

	for _, cm := range conv {
		for _, b := range cm.blocks {
			switch {
			case b.bad != "":
				add(b, RuleMalformedBlock, replay.SeverityReject,
					fmt.Sprintf("the stored %s cannot be read: %s", b.kind, b.bad), "", "drop the block")
			case b.kind == kCompaction && (b.msg.info["inherited"] != "" || t.Account != "" && b.msg.turn != nil && b.msg.turn.Provenance.Account == ""):
				why := "the rollout does not record which login minted it"
				if b.msg.info["inherited"] != "" {
					why = "it was inherited from the thread this one was forked from"
				}
				add(b, RuleUnverifiableCompaction, replay.SeverityRisk,
					"the encrypted compaction item cannot be verified before sending: "+why,
					"", "resume under the login that compacted the thread, or compact again on the target")
			}
		}
	}
	for _, b := range s.bad {
		add(b, RuleUnreadableRecord, replay.SeverityRisk, "the record cannot be read ("+b.bad+"); the agent skips it, and what it held is not resumed",
			"", "restore the record from a copy, or leave it")
	}
	return fs
}

func ids(bs []*block, k kind) map[string]bool {
	out := map[string]bool{}
	for _, b := range bs {
		if b.kind == k {
			out[b.id] = true
		}
	}
	return out
}

// pseudo says what a signature that is no signature is: the name of the
// field the reasoning came in, or a step number; "" otherwise.
func pseudo(sig string) string {
	switch sig {
	case "reasoning_content", "reasoning", "reasoning_text", "reasoning_details", "thinking", "signature", "summary":
		return "the name of the field the reasoning came in"
	}
	if sig != "" && len(sig) <= 12 && strings.Trim(sig, "0123456789") == "" {
		return "a step number written by an import"
	}
	return ""
}

// base64Std reports whether s is written in the standard base64 alphabet
// (padding only at the end).
func base64Std(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/':
		case c == '=' && i >= len(s)-2:
		default:
			return false
		}
	}
	return true
}

func clip(s string) string {
	if len(s) <= 40 {
		return s
	}
	return s[:32] + "…"
}

// omittedByDefault reports whether a Claude model returns its thinking
// with display "omitted" (an empty text under the signature) by default:
// Opus 4.7 and later, Sonnet 5 and later, Fable, Mythos.
func omittedByDefault(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	if i := strings.LastIndexByte(m, '.'); i >= 0 && strings.HasPrefix(m, "anthropic.") {
		m = strings.TrimPrefix(m, "anthropic.")
	}
	toks := strings.FieldsFunc(m, func(r rune) bool { return r == '-' || r == '.' || r == '@' || r == '_' })
	family, nums := "", []int{}
	for _, t := range toks {
		switch t {
		case "opus", "sonnet", "haiku", "fable", "mythos":
			family = t
			continue
		}
		if n, err := strconv.Atoi(t); err == nil && n < 100 {
			nums = append(nums, n)
		}
	}
	major, minor := 0, 0
	if len(nums) > 0 {
		major = nums[0]
	}
	if len(nums) > 1 {
		minor = nums[1]
	}
	switch family {
	case "fable", "mythos":
		return true
	case "opus":
		return major > 4 || major == 4 && minor >= 7
	case "sonnet":
		return major >= 5
	}
	return false
}
