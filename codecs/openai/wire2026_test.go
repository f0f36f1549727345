package openai_test

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/openai"
	"github.com/reasonreplay/replay/formats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// textTurn is a gpt-oss style turn: reasoning text, encrypted content and
// an unknown member that says status, then a call.
func textTurn(f replay.Format) *replay.Turn {
	first := replay.ItemMeta{Format: f, ID: replay.Some("rs_1"), Index: replay.Some(0)}
	first.Extra = []byte(`{"status":"completed","x_host":1}`)
	enc := replay.ItemMeta{Format: f, ID: replay.Some("rs_1")}
	return &replay.Turn{Complete: true, Provenance: replay.Provenance{API: openai.API}, Blocks: []replay.Block{
		&replay.ReasoningText{ItemMeta: first, Text: "Add them."},
		&replay.Encrypted{ItemMeta: enc, Data: "gAAAAB-ct"},
		&replay.ToolCall{ID: "call_1", ItemID: "fc_1", Name: "add", Arguments: `{"a":1}`},
	}}
}

// Item 1: the official API gets id, summary (always, [] when empty) and
// encrypted_content: never content, never status. vLLM takes the text back.
func TestEncodeOfficialReasoningShape(t *testing.T) {
	out, err := openai.Codec{}.Encode(textTurn(formats.OpenAIResponses))
	require.NoError(t, err)
	require.Equal(t, `[{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAAB-ct","x_host":1},`+
		`{"type":"function_call","id":"fc_1","call_id":"call_1","name":"add","arguments":"{\"a\":1}"}]`, string(out))

	out, err = openai.Codec{Provider: "vllm"}.Encode(textTurn(replay.FormatUnknown))
	require.NoError(t, err)
	require.Equal(t, `[{"type":"reasoning","id":"rs_1","summary":[],"content":[{"type":"reasoning_text","text":"Add them."}],"encrypted_content":"gAAAAB-ct","x_host":1},`+
		`{"type":"function_call","id":"fc_1","call_id":"call_1","name":"add","arguments":"{\"a\":1}"}]`, string(out))

	// A vLLM item with text and no ciphertext goes back to vLLM whole.
	tu := textTurn(replay.FormatUnknown)
	tu.Blocks = append(tu.Blocks[:1], tu.Blocks[2:]...)
	out, err = openai.Codec{Provider: "vllm"}.Encode(tu)
	require.NoError(t, err)
	require.Equal(t, `[{"type":"reasoning","id":"rs_1","summary":[],"content":[{"type":"reasoning_text","text":"Add them."}],"x_host":1},`+
		`{"type":"function_call","id":"fc_1","call_id":"call_1","name":"add","arguments":"{\"a\":1}"}]`, string(out))
	// The official API never gets it (no ciphertext): the call loses its id.
	out, err = openai.Codec{ReasoningText: false}.Encode(tu)
	require.NoError(t, err)
	require.Equal(t, `[{"type":"function_call","call_id":"call_1","name":"add","arguments":"{\"a\":1}"}]`, string(out))
}

func request(model, provider string, items string) []byte {
	return []byte(`{"model":"` + model + `","store":false,"input":[{"role":"user","content":"1+1?"},` + items +
		`,{"type":"function_call_output","call_id":"call_1","output":"2"}]}`)
}

func auditBody(t *testing.T, provider string, body []byte) []replay.Violation {
	t.Helper()
	h, tg, err := openai.Codec{Provider: provider}.DecodeRequest(body)
	require.NoError(t, err)
	return audit(h, tg)
}

const callItem = `{"type":"function_call","id":"fc_1","call_id":"call_1","name":"add","arguments":"{}"}`

// Item 1, audit: content and status on an input reasoning item, and a
// missing summary, each with OpenAI's exact error; quiet for vLLM.
func TestAuditReasoningShape(t *testing.T) {
	withContent := `{"type":"reasoning","id":"rs_1","summary":[],"content":[{"type":"reasoning_text","text":"Add."}],"encrypted_content":"gAAAAB-ct"},` + callItem
	vs := only(auditBody(t, "", request("gpt-5", "", withContent)), openai.RuleReasoningContent)
	require.Len(t, vs, 1)
	assert.Equal(t, "/input/1/content", vs[0].Pointer)
	assert.Equal(t, "Invalid 'input[1].content': array too long. Expected an array with maximum length 0, but got an array with length 1 instead.", vs[0].Predicted)
	assert.Equal(t, replay.SeverityReject, vs[0].Severity)
	require.Empty(t, only(auditBody(t, "vllm", request("openai/gpt-oss-120b", "", withContent)), openai.RuleReasoningContent))
	emptyContent := `{"type":"reasoning","id":"rs_1","summary":[],"content":[],"encrypted_content":"gAAAAB-ct"},` + callItem
	require.Empty(t, auditBody(t, "", request("gpt-5", "", emptyContent)))

	withStatus := `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAAB-ct","status":"completed"},` + callItem
	vs = only(auditBody(t, "azure", request("gpt-5", "", withStatus)), openai.RuleReasoningStatus)
	require.Len(t, vs, 1)
	assert.Equal(t, "Unknown parameter: 'input[1].status'.", vs[0].Predicted)
	assert.Equal(t, "/input/1/status", vs[0].Pointer)

	noSummary := `{"type":"reasoning","id":"rs_1","encrypted_content":"gAAAAB-ct"},` + callItem
	vs = only(auditBody(t, "", request("gpt-5", "", noSummary)), openai.RuleReasoningSummary)
	require.Len(t, vs, 1)
	assert.Equal(t, "Missing required parameter: 'input[1].summary'.", vs[0].Predicted)
	vs = only(auditBody(t, "xai", request("grok-4", "", noSummary)), openai.RuleReasoningSummary)
	require.Len(t, vs, 1)
	assert.Equal(t, "Could not decode the compaction blob. Ensure it is unmodified from the compact response.", vs[0].Predicted)

	// The clean request Encode writes passes every rule.
	good := `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAAB-ct"},` + callItem
	require.Empty(t, auditBody(t, "", request("gpt-5", "", good)))
}

// Item 2: pairing decided from the request alone.
func TestAuditPairingFromRequest(t *testing.T) {
	vs := only(auditBody(t, "", request("gpt-5", "", callItem)), openai.RuleFollowerWithoutReasoning)
	require.Len(t, vs, 1)
	assert.Equal(t, "/input/1", vs[0].Pointer)
	assert.Equal(t, "Item 'fc_1' of type 'function_call' was provided without its required 'reasoning' item", vs[0].Predicted)
	assert.Equal(t, replay.SeverityReject, vs[0].Severity)

	msg := `{"role":"assistant","id":"msg_1","content":"Two."}`
	body := []byte(`{"model":"o4-mini","input":[{"role":"user","content":"1+1?"},` + msg + `,{"role":"user","content":"thanks"}]}`)
	vs = only(auditBody(t, "", body), openai.RuleFollowerWithoutReasoning)
	require.Len(t, vs, 1)
	assert.Equal(t, "Item 'msg_1' of type 'message' was provided without its required 'reasoning' item", vs[0].Predicted)

	// Quiet: ids stripped; a reasoning item earlier in the same turn
	// (parallel calls); a model that does not reason; host-minted ids.
	stripped := `{"type":"function_call","call_id":"call_1","name":"add","arguments":"{}"}`
	require.Empty(t, auditBody(t, "", request("gpt-5", "", stripped)))
	second := `{"type":"function_call","id":"fc_2","call_id":"call_2","name":"add","arguments":"{}"}`
	rs := `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAAB-ct"}`
	require.Empty(t, auditBody(t, "", request("gpt-5", "", rs+","+callItem+","+second)))
	require.Empty(t, auditBody(t, "", request("gpt-4.1", "", callItem)))
	require.Empty(t, auditBody(t, "", request("gpt-4.1", "", `{"type":"function_call","id":"5d1e9f0a","call_id":"call_1","name":"add","arguments":"{}"}`)))
	// A reasoning item of an earlier turn does not pair this turn's call.
	earlier := []byte(`{"model":"gpt-5","store":false,"input":[{"role":"user","content":"a"},` + rs + `,` +
		`{"type":"function_call","call_id":"call_0","name":"add","arguments":"{}"},{"type":"function_call_output","call_id":"call_0","output":"1"},` +
		callItem + `,{"type":"function_call_output","call_id":"call_1","output":"2"}]}`)
	vs = only(auditBody(t, "", earlier), openai.RuleFollowerWithoutReasoning)
	require.Len(t, vs, 1)
	assert.Equal(t, "/input/4", vs[0].Pointer)
}

// Item 5: every valid input shape reads.
func TestRequestInputShapes(t *testing.T) {
	body := []byte(`{"model":"gpt-5","input":[` +
		`{"role":"user","content":"hi"},` +
		`{"role":"assistant","content":"Hello."},` +
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"look it up"}]},` +
		`{"type":"item_reference","id":"rs_9"},` +
		`{"type":"function_call","id":"fc_9","call_id":"call_9","name":"lookup","arguments":"{}"},` +
		`{"type":"function_call_output","call_id":"call_9","output":"ok"},` +
		`{"type":"custom_tool_call_output","call_id":"call_8","output":"ok"},` +
		`{"type":"shell_call_output","call_id":"call_7","output":[]},` +
		`{"type":"message","role":"assistant","id":"msg_9","content":[{"type":"output_text","text":"Done.","annotations":[]}]}` +
		`]}`)
	h, tg, err := openai.Codec{}.DecodeRequest(body)
	require.NoError(t, err)
	assert.True(t, tg.Store)
	require.Len(t, h.Turns, 3)
	assert.Equal(t, []string{"/input/1", "/input/3", "/input/8"}, h.Pointers)
	require.Equal(t, "Hello.", h.Turns[0].Blocks[0].(*replay.Text).Text)
	ref := h.Turns[1].Blocks[0].(*replay.Native)
	assert.Equal(t, "item_reference", ref.Kind)
	assert.Equal(t, `{"type":"item_reference","id":"rs_9"}`, string(ref.Raw))
	assert.Equal(t, "fc_9", h.Turns[1].Blocks[1].(*replay.ToolCall).ItemID)
	// The audit reads it (no "malformed input"); the one finding is the
	// msg_ id kept without reasoning on a reasoning model.
	r, err := replay.AuditRequest(openai.API, body)
	require.NoError(t, err)
	require.Len(t, r.Violations, 1)
	assert.Equal(t, "/input/8", r.Violations[0].Pointer)
	assert.Equal(t, openai.RuleFollowerWithoutReasoning, r.Violations[0].Rule)
}
