package all_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// suiteCase is one request a careful user would send, valid or broken in
// one documented way. want is the rule id the audit must report with
// severity reject on a broken request ("" for a valid one, which must get
// no reject at all); predicted is a part of the provider error the audit
// must predict for it.
type suiteCase struct {
	name            string
	api, provider   string
	model           string
	body            string
	want, predicted string
	// headers are the request's HTTP headers, when the case knows them.
	headers http.Header
	// stored returns the turns a store captured for the request's
	// assistant messages, index for index, when the case has them.
	stored func(testing.TB) []*replay.Turn
}

// The assistant turns and tool results the cases are built from.
const (
	claudeSig   = "RXFvS0JnZ0xFUmtKcXd2bGlnZGluZw=="
	geminiSig   = "Q2lRQnlmM2JzMjB6Z2VtaW5p"
	encBlob     = "gAAAAABo_encrypted_reasoning_state"
	anthTools   = `"tools":[{"name":"lookup","input_schema":{"type":"object"}}],`
	anthThink   = `"thinking":{"type":"enabled","budget_tokens":2048},`
	anthUser    = `{"role":"user","content":"Tide times for Brest?"}`
	anthResult  = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"06:12"}]}`
	anthToolUse = `{"type":"tool_use","id":"toolu_01","name":"lookup","input":{"port":"Brest"}}`
)

func anthBody(model string, assistant ...string) string {
	msgs := []string{anthUser}
	for _, a := range assistant {
		msgs = append(msgs, a, anthResult)
	}
	return `{"model":"` + model + `","max_tokens":4096,` + anthThink + anthTools + `"messages":[` + strings.Join(msgs, ",") + `]}`
}

func anthAssistant(blocks ...string) string {
	return `{"role":"assistant","content":[` + strings.Join(blocks, ",") + `]}`
}

func thinking(text, sig string) string {
	return `{"type":"thinking","thinking":"` + text + `","signature":"` + sig + `"}`
}

func responsesBody(store bool, items ...string) string {
	return fmt.Sprintf(`{"model":"gpt-5","store":%v,"include":["reasoning.encrypted_content"],"tools":[{"type":"function","name":"lookup","parameters":{"type":"object"}}],"input":[{"role":"user","content":"Tide times for Brest?"},%s]}`, store, strings.Join(items, ","))
}

const (
	rsItem     = `{"type":"reasoning","id":"rs_01","summary":[{"type":"summary_text","text":"Look it up."}],"encrypted_content":"` + encBlob + `"}`
	fcItem     = `{"type":"function_call","id":"fc_01","call_id":"call_01","name":"lookup","arguments":"{\"port\":\"Brest\"}"}`
	fcNoID     = `{"type":"function_call","call_id":"call_01","name":"lookup","arguments":"{\"port\":\"Brest\"}"}`
	fcOutput   = `{"type":"function_call_output","call_id":"call_01","output":"06:12"}`
	msgItem    = `{"type":"message","id":"msg_01","role":"assistant","content":[{"type":"output_text","text":"06:12."}]}`
	easyAnswer = `{"role":"assistant","content":"High tide is at 06:12."}`
)

func geminiBody(model ...string) string {
	return `{"contents":[{"role":"user","parts":[{"text":"Tide times for Brest and Cherbourg?"}]},` + strings.Join(model, ",") + `]}`
}

func geminiCall(name, sig string) string {
	s := `{"functionCall":{"name":"` + name + `","args":{"port":"Brest"}}`
	if sig != "" {
		s += `,"thoughtSignature":"` + sig + `"`
	}
	return s + `}`
}

func geminiResp(name string) string {
	return `{"functionResponse":{"name":"` + name + `","response":{"tide":"06:12"}}}`
}

func chatBody(model, extra string, msgs ...string) string {
	return `{"model":"` + model + `",` + extra + `"tools":[{"type":"function","function":{"name":"lookup","parameters":{"type":"object"}}}],"messages":[{"role":"user","content":"Tide times for Brest?"},` + strings.Join(msgs, ",") + `]}`
}

func chatToolTurn(reasoning string) string {
	return `{"role":"assistant","content":null,` + reasoning + `"tool_calls":[{"id":"call_01","type":"function","function":{"name":"lookup","arguments":"{\"port\":\"Brest\"}"}}]},{"role":"tool","tool_call_id":"call_01","content":"06:12"}`
}

func orDetails(items ...string) string {
	return `"reasoning_details":[` + strings.Join(items, ",") + `],`
}

func orClaude(text, sig string) string {
	return `{"type":"reasoning.text","text":"` + text + `","signature":"` + sig + `","format":"anthropic-claude-v1","index":0}`
}

func converseBody(model string, assistant ...string) string {
	msgs := []string{`{"role":"user","content":[{"text":"Tide times for Brest?"}]}`}
	for _, a := range assistant {
		msgs = append(msgs, `{"role":"assistant","content":[`+a+`]}`,
			`{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_01","content":[{"text":"06:12"}]}}]}`)
	}
	return `{"modelId":"` + model + `","toolConfig":{"tools":[{"toolSpec":{"name":"lookup","inputSchema":{"json":{"type":"object"}}}}]},` +
		`"additionalModelRequestFields":{"thinking":{"type":"enabled","budget_tokens":2048}},"messages":[` + strings.Join(msgs, ",") + `]}`
}

const (
	converseReasoning = `{"reasoningContent":{"reasoningText":{"text":"Look it up.","signature":"` + claudeSig + `"}}}`
	converseToolUse   = `{"toolUse":{"toolUseId":"tooluse_01","name":"lookup","input":{"port":"Brest"}}}`
)

func suiteCases() []suiteCase {
	sonnet := "claude-sonnet-4-5"
	g3 := "gemini-3-pro-preview"
	return []suiteCase{
		// Anthropic Messages.
		{name: "anthropic tool loop with signed thinking", api: "anthropic", model: sonnet,
			body: anthBody(sonnet, anthAssistant(thinking("Look it up.", claudeSig), anthToolUse))},
		{name: "anthropic redacted thinking kept", api: "anthropic", model: sonnet,
			body: anthBody(sonnet, anthAssistant(`{"type":"redacted_thinking","data":"`+encBlob+`"}`, anthToolUse))},
		{name: "anthropic omitted thinking: signature only", api: "anthropic", model: sonnet,
			body: anthBody(sonnet, anthAssistant(thinking("", claudeSig), anthToolUse))},
		{name: "anthropic earlier turn's thinking dropped", api: "anthropic", model: sonnet,
			body: `{"model":"` + sonnet + `","max_tokens":4096,` + anthThink + anthTools + `"messages":[` + anthUser + `,` +
				`{"role":"assistant","content":[{"type":"text","text":"Which port?"}]},{"role":"user","content":"Brest"},` +
				anthAssistant(thinking("Look it up.", claudeSig), anthToolUse) + `,` + anthResult + `]}`},
		{name: "anthropic no thinking, no tools", api: "anthropic", model: sonnet,
			body: `{"model":"` + sonnet + `","max_tokens":1024,"messages":[` + anthUser + `,{"role":"assistant","content":"06:12."},{"role":"user","content":"And Cherbourg?"}]}`},
		{name: "anthropic interleaved: thinking, text, tool use", api: "anthropic", model: sonnet,
			body: anthBody(sonnet, anthAssistant(thinking("Look it up.", claudeSig), `{"type":"text","text":"Checking."}`, anthToolUse))},
		{name: "anthropic tool loop without thinking enabled", api: "anthropic", model: sonnet,
			body: `{"model":"` + sonnet + `","max_tokens":4096,` + anthTools + `"messages":[` + anthUser + `,` + anthAssistant(anthToolUse) + `,` + anthResult + `]}`},
		{name: "anthropic thinking without its signature member", api: "anthropic", model: sonnet,
			body: anthBody(sonnet, anthAssistant(`{"type":"thinking","thinking":"Look it up."}`, anthToolUse)),
			want: "anthropic/missing-signature", predicted: "thinking.signature: Field required"},
		{name: "anthropic redacted thinking without data", api: "anthropic", model: sonnet,
			body: anthBody(sonnet, anthAssistant(`{"type":"redacted_thinking"}`, anthToolUse)),
			want: "anthropic/missing-signature", predicted: "redacted_thinking.data: Field required"},
		{name: "anthropic tool use with an empty id", api: "anthropic", model: sonnet,
			body: anthBody(sonnet, anthAssistant(thinking("Look it up.", claudeSig), `{"type":"tool_use","id":"","name":"lookup","input":{}}`)),
			want: "replay/tool-call-id"},
		{name: "deepseek anthropic endpoint, a turn without thinking", api: "anthropic", provider: "deepseek", model: "deepseek-v4-pro",
			body: anthBody("deepseek-v4-pro", anthAssistant(anthToolUse)),
			want: "anthropic/host-thinking", predicted: "in the thinking mode must be passed back to the API"},
		{name: "anthropic tool loop with the thinking stripped", api: "anthropic", model: sonnet,
			body: anthBody(sonnet, anthAssistant(anthToolUse)),
			want: "anthropic/thinking-first", predicted: "Expected `thinking` or `redacted_thinking`, but found `tool_use`"},
		{name: "anthropic thinking with an empty signature", api: "anthropic", model: sonnet,
			body: anthBody(sonnet, anthAssistant(thinking("Look it up.", ""), anthToolUse)),
			want: "replay/empty-signature", predicted: "Invalid signature in thinking block"},
		{name: "anthropic thinking after the tool use", api: "anthropic", model: sonnet,
			body: anthBody(sonnet, anthAssistant(anthToolUse, thinking("Look it up.", claudeSig))),
			want: "anthropic/thinking-first", predicted: "Expected `thinking` or `redacted_thinking`, but found `tool_use`"},

		// OpenAI Responses.
		{name: "responses reasoning, call, output (store false)", api: "openai-responses", provider: "openai", model: "gpt-5",
			body: responsesBody(false, rsItem, fcItem, fcOutput)},
		{name: "responses stripped ids, no reasoning", api: "openai-responses", provider: "openai", model: "gpt-5",
			body: responsesBody(false, fcNoID, fcOutput)},
		{name: "responses reasoning then message", api: "openai-responses", provider: "openai", model: "gpt-5",
			body: responsesBody(false, rsItem, msgItem, `{"role":"user","content":"And Cherbourg?"}`)},
		{name: "responses empty summary array", api: "openai-responses", provider: "openai", model: "gpt-5",
			body: responsesBody(false, `{"type":"reasoning","id":"rs_01","summary":[],"encrypted_content":"`+encBlob+`"}`, fcItem, fcOutput)},
		{name: "responses easy input message with string content", api: "openai-responses", provider: "openai", model: "gpt-5",
			body: responsesBody(false, easyAnswer, `{"role":"user","content":"And Cherbourg?"}`)},
		{name: "responses item reference with store true", api: "openai-responses", provider: "openai", model: "gpt-5",
			body: responsesBody(true, `{"type":"item_reference","id":"rs_01"}`, `{"type":"item_reference","id":"fc_01"}`, fcOutput)},
		{name: "responses reasoning and call, store true, no encrypted content", api: "openai-responses", provider: "openai", model: "gpt-5",
			body: responsesBody(true, `{"type":"reasoning","id":"rs_01","summary":[]}`, fcItem, fcOutput)},
		{name: "responses two turns, each reasoning then call", api: "openai-responses", provider: "openai", model: "gpt-5",
			body: responsesBody(false, rsItem, fcItem, fcOutput,
				`{"type":"reasoning","id":"rs_02","summary":[],"encrypted_content":"`+encBlob+`2"}`,
				`{"type":"function_call","id":"fc_02","call_id":"call_02","name":"lookup","arguments":"{}"}`,
				`{"type":"function_call_output","call_id":"call_02","output":"07:40"}`)},
		{name: "responses call keeps its fc_ id without its reasoning", api: "openai-responses", provider: "openai", model: "gpt-5",
			body:      responsesBody(false, fcItem, fcOutput),
			want:      "openai/follower-without-reasoning",
			predicted: "without its required 'reasoning' item"},
		{name: "responses message keeps its msg_ id without its reasoning", api: "openai-responses", provider: "openai", model: "gpt-5",
			body:      responsesBody(false, msgItem, `{"role":"user","content":"And Cherbourg?"}`),
			want:      "openai/follower-without-reasoning",
			predicted: "without its required 'reasoning' item"},
		{name: "responses reasoning item with its content", api: "openai-responses", provider: "openai", model: "gpt-5",
			body: responsesBody(false, `{"type":"reasoning","id":"rs_01","summary":[],"content":[{"type":"reasoning_text","text":"Look it up."}],"encrypted_content":"`+encBlob+`"}`, fcItem, fcOutput),
			want: "openai/reasoning-content", predicted: "array too long"},
		{name: "responses reasoning item with a status", api: "openai-responses", provider: "openai", model: "gpt-5",
			body: responsesBody(false, `{"type":"reasoning","id":"rs_01","summary":[],"status":"completed","encrypted_content":"`+encBlob+`"}`, fcItem, fcOutput),
			want: "openai/reasoning-status", predicted: "Unknown parameter: 'input[1].status'."},
		{name: "responses reasoning item without summary", api: "openai-responses", provider: "openai", model: "gpt-5",
			body: responsesBody(false, `{"type":"reasoning","id":"rs_01","encrypted_content":"`+encBlob+`"}`, fcItem, fcOutput),
			want: "openai/reasoning-summary", predicted: "Missing required parameter: 'input[1].summary'."},
		{name: "responses two calls with one call id", api: "openai-responses", provider: "openai", model: "gpt-5",
			body: responsesBody(false, rsItem, fcItem, `{"type":"function_call","id":"fc_02","call_id":"call_01","name":"lookup","arguments":"{}"}`, fcOutput),
			want: "replay/tool-call-id"},
		{name: "responses reasoning item without its follower", api: "openai-responses", provider: "openai", model: "gpt-5",
			body:      responsesBody(false, fcOutput, rsItem),
			want:      "openai/reasoning-without-follower",
			predicted: "of type 'reasoning' was provided without its required following item"},
		{name: "responses store false reasoning without encrypted content", api: "openai-responses", provider: "openai", model: "gpt-5",
			body:      responsesBody(false, `{"type":"reasoning","id":"rs_01","summary":[]}`, fcItem, fcOutput),
			want:      "openai/store-false-without-encrypted",
			predicted: "not found"},

		// Gemini.
		{name: "gemini 3 signed call and response", api: "gemini", model: g3,
			body: geminiBody(`{"role":"model","parts":[`+geminiCall("lookup", geminiSig)+`]}`, `{"role":"user","parts":[`+geminiResp("lookup")+`]}`)},
		{name: "gemini 3 parallel calls, first signed, responses after", api: "gemini", model: g3,
			body: geminiBody(`{"role":"model","parts":[`+geminiCall("lookup", geminiSig)+`,`+geminiCall("lookup2", "")+`]}`,
				`{"role":"user","parts":[`+geminiResp("lookup")+`,`+geminiResp("lookup2")+`]}`)},
		{name: "gemini 3 the documented sentinel", api: "gemini", model: g3,
			body: geminiBody(`{"role":"model","parts":[`+geminiCall("lookup", "skip_thought_signature_validator")+`]}`, `{"role":"user","parts":[`+geminiResp("lookup")+`]}`)},
		{name: "gemini 3 earlier turn unsigned", api: "gemini", model: g3,
			body: geminiBody(`{"role":"model","parts":[`+geminiCall("lookup", "")+`]}`, `{"role":"user","parts":[`+geminiResp("lookup")+`]}`,
				`{"role":"model","parts":[{"text":"06:12."}]}`, `{"role":"user","parts":[{"text":"And Cherbourg?"}]}`)},
		{name: "gemini 3 call missing its signature", api: "gemini", model: g3,
			body: geminiBody(`{"role":"model","parts":[`+geminiCall("lookup", "")+`]}`, `{"role":"user","parts":[`+geminiResp("lookup")+`]}`),
			want: "gemini/missing-signature", predicted: "missing a thought_signature"},
		{name: "gemini 3 a base64-encoded dummy signature", api: "gemini", model: g3,
			body: geminiBody(`{"role":"model","parts":[`+geminiCall("lookup", "c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I=")+`]}`, `{"role":"user","parts":[`+geminiResp("lookup")+`]}`),
			want: "gemini/encoded-sentinel", predicted: "Corrupted thought signature."},
		{name: "gemini 2.5 signing model, a later step unsigned", api: "gemini", model: "gemini-2.5-flash",
			body: geminiBody(`{"role":"model","parts":[`+geminiCall("lookup", geminiSig)+`]}`, `{"role":"user","parts":[`+geminiResp("lookup")+`]}`,
				`{"role":"model","parts":[`+geminiCall("lookup2", "")+`]}`, `{"role":"user","parts":[`+geminiResp("lookup2")+`]}`),
			want: "gemini/missing-signature", predicted: "missing a thought_signature"},
		{name: "gemini 2.5 without thinking, unsigned call", api: "gemini", model: "gemini-2.5-flash",
			body: geminiBody(`{"role":"model","parts":[`+geminiCall("lookup", "")+`]}`, `{"role":"user","parts":[`+geminiResp("lookup")+`]}`)},
		{name: "gemini 3 a later step's call unsigned", api: "gemini", model: g3,
			body: geminiBody(`{"role":"model","parts":[`+geminiCall("lookup", geminiSig)+`]}`, `{"role":"user","parts":[`+geminiResp("lookup")+`]}`,
				`{"role":"model","parts":[`+geminiCall("lookup2", "")+`]}`, `{"role":"user","parts":[`+geminiResp("lookup2")+`]}`),
			want: "gemini/missing-signature", predicted: "missing a thought_signature"},
		{name: "gemini 3 signature moved to the second parallel call", api: "gemini", model: g3,
			body: geminiBody(`{"role":"model","parts":[`+geminiCall("lookup", "")+`,`+geminiCall("lookup2", geminiSig)+`]}`,
				`{"role":"user","parts":[`+geminiResp("lookup")+`,`+geminiResp("lookup2")+`]}`),
			want: "gemini/missing-signature", predicted: "missing a thought_signature"},
		{name: "gemini 3 signature that is not base64", api: "gemini", model: g3,
			body: geminiBody(`{"role":"model","parts":[`+geminiCall("lookup", "not base64!")+`]}`, `{"role":"user","parts":[`+geminiResp("lookup")+`]}`),
			want: "gemini/bad-base64"},
		{name: "gemini 3 signed text answer", api: "gemini", model: g3,
			body: geminiBody(`{"role":"model","parts":[{"text":"06:12.","thoughtSignature":"`+geminiSig+`"}]}`, `{"role":"user","parts":[{"text":"And Cherbourg?"}]}`)},
		{name: "gemini 3 thought summary and signed call", api: "gemini", model: g3,
			body: geminiBody(`{"role":"model","parts":[{"text":"Look both up.","thought":true},`+geminiCall("lookup", geminiSig)+`]}`, `{"role":"user","parts":[`+geminiResp("lookup")+`]}`)},

		// OpenRouter.
		{name: "openrouter claude tool loop with signed details", api: "openrouter", model: "anthropic/claude-sonnet-4.5",
			body: chatBody("anthropic/claude-sonnet-4.5", `"reasoning":{"max_tokens":2048},`, chatToolTurn(orDetails(orClaude("Look it up.", claudeSig))))},
		{name: "openrouter plain answer without reasoning", api: "openrouter", model: "anthropic/claude-sonnet-4.5",
			body: chatBody("anthropic/claude-sonnet-4.5", "", `{"role":"assistant","content":"06:12."}`, `{"role":"user","content":"And Cherbourg?"}`)},
		{name: "openrouter gemini tool loop with details", api: "openrouter", model: "google/gemini-3-pro-preview",
			body: chatBody("google/gemini-3-pro-preview", `"reasoning":{"enabled":true},`, chatToolTurn(orDetails(
				`{"type":"reasoning.encrypted","data":"`+geminiSig+`","id":"call_01","format":"google-gemini-v1","index":0}`)))},
		{name: "openrouter openai encrypted details", api: "openrouter", model: "openai/gpt-5",
			body: chatBody("openai/gpt-5", `"reasoning":{"effort":"medium"},`, chatToolTurn(orDetails(
				`{"type":"reasoning.summary","summary":"Look it up.","id":"rs_01","format":"openai-responses-v1","index":0}`,
				`{"type":"reasoning.encrypted","data":"`+encBlob+`","id":"rs_01","format":"openai-responses-v1","index":0}`)))},
		{name: "openrouter deepseek reasoning string", api: "openrouter", model: "deepseek/deepseek-v3.2",
			body: chatBody("deepseek/deepseek-v3.2", `"reasoning":{"enabled":true},`, chatToolTurn(`"reasoning":"Look it up.",`))},
		{name: "openrouter claude tool loop without details", api: "openrouter", model: "anthropic/claude-sonnet-4.5",
			body: chatBody("anthropic/claude-sonnet-4.5", `"reasoning":{"max_tokens":2048},`, chatToolTurn("")),
			want: "openrouter/signed-reasoning-missing", predicted: "Expected `thinking` or `redacted_thinking`"},
		{name: "openrouter claude tool loop with only the reasoning string", api: "openrouter", model: "anthropic/claude-sonnet-4.5",
			body: chatBody("anthropic/claude-sonnet-4.5", `"reasoning":{"max_tokens":2048},`, chatToolTurn(`"reasoning":"Look it up.",`)),
			want: "openrouter/signed-reasoning-missing", predicted: "Expected `thinking` or `redacted_thinking`"},
		{name: "openrouter the same detail sent twice", api: "openrouter", model: "anthropic/claude-sonnet-4.5",
			body: chatBody("anthropic/claude-sonnet-4.5", `"reasoning":{"max_tokens":2048},`,
				chatToolTurn(orDetails(orClaude("Look it up.", claudeSig))),
				`{"role":"assistant","content":"06:12.",`+orDetails(orClaude("Look it up.", claudeSig))[:len(orDetails(orClaude("Look it up.", claudeSig)))-1]+`}`,
				`{"role":"user","content":"And Cherbourg?"}`),
			want: "openrouter/duplicate-item"},
		{name: "openrouter gemini tool loop without details", api: "openrouter", model: "google/gemini-3-pro-preview",
			body: chatBody("google/gemini-3-pro-preview", `"reasoning":{"enabled":true},`, chatToolTurn("")),
			want: "openrouter/gemini-reasoning-missing"},

		// Chat hosts.
		{name: "deepseek v3.2 tool loop with reasoning_content", api: "deepseek", provider: "deepseek", model: "deepseek-v3.2",
			body: chatBody("deepseek-v3.2", `"thinking":{"type":"enabled"},`, chatToolTurn(`"reasoning_content":"Look it up.",`))},
		{name: "deepseek v3.2 tool loop without reasoning_content", api: "deepseek", provider: "deepseek", model: "deepseek-v3.2",
			body: chatBody("deepseek-v3.2", `"thinking":{"type":"enabled"},`, chatToolTurn("")),
			want: "deepseek/reasoning-content-missing", predicted: "Missing `reasoning_content` field in the assistant message at message index 1"},
		{name: "deepseek r1 answer without reasoning_content", api: "deepseek", provider: "deepseek", model: "deepseek-r1",
			body: `{"model":"deepseek-r1","messages":[{"role":"user","content":"2+2?"},{"role":"assistant","content":"4"},{"role":"user","content":"3+3?"}]}`},
		{name: "deepseek r1 with reasoning_content sent back", api: "deepseek", provider: "deepseek", model: "deepseek-r1",
			body: `{"model":"deepseek-r1","messages":[{"role":"user","content":"2+2?"},{"role":"assistant","content":"4","reasoning_content":"Add."},{"role":"user","content":"3+3?"}]}`,
			want: "deepseek/reasoning-content-forbidden"},
		{name: "deepseek v4 tools, every earlier turn with reasoning_content", api: "deepseek", provider: "deepseek", model: "deepseek-v4-flash",
			body: chatBody("deepseek-v4-flash", `"thinking":{"type":"enabled"},`, `{"role":"assistant","content":"Which port?","reasoning_content":""}`, `{"role":"user","content":"Brest"}`,
				chatToolTurn(`"reasoning_content":"Look it up.",`))},
		{name: "deepseek v4 tools, an earlier turn without reasoning_content", api: "deepseek", provider: "deepseek", model: "deepseek-v4-flash",
			body: chatBody("deepseek-v4-flash", `"thinking":{"type":"enabled"},`, `{"role":"assistant","content":"Which port?"}`, `{"role":"user","content":"Brest"}`,
				chatToolTurn(`"reasoning_content":"Look it up.",`)),
			want: "deepseek/reasoning-content-missing", predicted: "must be passed back to the API"},
		{name: "deepseek v3.2 reasoning_content null in the loop", api: "deepseek", provider: "deepseek", model: "deepseek-v3.2",
			body: chatBody("deepseek-v3.2", `"thinking":{"type":"enabled"},`, chatToolTurn(`"reasoning_content":null,`)),
			want: "deepseek/reasoning-content-null", predicted: "must be passed back to the API"},
		{name: "deepseek-chat with thinking disabled, no reasoning_content", api: "deepseek", provider: "deepseek", model: "deepseek-chat",
			body: chatBody("deepseek-chat", `"thinking":{"type":"disabled"},`, chatToolTurn(""))},
		{name: "kimi with thinking disabled, no reasoning_content", api: "openai-compatible", provider: "moonshot", model: "kimi-k2-thinking",
			body: chatBody("kimi-k2-thinking", `"thinking":{"type":"disabled"},`, chatToolTurn(""))},
		{name: "xai grok-3-mini answer", api: "xai", provider: "xai", model: "grok-3-mini",
			body: chatBody("grok-3-mini", "", `{"role":"assistant","content":"06:12."}`, `{"role":"user","content":"And Cherbourg?"}`)},
		{name: "vllm answer with reasoning_content", api: "openai-compatible", provider: "vllm", model: "Qwen/Qwen3-32B",
			body: chatBody("Qwen/Qwen3-32B", "", chatToolTurn(`"reasoning_content":"Look it up.",`))},
		{name: "minimax think block in content", api: "openai-compatible", provider: "minimax", model: "MiniMax-M2",
			body: chatBody("MiniMax-M2", "", `{"role":"assistant","content":"<think>Look it up.</think>06:12."}`, `{"role":"user","content":"And Cherbourg?"}`)},
		{name: "kimi thinking tool loop with reasoning_content", api: "openai-compatible", provider: "moonshot", model: "kimi-k2-thinking",
			body: chatBody("kimi-k2-thinking", "", chatToolTurn(`"reasoning_content":"Look it up.",`))},
		{name: "kimi thinking tool loop without reasoning_content", api: "openai-compatible", provider: "moonshot", model: "kimi-k2-thinking",
			body: chatBody("kimi-k2-thinking", "", chatToolTurn("")),
			want: "kimi/reasoning-content-missing", predicted: "thinking is enabled but reasoning_content is missing in assistant tool call message at index 1"},
		{name: "glm tool loop with reasoning_content", api: "openai-compatible", provider: "zai", model: "glm-4.7",
			body: chatBody("glm-4.7", `"thinking":{"type":"enabled"},`, chatToolTurn(`"reasoning_content":"Look it up.",`))},
		{name: "qwen answer", api: "openai-compatible", provider: "dashscope", model: "qwen3-max",
			body: chatBody("qwen3-max", "", `{"role":"assistant","content":"06:12."}`, `{"role":"user","content":"And Cherbourg?"}`)},

		// Bedrock Converse.
		{name: "converse claude tool loop with signed reasoning", api: "bedrock-converse", provider: "bedrock", model: "anthropic.claude-sonnet-4-5-20250929-v1:0",
			body: converseBody("anthropic.claude-sonnet-4-5-20250929-v1:0", converseReasoning+","+converseToolUse)},
		{name: "converse redacted reasoning kept", api: "bedrock-converse", provider: "bedrock", model: "anthropic.claude-sonnet-4-5-20250929-v1:0",
			body: converseBody("anthropic.claude-sonnet-4-5-20250929-v1:0", `{"reasoningContent":{"redactedContent":"`+encBlob+`"}},`+converseToolUse)},
		{name: "converse qwen reasoning without signature", api: "bedrock-converse", provider: "bedrock", model: "qwen.qwen3-32b-v1:0",
			body: converseBody("qwen.qwen3-32b-v1:0", `{"reasoningContent":{"reasoningText":{"text":"Look it up."}}},`+converseToolUse)},
		{name: "converse claude without thinking, tool loop", api: "bedrock-converse", provider: "bedrock", model: "anthropic.claude-sonnet-4-5-20250929-v1:0",
			body: `{"modelId":"anthropic.claude-sonnet-4-5-20250929-v1:0","toolConfig":{"tools":[{"toolSpec":{"name":"lookup","inputSchema":{"json":{"type":"object"}}}}]},"messages":[` +
				`{"role":"user","content":[{"text":"Tide times for Brest?"}]},{"role":"assistant","content":[` + converseToolUse + `]},` +
				`{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_01","content":[{"text":"06:12"}]}}]}]}`},
		{name: "converse deepseek r1 with reasoning sent back", api: "bedrock-converse", provider: "bedrock", model: "us.deepseek.r1-v1:0",
			body: converseBody("us.deepseek.r1-v1:0", `{"reasoningContent":{"reasoningText":{"text":"Look it up."}}},`+converseToolUse),
			want: "bedrock-converse/reasoning-input", predicted: "User messages cannot contain reasoning content."},
		{name: "converse claude signature sent to qwen", api: "bedrock-converse", provider: "bedrock", model: "qwen.qwen3-32b-v1:0",
			body: converseBody("qwen.qwen3-32b-v1:0", converseReasoning+","+converseToolUse),
			want: "bedrock-converse/signature-field", predicted: "doesn't support the reasoningContent.reasoningText.signature field"},
		{name: "converse claude tool loop with reasoning stripped", api: "bedrock-converse", provider: "bedrock", model: "anthropic.claude-sonnet-4-5-20250929-v1:0",
			body: converseBody("anthropic.claude-sonnet-4-5-20250929-v1:0", converseToolUse),
			want: "bedrock-converse/thinking-first"},

		// Mistral and Cohere: no documented rejection; valid shapes.
		{name: "mistral thinking chunk replayed", api: "mistral", model: "magistral-medium-2509",
			body: `{"model":"magistral-medium-2509","messages":[{"role":"user","content":"7*7?"},{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"Multiply."}]},{"type":"text","text":"49"}]},{"role":"user","content":"+1?"}]}`},
		{name: "mistral plain answer", api: "mistral", model: "mistral-medium-2508",
			body: `{"model":"mistral-medium-2508","messages":[{"role":"user","content":"7*7?"},{"role":"assistant","content":"49"},{"role":"user","content":"+1?"}]}`},
		{name: "cohere tool plan and call", api: "cohere", model: "command-a-reasoning-08-2025",
			body: `{"model":"command-a-reasoning-08-2025","tools":[{"type":"function","function":{"name":"lookup","parameters":{"type":"object"}}}],"messages":[{"role":"user","content":"Tide?"},` +
				`{"role":"assistant","tool_plan":"Look it up.","tool_calls":[{"id":"call_01","type":"function","function":{"name":"lookup","arguments":"{}"}}]},` +
				`{"role":"tool","tool_call_id":"call_01","content":[{"type":"document","document":{"data":"06:12"}}]}]}`},
		{name: "cohere thinking replayed", api: "cohere", model: "command-a-reasoning-08-2025",
			body: `{"model":"command-a-reasoning-08-2025","messages":[{"role":"user","content":"7*7?"},{"role":"assistant","content":[{"type":"thinking","thinking":"Multiply."},{"type":"text","text":"49"}]},{"role":"user","content":"+1?"}]}`},
	}
}

// auditCase audits the case's body with its API's codec, with the model
// and provider the case names (a Gemini or Bedrock body does not name its
// model: it is in the URL).
func auditCase(tb testing.TB, c suiteCase) (replay.Report, error) {
	codec, err := replay.Lookup(c.api, c.provider, c.model)
	if err != nil {
		return replay.Report{}, err
	}
	h, t, err := codec.DecodeRequest([]byte(c.body))
	if err != nil {
		return replay.Report{}, err
	}
	if c.model != "" {
		t.Model = c.model
	}
	if c.provider != "" {
		t.Provider = c.provider
	}
	t.Headers = c.headers
	if c.stored != nil {
		turns := c.stored(tb)
		require.Len(tb, turns, len(h.Turns), c.name)
		h.Turns = turns
	}
	return replay.AuditReplay(h, t), nil
}

// TestAuditSuite measures the audit as a gate: every broken request is
// flagged with its documented rule (recall), no valid request is (no false
// alarm), and no request stops the audit with an error.
func TestAuditSuite(t *testing.T) {
	var tp, fp, fn, tn int
	for _, c := range append(suiteCases(), novemberCases(t)...) {
		rep, err := auditCase(t, c)
		if !assert.NoError(t, err, c.name) {
			if c.want != "" {
				fn++
			}
			continue
		}
		var rejects []replay.Violation
		for _, v := range rep.Violations {
			if v.Severity == replay.SeverityReject {
				rejects = append(rejects, v)
			}
		}
		if c.want == "" {
			if len(rejects) == 0 {
				tn++
			} else {
				fp++
				t.Errorf("%s: false alarm: %v", c.name, rep.Err())
			}
			continue
		}
		var hit *replay.Violation
		for i := range rejects {
			if rejects[i].Rule == c.want {
				hit = &rejects[i]
			}
		}
		if hit == nil {
			fn++
			t.Errorf("%s: want %s, got %v", c.name, c.want, rep.Err())
			continue
		}
		tp++
		assert.Contains(t, hit.Predicted, c.predicted, c.name)
	}
	precision := float64(tp) / float64(max(tp+fp, 1))
	recall := float64(tp) / float64(max(tp+fn, 1))
	t.Logf("audit suite: %d cases, %d broken (%d flagged), %d valid (%d false alarms): precision %.2f, recall %.2f",
		tp+fp+fn+tn, tp+fn, tp, tn+fp, fp, precision, recall)
	require.Equal(t, 1.0, recall)
	require.Equal(t, 0, fp)
}
