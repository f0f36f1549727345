package openai_test

import (
	"errors"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const rs = `{"type":"reasoning","id":"rs_01","summary":[{"type":"summary_text","text":"Look it up."}],"encrypted_content":"gAAAAABoQ2lwaGVy"}`

func responsesRequest(turn string) []byte {
	return []byte(`{"model":"gpt-5","store":false,"tools":[{"type":"function","name":"lookup"}],"input":[` +
		`{"role":"user","content":"q"},` + turn + `,` +
		`{"type":"function_call_output","call_id":"call_1","output":"r"}]}`)
}

func TestAuditRequest(t *testing.T) {
	call := `{"type":"function_call","id":"fc_01","call_id":"call_1","name":"lookup","arguments":"{}"}`
	r, err := replay.AuditRequest("openai-responses", responsesRequest(rs+","+call))
	require.NoError(t, err)
	assert.True(t, r.Clean(), "%v", r.Err())
	assert.Equal(t, 1, r.Turns)
	assert.Equal(t, 2, r.Items)
	assert.False(t, r.Target.Store)
	assert.True(t, r.Target.Tools)

	// The request builder stripped the encrypted content with store=false.
	// (A reasoning item dropped whole cannot be seen in the request alone:
	// audit the stored turns with History.Request for that.)
	r, err = replay.AuditRequest("openai-responses", responsesRequest(`{"type":"reasoning","id":"rs_01","summary":[]},`+call))
	require.NoError(t, err)
	require.NotEmpty(t, r.Violations)
	assert.Equal(t, "openai/store-false-without-encrypted", r.Violations[0].Rule)
	assert.Contains(t, r.Violations[0].Pointer, "/input/1")
	assert.True(t, r.Rejects())

	_, err = replay.AuditRequest("openai-responses", []byte(`{"messages":[]}`))
	assert.True(t, errors.Is(err, replay.ErrMalformed), "%v", err)
}

// The last assistant run cut off (a reasoning item with neither summary
// nor encrypted content, a function_call without arguments) reads as an
// unfinished turn: the core rules fire.
func TestAuditRequestCutTurn(t *testing.T) {
	call := `{"type":"function_call","id":"fc_01","call_id":"call_1","name":"lookup","arguments":"{}"}`
	for name, turn := range map[string]string{
		"reasoning cut": `{"type":"reasoning","id":"rs_01","content":[{"type":"reasoning_text","text":"Look"}]},` + call,
		"call cut":      rs + `,{"type":"function_call","id":"fc_01","call_id":"call_1","name":"lookup"}`,
	} {
		t.Run(name, func(t *testing.T) {
			h, _, err := openai.Codec{}.DecodeRequest(responsesRequest(turn))
			require.NoError(t, err)
			require.Len(t, h.Turns, 1)
			assert.False(t, h.Turns[0].Complete)
			r, err := replay.AuditRequest("openai-responses", responsesRequest(turn))
			require.NoError(t, err)
			var ids []string
			for _, v := range r.Violations {
				ids = append(ids, v.Rule)
			}
			assert.Contains(t, ids, "replay/incomplete-turn")
			if name == "reasoning cut" {
				assert.Contains(t, ids, "replay/unfinished-item")
			}
		})
	}
	h, _, err := openai.Codec{}.DecodeRequest(responsesRequest(rs + "," + call))
	require.NoError(t, err)
	assert.True(t, h.Turns[0].Complete)
	assert.Equal(t, []string{"/input/1"}, h.Pointers)
	assert.Equal(t, "gAAAAABoQ2lwaGVy", h.Turns[0].Blocks[1].(*replay.Encrypted).Data)
	assert.Equal(t, "fc_01", h.Turns[0].ToolCalls()[0].ItemID)
}
