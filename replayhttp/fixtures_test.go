package replayhttp_test

import (
	"fmt"
	"strings"
)

// The fixtures below are written for these tests: each response is
// generated for a signature (or blob) and a tool-call id, so that
// concurrent calls can be told apart byte for byte.

// anthropicSSE is a Messages stream: a thinking block whose signature comes
// in two deltas, a text block, and a tool_use block.
func anthropicSSE(sig, toolID string) string {
	half := len(sig) / 2
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	var b strings.Builder
	b.WriteString(ev("message_start", `{"type":"message_start","message":{"id":"msg_01T","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":12,"output_tokens":1}}}`))
	b.WriteString(ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`))
	b.WriteString(ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"The user asks for the weather in Z\u00fcrich. "}}`))
	b.WriteString(ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"I will call the tool."}}`))
	b.WriteString(ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"`+sig[:half]+`"}}`))
	b.WriteString(ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"`+sig[half:]+`"}}`))
	b.WriteString(ev("content_block_stop", `{"type":"content_block_stop","index":0}`))
	b.WriteString(ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`))
	b.WriteString(ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Let me check."}}`))
	b.WriteString(ev("content_block_stop", `{"type":"content_block_stop","index":1}`))
	b.WriteString(ev("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"`+toolID+`","name":"get_weather","input":{}}}`))
	b.WriteString(ev("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Z\u00fcrich\"}"}}`))
	b.WriteString(ev("content_block_stop", `{"type":"content_block_stop","index":2}`))
	b.WriteString(ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":40}}`))
	b.WriteString(ev("message_stop", `{"type":"message_stop"}`))
	return b.String()
}

// anthropicJSON is the same turn as a whole Messages response.
func anthropicJSON(sig, toolID string) string {
	return `{"id":"msg_01T","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[` +
		`{"type":"thinking","thinking":"The user asks for the weather in Zürich. I will call the tool.","signature":"` + sig + `"},` +
		`{"type":"text","text":"Let me check."},` +
		`{"type":"tool_use","id":"` + toolID + `","name":"get_weather","input":{"city":"Zürich"}}],` +
		`"stop_reason":"tool_use","usage":{"input_tokens":12,"output_tokens":40}}`
}

// anthropicFollowUp is the next request an agent sends: the first user
// message, the assistant message (as given), and the tool result.
func anthropicFollowUp(assistant, toolID string) string {
	return `{"model":"claude-sonnet-4-5","max_tokens":2048,"thinking":{"type":"enabled","budget_tokens":1024},` +
		`"tools":[{"name":"get_weather","input_schema":{"type":"object"}}],"messages":[` +
		`{"role":"user","content":"Weather in Zürich?"},` + assistant + `,` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + toolID + `","content":"18°C"}]}]}`
}

const anthropicFirst = `{"model":"claude-sonnet-4-5","max_tokens":2048,"stream":true,"thinking":{"type":"enabled","budget_tokens":1024},` +
	`"tools":[{"name":"get_weather","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"Weather in Zürich?"}]}`

// responsesJSON is an OpenAI Responses body (store=false): a reasoning
// item with encrypted content followed by a function call.
func responsesJSON(blob, callID string) string {
	return `{"id":"resp_1","object":"response","status":"completed","model":"gpt-5","output":[` +
		`{"type":"reasoning","id":"rs_` + callID + `","summary":[{"type":"summary_text","text":"Looking up the weather."}],"encrypted_content":"` + blob + `"},` +
		`{"type":"function_call","id":"fc_` + callID + `","call_id":"` + callID + `","name":"get_weather","arguments":"{\"city\":\"Zürich\"}","status":"completed"}],` +
		`"usage":{"input_tokens":10,"output_tokens":20}}`
}

// geminiJSON is a Gemini 3 response with two parallel function calls, the
// first signed.
func geminiJSON(sig string) string {
	return `{"candidates":[{"content":{"role":"model","parts":[` +
		`{"functionCall":{"name":"get_weather","args":{"city":"Zürich"}},"thoughtSignature":"` + sig + `"},` +
		`{"functionCall":{"name":"get_weather","args":{"city":"Bern"}}}]},"finishReason":"STOP","index":0}],` +
		`"modelVersion":"gemini-3-pro-preview","usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":8}}`
}

// openrouterJSON is an OpenRouter chat completion from a Claude upstream.
func openrouterJSON(sig, toolID string) string {
	return `{"id":"gen-1","object":"chat.completion","model":"anthropic/claude-sonnet-4.5","provider":"Anthropic","choices":[{"index":0,"finish_reason":"tool_calls",` +
		`"message":{"role":"assistant","content":"Let me check.","reasoning":"Weather lookup.",` +
		`"reasoning_details":[{"type":"reasoning.text","text":"Weather lookup.","signature":"` + sig + `","format":"anthropic-claude-v1","index":0}],` +
		`"tool_calls":[{"id":"` + toolID + `","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Zürich\"}"}}]}}]}`
}

// deepseekJSON is a DeepSeek chat completion with reasoning_content and a
// tool call.
func deepseekJSON(reasoning, toolID string) string {
	return `{"id":"ds-1","object":"chat.completion","model":"deepseek-chat","choices":[{"index":0,"finish_reason":"tool_calls",` +
		`"message":{"role":"assistant","content":"","reasoning_content":"` + reasoning + `",` +
		`"tool_calls":[{"id":"` + toolID + `","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Zürich\"}"}}]}}]}`
}

func sigFor(i int) string { return fmt.Sprintf("EqQBCkgIAhABGAIiQ%04dSig+/=%04d", i, i) }
