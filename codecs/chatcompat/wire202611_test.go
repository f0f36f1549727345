package chatcompat

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// auditRequest audits a chat request body with the profile the provider
// and the body's model pick.
func auditRequest(t *testing.T, api, provider, body string) replay.Report {
	t.Helper()
	c := New(api, provider, gjsonModel(body))
	h, tg, err := c.DecodeRequest([]byte(body))
	require.NoError(t, err)
	tg.Provider = provider
	return replay.AuditReplay(h, tg)
}

func gjsonModel(body string) string {
	i := strings.Index(body, `"model":"`)
	if i < 0 {
		return ""
	}
	rest := body[i+len(`"model":"`):]
	return rest[:strings.IndexByte(rest, '"')]
}

func ruleOf(rep replay.Report, id string) []replay.Violation {
	var out []replay.Violation
	for _, v := range rep.Violations {
		if v.Rule == id {
			out = append(out, v)
		}
	}
	return out
}

func chatReq(model, extra string, msgs ...string) string {
	return `{"model":"` + model + `",` + extra + `"tools":[{"type":"function","function":{"name":"tide_table","parameters":{"type":"object"}}}],"messages":[{"role":"user","content":"Tides?"},` + strings.Join(msgs, ",") + `]}`
}

func toolMsg(reasoning, extra string) string {
	return `{"role":"assistant","content":null,` + reasoning + `"tool_calls":[{"id":"call_1","type":"function","function":{"name":"tide_table","arguments":"{}"}` + extra + `}]},{"role":"tool","tool_call_id":"call_1","content":"06:12"}`
}

func TestProfilesNovember(t *testing.T) {
	for _, c := range []struct{ provider, model, want string }{
		{"siliconflow", "Pro/moonshotai/Kimi-K2.5", "kimi"},
		{"", "Pro/moonshotai/Kimi-K2.5", "kimi"},
		{"moonshot", "kimi-k3", "kimi-k3"},
		{"moonshot", "kimi-k2.7-code-highspeed", "kimi-k2.7"},
		{"", "moonshotai/kimi-k3", "kimi-k3"},
		{"moonshot", "kimi-k2.6", "kimi"},
		{"vertex-openai", "google/gemini-3-pro-preview", "gemini-vertex"},
		{"gemini-openai", "gemini-3-pro-preview", "gemini"},
		// A slug that names no profile's family keeps the generic profile.
		{"", "Pro/deepseek-ai/DeepSeek-V3.2", "generic"},
		{"vllm", "moonshotai/Kimi-K2.5", "generic"},
	} {
		assert.Equal(t, c.want, ProfileFor(c.provider, c.model).Name, c.provider+" "+c.model)
	}
}

// DeepSeek with thinking sent as a content part: read (the text parts as
// content) and reported with DeepSeek's deserialisation text.
func TestDeepSeekThinkingContentPart(t *testing.T) {
	body := chatReq("deepseek-v4-flash", "", `{"role":"assistant","content":[{"type":"thinking","thinking":"Look it up."},{"type":"text","text":"06:12."}]}`, `{"role":"user","content":"And Cherbourg?"}`)
	c := New(APIDeepSeek, "deepseek", "deepseek-v4-flash")
	h, _, err := c.DecodeRequest([]byte(body))
	require.NoError(t, err)
	assert.Equal(t, "06:12.", h.Turns[0].VisibleText())
	rep := auditRequest(t, APIDeepSeek, "deepseek", body)
	vs := ruleOf(rep, RuleDeepSeekContentPart)
	require.Len(t, vs, 1)
	assert.Equal(t, "Failed to deserialize the JSON body into the target type: messages[1]: unknown variant `thinking`, expected `text`", vs[0].Predicted)
	assert.Equal(t, "/messages/1/content/0", vs[0].Pointer)

	ok := chatReq("deepseek-v4-flash", "", `{"role":"assistant","content":[{"type":"text","text":"06:"},{"type":"text","text":"12."}],"reasoning_content":"Look it up."}`, `{"role":"user","content":"And Cherbourg?"}`)
	h, _, err = c.DecodeRequest([]byte(ok))
	require.NoError(t, err)
	assert.Equal(t, "06:12.", h.Turns[0].VisibleText())
	assert.Empty(t, auditRequest(t, APIDeepSeek, "deepseek", ok).Violations)
	// Another host reads text parts the same way and has no such rule.
	assert.Empty(t, ruleOf(auditRequest(t, APIGeneric, "vllm", strings.Replace(body, "deepseek-v4-flash", "Qwen/Qwen3-32B", 1)), RuleDeepSeekContentPart))
	_, _, err = c.DecodeRequest([]byte(chatReq("deepseek-v4-flash", "", `{"role":"assistant","content":[{"type":"text","text":7}]}`)))
	assert.ErrorIs(t, err, replay.ErrMalformed)
}

func TestKimiK3(t *testing.T) {
	rep := auditRequest(t, APIGeneric, "moonshot", chatReq("kimi-k3", `"thinking":{"type":"disabled"},`, toolMsg("", "")))
	vs := ruleOf(rep, RuleKimiMissing)
	require.Len(t, vs, 1)
	assert.Equal(t, "thinking is enabled but reasoning_content is missing in assistant tool call message at index 1", vs[0].Predicted)
	assert.Equal(t, replay.SeverityReject, vs[0].Severity)

	rep = auditRequest(t, APIGeneric, "moonshot", chatReq("kimi-k3", "", `{"role":"assistant","content":"Which port?"}`, `{"role":"user","content":"Brest"}`, toolMsg(`"reasoning_content":"Look it up.",`, "")))
	vs = ruleOf(rep, RulePreservedMissing)
	require.Len(t, vs, 1)
	assert.Equal(t, replay.SeverityDegrade, vs[0].Severity)
	assert.Equal(t, "/messages/1", vs[0].Pointer)
	assert.False(t, rep.Rejects())

	assert.True(t, auditRequest(t, APIGeneric, "moonshot", chatReq("kimi-k3", "", `{"role":"assistant","content":"Which port?","reasoning_content":"Ask."}`, `{"role":"user","content":"Brest"}`, toolMsg(`"reasoning_content":"Look it up.",`, ""))).Clean())
	// K2 with thinking disabled still needs nothing.
	assert.True(t, auditRequest(t, APIGeneric, "moonshot", chatReq("kimi-k2-thinking", `"thinking":{"type":"disabled"},`, toolMsg("", ""))).Clean())
}

func TestKimiK27(t *testing.T) {
	rep := auditRequest(t, APIGeneric, "moonshot", chatReq("kimi-k2.7-code", "", toolMsg(`"reasoning_content":"",`, "")))
	vs := ruleOf(rep, RuleKimiMissing)
	require.Len(t, vs, 1)
	assert.Equal(t, "thinking is enabled but reasoning_content is missing in assistant tool call message at index 1", vs[0].Predicted)

	rep = auditRequest(t, APIGeneric, "moonshot", chatReq("kimi-k2.7-code", `"thinking":{"type":"disabled"},`, toolMsg(`"reasoning_content":"Look.",`, "")))
	vs = ruleOf(rep, RuleKimiThinkingRequired)
	require.Len(t, vs, 1)
	assert.Equal(t, "invalid thinking: only type=enabled is allowed for this model", vs[0].Predicted)
	assert.Equal(t, "/thinking/type", vs[0].Pointer)

	assert.True(t, auditRequest(t, APIGeneric, "moonshot", chatReq("kimi-k2.7-code", "", toolMsg(`"reasoning_content":"Look.",`, ""))).Clean())
	// K2 reads an empty string as present.
	assert.True(t, auditRequest(t, APIGeneric, "moonshot", chatReq("kimi-k2.5", "", toolMsg(`"reasoning_content":"",`, ""))).Clean())
}

// MiniMax-M3 with reasoning_split: the reasoning comes as reasoning_details,
// goes back whole (Encode writes it), and a message without it is a loss.
func TestMiniMaxReasoningSplit(t *testing.T) {
	c := New(APIGeneric, "minimax", "MiniMax-M3")
	tu, err := c.Decode(fixture(t, "minimax-m3-reasoning-split.json"))
	require.NoError(t, err)
	rt := tu.Blocks[0].(*replay.ReasoningText)
	assert.Equal(t, "The user asks for the Brest tide; the tide_table tool answers it.", rt.Text)
	assert.Equal(t, formats.MiniMax, rt.Format)
	msg, err := c.Encode(tu)
	require.NoError(t, err)
	assert.Contains(t, string(msg), `"reasoning_details":[{"type":"reasoning.text","text":"The user asks for the Brest tide; the tide_table tool answers it."`)

	whole := chatReq("MiniMax-M3", `"reasoning_split":true,`, string(msg), `{"role":"tool","tool_call_id":"call_m3a91","content":"06:12"}`)
	h, tg, err := c.DecodeRequest([]byte(whole))
	require.NoError(t, err)
	h.Turns = []*replay.Turn{tu}
	assert.True(t, c.Contract().Audit(h, tg).Clean())

	rep := auditRequest(t, APIGeneric, "minimax", chatReq("MiniMax-M3", `"reasoning_split":true,`, toolMsg("", "")))
	vs := ruleOf(rep, RuleMiniMaxDetails)
	require.Len(t, vs, 1)
	assert.Equal(t, replay.SeverityDegrade, vs[0].Severity)

	// Details that are not the captured ones.
	partial := chatReq("MiniMax-M3", `"reasoning_split":true,`, `{"role":"assistant","content":"","reasoning_details":[{"type":"reasoning.text","text":"The user asks"}],"tool_calls":[{"id":"call_m3a91","type":"function","function":{"name":"tide_table","arguments":"{\"port\":\"Brest\"}"}}]}`,
		`{"role":"tool","tool_call_id":"call_m3a91","content":"06:12"}`)
	h, tg, err = c.DecodeRequest([]byte(partial))
	require.NoError(t, err)
	h.Turns = []*replay.Turn{tu}
	vs = c.Contract().Audit(h, tg).Violations
	require.Len(t, vs, 1)
	assert.Equal(t, "/messages/1/reasoning_details", vs[0].Pointer)
	// Without reasoning_split, content with its <think> block is the contract.
	assert.Empty(t, ruleOf(auditRequest(t, APIGeneric, "minimax", chatReq("MiniMax-M3", "", toolMsg("", ""))), RuleMiniMaxDetails))
}

func TestGeminiThroughChat(t *testing.T) {
	const sig = "CiQBjz1rX9vT3kWm2pQ8sLn5yR7uE4aH6cJ0dF1gB3iK8oN2zY5="
	rep := auditRequest(t, APIGeneric, "gemini-openai", chatReq("gemini-3-pro-preview", "", toolMsg("", "")))
	vs := ruleOf(rep, RuleGeminiMissing)
	require.Len(t, vs, 1)
	assert.Equal(t, "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:tide_table` , position 1. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", vs[0].Predicted)
	assert.Equal(t, "/messages/1/tool_calls/0", vs[0].Pointer)

	rep = auditRequest(t, APIGeneric, "vertex-openai", `{"model":"google/gemini-3-pro-preview","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Tides?"},`+toolMsg("", "")+`]}`)
	vs = ruleOf(rep, RuleGeminiMissing)
	require.Len(t, vs, 1)
	assert.Equal(t, "Unable to submit request because function call `tide_table` in the 1. content block is missing a `thought_signature`. Learn more: https://docs.cloud.google.com/vertex-ai/generative-ai/docs/thought-signatures", vs[0].Predicted)

	for name, extra := range map[string]string{
		"google": `,"extra_content":{"google":{"thought_signature":"` + sig + `"}}`,
		"vertex": `,"extra_content":{"vertex":{"thought_signature":"` + sig + `"}}`,
		"raw":    `,"thought_signature":"` + sig + `"`,
	} {
		assert.Empty(t, ruleOf(auditRequest(t, APIGeneric, "gemini-openai", chatReq("gemini-3-pro-preview", "", toolMsg("", extra))), RuleGeminiMissing), name)
	}
	// An earlier turn (before the last user message) is not validated.
	assert.Empty(t, ruleOf(auditRequest(t, APIGeneric, "gemini-openai", chatReq("gemini-3-pro-preview", "", toolMsg("", ""), `{"role":"assistant","content":"06:12."}`, `{"role":"user","content":"Thanks"}`)), RuleGeminiMissing))
	// Gemini 2.5 with nothing signed: a risk.
	vs = ruleOf(auditRequest(t, APIGeneric, "gemini-openai", chatReq("gemini-2.5-flash", "", toolMsg("", ""))), RuleGeminiMissing)
	require.Len(t, vs, 1)
	assert.Equal(t, replay.SeverityRisk, vs[0].Severity)
	assert.Empty(t, ruleOf(auditRequest(t, APIGeneric, "gemini-openai", chatReq("gemini-2.0-flash", "", toolMsg("", ""))), RuleGeminiMissing))
}

// Vertex AI's spelling is read, bound to its call, and written back where
// it came from by Encode and Patch.
func TestGeminiVertexSignature(t *testing.T) {
	const sig = "CiQBjz1rX9vT3kWm2pQ8sLn5yR7uE4aH6cJ0dF1gB3iK8oN2zY5="
	c := New(APIGeneric, "vertex-openai", "google/gemini-3-pro-preview")
	res := sweep(t, c, "gemini-vertex-signature.sse")
	require.NoError(t, res.Err)
	require.Len(t, res.Turn.Blocks, 2)
	e := res.Turn.Blocks[0].(*replay.Encrypted)
	assert.Equal(t, sig, e.Data)
	assert.True(t, e.Attached)
	assert.Equal(t, formats.GoogleGemini, e.Format)
	assert.Nil(t, res.Turn.Blocks[1].(*replay.ToolCall).Extra, "the signature is not kept twice")
	msg, err := c.Encode(res.Turn)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"assistant","content":null,"tool_calls":[{"id":"call_q7Lm2","type":"function","function":{"name":"bash","arguments":"{\"cmd\":\"ls -la\"}"},"extra_content":{"vertex":{"thought_signature":"`+sig+`"}}}]}`, string(msg))
	patched, err := c.Patch([]byte(`{"role":"assistant","tool_calls":[{"id":"call_q7Lm2","type":"function","function":{"name":"bash","arguments":"{}"}}]}`), res.Turn)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"assistant","tool_calls":[{"id":"call_q7Lm2","type":"function","function":{"name":"bash","arguments":"{}"},"extra_content":{"vertex":{"thought_signature":"`+sig+`"}}}]}`, string(patched))
	// The request that carries it back is clean.
	req := `{"model":"google/gemini-3-pro-preview","messages":[{"role":"user","content":"List files."},` + string(msg) + `,{"role":"tool","tool_call_id":"call_q7Lm2","content":"total 0"}]}`
	assert.True(t, auditRequest(t, APIGeneric, "vertex-openai", req).Clean())
}

// A Perplexity body carries a leftover empty delta beside its message: it
// decodes as a body, its <think> block as reasoning.
func TestPerplexityBody(t *testing.T) {
	c := New(APIGeneric, "perplexity", "sonar-reasoning-pro")
	tu, err := c.Decode(fixture(t, "perplexity-body.json"))
	require.NoError(t, err)
	require.True(t, tu.Complete)
	require.Len(t, tu.Blocks, 2)
	assert.Equal(t, "\nThe search result lists the Brest tides for today; the morning high tide is the one asked for.\n", tu.Blocks[0].(*replay.ReasoningText).Text)
	assert.Equal(t, "\nHigh tide at Brest is at 06:12 [1].", tu.VisibleText())
	codectest.Golden(t, filepath.Join("..", "..", "testdata", "chatcompat", "perplexity-body.json.golden.json"), codectest.Indent(tu.AppendJSON(nil)))
}

func TestMiniMaxM3Golden(t *testing.T) {
	tu, err := New(APIGeneric, "minimax", "MiniMax-M3").Decode(fixture(t, "minimax-m3-reasoning-split.json"))
	require.NoError(t, err)
	codectest.Golden(t, filepath.Join("..", "..", "testdata", "chatcompat", "minimax-m3-reasoning-split.json.golden.json"), codectest.Indent(tu.AppendJSON(nil)))
}
