package anthropic_test

import (
	"errors"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/reasonreplay/replay/formats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func request(assistant string) []byte {
	return []byte(`{"model":"claude-sonnet-4-5","max_tokens":2048,"thinking":{"type":"enabled","budget_tokens":1024},` +
		`"tools":[{"name":"read","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"read a"},` +
		`{"role":"assistant","content":"Earlier answer."},{"role":"user","content":"read b"},` +
		`{"role":"assistant","content":` + assistant + `},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"b"}]}]}`)
}

func TestAuditRequest(t *testing.T) {
	good := `[{"type":"thinking","thinking":"Read b.","signature":"RXFvS0JnZ0w="},{"type":"tool_use","id":"toolu_01","name":"read","input":{"p":"b"}}]`
	r, err := replay.AuditRequest("anthropic", []byte(request(good)))
	require.NoError(t, err)
	assert.True(t, r.Clean(), "%v", r.Err())
	assert.Equal(t, 2, r.Turns)
	assert.Equal(t, 1, r.Signed)
	assert.True(t, r.Target.Thinking)
	assert.True(t, r.Target.Tools)

	// The request builder dropped the thinking block of the tool turn.
	r, err = replay.AuditRequest("anthropic", []byte(request(`[{"type":"tool_use","id":"toolu_01","name":"read","input":{"p":"b"}}]`)))
	require.NoError(t, err)
	require.NotEmpty(t, r.Violations)
	assert.Equal(t, "anthropic/thinking-first", r.Violations[0].Rule)
	assert.Equal(t, "/messages/3/content/0/type", r.Violations[0].Pointer)
	assert.True(t, r.Rejects())

	// A Gemini signature pasted in: reported once (the contract's
	// foreign-signature rule covers the cross-provider foreign-format rule).
	r, err = replay.AuditRequest("anthropic", []byte(request(`[{"type":"thinking","thinking":"x","signature":"RXFv"},{"type":"tool_use","id":"toolu_01","name":"read","input":{}}]`)))
	require.NoError(t, err)
	assert.True(t, r.Clean(), "a Claude-shaped block decodes as Claude's: %v", r.Err())

	_, err = replay.AuditRequest("anthropic", []byte(`{"contents":[]}`))
	assert.True(t, errors.Is(err, replay.ErrMalformed), "%v", err)
}

func TestForeignReportedOnce(t *testing.T) {
	tu := &replay.Turn{Provenance: replay.Provenance{API: "gemini", Provider: "aistudio"}, Complete: true, Blocks: []replay.Block{
		&replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: formats.GoogleGemini}, Text: "t", Signature: replay.Some("Q2lT")},
		&replay.Text{Text: "ok"}}}
	r := replay.AuditReplay(replay.History{Turns: []*replay.Turn{tu}}, replay.Target{API: "anthropic", Provider: "anthropic"})
	var ids []string
	for _, v := range r.Violations {
		ids = append(ids, v.Rule)
	}
	assert.Equal(t, []string{"anthropic/foreign-signature"}, ids)
}

// A last assistant message cut before a thinking block's signature or a
// tool_use's input reads as an unfinished turn: the core rules fire.
func TestAuditRequestCutTurn(t *testing.T) {
	for name, content := range map[string]string{
		"no signature": `[{"type":"thinking","thinking":"Read b."},{"type":"tool_use","id":"toolu_01","name":"read","input":{"p":"b"}}]`,
		"no input":     `[{"type":"thinking","thinking":"Read b.","signature":"RXFvS0JnZ0w="},{"type":"tool_use","id":"toolu_01","name":"read"}]`,
	} {
		t.Run(name, func(t *testing.T) {
			r, err := replay.AuditRequest("anthropic", request(content))
			require.NoError(t, err)
			var ids []string
			for _, v := range r.Violations {
				ids = append(ids, v.Rule)
			}
			assert.Contains(t, ids, "replay/incomplete-turn")
			if name == "no signature" {
				assert.Contains(t, ids, "replay/unfinished-item")
			}
		})
	}
	h, _, err := anthropic.Codec{}.DecodeRequest(request(`[{"type":"thinking","thinking":"Read b.","signature":"RXFvS0JnZ0w="},{"type":"tool_use","id":"toolu_01","name":"read","input":{"p":"b"}}]`))
	require.NoError(t, err)
	require.Len(t, h.Turns, 2)
	assert.True(t, h.Turns[1].Complete)
	assert.Equal(t, []string{"/messages/1", "/messages/3"}, h.Pointers)
	assert.Equal(t, `{"p":"b"}`, h.Turns[1].ToolCalls()[0].Arguments)
}
