package replayhttp

import (
	"regexp"
	"strings"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
)

// Fix names the one-shot repair of a request that a provider rejected.
type Fix string

// The fixes [Classify] proposes. FixRestore is what a [Transport] with a
// [Store] does to the next request by itself; the others are edits of the
// request body for the caller's one retry.
const (
	// FixNone: no mechanical repair is known; the request must be rebuilt.
	FixNone Fix = ""
	// FixRestore: put back the captured reasoning, byte for byte, where the
	// request lost or changed it (repair from the Store).
	FixRestore Fix = "restore"
	// FixDropReasoning: remove the reasoning from the assistant messages
	// (Anthropic thinking blocks, OpenAI reasoning items, Gemini thought
	// parts and signatures, reasoning_details), as gateways do when a
	// signature or ciphertext is refused.
	FixDropReasoning Fix = "drop-reasoning"
	// FixDropBlock: ask Anthropic to drop a thinking block bound to another
	// conversation (`thinking.block_binding.prefix_mismatch_behavior:
	// "drop_block"`, with the beta header it requires).
	FixDropBlock Fix = "drop-block"
	// FixSentinel: write Gemini's documented skip value as the signature of
	// each model step's first function call that has none.
	FixSentinel Fix = "sentinel"
	// FixBackfillReasoningContent: send `reasoning_content` ("" where the
	// turn had none) on every assistant message that lacks it.
	FixBackfillReasoningContent Fix = "backfill-reasoning-content"
	// FixRemoveReasoningContent: remove `reasoning_content` from the
	// assistant messages (DeepSeek R1).
	FixRemoveReasoningContent Fix = "remove-reasoning-content"
	// FixDropDuplicates: send each reasoning_details item once.
	FixDropDuplicates Fix = "drop-duplicates"
	// FixReencode writes the offending item as its codec encodes it,
	// leaving out the members the API refuses on input (an OpenAI reasoning
	// item's content or status) and adding the ones it requires (summary).
	FixReencode Fix = "reencode"
	// FixConfigure changes the request's settings rather than its
	// history: a beta header the feature needs, a compaction strategy, the
	// order of context-management strategies.
	FixConfigure Fix = "configure"
)

// Classification is what [Classify] makes of a provider's error response.
type Classification struct {
	// Rule is the audit rule id the error is the symptom of ("" when the
	// error is not one the audit predicts).
	Rule string
	// Rules are every rule id whose predicted error reads like this one,
	// Rule first: some providers answer several mistakes with one text.
	Rules []string
	// Pointer is a JSON Pointer into the request, when the error names a
	// place ("/messages/1/content/0", "/contents/2/parts/0").
	Pointer string
	// Item is the item id the error names (an OpenAI `rs_...`), if any.
	Item string
	// Fix is the one-shot repair.
	Fix Fix
	// Message is the provider's error message that was read.
	Message string
}

// Known reports whether the error was recognised.
func (c Classification) Known() bool { return c.Rule != "" }

type errorPattern struct {
	re    *regexp.Regexp
	rules []string
	fix   Fix
	// bedrock: the rule ids when the text comes wrapped by Bedrock.
	bedrock []string
}

func pat(expr string, fix Fix, rules ...string) errorPattern {
	return errorPattern{re: regexp.MustCompile(expr), rules: rules, fix: fix}
}

// patterns are tried in order: the most specific text first.
var patterns = []errorPattern{
	pat("(?i)block is bound to a different conversation", FixDropBlock, "anthropic/prefix-mismatch", "anthropic/chain-broken"),
	pat("(?i)block_binding[^a-z]*extra inputs are not permitted|requires anthropic-beta: compact-2026-09-04", FixConfigure, "anthropic/beta-required"),
	pat("(?i)compaction.? block with .?content.? requires its .?signature|compaction.? block .?content.? does not match its .?signature", FixRestore, "anthropic/compaction"),
	pat("(?i)compaction.? blocks require a .?compact_20260112.? strategy|clear_thinking_20251015.? must be the first strategy", FixConfigure, "anthropic/compaction"),
	pat("(?i)the .?content\\[\\]\\.thinking.? in the thinking mode must be passed back", FixRestore, "anthropic/host-thinking"),
	pat("(?i)'input\\[\\d+\\]\\.content': array too long", FixReencode, "openai/reasoning-content"),
	pat("(?i)unknown parameter: 'input\\[\\d+\\]\\.status'", FixReencode, "openai/reasoning-status"),
	pat("(?i)missing required parameter: 'input\\[\\d+\\]\\.summary'|could not decode the compaction blob", FixReencode, "openai/reasoning-summary"),
	pat("(?i)encrypted content for item cmp_\\S* could not be verified", FixDropReasoning, "openai/compaction-foreign"),
	pat("(?i)doesn't support the reasoningContent\\.reasoningText\\.signature field", FixDropReasoning, "bedrock-converse/signature-field"),
	pat("(?i)user messages cannot contain reasoning content", FixDropReasoning, "bedrock-converse/reasoning-input"),
	pat("(?i)blocks in the latest assistant message cannot be modified", FixRestore, "anthropic/thinking-modified", "replay/altered-item"),
	{re: regexp.MustCompile("(?i)expected .?thinking.? or .?redacted_thinking.?, but found"), fix: FixRestore,
		rules: []string{"anthropic/thinking-first", "openrouter/signed-reasoning-missing"}, bedrock: []string{"bedrock-converse/thinking-first"}},
	{re: regexp.MustCompile("(?i)thinking\\.signature: field required"), fix: FixDropReasoning,
		rules: []string{"anthropic/missing-signature"}, bedrock: []string{"bedrock-converse/claude-signature"}},
	pat("(?i)(thinking\\.thinking|redacted_thinking\\.data)[^a-z]*field required", FixDropReasoning, "anthropic/missing-signature"),
	{re: regexp.MustCompile("(?i)invalid .?signature.? in .?thinking.? block"), fix: FixDropReasoning,
		rules:   []string{"anthropic/foreign-signature", "anthropic/missing-signature", "replay/foreign-format", "replay/empty-signature"},
		bedrock: []string{"bedrock-converse/foreign-signature", "replay/foreign-format", "replay/empty-signature"}},
	pat("(?i)of type 'reasoning' was provided without its required following item", FixDropReasoning, "openai/reasoning-without-follower"),
	pat("(?i)was provided without its required 'reasoning' item", FixRestore, "openai/follower-without-reasoning"),
	pat("(?i)not found\\. items are not persisted when .?store.? is set to false", FixRestore, "openai/store-false-without-encrypted"),
	pat("(?i)organization_id did not match", FixDropReasoning, "replay/identity-mismatch", "openai/encrypted-altered-or-foreign"),
	pat("(?i)encrypted content .*could not be (verified|decrypted)", FixDropReasoning, "openai/encrypted-altered-or-foreign", "openai/foreign-format", "replay/foreign-format"),
	pat("(?i)duplicate item found with id", FixDropDuplicates, "openrouter/duplicate-item"),
	pat("(?i)require openrouter reasoning details to be preserved", FixRestore, "openrouter/gemini-reasoning-missing"),
	pat("(?i)missing a .?thought_signature", FixRestore, "gemini/missing-signature", "gemini/interleaved-parallel-responses"),
	pat("(?i)corrupted thought signature|thought signature is not valid", FixDropReasoning, "gemini/foreign-signature", "gemini/encoded-sentinel", "replay/foreign-format"),
	pat("(?i)thought_signature' \\(TYPE_BYTES\\), base64 decoding failed", FixRestore, "gemini/bad-base64"),
	pat("(?i)missing .?reasoning_content.? field", FixBackfillReasoningContent, "deepseek/reasoning-content-missing"),
	pat("(?i)the .?reasoning_content.? in the thinking mode must be passed back", FixBackfillReasoningContent, "deepseek/reasoning-content-missing", "deepseek/reasoning-content-null"),
	pat("(?i)reasoning_content is missing in assistant tool call message", FixBackfillReasoningContent, "kimi/reasoning-content-missing"),
	pat("(?i)reasoning_content in input|reasoning_content.*(not (be )?(supported|allowed|permitted)|should not)", FixRemoveReasoningContent, "deepseek/reasoning-content-forbidden"),
	pat("(?i)the content field in the message object at messages\\.\\S+ is empty", FixDropReasoning, "bedrock-converse/empty-content"),
	pat("(?i)does not support assistant message prefill", FixDropReasoning, "bedrock-converse/reasoning-only"),
}

var (
	reMessagesAt = regexp.MustCompile(`messages\.(\d+)(?:\.content\.(\d+))?`)
	reIndex      = regexp.MustCompile(`(?i)(?:message index|message at index|at index) (\d+)`)
	reContents   = regexp.MustCompile(`contents\[(\d+)\]\.parts\[(\d+)\]`)
	reInput      = regexp.MustCompile(`'input\[(\d+)\]`)
	reItem       = regexp.MustCompile(`(?i)item (?:with id )?'?((?:rs|fc|msg)_[A-Za-z0-9_-]+)`)
)

// Classify reads a provider's error response (the status and the body,
// of any API this module knows, or of a gateway relaying one) and says
// which audit rule it is the symptom of, where, and the one-shot repair
// that fixes it, so that a caller can retry once and remember the decision
// for the conversation. An error it does not recognise gives a
// Classification with an empty Rule.
func Classify(status int, body []byte) Classification {
	if status != 0 && status < 400 {
		return Classification{}
	}
	texts := errorTexts(body)
	for _, msg := range texts {
		for _, p := range patterns {
			if !p.re.MatchString(msg) {
				continue
			}
			rules := p.rules
			if p.bedrock != nil && isBedrock(msg, body) {
				rules = p.bedrock
			}
			c := Classification{Rule: rules[0], Rules: append([]string(nil), rules...), Fix: p.fix, Message: msg}
			c.Pointer, c.Item = locate(msg)
			return c
		}
	}
	if len(texts) > 0 {
		return Classification{Message: texts[0]}
	}
	return Classification{}
}

func isBedrock(msg string, body []byte) bool {
	return strings.Contains(msg, "ValidationException") || strings.Contains(msg, "The model returned the following errors") ||
		gjson.GetBytes(body, "__type").Exists()
}

// errorTexts returns the messages an error body holds, the most specific
// first: a gateway's relayed upstream error, the error's message, the
// body's message, and the body itself.
func errorTexts(body []byte) []string {
	var out []string
	if !jsonw.ValidBytes(body) {
		return append(out, string(body))
	}
	root := gjson.ParseBytes(body)
	if root.IsArray() { // Gemini streams errors in an array
		root = root.Get("0")
	}
	raw := root.Get("error.metadata.raw")
	if raw.Exists() {
		s := raw.String()
		if jsonw.Valid(s) {
			out = append(out, errorTexts([]byte(s))...)
		} else {
			out = append(out, s)
		}
	}
	for _, p := range []string{"error.message", "message", "Message", "detail", "error"} {
		if v := root.Get(p); v.Type == gjson.String && v.Str != "" {
			out = append(out, v.Str)
		}
	}
	return append(out, string(body))
}

// locate reads the place and the item an error message names.
func locate(msg string) (ptr, item string) {
	if m := reContents.FindStringSubmatch(msg); m != nil {
		ptr = "/contents/" + m[1] + "/parts/" + m[2]
	} else if m := reMessagesAt.FindStringSubmatch(msg); m != nil {
		ptr = "/messages/" + m[1]
		if m[2] != "" {
			ptr += "/content/" + m[2]
		}
	} else if m := reIndex.FindStringSubmatch(msg); m != nil {
		ptr = "/messages/" + m[1]
	} else if m := reInput.FindStringSubmatch(msg); m != nil {
		ptr = "/input/" + m[1]
	}
	if m := reItem.FindStringSubmatch(msg); m != nil {
		item = m[1]
	}
	return ptr, item
}
