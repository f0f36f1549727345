package anthropic

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/claude"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
)

// The rule ids of the Messages replay contract ([Codec.Contract]).
const (
	// RuleThinkingFirst: with manual thinking, the in-progress tool turn starts with a thinking block.
	RuleThinkingFirst = "anthropic/thinking-first"
	// RuleThinkingModified: the latest assistant message's thinking blocks are the captured ones, unmodified.
	RuleThinkingModified = "anthropic/thinking-modified"
	// RuleMissingSignature: every thinking block sent has a non-empty signature.
	RuleMissingSignature = "anthropic/missing-signature"
	// RuleForeignSignature: signed reasoning sent to Claude was minted by Claude.
	RuleForeignSignature = "anthropic/foreign-signature"
	// RulePrefixMismatch: a block bound to its conversation is replayed after the same prefix.
	RulePrefixMismatch = "anthropic/prefix-mismatch"
	// RulePrefixUnverified: a replayed turn's prefix hash from a version-1 document matches the request's by one of that version's definitions.
	RulePrefixUnverified = "anthropic/prefix-unverified"
	// RuleChainBroken: the thinking blocks sent keep the chain they were produced in (no gap, no put-back).
	RuleChainBroken = "anthropic/chain-broken"
	// RuleBetaRequired: a request member or block that needs an `anthropic-beta` header is sent with it.
	RuleBetaRequired = "anthropic/beta-required"
	// RuleCompaction: compaction blocks and strategies are sent as the API requires.
	RuleCompaction = "anthropic/compaction"
	// RuleUnread: thinking the target's model or account does not read is dropped silently.
	RuleUnread = "anthropic/unread-thinking"
	// RuleHostThinking: an Anthropic-compatible host gets its own thinking blocks back as it requires.
	RuleHostThinking = "anthropic/host-thinking"
	// RuleBlockOrder: an assistant message holding thinking starts with it and does not end with it.
	RuleBlockOrder = "anthropic/block-order"
	// RuleBlockMembers: thinking blocks carry only the members the API takes back (no cache_control).
	RuleBlockMembers = "anthropic/block-members"
	// RuleSystemPosition: a mid-conversation system message precedes an assistant message or ends the array.
	RuleSystemPosition = "anthropic/system-position"
	// RuleThinkingType: the request's thinking type is one its model takes.
	RuleThinkingType = "anthropic/thinking-type"
	// RuleClientVersion: Claude Code's requests come from a version the model accepts (not a replay error).
	RuleClientVersion = "anthropic/client-version"
)

// Provider error texts the rules predict, as the Messages API returns them
// (after the `messages.N.content.M` path it prefixes when it knows it).
const (
	predictThinkingFirst = "Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
	predictModified      = "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response."
	predictInvalidSig    = "Invalid `signature` in `thinking` block"
	predictBound         = "Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to \"drop_block\"."
	predictBoundBeta     = " That setting requires the `thinking-binding-controls-2026-08-01` value in the `anthropic-beta` header."
	predictFieldRequired = "Field required"
	predictNotString     = "Input should be a valid string"
	predictExtraInputs   = "Extra inputs are not permitted"
	// The compaction errors (the wire note quotes them after the location).
	predictCompactionSig      = "a `compaction` block with `content` requires its `signature`"
	predictCompactionBeta     = "`signature` requires anthropic-beta: compact-2026-09-04"
	predictCompactionStrategy = "`compaction` blocks require a `compact_20260112` strategy in `context_management.edits`."
	predictCompactionMismatch = "`compaction` block `content` does not match its `signature`"
	predictClearThinkingFirst = "context_management: `clear_thinking_20251015` must be the first strategy"
	// DeepSeek's `/anthropic` endpoint, thinking mode, an assistant turn without thinking.
	predictDeepSeekThinking = "The `content[].thinking` in the thinking mode must be passed back to the API."
)

// The beta header values the rules look for.
const (
	betaBinding         = "thinking-binding-controls-2026-08-01"
	betaCompactOnDemand = "compact-2026-09-04"
)

// at prefixes a predicted message with the API's location path, when known.
func at(path, msg string) string {
	if path == "" {
		return msg
	}
	return path + ": " + msg
}

// Contract returns the replay contract and its rules for the codec's
// provider: Claude's on Anthropic, Bedrock and Vertex; an
// Anthropic-compatible host's (DeepSeek, MiniMax, Kimi) accepts only its
// own format ([Codec.Format]).
func (c Codec) Contract() replay.ReplayContract {
	own := c.Format()
	rc := replay.ReplayContract{
		API:     API,
		ToolIDs: true,
		Accepts: []replay.Format{own},
		Summary: "Send every thinking and redacted_thinking block of the in-progress tool turn (the assistant " +
			"message whose tool_use the last user message answers) back unchanged, in its original position, " +
			"with its signature or data byte-exact; with manual (enabled) thinking that message must start " +
			"with a thinking or redacted_thinking block. Earlier, completed turns' thinking may be dropped " +
			"(the API filters it), but a block that is sent must be unmodified and signed by its issuer: Claude " +
			"on Anthropic, Bedrock and Vertex, where the model and account read it; an Anthropic-compatible " +
			"host (DeepSeek, MiniMax, Kimi) only its own. On Claude 5.1 and later a block is bound to the request " +
			"prefix (system, tools, earlier messages; from the newest compaction block) and chained to the " +
			"block before it. Compaction blocks go back byte-exact, to the account that minted them, first.",
	}
	rc.Rules = []replay.Rule{
		{ID: RuleThinkingFirst, Severity: replay.SeverityReject,
			Doc:      "With manual thinking, the in-progress tool turn starts with a thinking or redacted_thinking block.",
			Check:    c.checkThinkingFirst,
			Symptoms: []replay.Symptom{{Match: claude.SymThinkingFirst, Fix: codecs.FixRestore}}},
		{ID: RuleThinkingModified, Severity: replay.SeverityReject,
			Doc: "The thinking blocks of the latest assistant message in the request are the captured ones: none missing (in a tool turn), " +
				"reordered or altered, edited text under an intact signature included (any byte difference fails, on every model); a " +
				"sealed turn's blocks keep their captured positions. No thinking text is white space alone, and no earlier block's captured " +
				"text is emptied. An empty text under a signature (display \"omitted\") is normal output, never a violation by itself.",
			Check: c.checkModified,
			Symptoms: []replay.Symptom{
				{Match: `blocks in the latest assistant message cannot be modified`, Fix: codecs.FixRestore, Also: []string{replay.RuleAlteredItem}},
				{Match: `each thinking block must contain (non-whitespace )?thinking`, Fix: codecs.FixRestore, Also: []string{replay.RuleAlteredItem}},
			}},
		{ID: RuleMissingSignature, Severity: replay.SeverityReject,
			Doc:   "Every thinking block in the request has a string `thinking` member and a non-empty `signature`; every redacted_thinking block has `data`.",
			Check: c.checkRequestSignatures,
			Symptoms: []replay.Symptom{
				{Match: claude.SymSignatureRequired, Fix: codecs.FixDropReasoning},
				{Match: `(thinking\.thinking|redacted_thinking\.data)[^a-z]*(field required|input should be a valid string)`, Fix: codecs.FixDropReasoning},
			}},
		{ID: RuleForeignSignature, Severity: replay.SeverityReject, Covers: []string{replay.RuleForeignFormat},
			Doc:   "Signed reasoning, encrypted blobs and compaction blocks sent were minted by the target's issuer ([Codec.Format]).",
			Check: c.checkForeign,
			Symptoms: []replay.Symptom{
				{Match: claude.SymInvalidSignature, Fix: codecs.FixDropReasoning,
					Also: []string{RuleMissingSignature, replay.RuleForeignFormat, replay.RuleEmptySignature}},
				{Match: "input to .?thinking\\.signature.? doesn't match the expected value", Fix: codecs.FixDropReasoning,
					Also: []string{RuleThinkingModified, replay.RuleAlteredItem, replay.RuleForeignFormat}},
			}},
		{ID: RulePrefixMismatch, Severity: replay.SeverityReject,
			Doc: "On models that bind thinking blocks to their conversation (Claude 5.1 and later; not Sonnet 5), a replayed " +
				"turn's recorded prefix hash equals the request's before it. Rejected on every account by Fable and Mythos 5.2 and by Mythos 5.1 " +
				"(off Bedrock); by Fable 5.1 and Opus 5.5 for accounts created from 2026-08-31 or with prefix_mismatch_behavior \"error\" (a risk " +
				"when the account's age is not known); dropped silently with \"drop_block\" and in Batches.",
			Check:    c.checkPrefix,
			Symptoms: []replay.Symptom{{Match: `block is bound to a different conversation`, Fix: codecs.FixDropBlock, Also: []string{RuleChainBroken}, Rank: 1}}},
		{ID: RulePrefixUnverified, Severity: replay.SeverityRisk,
			Doc: "A turn whose prefix hash was read from a version-1 document (which may have hashed every prompt-shaping member of the request, " +
				"or the binding prefix) matches the request's prefix by one of the two; one that matches neither is not verified, never reported as a mismatch.",
			Check: c.checkLegacyPrefix},
		{ID: RuleChainBroken, Severity: replay.SeverityReject,
			Doc: "The thinking blocks sent keep their chain: dropping blocks from the start or the end, or all of them, is valid; a gap " +
				"in the middle, or a removed block put back, invalidates every later block. Severity as for the prefix.",
			Check: c.checkChain},
		{ID: RuleBetaRequired, Severity: replay.SeverityReject,
			Doc: "`thinking.block_binding` is sent only to the models that take it (the preserved-thinking models: Fable and Mythos 5.1 and later, " +
				"Opus, Sonnet and Haiku 5.5), with the `thinking-binding-controls-2026-08-01` beta arriving (checked when Target.Headers is known: " +
				"Vertex and several gateways drop the header); a signed compaction block with `compact-2026-09-04`.",
			Check: func(h *replay.History, t *replay.Target, report func(replay.Violation)) {
				c.checkBlockBindingModel(h, t, report)
				c.checkBeta(h, t, report)
			},
			Symptoms: []replay.Symptom{{Match: `block_binding\S*: extra inputs are not permitted|requires anthropic-beta: compact-2026-09-04`, Fix: codecs.FixConfigure}}},
		{ID: RuleCompaction, Severity: replay.SeverityReject,
			Doc: "An unsigned compaction block needs a `compact_20260112` strategy in `context_management.edits`; `clear_thinking_20251015` " +
				"is the first strategy; a signed compaction block keeps the content its signature covers and goes only to the account that minted it.",
			Check: c.checkCompaction,
			Symptoms: []replay.Symptom{
				{Match: "compaction.? block with .?content.? requires its .?signature|compaction.? block .?content.? does not match its .?signature", Fix: codecs.FixRestore},
				{Match: "compaction.? blocks require a .?compact_20260112.? strategy|clear_thinking_20251015.? must be the first strategy", Fix: codecs.FixConfigure},
			}},
		{ID: RuleUnread, Severity: replay.SeverityDegrade,
			Doc:   "Thinking minted by a model or account the target's model or account does not read is dropped by the API without an error.",
			Check: c.checkUnread},
		{ID: RuleHostThinking, Severity: replay.SeverityReject,
			Doc:      "DeepSeek's `/anthropic` endpoint in thinking mode wants a thinking block on every assistant turn; MiniMax's its signed blocks verbatim (else interleaved thinking stops).",
			Check:    c.checkHost,
			Symptoms: []replay.Symptom{{Match: `the .?content\[\]\.thinking.? in the thinking mode must be passed back`, Fix: codecs.FixRestore}}},
		{ID: RuleBlockOrder, Severity: replay.SeverityReject,
			Doc: "An assistant message that holds thinking starts with a thinking or redacted_thinking block (after a compaction block) " +
				"and does not end with one (a risk when it starts with white-space text, as adaptive thinking has produced).",
			Check: c.checkBlockOrder,
			Symptoms: []replay.Symptom{
				{Match: symFirstBlock, Fix: codecs.FixRestore},
				{Match: "the final block in an assistant message cannot be .?(redacted_)?thinking", Fix: codecs.FixDropReasoning},
			}},
		{ID: RuleBlockMembers, Severity: replay.SeverityReject,
			Doc:      "A thinking or redacted_thinking block carries only the members the API takes back: `cache_control` on it is an extra input.",
			Check:    c.checkBlockMembers,
			Symptoms: []replay.Symptom{{Match: `(thinking|redacted_thinking)\.cache_control: extra inputs are not permitted`, Fix: codecs.FixReencode}}},
		{ID: RuleSystemPosition, Severity: replay.SeverityReject,
			Doc:      "A mid-conversation `role: \"system\"` message precedes an assistant message or ends the messages.",
			Check:    c.checkSystemOrder,
			Symptoms: []replay.Symptom{{Match: `role 'system' must precede an 'assistant' message`}}},
		{ID: RuleThinkingType, Severity: replay.SeverityReject,
			Doc: "`thinking.type` is one the model takes: no `enabled` on Opus 4.7 and later, Sonnet 5 and later, Haiku 5.5, Fable and Mythos; " +
				"no `disabled` on Opus 5.5, Sonnet 5.5 (`between_tools` instead), Fable and Mythos; no `adaptive` before the 4.6 models.",
			Check:    c.checkThinkingType,
			Symptoms: []replay.Symptom{{Match: `"?thinking\.type\.(enabled|disabled|adaptive|between_tools)"? is not supported for this model`, Fix: codecs.FixConfigure}}},
		{ID: RuleClientVersion, Severity: replay.SeverityReject,
			Doc: "A request with Claude Code's user agent comes from a version the model accepts (Fable 5.1: 2.1.251, Fable 5.2: 2.1.321). " +
				"Not a replay error: the request is refused before its reasoning is read, and no change to it helps.",
			Check:    c.checkClientVersion,
			Symptoms: []replay.Symptom{{Match: `claude code \S+ does not support this model; version \S+ or newer is required|claude_code_version_too_old`}}},
	}
	return rc
}

// symFirstBlock is the pattern of the first-block text (predictFirstBlock),
// also relayed by Bedrock (codecs/bedrock).
const symFirstBlock = claude.SymFirstBlock

// requestMessages returns the request's messages array as the pass that
// read the request found it; absent when there is no request or no
// messages array.
func requestMessages(h *replay.History) jsonw.Val {
	if m := kit.Body(h).Get("messages"); m.IsArray() {
		return m
	}
	return jsonw.Val{}
}

// latestAssistant returns the index of the last assistant message, and
// whether the message after it is a user message holding a tool_result
// (the tool loop is in progress).
func latestAssistant(msgs jsonw.Val) (int, bool) {
	for i := msgs.Len() - 1; i >= 0; i-- {
		if !msgs.Index(i).Get("role").Is("assistant") {
			continue
		}
		loop := false
		if next := msgs.Index(i + 1); next.Get("role").Is("user") {
			next.Get("content").Each(func(_ int, b jsonw.Val) bool {
				loop = b.Get("type").Is("tool_result")
				return !loop
			})
		}
		return i, loop
	}
	return -1, false
}

func contentPath(msg, block int) string {
	return "messages." + strconv.Itoa(msg) + ".content." + strconv.Itoa(block)
}

func contentPointer(msg, block int) string {
	return "/messages/" + strconv.Itoa(msg) + "/content/" + strconv.Itoa(block)
}

// blockType names a turn block as the Messages API would see it.
func blockType(b replay.Block) string {
	switch b := b.(type) {
	case *replay.ReasoningText:
		return "thinking"
	case *replay.Encrypted:
		return "redacted_thinking"
	case *replay.Text:
		return "text"
	case *replay.ToolCall:
		return "tool_use"
	case *replay.Native:
		return b.Kind
	}
	return "unknown"
}

// checkThinkingFirst: with the request at hand, its latest assistant message
// answered by a tool_result must start with thinking; without it, the last
// turn, when it calls tools, must start (among what Encode sends) with a
// sendable thinking or redacted_thinking item.
func (c Codec) checkThinkingFirst(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	// DeepSeek's host answers with its own text (RuleHostThinking); MiniMax's
	// takes the turn and loses the thinking silently.
	// Adaptive thinking drops the requirement: the model decides whether a
	// turn thinks.
	if own := c.Format(); !manualThinking(h, t) || own == formats.DeepSeekAnthropic || own == formats.MiniMaxAnthropic {
		return
	}
	last := len(h.Turns) - 1
	if msgs := requestMessages(h); msgs.Exists() {
		i, loop := latestAssistant(msgs)
		if i < 0 || !loop {
			return
		}
		first := msgs.Index(i).Path("content.0.type").Str()
		if first == "thinking" || first == "redacted_thinking" {
			return
		}
		found := first
		if msgs.Index(i).Get("content").IsString() {
			found = "text"
		}
		report(replay.Violation{Turn: last, Block: -1, Pointer: contentPointer(i, 0) + "/type",
			Message:   fmt.Sprintf("manual thinking is on and the in-progress tool turn (message %d) starts with %s, not thinking", i, found),
			Predicted: at(contentPath(i, 0)+".type", fmt.Sprintf(predictThinkingFirst, found)),
			Fix:       "put the turn's captured thinking blocks back at their original positions (Patch or Encode), or disable thinking for this request"})
		return
	}
	if last < 0 || len(h.Turns[last].ToolCalls()) == 0 {
		return
	}
	tu := h.Turns[last]
	for bi, b := range tu.Blocks {
		if it, ok := b.(replay.ReasoningItem); ok {
			if c.sendable(h.Turns[last], it) {
				return
			}
			continue // left out when sent
		}
		if x, ok := b.(*replay.Text); ok && x.Text == "" {
			continue
		}
		found := blockType(b)
		report(replay.Violation{Turn: last, Block: bi,
			Message:   fmt.Sprintf("manual thinking is on and the in-progress tool turn would start with %s: it has no replayable thinking block before it", found),
			Predicted: fmt.Sprintf(predictThinkingFirst, found),
			Fix:       "replay the turn's signed thinking blocks first (never synthesise one); if they were lost, disable thinking for this request"})
		return
	}
}

// anchor is one element of an assistant turn's order that the API checks:
// a thinking block (by signature and text), a redacted block (by data), or a
// tool_use (by id).
type anchor struct {
	typ, key, text string
}

func turnAnchors(tu *replay.Turn) []anchor {
	var out []anchor
	for _, b := range tu.Blocks {
		switch b := b.(type) {
		case *replay.ReasoningText:
			out = append(out, anchor{"thinking", b.Signature.Value(), b.Text})
		case *replay.Encrypted:
			out = append(out, anchor{"redacted_thinking", b.Data, ""})
		case *replay.ToolCall:
			out = append(out, anchor{"tool_use", b.ID, ""})
		}
	}
	return out
}

// checkModified compares the request's latest assistant message with the
// last turn as captured. In a tool loop the sequence of thinking, redacted
// and tool_use blocks must equal the captured one; otherwise each thinking
// block sent must be a captured one, in captured order.
func (c Codec) checkModified(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	last := len(h.Turns) - 1
	if last < 0 {
		return
	}
	c.checkSealedOrder(h.Turns[last], last, report)
	msgs := requestMessages(h)
	if !msgs.Exists() {
		return
	}
	i, loop := latestAssistant(msgs)
	if i < 0 {
		return
	}
	c.checkBlankThinking(h, i, report)
	want := turnAnchors(h.Turns[last])
	type sent struct {
		anchor
		at int
	}
	var got []sent
	msgs.Index(i).Get("content").Each(func(k int, b jsonw.Val) bool {
		switch typ := b.Get("type").Str(); typ {
		case "thinking":
			got = append(got, sent{anchor{typ, b.Get("signature").Str(), b.Get("thinking").Str()}, k})
		case "redacted_thinking":
			got = append(got, sent{anchor{typ, b.Get("data").Str(), ""}, k})
		case "tool_use":
			got = append(got, sent{anchor{typ, b.Get("id").Str(), ""}, k})
		}
		return true
	})
	bad := func(block int, sev replay.Severity, msg string) {
		report(replay.Violation{Turn: last, Block: -1, Severity: sev, Pointer: contentPointer(i, block),
			Message:   msg,
			Predicted: at(contentPath(i, block), predictModified),
			Fix:       "send the captured thinking and redacted_thinking blocks exactly as they came, in their original order (Encode or Patch the captured turn)"})
	}
	// textEdit: the signature is the captured one and only the text differs.
	textEdit := func(g, w anchor) bool {
		return g.typ == "thinking" && g.typ == w.typ && g.key == w.key && g.text != w.text
	}
	if loop {
		for j := 0; j < len(want) || j < len(got); j++ {
			switch {
			case j >= len(got):
				bad(-1, "", fmt.Sprintf("the latest assistant message lacks the captured %s block %d", want[j].typ, j))
			case j >= len(want):
				bad(got[j].at, "", fmt.Sprintf("the latest assistant message has a %s block the captured turn does not have", got[j].typ))
			case textEdit(got[j].anchor, want[j]):
				bad(got[j].at, "", textEditMessage)
			case got[j].anchor != want[j]:
				bad(got[j].at, "", fmt.Sprintf("the latest assistant message's %s block differs from the captured turn's %s block at this position", got[j].typ, want[j].typ))
			default:
				continue
			}
			return
		}
		return
	}
	w := 0
	for _, g := range got {
		if g.typ == "tool_use" {
			continue
		}
		for w < len(want) && want[w] != g.anchor && !textEdit(g.anchor, want[w]) {
			w++
		}
		switch {
		case w == len(want):
			bad(g.at, "", fmt.Sprintf("the latest assistant message's %s block is not one of the captured blocks (or is out of order)", g.typ))
			return
		case textEdit(g.anchor, want[w]):
			bad(g.at, "", textEditMessage)
			return
		}
		w++
	}
}

// textEditMessage: Anthropic fails a thinking block that differs in any
// way from the original, edited text under an intact signature included
// (anthropic-sdk-python#1598, 2026-08-05; probes that saw edits accepted on
// Sonnet 5 and Opus 5.5 are not the contract).
const textEditMessage = "the thinking text differs from the captured one under the captured signature: any byte difference fails the check, on every model"

// checkSealedOrder: in a sealed turn ([replay.Turn.Seal]) of the codec's
// format, each thinking and redacted block sits at the content index it
// was captured at (its Index). A block moved (all thinking put first ahead
// of the server-tool blocks it followed, blocks reordered) is reported.
func (c Codec) checkSealedOrder(tu *replay.Turn, ti int, report func(replay.Violation)) {
	sealed := false
	for _, b := range tu.Blocks {
		if it, ok := b.(replay.ReasoningItem); ok && it.Meta().Digest != "" {
			sealed = true
			break
		}
	}
	if !sealed {
		return
	}
	for bi, b := range tu.Blocks {
		it, ok := b.(replay.ReasoningItem)
		if !ok || !c.sendable(tu, it) {
			continue
		}
		ix := it.Meta().Index
		if !ix.IsPresent() || ix.Value() == bi {
			continue
		}
		report(replay.Violation{Turn: ti, Block: bi,
			Message:   fmt.Sprintf("the sealed turn's %s block was captured at content index %d and now sits at %d: the turn's blocks were reordered or moved since capture", blockType(b), ix.Value(), bi),
			Predicted: predictModified,
			Fix:       "restore the turn's blocks in their captured order (thinking stays after the server-tool blocks it followed)"})
		return
	}
}

// checkRequestSignatures looks at every thinking block of every assistant
// message in the request.
func (c Codec) checkRequestSignatures(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
	tr, _ := codecs.TraitsOf(c.Format())
	signs := tr.SignsText
	for _, tb := range thinkingBlocks(h) {
		if !tb.assistant {
			continue
		}
		b, i, j := tb.b, tb.msg, tb.j
		v := replay.Violation{Turn: -1, Block: -1}
		if !tb.redacted {
			sig := b.Get("signature")
			switch th := b.Get("thinking"); {
			case !th.Exists():
				v.Message = "a thinking block without its thinking member (send \"thinking\": \"\" for an omitted display)"
				v.Predicted = at(contentPath(i, j)+".thinking.thinking", predictFieldRequired)
				v.Fix = "write the thinking member, empty when the text was omitted"
			case !th.IsString():
				v.Message = "a thinking block whose thinking member is " + jsonType(th) + ", not a string"
				v.Predicted = at(contentPath(i, j)+".thinking.thinking", predictNotString)
				v.Fix = "write the captured thinking text, \"\" when it was omitted"
			case !signs && (!sig.Exists() || sig.IsString()):
				continue
			case !sig.Exists():
				v.Message = "a thinking block without a signature"
				v.Predicted = at(contentPath(i, j)+".thinking.signature", predictFieldRequired)
				v.Fix = "send the captured signature, or drop the block"
			case sig.Str() == "":
				v.Message = "a thinking block with an empty signature"
				v.Predicted = at(contentPath(i, j), predictInvalidSig)
				v.Fix = "drop the block: an unsigned thinking block is never accepted"
			default:
				continue
			}
		} else {
			d := b.Get("data")
			if d.IsString() && d.Str() != "" {
				continue
			}
			v.Message = "a redacted_thinking block without data"
			v.Predicted = at(contentPath(i, j)+".redacted_thinking.data", predictFieldRequired)
			if d.Exists() && !d.IsString() {
				v.Message = "a redacted_thinking block whose data is " + jsonType(d) + ", not a string"
				v.Predicted = at(contentPath(i, j)+".redacted_thinking.data", predictNotString)
			}
			v.Fix = "send the captured data, or drop the block"
		}
		v.Pointer = contentPointer(i, j)
		report(v)
	}
}

// jsonType names a JSON value's type for messages.
func jsonType(v jsonw.Val) string {
	switch {
	case !v.Exists() || v.IsNull():
		return "null"
	case v.IsObject():
		return "an object"
	case v.IsArray():
		return "an array"
	case v.IsNumber():
		return "a number"
	case v.IsBool():
		return "a boolean"
	}
	return "a string"
}

// checkForeign flags signed text, encrypted blobs and compaction blocks of
// another issuer than the target's ([Codec.Format]).
func (c Codec) checkForeign(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
	own := c.Format()
	predicted := ""
	if own == formats.AnthropicClaude {
		predicted = predictInvalidSig
	}
	foreign := func(f replay.Format) bool {
		if f == "" || f == replay.FormatUnknown {
			return own != replay.FormatUnknown
		}
		return f.Family() != own.Family()
	}
	for ti, tu := range h.Turns {
		for bi, b := range tu.Blocks {
			var what string
			var f replay.Format
			switch x := b.(type) {
			case *replay.ReasoningText:
				if !x.Signed() {
					continue
				}
				what, f = "signature", x.Format
			case *replay.Encrypted:
				what, f = "encrypted data", x.Format
			case *replay.Opaque:
				what, f = "opaque item", x.Format
			case *replay.Compaction:
				if x.Signature.Value() == "" {
					continue
				}
				what, f = "signed compaction block", x.Format
			default:
				continue
			}
			if !foreign(f) {
				continue
			}
			name := string(f)
			if name == "" {
				name = "no format"
			}
			report(replay.Violation{Turn: ti, Block: bi,
				Message:   fmt.Sprintf("%s minted by another issuer (%s) cannot be sent to %s (%s)", what, name, c.target(), own),
				Predicted: predicted,
				Fix:       "drop the item, or carry its visible text over as plain text (Carry does); never send another issuer's signature or ciphertext"})
		}
	}
}

// target names the codec's target for messages.
func (c Codec) target() string {
	if c.Format() == formats.AnthropicClaude {
		return "Claude"
	}
	return c.Provider + "'s /anthropic endpoint"
}

// checkBeta: with the headers known, `thinking.block_binding` needs the
// binding beta, and a signed compaction block the on-demand compaction beta.
func (c Codec) checkBeta(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	if t.Headers == nil {
		return
	}
	root := requestRoot(h)
	if bb := root.Path("thinking.block_binding"); bb.Exists() && !hasBeta(t.Headers, betaBinding) {
		report(replay.Violation{Turn: -1, Block: -1, Pointer: "/thinking/block_binding",
			Message:   "thinking.block_binding is sent without the " + betaBinding + " value in the anthropic-beta header",
			Predicted: at(bindingPath(root.Path("thinking.type").Str(), bb), predictExtraInputs),
			Fix:       "add " + betaBinding + " to the anthropic-beta header, or leave block_binding out"})
	}
	if hasBeta(t.Headers, betaCompactOnDemand) {
		return
	}
	c.eachCompaction(h, func(ti, bi, msg, j int, signed bool, _ string) {
		if !signed {
			return
		}
		v := replay.Violation{Turn: ti, Block: bi,
			Message: "a signed (on-demand) compaction block is sent without the " + betaCompactOnDemand + " value in the anthropic-beta header",
			Fix:     "send " + betaCompactOnDemand + " in the anthropic-beta header on every request after an on-demand compaction"}
		path := ""
		if msg >= 0 {
			path, v.Pointer = contentPath(msg, j), contentPointer(msg, j)+"/signature"
		}
		v.Predicted = at(path, predictCompactionBeta)
		report(v)
	})
}

// eachCompaction calls fn for every compaction block sent: in the request
// when there is one (turn from the pointers or -1, block -1), else in the
// turns (msg -1).
func (c Codec) eachCompaction(h *replay.History, fn func(ti, bi, msg, j int, signed bool, content string)) {
	if msgs := requestMessages(h); msgs.Exists() {
		var turnOf map[int]int
		msgs.ForEach(func(i int, _ string, m jsonw.Val) bool {
			m.Get("content").Each(func(j int, b jsonw.Val) bool {
				if !b.Get("type").Is("compaction") {
					return true
				}
				if turnOf == nil {
					turnOf = map[int]int{}
					for ti, p := range h.Pointers {
						turnOf[messageIndex(p)] = ti
					}
				}
				ti, ok := turnOf[i]
				if !ok {
					ti = -1
				}
				fn(ti, -1, i, j, b.Get("signature").Str() != "", b.Get("content").Raw())
				return true
			})
			return true
		})
		return
	}
	for ti, tu := range h.Turns {
		for bi, b := range tu.Blocks {
			if x, ok := b.(*replay.Compaction); ok && !x.Unfinished {
				fn(ti, bi, -1, -1, x.Signature.Value() != "", "")
			}
		}
	}
}

// checkCompaction: the strategy an unsigned compaction block needs, the
// order of the context-management strategies, a signed block's content,
// and the account a signed block goes to.
func (c Codec) checkCompaction(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	root := requestRoot(h)
	edits := root.Path("context_management.edits")
	compact := false
	k := 0
	edits.Each(func(_ int, e jsonw.Val) bool {
		switch e.Get("type").Str() {
		case "compact_20260112":
			compact = true
		case "clear_thinking_20251015":
			if k > 0 {
				report(replay.Violation{Turn: -1, Block: -1, Pointer: "/context_management/edits/" + strconv.Itoa(k),
					Message:   "clear_thinking_20251015 is not the first strategy in context_management.edits",
					Predicted: predictClearThinkingFirst,
					Fix:       "put the clear_thinking_20251015 strategy first in context_management.edits"})
			}
		}
		k++
		return true
	})
	// The content a captured signed compaction block's signature covers.
	signedContent := map[string]string{}
	for _, tu := range h.Turns {
		for _, b := range tu.Blocks {
			if x, ok := b.(*replay.Compaction); ok && x.Signature.Value() != "" {
				signedContent[x.Signature.Value()] = string(jsonw.String(nil, x.Content.Value()))
			}
		}
	}
	if msgs := requestMessages(h); msgs.Exists() {
		c.eachCompaction(h, func(ti, _, i, j int, signed bool, content string) {
			b := msgs.Index(i).Path("content." + strconv.Itoa(j))
			v := replay.Violation{Turn: ti, Block: -1, Pointer: contentPointer(i, j)}
			switch {
			case !signed && !compact && t.Headers != nil && hasBeta(t.Headers, betaCompactOnDemand):
				v.Message = "an unsigned compaction block is sent with the on-demand compaction beta and no compact_20260112 strategy"
				v.Predicted = at(contentPath(i, j), predictCompactionSig)
				v.Fix = "send the compaction block with its signature as captured, or add {\"type\":\"compact_20260112\"} to context_management.edits"
			case !signed && !compact:
				v.Message = "a compaction block is sent without a compact_20260112 strategy in context_management.edits"
				v.Predicted = at(contentPath(i, j), predictCompactionStrategy)
				v.Fix = "add {\"type\":\"compact_20260112\"} to context_management.edits (and the compact-2026-01-12 beta)"
			case signed:
				want, ok := signedContent[b.Get("signature").Str()]
				if !ok || sameJSONString(want, content) {
					return
				}
				v.Message = "the compaction block's content differs from the content its signature was minted over"
				v.Predicted = at(contentPath(i, j), predictCompactionMismatch)
				v.Fix = "send the compaction block exactly as captured (Encode the captured turn)"
			default:
				return
			}
			report(v)
		})
	}
	if t.Account == "" {
		return
	}
	for ti, tu := range h.Turns {
		acct := tu.Provenance.Account
		if acct == "" || acct == t.Account {
			continue
		}
		for bi, b := range tu.Blocks {
			if x, ok := b.(*replay.Compaction); ok && x.Signature.Value() != "" {
				report(replay.Violation{Turn: ti, Block: bi,
					Message: fmt.Sprintf("a signed compaction block minted by account %q is sent as %q", acct, t.Account),
					Fix:     "never send a signed compaction block to another account (Carry drops it); compact again under this account"})
			}
		}
	}
}

// sameJSONString compares two JSON string values by their unescaped text.
func sameJSONString(a, b string) bool {
	return gjson.Parse(a).String() == gjson.Parse(b).String() && gjson.Parse(a).Type == gjson.Parse(b).Type
}

// checkUnread reports Claude thinking that the target's model or account
// does not read: the API drops it without an error.
func (c Codec) checkUnread(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	if c.Format() != formats.AnthropicClaude || t.Model == "" {
		return
	}
	platform := strings.ToLower(c.Provider)
	var lastFrom, lastAcct, lastPlat, why string
	for ti, tu := range h.Turns {
		p := tu.Provenance
		if ti == 0 || p.Model != lastFrom || p.Account != lastAcct || p.Provider != lastPlat {
			lastFrom, lastAcct, lastPlat = p.Model, p.Account, p.Provider
			why = claude.Unread(p.Model, t.Model, strings.ToLower(p.Provider), p.Account, t.Account, platform)
		}
		if why == "" {
			continue
		}
		if bi := c.boundItem(tu); bi >= 0 {
			report(replay.Violation{Turn: ti, Block: bi,
				Message: why + ": the API drops the turn's thinking without an error",
				Fix:     "expect the loss, or drop the turn's thinking (Carry does: case unread-by-target); keep one model and one account per conversation"})
		}
	}
}

// checkHost: DeepSeek's `/anthropic` endpoint in thinking mode rejects an
// assistant turn without a thinking block; MiniMax's ends interleaved
// thinking when its signed blocks are stripped.
func (c Codec) checkHost(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	own := c.Format()
	if own != formats.DeepSeekAnthropic && own != formats.MiniMaxAnthropic {
		return
	}
	root := requestRoot(h)
	thinking := t.Thinking
	if tt := root.Path("thinking.type"); tt.Exists() {
		thinking = tt.Str() != "disabled"
	}
	msgs := requestMessages(h)
	switch {
	case own == formats.DeepSeekAnthropic && !thinking:
		return
	case own == formats.DeepSeekAnthropic && msgs.Exists():
		for i, n := 0, msgs.Len(); i < n; i++ {
			if m := msgs.Index(i); m.Get("role").Is("assistant") && firstThinking(m) < 0 {
				report(replay.Violation{Turn: -1, Block: -1, Pointer: "/messages/" + strconv.Itoa(i),
					Message:   "DeepSeek's /anthropic endpoint in thinking mode gets an assistant message without its thinking block",
					Predicted: predictDeepSeekThinking,
					Fix:       "send every assistant turn's captured thinking block back (Encode the captured turn); if it was lost, disable thinking for this request"})
			}
		}
	case own == formats.DeepSeekAnthropic:
		for ti, tu := range h.Turns {
			if c.boundItem(tu) < 0 {
				report(replay.Violation{Turn: ti, Block: -1,
					Message:   "DeepSeek's /anthropic endpoint in thinking mode gets an assistant turn without a thinking block",
					Predicted: predictDeepSeekThinking,
					Fix:       "send every assistant turn's captured thinking block back; if it was lost, disable thinking for this request"})
			}
		}
	case msgs.Exists() && len(h.Pointers) == len(h.Turns):
		for ti, tu := range h.Turns {
			n := messageIndex(h.Pointers[ti])
			if n >= 0 && n < msgs.Len() && c.boundItem(tu) >= 0 && firstThinking(msgs.Index(n)) < 0 {
				report(replay.Violation{Turn: ti, Block: -1, Severity: replay.SeverityDegrade, Pointer: h.Pointers[ti],
					Message: "MiniMax's signed thinking blocks are stripped from the assistant message: interleaved thinking stops",
					Fix:     "send MiniMax's thinking blocks back verbatim to MiniMax (Encode the captured turn)"})
			}
		}
	}
}

// thinkingBlock is a thinking or redacted_thinking block of a request's
// messages: where it is, and whether its message is the assistant's.
type thinkingBlock struct {
	b         jsonw.Val
	msg, j    int
	assistant bool
	redacted  bool
}

// thinkingBlocksKey names the walk thinkingBlocks memoises.
var thinkingBlocksKey = new(byte)

// thinkingBlocks returns the thinking and redacted_thinking blocks of
// every message of h's request, in order: one walk of the messages, shared
// by the rules that look at them (kit.Memo; read only).
func thinkingBlocks(h *replay.History) []thinkingBlock {
	if len(h.Request) == 0 {
		return nil
	}
	return kit.Memo(h, thinkingBlocksKey, func(root jsonw.Val) any {
		var out []thinkingBlock
		if msgs := root.Get("messages"); msgs.IsArray() {
			msgs.ForEach(func(i int, _ string, m jsonw.Val) bool {
				assistant := m.Get("role").Is("assistant")
				m.Get("content").Each(func(j int, b jsonw.Val) bool {
					switch t := b.Get("type"); {
					case t.Is("thinking"):
						out = append(out, thinkingBlock{b: b, msg: i, j: j, assistant: assistant})
					case t.Is("redacted_thinking"):
						out = append(out, thinkingBlock{b: b, msg: i, j: j, assistant: assistant, redacted: true})
					}
					return true
				})
				return true
			})
		}
		return out
	}).([]thinkingBlock)
}
