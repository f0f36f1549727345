package replay_test

import (
	"errors"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const detail = `{"type":"reasoning.text","text":"Look it up.","signature":"RXFvS0JnZ0w=","format":"anthropic-claude-v1","index":0}`

func chatRequest(second string) []byte {
	return []byte(`{"model":"anthropic/claude-sonnet-4.5","tools":[{"type":"function","function":{"name":"lookup"}}],"messages":[` +
		`{"role":"user","content":"q"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"toolu_1","type":"function","function":{"name":"lookup","arguments":"{}"}}],"reasoning_details":[` + detail + `]},` +
		`{"role":"tool","tool_call_id":"toolu_1","content":"r"},` +
		`{"role":"assistant","content":"done","reasoning_details":[` + second + `]}]}`)
}

func TestAuditRequestOpenRouter(t *testing.T) {
	r, err := replay.AuditRequest("openrouter", chatRequest(`{"type":"reasoning.text","text":"Answer now.","signature":"U2Vjb25k","format":"anthropic-claude-v1"}`))
	require.NoError(t, err)
	assert.True(t, r.Clean(), "%v", r.Err())
	assert.Equal(t, 2, r.Turns)
	assert.Equal(t, 2, r.Signed)
	assert.Equal(t, "anthropic/claude-sonnet-4.5", r.Target.Model)
	assert.True(t, r.Target.Tools)

	// The request builder sent the first turn's detail again on the second
	// message, and stripped a signature.
	r, err = replay.AuditRequest("openrouter", chatRequest(detail+`,{"type":"reasoning.text","text":"Answer now.","signature":"","format":"anthropic-claude-v1"}`))
	require.NoError(t, err)
	require.Equal(t, []string{"openrouter/duplicate-item", "replay/empty-signature"}, ruleIDs(r), "%v", r.Err())
	for _, v := range r.Violations {
		assert.Equal(t, "/messages/3", v.Pointer)
		assert.Equal(t, 1, v.Turn)
	}
	assert.Equal(t, "Invalid signature in thinking block", r.Violations[1].Predicted)
	require.NoError(t, schema.Validate(schema.Report, r.AppendJSON(nil)))
}

func TestAuditRequestErrors(t *testing.T) {
	_, err := replay.AuditRequest("openrouter", []byte(`{"input":[]}`))
	assert.True(t, errors.Is(err, replay.ErrMalformed), "%v", err)
	_, err = replay.AuditRequest("openrouter", []byte(`not json`))
	assert.True(t, errors.Is(err, replay.ErrMalformed), "%v", err)
	_, err = replay.AuditRequest("no-such-api", []byte(`{}`))
	assert.True(t, errors.Is(err, replay.ErrUnknownAPI), "%v", err)
	_, err = replay.AuditRequest("openrouter", []byte(`{"messages":[{"role":"assistant","content":"x","reasoning_details":[{"type":5}]}]}`))
	assert.ErrorContains(t, err, "/messages/0")
}
