package anthropic

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
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
	// RulePrefixMismatch: a block bound to its conversation is replayed under the same prefix.
	RulePrefixMismatch = "anthropic/prefix-mismatch"
)

// Provider error texts the rules predict, as the Messages API returns them
// (after the `messages.N.content.M` path it prefixes when it knows it).
const (
	predictThinkingFirst = "Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
	predictModified      = "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response."
	predictInvalidSig    = "Invalid `signature` in `thinking` block"
	predictBound         = "Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.mismatch_behavior` to \"drop_block\"."
	predictFieldRequired = "Field required"
)

// at prefixes a predicted message with the API's location path, when known.
func at(path, msg string) string {
	if path == "" {
		return msg
	}
	return path + ": " + msg
}

// Contract returns the Anthropic replay contract and its rules.
func (Codec) Contract() replay.ReplayContract {
	return replay.ReplayContract{
		API:     API,
		ToolIDs: true,
		Accepts: []replay.Format{formats.AnthropicClaude},
		Summary: "Send every thinking and redacted_thinking block of the in-progress tool turn (the assistant " +
			"message whose tool_use the last user message answers) back unchanged, in its original position, " +
			"with its signature or data byte-exact; with manual (enabled) thinking that message must start " +
			"with a thinking or redacted_thinking block. Earlier, completed turns' thinking may be dropped " +
			"(the API filters it), but a block that is sent must be unmodified and signed by Claude. Signatures " +
			"are valid across the Anthropic API, Bedrock and Vertex; on newer models a block is bound to the " +
			"request prefix (system, tools, earlier messages) that produced it.",
		Rules: []replay.Rule{
			{ID: RuleThinkingFirst, Severity: replay.SeverityReject,
				Doc:   "With manual thinking, the in-progress tool turn starts with a thinking or redacted_thinking block.",
				Check: checkThinkingFirst},
			{ID: RuleThinkingModified, Severity: replay.SeverityReject,
				Doc:   "The thinking blocks of the latest assistant message in the request are the captured ones: none missing (in a tool turn), reordered or altered.",
				Check: checkModified},
			{ID: RuleMissingSignature, Severity: replay.SeverityReject,
				Doc:   "Every thinking block in the request has a `thinking` member and a non-empty `signature`; every redacted_thinking block has `data`.",
				Check: checkRequestSignatures},
			{ID: RuleForeignSignature, Severity: replay.SeverityReject, Covers: []string{replay.RuleForeignFormat},
				Doc:   "Signed reasoning and encrypted blobs sent to Claude were minted by Claude (format anthropic-claude-v1).",
				Check: checkForeign},
			{ID: RulePrefixMismatch, Severity: replay.SeverityReject, Covers: []string{replay.RulePrefixMismatch},
				Doc:   "On models that bind thinking blocks to their conversation, a replayed turn's prefix hash equals the request's.",
				Check: checkPrefix},
		},
	}
}

// requestMessages returns the request's messages, or nil.
func requestMessages(h *replay.History) []gjson.Result {
	if len(h.Request) == 0 || !gjson.ValidBytes(h.Request) {
		return nil
	}
	m := gjson.GetBytes(h.Request, "messages")
	if !m.IsArray() {
		return nil
	}
	return m.Array()
}

// latestAssistant returns the index of the last assistant message, and
// whether the message after it is a user message holding a tool_result
// (the tool loop is in progress).
func latestAssistant(msgs []gjson.Result) (int, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Get("role").Str != "assistant" {
			continue
		}
		loop := false
		if i+1 < len(msgs) && msgs[i+1].Get("role").Str == "user" {
			msgs[i+1].Get("content").ForEach(func(_, b gjson.Result) bool {
				loop = b.Get("type").Str == "tool_result"
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
func checkThinkingFirst(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	if !t.Thinking {
		return
	}
	last := len(h.Turns) - 1
	if msgs := requestMessages(h); msgs != nil {
		i, loop := latestAssistant(msgs)
		if i < 0 || !loop {
			return
		}
		first := msgs[i].Get("content.0.type")
		if first.Str == "thinking" || first.Str == "redacted_thinking" {
			return
		}
		found := first.Str
		if msgs[i].Get("content").Type == gjson.String {
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
			if sendable(it) {
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
func checkModified(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
	msgs := requestMessages(h)
	last := len(h.Turns) - 1
	if msgs == nil || last < 0 {
		return
	}
	i, loop := latestAssistant(msgs)
	if i < 0 {
		return
	}
	want := turnAnchors(h.Turns[last])
	type sent struct {
		anchor
		at int
	}
	var got []sent
	msgs[i].Get("content").ForEach(func(k, b gjson.Result) bool {
		switch typ := b.Get("type").Str; typ {
		case "thinking":
			got = append(got, sent{anchor{typ, b.Get("signature").Str, b.Get("thinking").Str}, int(k.Int())})
		case "redacted_thinking":
			got = append(got, sent{anchor{typ, b.Get("data").Str, ""}, int(k.Int())})
		case "tool_use":
			got = append(got, sent{anchor{typ, b.Get("id").Str, ""}, int(k.Int())})
		}
		return true
	})
	bad := func(block int, msg string) {
		report(replay.Violation{Turn: last, Block: -1, Pointer: contentPointer(i, block),
			Message:   msg,
			Predicted: at(contentPath(i, block), predictModified),
			Fix:       "send the captured thinking and redacted_thinking blocks exactly as they came, in their original order (Encode or Patch the captured turn)"})
	}
	if loop {
		for j := 0; j < len(want) || j < len(got); j++ {
			switch {
			case j >= len(got):
				bad(-1, fmt.Sprintf("the latest assistant message lacks the captured %s block %d", want[j].typ, j))
			case j >= len(want):
				bad(got[j].at, fmt.Sprintf("the latest assistant message has a %s block the captured turn does not have", got[j].typ))
			case got[j].anchor != want[j]:
				bad(got[j].at, fmt.Sprintf("the latest assistant message's %s block differs from the captured turn's %s block at this position", got[j].typ, want[j].typ))
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
		for w < len(want) && want[w] != g.anchor {
			w++
		}
		if w == len(want) {
			bad(g.at, fmt.Sprintf("the latest assistant message's %s block is not one of the captured blocks (or is out of order)", g.typ))
			return
		}
		w++
	}
}

// checkRequestSignatures looks at every thinking block of every assistant
// message in the request.
func checkRequestSignatures(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
	for i, m := range requestMessages(h) {
		if m.Get("role").Str != "assistant" {
			continue
		}
		m.Get("content").ForEach(func(k, b gjson.Result) bool {
			j := int(k.Int())
			v := replay.Violation{Turn: -1, Block: -1, Pointer: contentPointer(i, j)}
			switch b.Get("type").Str {
			case "thinking":
				sig := b.Get("signature")
				switch {
				case !b.Get("thinking").Exists():
					v.Message = "a thinking block without its thinking member (send \"thinking\": \"\" for an omitted display)"
					v.Predicted = at(contentPath(i, j)+".thinking.thinking", predictFieldRequired)
					v.Fix = "write the thinking member, empty when the text was omitted"
				case !sig.Exists():
					v.Message = "a thinking block without a signature"
					v.Predicted = at(contentPath(i, j)+".thinking.signature", predictFieldRequired)
					v.Fix = "send the captured signature, or drop the block"
				case sig.Str == "":
					v.Message = "a thinking block with an empty signature"
					v.Predicted = at(contentPath(i, j), predictInvalidSig)
					v.Fix = "drop the block: an unsigned thinking block is never accepted"
				default:
					return true
				}
			case "redacted_thinking":
				if d := b.Get("data"); d.Type == gjson.String && d.Str != "" {
					return true
				}
				v.Message = "a redacted_thinking block without data"
				v.Predicted = at(contentPath(i, j)+".redacted_thinking.data", predictFieldRequired)
				v.Fix = "send the captured data, or drop the block"
			default:
				return true
			}
			report(v)
			return true
		})
	}
}

// checkForeign flags signed text and encrypted blobs of another issuer.
func checkForeign(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
	for ti, tu := range h.Turns {
		for bi, b := range tu.Blocks {
			it, ok := b.(replay.ReasoningItem)
			if !ok || it.Meta().Format.Family() == "anthropic" {
				continue
			}
			var what string
			switch x := it.(type) {
			case *replay.ReasoningText:
				if !x.Signed() {
					continue
				}
				what = "signature"
			case *replay.Encrypted:
				what = "encrypted data"
			case *replay.Opaque:
				what = "opaque item"
			default:
				continue
			}
			f := it.Meta().Format
			if f == "" {
				f = "no format"
			}
			report(replay.Violation{Turn: ti, Block: bi,
				Message:   fmt.Sprintf("%s minted by another issuer (%s) cannot be sent to Claude", what, f),
				Predicted: predictInvalidSig,
				Fix:       "drop the item, or carry its visible text over as plain text (Carry does); never send another issuer's signature or ciphertext to Claude"})
		}
	}
}

// bindsPrefix reports whether a model checks that thinking blocks come back
// with the request prefix that produced them: Claude 5.1 and later, except
// Mythos 5.1, which records the binding without checking it. Model names
// this function cannot read are assumed to bind (later models enforce it).
func bindsPrefix(model string) bool {
	m := strings.ToLower(model)
	i := strings.Index(m, "claude-")
	if i < 0 {
		return true
	}
	major, minor, family := -1, 0, ""
	parts := strings.Split(m[i+len("claude-"):], "-")
	for k, p := range parts {
		n, err := strconv.Atoi(p)
		switch {
		case err != nil:
			if family == "" {
				family = p
			}
		case major < 0 && len(p) <= 2:
			major = n
			if k+1 < len(parts) && len(parts[k+1]) <= 2 {
				minor, _ = strconv.Atoi(parts[k+1])
			}
		}
	}
	if major < 0 {
		return true
	}
	if major != 5 {
		return major > 5
	}
	if minor == 1 && family == "mythos" {
		return false
	}
	return minor >= 1
}

// checkPrefix compares the latest turn's recorded prefix hash with the
// request's: Target.PrefixHash is the hash of the request before that turn
// (see replay.PrefixHashBefore), so earlier turns, produced under shorter
// prefixes, are not compared with it.
func checkPrefix(h *replay.History, t *replay.Target, report func(replay.Violation)) {
	if t.PrefixHash == "" || len(h.Turns) == 0 {
		return
	}
	last := len(h.Turns) - 1
	for ti, tu := range h.Turns[last:] {
		ti += last
		p := tu.Provenance.PrefixHash
		if p == "" || p == t.PrefixHash {
			continue
		}
		model := t.Model
		if model == "" {
			model = tu.Provenance.Model
		}
		if !bindsPrefix(model) {
			continue
		}
		for bi, b := range tu.Blocks {
			it, ok := b.(replay.ReasoningItem)
			if !ok || !sendable(it) {
				continue
			}
			report(replay.Violation{Turn: ti, Block: bi,
				Message:   fmt.Sprintf("the turn's thinking was produced under prefix %s but the request's prefix is %s; %s binds blocks to their conversation", p, t.PrefixHash, model),
				Predicted: predictBound,
				Fix:       "drop this turn's thinking blocks (and every later one), restore the original system prompt and tools, or set thinking.block_binding to drop_block"})
			break
		}
	}
}
