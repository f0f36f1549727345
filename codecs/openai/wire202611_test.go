package openai_test

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/openai"
	"github.com/reasonreplay/replay/formats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// input is a Responses request of model with items after a user message.
func input(model string, extra string, items string) []byte {
	return []byte(`{"model":"` + model + `","store":false,` + extra + `"input":[{"role":"user","content":"Tides?"},` + items +
		`,{"role":"user","content":"And Cherbourg?"}]}`)
}

const (
	rs1  = `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAAB-one"}`
	rs2  = `{"type":"reasoning","id":"rs_2","summary":[],"encrypted_content":"gAAAAB-two"}`
	ws1  = `{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"tides Brest"}}`
	msg1 = `{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"06:12."}]}`
)

// A reasoning item is never followed by another: the web_search_call
// between them was dropped. Judged from the request alone, and against
// the captured turn.
func TestReasoningFollowedByReasoning(t *testing.T) {
	body := input("gpt-5", "", rs1+","+rs2+","+msg1)
	vs := only(auditBody(t, "", body), openai.RuleReasoningWithoutFollower)
	require.Len(t, vs, 1)
	assert.Equal(t, "Item 'rs_1' of type 'reasoning' was provided without its required following item.", vs[0].Predicted)
	assert.Equal(t, "/input/1", vs[0].Pointer)
	assert.Contains(t, vs[0].Message, "followed directly by another reasoning item")

	captured, err := openai.Codec{}.Decode([]byte(`{"id":"resp_1","object":"response","status":"completed","model":"gpt-5","output":[` + rs1 + `,` + ws1 + `,` + rs2 + `,` + msg1 + `]}`))
	require.NoError(t, err)
	h, tg, err := openai.Codec{}.DecodeRequest(body)
	require.NoError(t, err)
	h.Turns = []*replay.Turn{captured}
	assert.Len(t, only(audit(h, tg), openai.RuleReasoningWithoutFollower), 1)

	assert.Empty(t, only(auditBody(t, "", input("gpt-5", "", rs1+","+ws1+","+rs2+","+msg1)), openai.RuleReasoningWithoutFollower))
}

// DeepSeek's Responses endpoint takes reasoning_text back and issues no
// ciphertext: its own turn goes back whole, with no store=false alarm; an
// item sent without its text carries nothing (degrade).
func TestDeepSeekResponses(t *testing.T) {
	codec := openai.Codec{Provider: "deepseek"}
	tu, err := decodeBody(t, "deepseek-reasoning-text.json", codec)
	require.NoError(t, err)
	rt := tu.Blocks[0].(*replay.ReasoningText)
	assert.Equal(t, formats.DeepSeekResponses, rt.Format)
	assert.Equal(t, "8e2d4f6a-1b3c-4d5e-9f0a-2b4c6d8e0f1a", rt.ID.Value())
	out, err := codec.Encode(tu)
	require.NoError(t, err)
	assert.Equal(t, `[{"type":"reasoning","id":"8e2d4f6a-1b3c-4d5e-9f0a-2b4c6d8e0f1a","summary":[],"content":[{"type":"reasoning_text","text":"The user wants the high tide at Brest; call tide_table with the port."}]},`+
		`{"type":"function_call","id":"5c7e9a1b-3d5f-4a7c-8e9b-0d2f4a6c8e1b","call_id":"call_7Rk2Pd9Wq4","name":"tide_table","arguments":"{\"port\":\"Brest\"}"}]`, string(out))

	body := []byte(`{"model":"deepseek-v4-flash","store":false,"input":[{"role":"user","content":"Tides?"},` + string(out)[1:len(out)-1] +
		`,{"type":"function_call_output","call_id":"call_7Rk2Pd9Wq4","output":"06:12"}]}`)
	h, tg, err := codec.DecodeRequest(body)
	require.NoError(t, err)
	h.Turns = []*replay.Turn{tu}
	rep := replay.AuditReplay(h, tg)
	assert.True(t, rep.Clean(), "%v", rep.Err())

	dropped := []byte(`{"model":"deepseek-v4-flash","store":false,"input":[{"role":"user","content":"Tides?"},` +
		`{"type":"reasoning","id":"8e2d4f6a-1b3c-4d5e-9f0a-2b4c6d8e0f1a","summary":[]},` +
		`{"type":"function_call","id":"5c7e9a1b-3d5f-4a7c-8e9b-0d2f4a6c8e1b","call_id":"call_7Rk2Pd9Wq4","name":"tide_table","arguments":"{}"},` +
		`{"type":"function_call_output","call_id":"call_7Rk2Pd9Wq4","output":"06:12"}]}`)
	vs := auditBody(t, "deepseek", dropped)
	require.Len(t, vs, 1, "%v", vs)
	assert.Equal(t, openai.RuleReasoningTextDropped, vs[0].Rule)
	assert.Equal(t, replay.SeverityDegrade, vs[0].Severity)
	assert.Equal(t, "/input/1", vs[0].Pointer)
	// The same items to OpenAI: the store=false rule, as before.
	assert.Len(t, only(auditBody(t, "openai", dropped), openai.RuleStoreFalseNoEncrypted), 1)
	assert.Empty(t, only(auditBody(t, "openai", dropped), openai.RuleReasoningTextDropped))
}

func TestReasoningEffortPerModel(t *testing.T) {
	effort := func(model, e string) []replay.Violation {
		return only(auditBody(t, "", input(model, `"reasoning":{"effort":"`+e+`"},`, rs1+","+msg1)), openai.RuleReasoningEffort)
	}
	vs := effort("gpt-5.6-luna", "minimal")
	require.Len(t, vs, 1)
	assert.Equal(t, "Unsupported value: 'minimal' is not supported with the 'gpt-5.6-luna' model. Supported values are: 'none', 'low', 'medium', 'high', 'xhigh', and 'max'.", vs[0].Predicted)
	assert.Equal(t, "/reasoning/effort", vs[0].Pointer)
	vs = effort("gpt-6-astra", "none")
	require.Len(t, vs, 1)
	assert.Equal(t, "Unsupported value: 'none' is not supported with the 'gpt-6-astra' model.", vs[0].Predicted)
	for _, c := range [][2]string{{"gpt-5.6-luna", "none"}, {"gpt-5.6-luna", "max"}, {"gpt-6.1-sol", "high"}, {"gpt-5", "minimal"}, {"gpt-5.6-terra", "minimal"}} {
		assert.Empty(t, effort(c[0], c[1]), c[0]+" "+c[1])
	}
}

// gpt-5.6-luna, with all_turns reasoning history, refuses a message that
// keeps its id without its reasoning item.
func TestLunaMessageWithoutReasoning(t *testing.T) {
	vs := only(auditBody(t, "", input("gpt-5.6-luna", `"reasoning":{"effort":"high"},`, msg1)), openai.RuleFollowerWithoutReasoning)
	require.Len(t, vs, 1)
	assert.Equal(t, "Item 'msg_1' of type 'message' was provided without its required 'reasoning' item", vs[0].Predicted)
	assert.Empty(t, only(auditBody(t, "", input("gpt-5.6-luna", `"reasoning":{"effort":"high"},`, rs1+","+msg1)), openai.RuleFollowerWithoutReasoning))
}

// xAI's OAuth route refuses replayed encrypted reasoning; the API-key route
// takes it.
func TestXAIRoutes(t *testing.T) {
	body := input("grok-4.6", "", rs1+","+msg1)
	vs := only(auditBody(t, "xai-oauth", body), openai.RuleRouteRefusesReasoning)
	require.Len(t, vs, 1)
	assert.Equal(t, "Invalid request content: Each message must have at least one content element.", vs[0].Predicted)
	assert.Equal(t, "/input/1", vs[0].Pointer)
	assert.Empty(t, auditBody(t, "xai", body))
	assert.Equal(t, formats.XAIResponses, openai.FormatFor("xai-oauth"))
	// From the turns alone.
	tu := textTurn(formats.XAIResponses)
	vs = only(audit(replay.History{Turns: []*replay.Turn{tu}}, replay.Target{API: openai.API, Provider: "xai-oauth"}), openai.RuleRouteRefusesReasoning)
	assert.Len(t, vs, 1)
}

// xAI answers foreign or altered ciphertext with its own text.
func TestXAIDecryptText(t *testing.T) {
	const want = "Could not decrypt the provided encrypted_content. Ensure the value is the unmodified encrypted_content from a previous response."
	foreign := textTurn(formats.OpenAIResponses)
	vs := only(audit(replay.History{Turns: []*replay.Turn{foreign}}, replay.Target{API: openai.API, Provider: "xai"}), openai.RuleForeignFormat)
	require.Len(t, vs, 1)
	assert.Equal(t, want, vs[0].Predicted)
	own := textTurn(formats.XAIResponses)
	own.Provenance.Account = "team-a"
	vs = only(audit(replay.History{Turns: []*replay.Turn{own}}, replay.Target{API: openai.API, Provider: "xai", Account: "team-b"}), openai.RuleEncryptedAltered)
	require.Len(t, vs, 1)
	assert.Equal(t, want, vs[0].Predicted)
}

// An encrypted_content that is not a string: the request still reads (the
// item kept verbatim) and the audit predicts the type error.
func TestEncryptedContentOfAnotherType(t *testing.T) {
	body := input("gpt-5", "", `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":{"data":"gAAAAB-one"}},`+msg1)
	h, _, err := openai.Codec{}.DecodeRequest(body)
	require.NoError(t, err)
	nat, ok := h.Turns[0].Blocks[0].(*replay.Native)
	require.True(t, ok)
	assert.Equal(t, `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":{"data":"gAAAAB-one"}}`, string(nat.Raw))
	vs := only(auditBody(t, "", body), openai.RuleEncryptedAltered)
	require.Len(t, vs, 1)
	assert.Equal(t, "Invalid type for 'input[1].encrypted_content': expected a string, but got an object instead.", vs[0].Predicted)
	assert.Equal(t, "/input/1/encrypted_content", vs[0].Pointer)
	assert.Empty(t, only(auditBody(t, "", body), openai.RuleStoreFalseNoEncrypted), "its own rule, not store=false's")
	vs = only(auditBody(t, "", input("gpt-5", "", `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":["gAAAAB"]},`+msg1)), openai.RuleEncryptedAltered)
	require.Len(t, vs, 1)
	assert.Equal(t, "Invalid type for 'input[1].encrypted_content': expected a string, but got an array instead.", vs[0].Predicted)
}
