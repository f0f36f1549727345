package replayhttp_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The predicted error texts the codecs and package formats carry (grep
// "Predicted" in codecs/*/contract.go and the texts in formats/formats.go),
// each with the rule the audit reports it under.
var predicted = []struct {
	rule, text string
	fix        replayhttp.Fix
	ptr        string
}{
	// anthropic
	{"anthropic/thinking-first", "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking", replayhttp.FixRestore, "/messages/1/content/0"},
	{"anthropic/thinking-first", "Expected `thinking` or `redacted_thinking`, but found `text`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks).", replayhttp.FixRestore, ""},
	{"anthropic/thinking-modified", "messages.3.content.1: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.", replayhttp.FixRestore, "/messages/3/content/1"},
	{"anthropic/missing-signature", "messages.1.content.0.thinking.signature: Field required", replayhttp.FixDropReasoning, "/messages/1/content/0"},
	{"anthropic/missing-signature", "messages.1.content.0.thinking.thinking: Field required", replayhttp.FixDropReasoning, "/messages/1/content/0"},
	{"anthropic/missing-signature", "messages.1.content.2.redacted_thinking.data: Field required", replayhttp.FixDropReasoning, "/messages/1/content/2"},
	{"anthropic/missing-signature", "messages.1.content.0: Invalid `signature` in `thinking` block", replayhttp.FixDropReasoning, "/messages/1/content/0"},
	{"anthropic/foreign-signature", "Invalid `signature` in `thinking` block", replayhttp.FixDropReasoning, ""},
	{"anthropic/prefix-mismatch", "Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.mismatch_behavior` to \"drop_block\".", replayhttp.FixDropBlock, ""},
	{"anthropic/chain-broken", "messages.3.content.2: Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to \"drop_block\".", replayhttp.FixDropBlock, "/messages/3/content/2"},
	{"anthropic/beta-required", "thinking.block_binding: Extra inputs are not permitted", replayhttp.FixConfigure, ""},
	{"anthropic/beta-required", "messages.0.content.0: `signature` requires anthropic-beta: compact-2026-09-04", replayhttp.FixConfigure, "/messages/0/content/0"},
	{"anthropic/compaction", "messages.0.content.0: a `compaction` block with `content` requires its `signature`", replayhttp.FixRestore, "/messages/0/content/0"},
	{"anthropic/compaction", "messages.0.content.0: `compaction` block `content` does not match its `signature`", replayhttp.FixRestore, "/messages/0/content/0"},
	{"anthropic/compaction", "messages.0.content.0: `compaction` blocks require a `compact_20260112` strategy in `context_management.edits`.", replayhttp.FixConfigure, "/messages/0/content/0"},
	{"anthropic/compaction", "context_management: `clear_thinking_20251015` must be the first strategy", replayhttp.FixConfigure, ""},
	{"anthropic/host-thinking", "The `content[].thinking` in the thinking mode must be passed back to the API.", replayhttp.FixRestore, ""},
	{"openai/reasoning-content", "Invalid 'input[2].content': array too long. Expected an array with maximum length 0, but got an array with length 1 instead.", replayhttp.FixReencode, "/input/2"},
	{"openai/reasoning-status", "Unknown parameter: 'input[1].status'.", replayhttp.FixReencode, "/input/1"},
	{"openai/reasoning-summary", "Missing required parameter: 'input[1].summary'.", replayhttp.FixReencode, "/input/1"},
	{"openai/reasoning-summary", "Could not decode the compaction blob. Ensure it is unmodified from the compact response.", replayhttp.FixReencode, ""},
	{"openai/compaction-foreign", "The encrypted content for item cmp_68a1 could not be verified. Reason: Encrypted content could not be decrypted or parsed.", replayhttp.FixDropReasoning, ""},
	{"bedrock-converse/signature-field", "This model doesn't support the reasoningContent.reasoningText.signature field. Remove reasoningContent.reasoningText.signature and try again.", replayhttp.FixDropReasoning, ""},
	{"bedrock-converse/reasoning-input", "User messages cannot contain reasoning content. Please remove the reasoning content and try again.", replayhttp.FixDropReasoning, ""},
	// formats (cross-provider rules)
	{"replay/empty-signature", "Invalid signature in thinking block", replayhttp.FixDropReasoning, ""},
	{"replay/foreign-format", "messages.1.content.0: Invalid `signature` in `thinking` block", replayhttp.FixDropReasoning, "/messages/1/content/0"},
	{"replay/altered-item", "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.", replayhttp.FixRestore, ""},
	{"replay/foreign-format", "Corrupted thought signature.", replayhttp.FixDropReasoning, ""},
	{"replay/foreign-format", "The encrypted content gAAA... could not be verified. Reason: Encrypted content could not be decrypted or parsed.", replayhttp.FixDropReasoning, ""},
	{"replay/identity-mismatch", "The encrypted content gAAA... could not be verified. Reason: Encrypted content organization_id did not match the target organization.", replayhttp.FixDropReasoning, ""},
	// openai
	{"openai/reasoning-without-follower", "Item 'rs_68a1' of type 'reasoning' was provided without its required following item.", replayhttp.FixDropReasoning, ""},
	{"openai/follower-without-reasoning", "Item 'fc_68a2' of type 'function_call' was provided without its required 'reasoning' item: 'rs_68a1'.", replayhttp.FixRestore, ""},
	{"openai/store-false-without-encrypted", "Item with id 'rs_68a1' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.", replayhttp.FixRestore, ""},
	{"openai/encrypted-altered-or-foreign", "The encrypted content for item rs_68a1 could not be verified.", replayhttp.FixDropReasoning, ""},
	{"openai/encrypted-altered-or-foreign", "The encrypted content for item rs_68a1 could not be verified. Reason: Encrypted content organization_id did not match the target organization.", replayhttp.FixDropReasoning, ""},
	{"openai/foreign-format", "The encrypted content for item rs_68a1 could not be verified. Reason: Encrypted content could not be decrypted or parsed.", replayhttp.FixDropReasoning, ""},
	// openrouter
	{"openrouter/duplicate-item", "Duplicate item found with id rs_68a1. Remove duplicate items from your input and try again.", replayhttp.FixDropDuplicates, ""},
	{"openrouter/signed-reasoning-missing", "Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks).", replayhttp.FixRestore, ""},
	{"openrouter/gemini-reasoning-missing", "Gemini models require OpenRouter reasoning details to be preserved in each request. Please refer to our docs: https://openrouter.ai/docs/use-cases/reasoning-tokens#preserving-reasoning-blocks.", replayhttp.FixRestore, ""},
	// gemini
	{"gemini/missing-signature", "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:get_weather` , position 2. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", replayhttp.FixRestore, ""},
	{"gemini/missing-signature", "Unable to submit request because function call `get_weather` in the 2. content block is missing a `thought_signature`. Learn more: https://docs.cloud.google.com/vertex-ai/generative-ai/docs/thought-signatures", replayhttp.FixRestore, ""},
	{"gemini/interleaved-parallel-responses", "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:get_weather` , position 3.", replayhttp.FixRestore, ""},
	{"gemini/foreign-signature", "Corrupted thought signature.", replayhttp.FixDropReasoning, ""},
	{"gemini/encoded-sentinel", "Corrupted thought signature.", replayhttp.FixDropReasoning, ""},
	{"gemini/foreign-signature", "Unable to submit request because Thought signature is not valid.. Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/gemini", replayhttp.FixDropReasoning, ""},
	{"gemini/bad-base64", "Invalid value at 'contents[1].parts[0].thought_signature' (TYPE_BYTES), Base64 decoding failed for \"Cq-_x\"", replayhttp.FixRestore, "/contents/1/parts/0"},
	{"gemini/bad-base64", "Invalid value at 'contents[?].parts[?].thought_signature' (TYPE_BYTES), Base64 decoding failed for \"Cq-_x\"", replayhttp.FixRestore, ""},
	// chat-completions hosts
	{"deepseek/reasoning-content-forbidden", "400 (DeepSeek documents a 400 for reasoning_content in input; exact text unconfirmed)", replayhttp.FixRemoveReasoningContent, ""},
	{"deepseek/reasoning-content-missing", "Missing `reasoning_content` field in the assistant message at message index 3. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls", replayhttp.FixBackfillReasoningContent, "/messages/3"},
	{"deepseek/reasoning-content-missing", "The `reasoning_content` in the thinking mode must be passed back to the API.", replayhttp.FixBackfillReasoningContent, ""},
	{"deepseek/reasoning-content-null", "The `reasoning_content` in the thinking mode must be passed back to the API.", replayhttp.FixBackfillReasoningContent, ""},
	{"kimi/reasoning-content-missing", "thinking is enabled but reasoning_content is missing in assistant tool call message at index 2", replayhttp.FixBackfillReasoningContent, "/messages/2"},
	// bedrock converse
	{"bedrock-converse/thinking-first", "ValidationException: The model returned the following errors: messages.N.content.0.type: Expected `thinking` or `redacted_thinking`, but found `toolUse`. When `thinking` is enabled, a final `assistant` message must start with a thinking block", replayhttp.FixRestore, ""},
	{"bedrock-converse/claude-signature", "ValidationException: The model returned the following errors: messages.N.content.1.thinking.signature: Field required", replayhttp.FixDropReasoning, ""},
	{"bedrock-converse/foreign-signature", "ValidationException: The model returned the following errors: messages.N.content.0: Invalid signature in thinking block", replayhttp.FixDropReasoning, ""},
	{"bedrock-converse/empty-content", "The content field in the Message object at messages.N is empty. Add a ContentBlock object to the content field and try again.", replayhttp.FixDropReasoning, ""},
	{"bedrock-converse/reasoning-only", "This model does not support assistant message prefill. The conversation must end with a user message.", replayhttp.FixDropReasoning, ""},
}

// predicted2026 are the texts of the wire as of late November 2026
// (wire-2026-11.md), each with the rule whose symptom it is.
var predicted2026 = []struct {
	rule, text string
	fix        replayhttp.Fix
	ptr        string
}{
	// anthropic
	{"anthropic/block-order", "messages.51.content.0: If an assistant message contains any thinking blocks, the first block must be `thinking` or `redacted_thinking`. Found `text`.", replayhttp.FixRestore, "/messages/51/content/0"},
	{"anthropic/block-order", "messages.1: The final block in an assistant message cannot be `thinking`.", replayhttp.FixDropReasoning, "/messages/1"},
	{"anthropic/thinking-modified", "messages.3.content.0.thinking: each thinking block must contain non-whitespace thinking", replayhttp.FixRestore, "/messages/3/content/0"},
	{"anthropic/thinking-modified", "messages.215.content.0.thinking: each thinking block must contain thinking", replayhttp.FixRestore, "/messages/215/content/0"},
	{"anthropic/foreign-signature", "messages.1.content.0: Input to `thinking.signature` doesn't match the expected value for this `thinking` block", replayhttp.FixDropReasoning, "/messages/1/content/0"},
	{"anthropic/thinking-modified", "messages.1.content.0: Input to `thinking.signature` doesn't match the expected value for this `thinking` block", replayhttp.FixDropReasoning, "/messages/1/content/0"},
	{"anthropic/block-members", "messages.5.content.0.thinking.cache_control: Extra inputs are not permitted", replayhttp.FixReencode, "/messages/5/content/0"},
	{"anthropic/system-position", "messages.4: role 'system' must precede an 'assistant' message or end the array", replayhttp.FixNone, "/messages/4"},
	{"anthropic/thinking-type", "\"thinking.type.disabled\" is not supported for this model. Use \"thinking.type.adaptive\" and \"output_config.effort\" to control thinking behavior.", replayhttp.FixConfigure, ""},
	{"anthropic/thinking-type", "\"thinking.type.enabled\" is not supported for this model. Use \"thinking.type.adaptive\" and \"output_config.effort\"", replayhttp.FixConfigure, ""},
	{"anthropic/beta-required", "thinking.adaptive.block_binding.prefix_mismatch_behavior: Extra inputs are not permitted", replayhttp.FixConfigure, ""},
	{"anthropic/beta-required", "thinking.enabled.block_binding.prefix_mismatch_behavior: Extra inputs are not permitted", replayhttp.FixConfigure, ""},
	{"anthropic/prefix-mismatch", "messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to \"drop_block\". That setting requires the `thinking-binding-controls-2026-08-01` value in the `anthropic-beta` header. Content before this block differs from when it was created, first at `messages.0.content.0`.", replayhttp.FixDropBlock, "/messages/1/content/0"},
	{"anthropic/client-version", "Claude Code 2.1.236 does not support this model; version 2.1.251 or newer is required. Run 'claude update', or update the Claude desktop app, then try again.", replayhttp.FixNone, ""},
	// bedrock converse
	{"bedrock-converse/block-order", "ValidationException: The model returned the following errors: messages.1.content.0: If an assistant message contains any thinking blocks, the first block must be `thinking` or `redacted_thinking`. Found `text`.", replayhttp.FixRestore, "/messages/1/content/0"},
	{"bedrock-converse/reasoning-members", "1 validation error detected: Value at 'messages.1.member.content.0.member.reasoningContent.reasoningText.text' failed to satisfy constraint: Member must not be null", replayhttp.FixDropReasoning, "/messages/1"},
	{"bedrock-converse/reasoning-only", "This model does not support assistant message prefill. The conversation must end with a user message.", replayhttp.FixDropReasoning, ""},
	// openai responses and hosts
	{"openai/encrypted-altered-or-foreign", "reasoning `encrypted_content` was not issued to this caller", replayhttp.FixDropReasoning, ""},
	{"replay/identity-mismatch", "reasoning `encrypted_content` was not issued to this caller", replayhttp.FixDropReasoning, ""},
	{"openai/foreign-format", "encrypted content missing recognized prefix (expected `rsn_` or `smry_`)", replayhttp.FixDropReasoning, ""},
	{"openai/encrypted-altered-or-foreign", "Invalid type for 'input[6].encrypted_content': expected a string, but got an object instead.", replayhttp.FixDropReasoning, "/input/6"},
	{"openai/encrypted-altered-or-foreign", "Could not decrypt the provided encrypted_content. Ensure the value is the unmodified encrypted_content from a previous response.", replayhttp.FixDropReasoning, ""},
	{"openai/foreign-format", "Could not decrypt the provided encrypted_content. Ensure the value is the unmodified encrypted_content from a previous response.", replayhttp.FixDropReasoning, ""},
	{"openai/follower-without-reasoning", "Item 'msg_0a1b' of type 'message' was provided without its required 'reasoning' item", replayhttp.FixRestore, ""},
	{"openai/reasoning-without-follower", "Item 'rs_01' of type 'reasoning' was provided without its required following item.", replayhttp.FixDropReasoning, ""},
	{"openai/reasoning-effort", "Unsupported value: 'minimal' is not supported with the 'gpt-5.6-luna' model. Supported values are: 'none', 'low', 'medium', 'high', 'xhigh', and 'max'.", replayhttp.FixConfigure, ""},
	{"openai/route-refuses-reasoning", "Invalid request content: Each message must have at least one content element.", replayhttp.FixDropReasoning, ""},
	// gemini
	{"gemini/missing-signature", "Unable to submit request because function call `bash` in the 2. content block is missing a `thought_signature`.", replayhttp.FixRestore, ""},
	{"gemini/foreign-signature", "Corrupted thought signature.", replayhttp.FixDropReasoning, ""},
	// chat hosts
	{"deepseek/thinking-content-part", "Failed to deserialize the JSON body into the target type: messages[2]: unknown variant `thinking`, expected `text` at line 1 column 812", replayhttp.FixReencode, "/messages/2"},
	{"deepseek/reasoning-content-missing", "The `reasoning_content` in the thinking mode must be passed back to the API.", replayhttp.FixBackfillReasoningContent, ""},
	{"kimi/reasoning-content-missing", "thinking is enabled but reasoning_content is missing in assistant tool call message at index 2", replayhttp.FixBackfillReasoningContent, "/messages/2"},
	{"kimi/thinking-required", "invalid thinking: only type=enabled is allowed for this model", replayhttp.FixConfigure, ""},
}

// envelopes wrap a message the way each API's error body carries it.
var envelopes = map[string]func(msg string) string{
	"anthropic": func(m string) string {
		return `{"type":"error","error":{"type":"invalid_request_error","message":` + q(m) + `}}`
	},
	"openai": func(m string) string {
		return `{"error":{"message":` + q(m) + `,"type":"invalid_request_error","param":"input","code":null}}`
	},
	"gemini": func(m string) string {
		return `{"error":{"code":400,"message":` + q(m) + `,"status":"INVALID_ARGUMENT"}}`
	},
	"openrouter-relay": func(m string) string {
		return `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":` + q(`{"error":{"message":`+q(m)+`}}`) + `,"provider_name":"Upstream"}}}`
	},
	"bedrock": func(m string) string { return `{"message":` + q(m) + `}` },
	"plain":   func(m string) string { return m },
}

func q(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestClassifyEveryPredictedText(t *testing.T) {
	hits, rows := 0, 0
	for _, tc := range append(predicted[:len(predicted):len(predicted)], predicted2026...) {
		for _, wrap := range envelopes {
			rows++
			c := replayhttp.Classify(400, []byte(wrap(tc.text)))
			if c.Known() && slices.Contains(c.Rules, tc.rule) && c.Fix == tc.fix && c.Pointer == tc.ptr && c.Message == tc.text {
				hits++
			}
		}
	}
	t.Logf("classify table: %d of %d rows (texts in envelopes) named right", hits, rows)
	for _, tc := range append(predicted[:len(predicted):len(predicted)], predicted2026...) {
		for name, wrap := range envelopes {
			c := replayhttp.Classify(400, []byte(wrap(tc.text)))
			require.True(t, c.Known(), "%s in %s: %q", tc.rule, name, tc.text)
			assert.Contains(t, c.Rules, tc.rule, "%s in %s", tc.text, name)
			assert.Equal(t, c.Rules[0], c.Rule)
			assert.Equal(t, tc.fix, c.Fix, "%s in %s", tc.rule, name)
			assert.Equal(t, tc.ptr, c.Pointer, "%s in %s", tc.rule, name)
			assert.Equal(t, tc.text, c.Message, "%s in %s", tc.rule, name)
		}
	}
}

// Every rule with a predicted text is covered by the table.
func TestClassifyTableCoversEveryRule(t *testing.T) {
	have := map[string]bool{}
	for _, tc := range append(predicted[:len(predicted):len(predicted)], predicted2026...) {
		have[tc.rule] = true
	}
	all := contracts(t, replay.Default())
	named := map[string]bool{}
	for _, rcs := range all {
		for _, rc := range rcs {
			for _, r := range rc.Rules {
				for _, s := range r.Symptoms {
					named[r.ID] = true
					for _, id := range s.Also {
						named[id] = true
					}
				}
			}
		}
	}
	for api, rcs := range all {
		for _, rc := range rcs {
			for _, r := range rc.Rules {
				if r.Severity != replay.SeverityReject || noText[r.ID] {
					continue
				}
				assert.True(t, have[r.ID], "%s: rule %s has no predicted text in the table", api, r.ID)
				assert.True(t, named[r.ID], "%s: rule %s is named by no symptom", api, r.ID)
			}
		}
	}
}

// noText are rejecting rules whose violations carry no predicted text.
var noText = map[string]bool{}

// The audit's own predictions, on requests broken the way agents break
// them, classify back to the rule that predicted them.
func TestClassifyAuditPredictions(t *testing.T) {
	requests := map[string]string{
		"anthropic": anthropicFollowUp(`{"role":"assistant","content":[{"type":"text","text":"Let me check."},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}]}`, "toolu_1"),
		"openai-responses": `{"model":"gpt-5","store":false,"input":[{"role":"user","content":"hi"},` +
			`{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAA"},{"type":"function_call_output","call_id":"c","output":"x"}]}`,
		"gemini": `{"model":"gemini-3-pro-preview","contents":[{"role":"user","parts":[{"text":"hi"}]},` +
			`{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{}}}]}]}`,
		"deepseek": `{"model":"deepseek-chat","tools":[{"type":"function","function":{"name":"f"}}],"messages":[{"role":"user","content":"hi"},` +
			`{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"x"}]}`,
		"openrouter": `{"model":"anthropic/claude-sonnet-4.5","messages":[{"role":"user","content":"hi"},` +
			`{"role":"assistant","content":"a","reasoning_details":[{"type":"reasoning.encrypted","data":"x","id":"rs_9","format":"openai-responses-v1","index":0}]},{"role":"user","content":"b"},` +
			`{"role":"assistant","content":"c","reasoning_details":[{"type":"reasoning.encrypted","data":"x","id":"rs_9","format":"openai-responses-v1","index":0}]}]}`,
	}
	seen := 0
	for api, body := range requests {
		rep, err := replay.AuditRequest(api, []byte(body))
		require.NoError(t, err, api)
		for _, v := range rep.Violations {
			if v.Predicted == "" {
				continue
			}
			seen++
			c := replayhttp.Classify(400, []byte(envelopes["openai"](v.Predicted)))
			assert.Contains(t, c.Rules, v.Rule, "%s: %q", api, v.Predicted)
		}
	}
	assert.GreaterOrEqual(t, seen, 4, "the broken requests produced predictions")
}

func TestClassifyUnknownAndSuccess(t *testing.T) {
	c := replayhttp.Classify(429, []byte(`{"error":{"message":"Rate limit reached"}}`))
	assert.False(t, c.Known())
	assert.Equal(t, "Rate limit reached", c.Message)
	assert.Equal(t, replayhttp.Classification{}, replayhttp.Classify(200, []byte(`{"ok":true}`)))
	c = replayhttp.Classify(400, []byte(strings.Repeat("x", 10)))
	assert.False(t, c.Known())
	assert.Equal(t, "xxxxxxxxxx", c.Message)
	assert.Equal(t, "rs_68a1", replayhttp.Classify(400, []byte(fmt.Sprintf(`{"error":{"message":%s}}`, q("Item 'rs_68a1' of type 'reasoning' was provided without its required following item.")))).Item)
	c = replayhttp.Classify(400, []byte(fmt.Sprintf(`{"error":{"message":%s}}`, q("Duplicate item found with id rs_68a1. Remove duplicate items from your input and try again."))))
	assert.Equal(t, "rs_68a1", c.Item)
	assert.Equal(t, "openrouter/duplicate-item", c.Rule)
}

// The Claude Code version gate is known, and not a replay error: no rule of
// the reasoning owns it, and no fix touches the reasoning.
func TestClassifyVersionGateIsNotAReplayError(t *testing.T) {
	body := `{"type":"error","error":{"type":"invalid_request_error","message":"Claude Code 2.1.236 does not support this model; version 2.1.251 or newer is required. Run 'claude update', or update the Claude desktop app, then try again.","details":{"error_code":"claude_code_version_too_old"}}}`
	c := replayhttp.Classify(400, []byte(body))
	assert.Equal(t, "anthropic/client-version", c.Rule)
	assert.Equal(t, []string{"anthropic/client-version"}, c.Rules)
	assert.Equal(t, replayhttp.FixNone, c.Fix)
}

// contracts returns every contract a registry's codecs declare, every
// variant of a codec whose contract depends on the provider or model.
func contracts(t *testing.T, reg *replay.Registry) map[string][]replay.ReplayContract {
	out := map[string][]replay.ReplayContract{}
	for _, api := range reg.APIs() {
		c, err := reg.Lookup(api, "", "")
		require.NoError(t, err)
		if l, ok := c.(interface {
			Contracts() []replay.ReplayContract
		}); ok {
			out[api] = l.Contracts()
			continue
		}
		out[api] = []replay.ReplayContract{c.Contract()}
	}
	return out
}

// Every symptom a registered rule declares compiles, names a repair this
// package knows, and names in Also only rules that exist.
func TestSymptomCatalogue(t *testing.T) {
	known := map[string]bool{replay.RuleForeignFormat: true, replay.RuleIdentityMismatch: true,
		replay.RuleAlteredItem: true, replay.RuleToolCallID: true}
	for _, id := range []string{replay.RuleIncompleteTurn, replay.RuleUnfinishedItem, replay.RuleEmptySignature} {
		known[id] = true
	}
	all := contracts(t, replay.Default())
	for _, rcs := range all {
		for _, rc := range rcs {
			for _, r := range rc.Rules {
				known[r.ID] = true
			}
		}
	}
	fixes := map[string]bool{"": true}
	for _, f := range codecs.FixNames() {
		fixes[f] = true
	}
	n := 0
	for api, rcs := range all {
		for _, rc := range rcs {
			for _, r := range rc.Rules {
				for _, s := range r.Symptoms {
					n++
					_, err := regexp.Compile("(?i)" + s.Match)
					assert.NoError(t, err, "%s %s", api, r.ID)
					assert.NotEmpty(t, s.Match, "%s %s", api, r.ID)
					if s.Within != "" {
						_, err := regexp.Compile("(?i)" + s.Within)
						assert.NoError(t, err, "%s %s", api, r.ID)
					}
					assert.True(t, fixes[s.Fix], "%s %s: unknown fix %q", api, r.ID, s.Fix)
					for _, id := range s.Also {
						assert.True(t, known[id], "%s %s: Also names %q, which no contract declares", api, r.ID, id)
					}
				}
			}
		}
	}
	assert.GreaterOrEqual(t, n, 30)
}

// toy is a codec whose contract is the one a test gives it.
type toy struct {
	replay.ReasoningCodec
	api   string
	rules []replay.Rule
}

func (c toy) API() string { return c.api }
func (c toy) Contract() replay.ReplayContract {
	return replay.ReplayContract{API: c.api, Rules: c.rules}
}

func toyRegistry(t *testing.T, codecs ...toy) *replay.Registry {
	reg := &replay.Registry{}
	base, err := replay.Lookup("anthropic", "", "")
	require.NoError(t, err)
	for _, c := range codecs {
		c := c
		c.ReasoningCodec = base
		require.NoError(t, reg.Register(replay.Entry{API: c.api, New: func(string, string) replay.ReasoningCodec { return c }}))
	}
	return reg
}

func rule(id string, s ...replay.Symptom) replay.Rule {
	return replay.Rule{ID: id, Severity: replay.SeverityReject, Symptoms: s,
		Check: func(*replay.History, *replay.Target, func(replay.Violation)) {}}
}

// ClassifyWith reads the rules of the registry it is given: a text only a
// toy codec declares is known there and nowhere else.
func TestClassifyWithRegistry(t *testing.T) {
	reg := toyRegistry(t, toy{api: "toy", rules: []replay.Rule{
		rule("toy/quill", replay.Symptom{Match: `the quill (is|was) (blunt|broken)`, Fix: "restore", Also: []string{"toy/ink"}}),
		rule("toy/ink"),
	}})
	body := []byte(`{"error":{"message":"messages.4.content.1: the quill was broken"}}`)
	assert.False(t, replayhttp.Classify(400, body).Known())
	c := replayhttp.ClassifyWith(reg, "", 400, body)
	assert.Equal(t, replayhttp.Classification{Rule: "toy/quill", Rules: []string{"toy/quill", "toy/ink"},
		Pointer: "/messages/4/content/1", Fix: replayhttp.FixRestore, Message: "messages.4.content.1: the quill was broken"}, c)
	assert.False(t, replayhttp.ClassifyWith(reg, "", 400, []byte(`{"error":{"message":"the quill is sharp"}}`)).Known())

	// A symptom whose Also names its own rule puts it where Also says.
	reg = toyRegistry(t, toy{api: "toy", rules: []replay.Rule{
		rule("toy/ink", replay.Symptom{Match: `the ink is dry`, Fix: "configure", Also: []string{"toy/pot", "toy/ink"}}),
	}})
	c = replayhttp.ClassifyWith(reg, "", 400, []byte(`{"error":{"message":"the ink is dry"}}`))
	assert.Equal(t, []string{"toy/pot", "toy/ink"}, c.Rules)
	assert.Equal(t, "toy/pot", c.Rule)
}

// Ranks, envelopes and the API hint decide between symptoms whose texts
// overlap.
func TestClassifyPrecedence(t *testing.T) {
	reg := toyRegistry(t,
		toy{api: "alpha", rules: []replay.Rule{
			rule("alpha/general", replay.Symptom{Match: `cannot read the block`, Fix: "drop-reasoning"}),
			rule("alpha/specific", replay.Symptom{Match: `cannot read the block\. reason: wrong owner`, Fix: "drop-block", Rank: 1}),
		}},
		toy{api: "beta", rules: []replay.Rule{
			rule("beta/wrapped", replay.Symptom{Match: `cannot read the block`, Fix: "restore", Within: `"beta_envelope"`}),
		}},
		toy{api: "gamma", rules: []replay.Rule{
			rule("gamma/same", replay.Symptom{Match: `cannot read the block`, Fix: "configure"}),
		}},
	)
	plain := []byte(`{"error":{"message":"Cannot read the block."}}`)
	c := replayhttp.ClassifyWith(reg, "", 400, plain)
	assert.Equal(t, []string{"alpha/general", "gamma/same"}, c.Rules, "plain: every unwrapped symptom of the rank, in registry order")
	assert.Equal(t, replayhttp.FixDropReasoning, c.Fix)

	c = replayhttp.ClassifyWith(reg, "", 400, []byte(`{"error":{"message":"Cannot read the block. Reason: wrong owner."}}`))
	assert.Equal(t, []string{"alpha/specific"}, c.Rules, "the higher rank first")
	assert.Equal(t, replayhttp.FixDropBlock, c.Fix)

	c = replayhttp.ClassifyWith(reg, "", 400, []byte(`{"beta_envelope":true,"message":"Cannot read the block."}`))
	assert.Equal(t, []string{"beta/wrapped"}, c.Rules, "the envelope's owner")
	assert.Equal(t, replayhttp.FixRestore, c.Fix)

	c = replayhttp.ClassifyWith(reg, "gamma", 400, plain)
	assert.Equal(t, []string{"gamma/same"}, c.Rules, "the hinted API")
	c = replayhttp.ClassifyWith(reg, "beta", 400, plain)
	assert.Equal(t, []string{"beta/wrapped"}, c.Rules, "the hinted API's envelope is taken as present")
	c = replayhttp.ClassifyWith(reg, "beta", 400, []byte(`{"error":{"message":"Cannot read the block. Reason: wrong owner."}}`))
	assert.Equal(t, []string{"alpha/specific"}, c.Rules, "rank before the hint")
}

// classify.go reads error bodies by the rules' symptoms alone: no string
// in its code names an API or a provider.
func TestClassifyNamesNoProvider(t *testing.T) {
	names := append(replay.Default().APIs(), "anthropic", "bedrock", "vertex", "gemini", "google", "openai", "azure",
		"claude", "deepseek", "kimi", "moonshot", "xai", "grok", "openrouter", "mistral", "cohere", "minimax")
	f, err := parser.ParseFile(token.NewFileSet(), "classify.go", nil, 0)
	require.NoError(t, err)
	lits := 0
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		lits++
		for _, name := range names {
			assert.NotContains(t, strings.ToLower(lit.Value), strings.ToLower(name), "classify.go: %s", lit.Value)
		}
		return true
	})
	assert.Greater(t, lits, 5)
}
