package all_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/stretchr/testify/require"
)

// The cases of the wire as of late November 2026 (research note
// wire-2026-11.md): each fact and each class of miss the measurements
// found, broken and valid. The requests are written here from the
// documented shapes.

// anthWith is a Messages request with the given thinking configuration, a
// tool, and each assistant message followed by its tool result.
func anthWith(model, think string, assistant ...string) string {
	msgs := []string{anthUser}
	for _, a := range assistant {
		msgs = append(msgs, a, anthResult)
	}
	if think != "" {
		think = `"thinking":` + think + `,`
	}
	return `{"model":"` + model + `","max_tokens":4096,` + think + anthTools + `"messages":[` + strings.Join(msgs, ",") + `]}`
}

const adaptive = `{"type":"adaptive"}`

// claudeTurn decodes a Messages response of model with the given content
// blocks: the turn a store captured.
func claudeTurn(t testing.TB, provider, model string, blocks ...string) *replay.Turn {
	body := `{"id":"msg_01","type":"message","role":"assistant","model":"` + model + `","content":[` + strings.Join(blocks, ",") +
		`],"stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":5}}`
	c, err := replay.Lookup("anthropic", provider, model)
	require.NoError(t, err)
	tu, err := c.Decode([]byte(body))
	require.NoError(t, err)
	return tu
}

// withPrefix records in the turn the prefix hash its request had before
// message n (or a hash of another prefix when other is set).
func withPrefix(t testing.TB, tu *replay.Turn, body string, n int, other bool) *replay.Turn {
	h, err := anthropic.PrefixHashBefore([]byte(body), n)
	require.NoError(t, err)
	if other {
		h = "sha256:" + strings.Repeat("0", 64)
	}
	tu.Provenance.PrefixHash = h
	return tu
}

func geminiTurn(t testing.TB, blocks ...string) *replay.Turn {
	body := `{"candidates":[{"content":{"role":"model","parts":[` + strings.Join(blocks, ",") + `]},"finishReason":"STOP"}],"modelVersion":"gemini-3-pro-preview"}`
	c, err := replay.Lookup("gemini", "aistudio", "gemini-3-pro-preview")
	require.NoError(t, err)
	tu, err := c.Decode([]byte(body))
	require.NoError(t, err)
	return tu
}

func responsesTurn(t testing.TB, provider string, items ...string) *replay.Turn {
	body := `{"id":"resp_01","object":"response","status":"completed","model":"gpt-5","output":[` + strings.Join(items, ",") + `]}`
	c, err := replay.Lookup("openai-responses", provider, "gpt-5")
	require.NoError(t, err)
	tu, err := c.Decode([]byte(body))
	require.NoError(t, err)
	return tu
}

// twoConverse is a Converse tool loop of two turns: first, then a turn
// with its signed reasoning and a second call.
func twoConverse(model, first string) string {
	return `{"modelId":"` + model + `","toolConfig":{"tools":[{"toolSpec":{"name":"lookup","inputSchema":{"json":{"type":"object"}}}}]},` +
		`"additionalModelRequestFields":{"thinking":{"type":"enabled","budget_tokens":2048}},"messages":[` +
		`{"role":"user","content":[{"text":"Tide times for Brest and Cherbourg?"}]},{"role":"assistant","content":[` + first + `]},` +
		`{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_01","content":[{"text":"06:12"}]}}]},` +
		`{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":"Now Cherbourg.","signature":"RXJzS0JnZ0xFUmtKcXd2bGlnZGluZzM="}}},` +
		`{"toolUse":{"toolUseId":"tooluse_02","name":"lookup","input":{"port":"Cherbourg"}}}]},` +
		`{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_02","content":[{"text":"07:40"}]}}]}]}`
}

func headers(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

func novemberCases(t testing.TB) []suiteCase {
	fable52, mythos51, fable51 := "claude-fable-5-2", "claude-mythos-5-1", "claude-fable-5-1"
	opus55, sonnet55 := "claude-opus-5-5", "claude-sonnet-5-5"
	signed := anthAssistant(thinking("Look it up.", claudeSig), anthToolUse)
	prefixBody := func(model string) string { return anthWith(model, adaptive, signed) }
	storedClaude := func(model string, other bool) func(testing.TB) []*replay.Turn {
		return func(t testing.TB) []*replay.Turn {
			tu := claudeTurn(t, "anthropic", model, thinking("Look it up.", claudeSig), anthToolUse)
			return []*replay.Turn{withPrefix(t, tu, prefixBody(model), 1, other)}
		}
	}
	omitted := anthAssistant(thinking("", claudeSig), `{"type":"tool_use","id":"toolu_01","name":"lookup","input":{"port":"Brest"}}`,
		thinking("", "RXJvS0JnZ0xFUmtKcXd2bGlnZGluZzI="), `{"type":"tool_use","id":"toolu_02","name":"lookup","input":{"port":"Cherbourg"}}`)
	omittedResult := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"06:12"},{"type":"tool_result","tool_use_id":"toolu_02","content":"07:40"}]}`
	omittedBody := func(model string) string {
		return `{"model":"` + model + `","max_tokens":4096,"thinking":{"type":"adaptive","display":"omitted"},` + anthTools +
			`"messages":[` + anthUser + `,` + omitted + `,` + omittedResult + `]}`
	}
	twoTurns := func(first string) string {
		return `{"model":"` + opus55 + `","max_tokens":4096,"thinking":` + adaptive + `,` + anthTools + `"messages":[` + anthUser + `,` +
			first + `,` + anthResult + `,` + anthAssistant(thinking("Now Cherbourg.", "RXJzS0JnZ0xFUmtKcXd2bGlnZGluZzM="),
			`{"type":"tool_use","id":"toolu_02","name":"lookup","input":{"port":"Cherbourg"}}`) + `,` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_02","content":"07:40"}]}]}`
	}
	storedTwo := func(t testing.TB) []*replay.Turn {
		return []*replay.Turn{
			claudeTurn(t, "anthropic", opus55, thinking("Look it up.", claudeSig), anthToolUse),
			claudeTurn(t, "anthropic", opus55, thinking("Now Cherbourg.", "RXJzS0JnZ0xFUmtKcXd2bGlnZGluZzM="),
				`{"type":"tool_use","id":"toolu_02","name":"lookup","input":{"port":"Cherbourg"}}`),
		}
	}
	minimaxAnth := `{"model":"MiniMax-M3","max_tokens":4096,"thinking":{"type":"adaptive"},` + anthTools + `"messages":[` + anthUser + `,` +
		anthAssistant(anthToolUse) + `,` + anthResult + `]}`
	sysMid := func(after string) string {
		return `{"model":"` + fable51 + `","max_tokens":1024,"messages":[` + anthUser + `,{"role":"assistant","content":"06:12."},` +
			`{"role":"system","content":"Answer in French from now on."},` + after + `]}`
	}

	converse := func(model string, assistant ...string) string { return converseBody(model, assistant...) }
	sonnet5Bedrock, sonnet45Bedrock := "anthropic.claude-sonnet-5-v1:0", "anthropic.claude-sonnet-4-5-20250929-v1:0"
	reasoningOnly := func(model string) string {
		return `{"modelId":"` + model + `","additionalModelRequestFields":{"thinking":{"type":"adaptive"}},"messages":[` +
			`{"role":"user","content":[{"text":"Tide times for Brest?"}]},{"role":"assistant","content":[` + converseReasoning + `]},` +
			`{"role":"user","content":[{"text":"And Cherbourg?"}]}]}`
	}

	luna := "gpt-5.6-luna"
	lunaBody := func(effort string, items ...string) string {
		return `{"model":"` + luna + `","store":false,"reasoning":{"effort":"` + effort + `"},"include":["reasoning.encrypted_content"],"input":[` +
			`{"role":"user","content":"Tide times for Brest?"},` + strings.Join(items, ",") + `,{"role":"user","content":"And Cherbourg?"}]}`
	}
	rs2 := `{"type":"reasoning","id":"rs_02","summary":[],"encrypted_content":"` + encBlob + `2"}`
	webSearch := `{"type":"web_search_call","id":"ws_01","status":"completed","action":{"type":"search","query":"tide Brest"}}`
	dsResponses := func(reasoning string) string {
		return `{"model":"deepseek-v4-flash","store":false,"input":[{"role":"user","content":"How many r in strawberry?"},` + reasoning +
			`{"type":"message","id":"0b6e2d1c-7f4a-4c58-9d1e-2a3b4c5d6e7f","role":"assistant","content":[{"type":"output_text","text":"3."}]},` +
			`{"role":"user","content":"And in raspberry?"}]}`
	}
	dsReasoning := `{"type":"reasoning","id":"6c1f0e2a-1b3c-4d5e-8f90-a1b2c3d4e5f6","summary":[],"content":[{"type":"reasoning_text","text":"Count the r letters."}]},`

	g35, flashLite := "gemini-3.5-flash", "gemini-3.1-flash-lite"
	oneCall := func(sig string) string {
		return geminiBody(`{"role":"model","parts":[`+geminiCall("lookup", sig)+`]}`, `{"role":"user","parts":[`+geminiResp("lookup")+`]}`)
	}
	compatCall := func(extra string) string {
		return `{"role":"assistant","content":null,"tool_calls":[{"id":"call_01","type":"function","function":{"name":"lookup","arguments":"{\"port\":\"Brest\"}"}` +
			extra + `}]},{"role":"tool","tool_call_id":"call_01","content":"06:12"}`
	}

	k25 := "Pro/moonshotai/Kimi-K2.5"
	return []suiteCase{
		// Anthropic: who enforces the prefix binding.
		{name: "fable 5.2 replayed after its own prefix", api: "anthropic", provider: "anthropic", model: fable52,
			body: prefixBody(fable52), stored: storedClaude(fable52, false)},
		{name: "fable 5.2 after an edited prefix, account age unknown", api: "anthropic", provider: "anthropic", model: fable52,
			body: prefixBody(fable52), stored: storedClaude(fable52, true),
			want: "anthropic/prefix-mismatch", predicted: "The block is bound to a different conversation."},
		{name: "mythos 5.1 after an edited prefix", api: "anthropic", provider: "anthropic", model: mythos51,
			body: prefixBody(mythos51), stored: storedClaude(mythos51, true),
			want: "anthropic/prefix-mismatch", predicted: "The block is bound to a different conversation."},
		{name: "fable 5.1 after an edited prefix, account age unknown (a risk, not a reject)", api: "anthropic", provider: "anthropic", model: fable51,
			body: prefixBody(fable51), stored: storedClaude(fable51, true)},

		// Anthropic: what a block may look like.
		{name: "opus 5.5 thinking text edited under its signature", api: "anthropic", provider: "anthropic", model: opus55,
			body: anthWith(opus55, adaptive, anthAssistant(thinking("Look it up, then round.", claudeSig), anthToolUse)),
			stored: func(t testing.TB) []*replay.Turn {
				return []*replay.Turn{claudeTurn(t, "anthropic", opus55, thinking("Look it up.", claudeSig), anthToolUse)}
			},
			want: "anthropic/thinking-modified", predicted: "blocks in the latest assistant message cannot be modified"},
		{name: "opus 5.5 omitted display: empty signed blocks between tools", api: "anthropic", provider: "anthropic", model: opus55,
			body: omittedBody(opus55)},
		{name: "sonnet 5.5 omitted display: empty signed blocks between tools, as captured", api: "anthropic", provider: "anthropic", model: sonnet55,
			body: omittedBody(sonnet55),
			stored: func(t testing.TB) []*replay.Turn {
				return []*replay.Turn{claudeTurn(t, "anthropic", sonnet55, thinking("", claudeSig),
					`{"type":"tool_use","id":"toolu_01","name":"lookup","input":{"port":"Brest"}}`, thinking("", "RXJvS0JnZ0xFUmtKcXd2bGlnZGluZzI="),
					`{"type":"tool_use","id":"toolu_02","name":"lookup","input":{"port":"Cherbourg"}}`)}
			}},
		{name: "an earlier turn's thinking emptied under its signature", api: "anthropic", provider: "anthropic", model: opus55,
			body: twoTurns(anthAssistant(thinking("", claudeSig), anthToolUse)), stored: storedTwo,
			want: "anthropic/thinking-modified", predicted: "messages.1.content.0.thinking: each thinking block must contain thinking"},
		{name: "an earlier turn's thinking as captured", api: "anthropic", provider: "anthropic", model: opus55,
			body: twoTurns(signed), stored: storedTwo},
		{name: "thinking text of white space only", api: "anthropic", provider: "anthropic", model: opus55,
			body: anthWith(opus55, adaptive, anthAssistant(thinking("  ", claudeSig), anthToolUse)),
			want: "anthropic/thinking-modified", predicted: "messages.1.content.0.thinking: each thinking block must contain non-whitespace thinking"},
		{name: "a thinking block with cache_control", api: "anthropic", provider: "anthropic", model: opus55,
			body: anthWith(opus55, adaptive, anthAssistant(`{"type":"thinking","thinking":"Look it up.","signature":"`+claudeSig+`","cache_control":{"type":"ephemeral"}}`, anthToolUse)),
			want: "anthropic/block-members", predicted: "messages.1.content.0.thinking.cache_control: Extra inputs are not permitted"},
		{name: "an assistant message that ends with thinking", api: "anthropic", provider: "anthropic", model: opus55,
			body: `{"model":"` + opus55 + `","max_tokens":1024,"thinking":` + adaptive + `,"messages":[` + anthUser + `,` +
				anthAssistant(thinking("Look it up.", claudeSig)) + `,{"role":"user","content":"Go on."}]}`,
			want: "anthropic/block-order", predicted: "messages.1: The final block in an assistant message cannot be `thinking`."},
		{name: "text before the thinking of an earlier turn", api: "anthropic", provider: "anthropic", model: opus55,
			body: twoTurns(anthAssistant(`{"type":"text","text":"Checking."}`, thinking("Look it up.", claudeSig), anthToolUse)),
			want: "anthropic/block-order", predicted: "messages.1.content.0: If an assistant message contains any thinking blocks, the first block must be `thinking` or `redacted_thinking`. Found `text`."},
		{name: "a mid-conversation system message before a user message", api: "anthropic", provider: "anthropic", model: fable51,
			body: sysMid(`{"role":"user","content":"And Cherbourg?"}`),
			want: "anthropic/system-position", predicted: "messages.2: role 'system' must precede an 'assistant' message or end the array"},
		{name: "a mid-conversation system message at the end", api: "anthropic", provider: "anthropic", model: fable51,
			body: `{"model":"` + fable51 + `","max_tokens":1024,"messages":[` + anthUser + `,{"role":"assistant","content":"06:12."},{"role":"user","content":"And Cherbourg?"},{"role":"system","content":"Answer in French."}]}`},

		// Anthropic: thinking configurations per model.
		{name: "sonnet 5.5 between_tools", api: "anthropic", provider: "anthropic", model: sonnet55,
			body: anthWith(sonnet55, `{"type":"between_tools"}`, signed)},
		{name: "sonnet 5.5 thinking disabled", api: "anthropic", provider: "anthropic", model: sonnet55,
			body: anthWith(sonnet55, `{"type":"disabled"}`, anthAssistant(anthToolUse)),
			want: "anthropic/thinking-type", predicted: `"thinking.type.disabled" is not supported for this model.`},
		{name: "opus 5.5 manual thinking", api: "anthropic", provider: "anthropic", model: opus55,
			body: anthWith(opus55, `{"type":"enabled","budget_tokens":2048}`, signed),
			want: "anthropic/thinking-type", predicted: `"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`},
		{name: "opus 5.5 thinking disabled", api: "anthropic", provider: "anthropic", model: opus55,
			body: anthWith(opus55, `{"type":"disabled"}`, anthAssistant(anthToolUse)),
			want: "anthropic/thinking-type", predicted: `"thinking.type.disabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`},
		{name: "opus 5.5 adaptive", api: "anthropic", provider: "anthropic", model: opus55, body: anthWith(opus55, adaptive, signed)},

		// Anthropic: block_binding where the beta header does not arrive.
		{name: "block_binding to a model that does not take it", api: "anthropic", provider: "vertex", model: "claude-sonnet-5",
			body: anthWith("claude-sonnet-5", `{"type":"adaptive","block_binding":{"prefix_mismatch_behavior":"drop_block"}}`, signed),
			want: "anthropic/beta-required", predicted: "thinking.adaptive.block_binding.prefix_mismatch_behavior: Extra inputs are not permitted"},
		{name: "block_binding without the beta header", api: "anthropic", provider: "anthropic", model: fable51,
			body:    anthWith(fable51, `{"type":"adaptive","block_binding":{"prefix_mismatch_behavior":"drop_block"}}`, signed),
			headers: headers("anthropic-version", "2023-06-01"),
			want:    "anthropic/beta-required", predicted: "Extra inputs are not permitted"},
		{name: "block_binding with the beta header", api: "anthropic", provider: "anthropic", model: fable51,
			body:    anthWith(fable51, `{"type":"adaptive","block_binding":{"prefix_mismatch_behavior":"drop_block"}}`, signed),
			headers: headers("anthropic-beta", "thinking-binding-controls-2026-08-01")},

		// Anthropic: the Claude Code version gate.
		{name: "claude code too old for fable 5.1", api: "anthropic", provider: "anthropic", model: fable51,
			body: prefixBody(fable51), headers: headers("User-Agent", "claude-cli/2.1.236 (external, cli)"),
			want: "anthropic/client-version", predicted: "Claude Code 2.1.236 does not support this model; version 2.1.251 or newer is required."},
		{name: "claude code new enough for fable 5.2", api: "anthropic", provider: "anthropic", model: fable52,
			body: prefixBody(fable52), headers: headers("User-Agent", "claude-cli/2.1.330 (external, cli)")},

		// Anthropic-compatible hosts.
		{name: "minimax /anthropic tool turn without thinking (silent loss, no reject)", api: "anthropic", provider: "minimax", model: "MiniMax-M3",
			body: minimaxAnth},

		// Bedrock Converse.
		{name: "converse sonnet 5 assistant turn of reasoning only", api: "bedrock-converse", provider: "bedrock", model: sonnet5Bedrock,
			body: reasoningOnly(sonnet5Bedrock),
			want: "bedrock-converse/reasoning-only", predicted: "This model does not support assistant message prefill."},
		{name: "converse fable 5.1 assistant turn of reasoning only", api: "bedrock-converse", provider: "bedrock", model: "anthropic.claude-fable-5-1-v1:0",
			body: reasoningOnly("anthropic.claude-fable-5-1-v1:0"),
			want: "bedrock-converse/reasoning-only", predicted: "This model does not support assistant message prefill."},
		{name: "converse sonnet 4.5 assistant turn of reasoning only (a risk)", api: "bedrock-converse", provider: "bedrock", model: sonnet45Bedrock,
			body: reasoningOnly(sonnet45Bedrock)},
		{name: "converse gpt-oss reasoning as reasoningContent.text", api: "bedrock-converse", provider: "bedrock", model: "openai.gpt-oss-120b-1:0",
			body: converse("openai.gpt-oss-120b-1:0", `{"reasoningContent":{"text":"Look it up."}},`+converseToolUse),
			want: "bedrock-converse/reasoning-members"},
		{name: "converse gpt-oss reasoning as reasoningText", api: "bedrock-converse", provider: "bedrock", model: "openai.gpt-oss-120b-1:0",
			body: converse("openai.gpt-oss-120b-1:0", `{"reasoningContent":{"reasoningText":{"text":"Look it up."}}},`+converseToolUse)},
		{name: "converse reasoningText.text null", api: "bedrock-converse", provider: "bedrock", model: sonnet45Bedrock,
			body: converse(sonnet45Bedrock, `{"reasoningContent":{"reasoningText":{"text":null,"signature":"`+claudeSig+`"}}},`+converseToolUse),
			want: "bedrock-converse/reasoning-members", predicted: "Value at 'messages.1.member.content.0.member.reasoningContent.reasoningText.text' failed to satisfy constraint: Member must not be null"},
		{name: "converse earlier turn with its reasoning first", api: "bedrock-converse", provider: "bedrock", model: sonnet45Bedrock,
			body: twoConverse(sonnet45Bedrock, converseReasoning+`,`+converseToolUse)},
		{name: "converse omitted display: empty signed reasoningText", api: "bedrock-converse", provider: "bedrock", model: sonnet5Bedrock,
			body: converse(sonnet5Bedrock, `{"reasoningContent":{"reasoningText":{"text":"","signature":"`+claudeSig+`"}}},`+converseToolUse)},
		{name: "converse text before the reasoning of an earlier turn", api: "bedrock-converse", provider: "bedrock", model: sonnet45Bedrock,
			body: twoConverse(sonnet45Bedrock, `{"text":"Checking."},`+converseReasoning+`,`+converseToolUse),
			want: "bedrock-converse/block-order", predicted: "messages.1.content.0: If an assistant message contains any thinking blocks, the first block must be `thinking` or `redacted_thinking`. Found `text`."},

		// OpenAI Responses and its hosts.
		{name: "responses reasoning then reasoning, the web_search_call between them dropped", api: "openai-responses", provider: "openai", model: "gpt-5",
			body: responsesBody(false, rsItem, rs2, msgItem, `{"role":"user","content":"And Cherbourg?"}`),
			want: "openai/reasoning-without-follower", predicted: "Item 'rs_01' of type 'reasoning' was provided without its required following item."},
		{name: "responses reasoning, web_search_call, reasoning, message", api: "openai-responses", provider: "openai", model: "gpt-5",
			body: responsesBody(false, rsItem, webSearch, rs2, msgItem, `{"role":"user","content":"And Cherbourg?"}`)},
		{name: "deepseek responses: its own reasoning_text back, no ciphertext", api: "openai-responses", provider: "deepseek", model: "deepseek-v4-flash",
			body: dsResponses(dsReasoning)},
		{name: "gpt-5.6-luna message without its reasoning item", api: "openai-responses", provider: "openai", model: luna,
			body: lunaBody("high", msgItem),
			want: "openai/follower-without-reasoning", predicted: "Item 'msg_01' of type 'message' was provided without its required 'reasoning' item"},
		{name: "gpt-5.6-luna message with its reasoning item", api: "openai-responses", provider: "openai", model: luna,
			body: lunaBody("xhigh", rsItem, msgItem)},
		{name: "gpt-5.6-luna with effort minimal", api: "openai-responses", provider: "openai", model: luna,
			body: lunaBody("minimal", rsItem, msgItem),
			want: "openai/reasoning-effort", predicted: "Unsupported value: 'minimal' is not supported with the 'gpt-5.6-luna' model. Supported values are: 'none', 'low', 'medium', 'high', 'xhigh', and 'max'."},
		{name: "xai oauth route with encrypted reasoning", api: "openai-responses", provider: "xai-oauth", model: "grok-4.6",
			body: responsesBody(false, rsItem, msgItem, `{"role":"user","content":"And Cherbourg?"}`),
			want: "openai/route-refuses-reasoning", predicted: "Invalid request content: Each message must have at least one content element."},
		{name: "xai api-key route with encrypted reasoning", api: "openai-responses", provider: "xai", model: "grok-4.6",
			body: responsesBody(false, rsItem, msgItem, `{"role":"user","content":"And Cherbourg?"}`)},
		{name: "openai reasoning replayed to xai", api: "openai-responses", provider: "xai", model: "grok-4.6",
			body:   responsesBody(false, rsItem, msgItem, `{"role":"user","content":"And Cherbourg?"}`),
			stored: func(t testing.TB) []*replay.Turn { return []*replay.Turn{responsesTurn(t, "openai", rsItem, msgItem)} },
			want:   "openai/foreign-format", predicted: "Could not decrypt the provided encrypted_content. Ensure the value is the unmodified encrypted_content from a previous response."},
		{name: "responses encrypted_content as an object", api: "openai-responses", provider: "openai", model: "gpt-5",
			body: responsesBody(false, `{"type":"reasoning","id":"rs_01","summary":[],"encrypted_content":{"data":"`+encBlob+`"}}`, fcItem, fcOutput),
			want: "openai/encrypted-altered-or-foreign", predicted: "Invalid type for 'input[1].encrypted_content': expected a string, but got an object instead."},

		// Gemini.
		{name: "gemini a claude signature on a function call", api: "gemini", provider: "aistudio", model: "gemini-3-pro-preview",
			body: oneCall(claudeSig),
			stored: func(t testing.TB) []*replay.Turn {
				return []*replay.Turn{claudeTurn(t, "anthropic", "claude-sonnet-4-5", thinking("Look it up.", claudeSig), anthToolUse)}
			},
			want: "gemini/foreign-signature", predicted: "Corrupted thought signature."},
		{name: "gemini its own signature on a function call, as captured", api: "gemini", provider: "aistudio", model: "gemini-3-pro-preview",
			body: oneCall(geminiSig),
			stored: func(t testing.TB) []*replay.Turn {
				return []*replay.Turn{geminiTurn(t, geminiCall("lookup", geminiSig))}
			}},
		{name: "gemini 3.5 flash call missing its signature", api: "gemini", model: g35, body: oneCall(""),
			want: "gemini/missing-signature", predicted: "Function call is missing a thought_signature"},
		{name: "gemini 3.5 flash signed call", api: "gemini", model: g35, body: oneCall(geminiSig)},
		{name: "gemini 3.1 flash lite call missing its signature", api: "gemini", model: flashLite, body: oneCall(""),
			want: "gemini/missing-signature", predicted: "Function call is missing a thought_signature"},
		{name: "gemini 3.1 flash lite signed call", api: "gemini", model: flashLite, body: oneCall(geminiSig)},
		{name: "gemini openai-compatible call without its signature", api: "openai-compatible", provider: "gemini-openai", model: "gemini-3-pro-preview",
			body: chatBody("gemini-3-pro-preview", `"reasoning_effort":"high",`, compatCall("")),
			want: "gemini/missing-signature", predicted: "Function call is missing a thought_signature in functionCall parts."},
		{name: "gemini openai-compatible call with extra_content.google", api: "openai-compatible", provider: "gemini-openai", model: "gemini-3-pro-preview",
			body: chatBody("gemini-3-pro-preview", `"reasoning_effort":"high",`, compatCall(`,"extra_content":{"google":{"thought_signature":"`+geminiSig+`"}}`))},
		{name: "vertex openai-compatible call without its signature", api: "openai-compatible", provider: "vertex-openai", model: "google/gemini-3-pro-preview",
			body: chatBody("google/gemini-3-pro-preview", "", compatCall("")),
			want: "gemini/missing-signature", predicted: "Unable to submit request because function call `lookup` in the 1. content block is missing a `thought_signature`."},
		{name: "vertex openai-compatible call with extra_content.vertex", api: "openai-compatible", provider: "vertex-openai", model: "google/gemini-3-pro-preview",
			body: chatBody("google/gemini-3-pro-preview", "", compatCall(`,"extra_content":{"vertex":{"thought_signature":"`+geminiSig+`"}}`))},

		// Chat hosts.
		{name: "kimi named the siliconflow way, tool loop without reasoning_content", api: "openai-compatible", provider: "siliconflow", model: k25,
			body: chatBody(k25, "", chatToolTurn("")),
			want: "kimi/reasoning-content-missing", predicted: "thinking is enabled but reasoning_content is missing in assistant tool call message at index 1"},
		{name: "kimi named the siliconflow way, tool loop with reasoning_content", api: "openai-compatible", provider: "siliconflow", model: k25,
			body: chatBody(k25, "", chatToolTurn(`"reasoning_content":"Look it up.",`))},
		{name: "deepseek v4 thinking sent as a content part", api: "deepseek", provider: "deepseek", model: "deepseek-v4-flash",
			body: chatBody("deepseek-v4-flash", "", `{"role":"assistant","content":[{"type":"thinking","thinking":"Look it up."},{"type":"text","text":"06:12."}]}`, `{"role":"user","content":"And Cherbourg?"}`),
			want: "deepseek/thinking-content-part", predicted: "messages[1]: unknown variant `thinking`, expected `text`"},
		{name: "deepseek v4 text content parts", api: "deepseek", provider: "deepseek", model: "deepseek-v4-flash",
			body: chatBody("deepseek-v4-flash", "", `{"role":"assistant","content":[{"type":"text","text":"06:12."}],"reasoning_content":"Look it up."}`, `{"role":"user","content":"And Cherbourg?"}`)},
		{name: "deepseek v4.1 flash, an earlier turn without reasoning_content", api: "deepseek", provider: "deepseek", model: "deepseek-v4.1-flash",
			body: chatBody("deepseek-v4.1-flash", "", `{"role":"assistant","content":"Which port?"}`, `{"role":"user","content":"Brest"}`, chatToolTurn(`"reasoning_content":"Look it up.",`)),
			want: "deepseek/reasoning-content-missing", predicted: "The `reasoning_content` in the thinking mode must be passed back to the API."},
		{name: "kimi k3 tool loop without reasoning_content, thinking switched off in vain", api: "openai-compatible", provider: "moonshot", model: "kimi-k3",
			body: chatBody("kimi-k3", `"thinking":{"type":"disabled"},`, chatToolTurn("")),
			want: "kimi/reasoning-content-missing", predicted: "thinking is enabled but reasoning_content is missing in assistant tool call message at index 1"},
		{name: "kimi k3 every turn with reasoning_content", api: "openai-compatible", provider: "moonshot", model: "kimi-k3",
			body: chatBody("kimi-k3", "", `{"role":"assistant","content":"Which port?","reasoning_content":"Ask."}`, `{"role":"user","content":"Brest"}`, chatToolTurn(`"reasoning_content":"Look it up.",`))},
		{name: "kimi k2.7 empty reasoning_content on a tool call", api: "openai-compatible", provider: "moonshot", model: "kimi-k2.7-code",
			body: chatBody("kimi-k2.7-code", "", chatToolTurn(`"reasoning_content":"",`)),
			want: "kimi/reasoning-content-missing", predicted: "thinking is enabled but reasoning_content is missing in assistant tool call message at index 1"},
		{name: "kimi k2.7 thinking disabled", api: "openai-compatible", provider: "moonshot", model: "kimi-k2.7-code",
			body: chatBody("kimi-k2.7-code", `"thinking":{"type":"disabled"},`, chatToolTurn(`"reasoning_content":"Look it up.",`)),
			want: "kimi/thinking-required", predicted: "invalid thinking: only type=enabled is allowed for this model"},
		{name: "kimi k2.7 reasoning_content kept", api: "openai-compatible", provider: "moonshot", model: "kimi-k2.7-code",
			body: chatBody("kimi-k2.7-code", "", chatToolTurn(`"reasoning_content":"Look it up.",`))},
		{name: "minimax-m3 reasoning_split with its reasoning_details back", api: "openai-compatible", provider: "minimax", model: "MiniMax-M3",
			body: chatBody("MiniMax-M3", `"reasoning_split":true,`, chatToolTurn(`"reasoning_details":[{"type":"reasoning.text","id":"reasoning-text-1","format":"MiniMax-response-v1","index":0,"text":"Look it up."}],`))},
	}
}
