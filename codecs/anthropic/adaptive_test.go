package anthropic_test

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The request's thinking type decides the target's Thinking (on for
// manual, adaptive and between-tools thinking) and whether the tool turn
// in progress must start with its thinking block (manual thinking only:
// in adaptive mode the model decides whether a turn thinks).
func TestThinkingTypes(t *testing.T) {
	body := func(thinking string) []byte {
		return []byte(`{"model":"claude-sonnet-5","max_tokens":1024,` + thinking +
			`"tools":[{"name":"get_weather","input_schema":{"type":"object"}}],"messages":[` +
			`{"role":"user","content":"Weather in Bern?"},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{"city":"Bern"}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"18°C"}]}]}`)
	}
	for _, tc := range []struct {
		thinking   string
		on, reject bool
	}{
		{`"thinking":{"type":"enabled","budget_tokens":2048},`, true, true},
		{`"thinking":{"type":"adaptive"},`, true, false},
		{`"thinking":{"type":"adaptive","display":"omitted"},`, true, false},
		{`"thinking":{"type":"between_tools"},`, true, false},
		{`"thinking":{"type":"disabled"},`, false, false},
		{``, false, false},
	} {
		_, target, err := anthropic.Codec{}.DecodeRequest(body(tc.thinking))
		require.NoError(t, err, tc.thinking)
		assert.Equal(t, tc.on, target.Thinking, tc.thinking)
		rep, err := replay.AuditRequest(anthropic.API, body(tc.thinking))
		require.NoError(t, err, tc.thinking)
		var first []string
		for _, v := range rep.Violations {
			if v.Rule == anthropic.RuleThinkingFirst {
				first = append(first, v.Pointer)
			}
		}
		if tc.reject {
			assert.Equal(t, []string{"/messages/1/content/0/type"}, first, tc.thinking)
		} else {
			assert.Empty(t, first, tc.thinking)
		}
	}
}
