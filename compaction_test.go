package replay_test

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompactionDocument(t *testing.T) {
	tu := &replay.Turn{Complete: true, Blocks: []replay.Block{
		&replay.Compaction{Format: formats.AnthropicClaude, Content: replay.Some("Summary of the earlier turns."), Signature: replay.Some("c2lnbmVk"),
			Extra: []byte(`{"cache_control":{"type":"ephemeral"},"data":"theirs"}`)},
		&replay.Compaction{Format: formats.OpenAIResponses, ID: "cmp_01", Data: "gAAAAB_opaque", Content: replay.NullOf[string]()},
		&replay.Text{Text: "ok"},
	}}
	doc := tu.AppendJSON(nil)
	assert.Equal(t, `{"version":2,"provenance":{},"complete":true,"blocks":[`+
		`{"type":"compaction","format":"anthropic-claude-v1","content":"Summary of the earlier turns.","signature":"c2lnbmVk","extra":{"cache_control":{"type":"ephemeral"},"data":"theirs"}},`+
		`{"type":"compaction","format":"openai-responses-v1","id":"cmp_01","content":null,"data":"gAAAAB_opaque"},`+
		`{"type":"text","text":"ok"}]}`, string(doc))
	back, err := replay.UnmarshalTurn(doc)
	require.NoError(t, err)
	assert.Equal(t, tu.Blocks, back.Blocks)
	require.NoError(t, schema.Validate(schema.Turn, doc))
	_, err = replay.UnmarshalTurn([]byte(`{"version":1,"complete":true,"blocks":[{"type":"compaction","data":5}]}`))
	assert.ErrorContains(t, err, "/blocks/0/data")
}

// A compaction block goes only to the API, issuer and account that minted
// it; every drop is a notice.
func TestCarryCompaction(t *testing.T) {
	reg := policyRegistry(t)
	cmp := &replay.Compaction{Format: formats.OpenAIResponses, ID: "cmp_01", Data: "gAAAAB_opaque"}
	tu := turnOf("openai-responses", "openai", cmp, &replay.Text{Text: "ok"})
	tu.Provenance.Account = "org-a"
	h := replay.History{Turns: []*replay.Turn{tu}}

	out, notes := reg.Carry(h, replay.Target{API: "openai-responses", Provider: "openai", Account: "org-a"}, nil)
	assert.Empty(t, notes)
	assert.Equal(t, cmp, out.Turns[0].Blocks[0])

	for _, c := range []struct {
		target replay.Target
		cs     replay.Case
	}{
		{replay.Target{API: "openai-responses", Provider: "openai", Account: "org-b"}, replay.CaseIdentityMismatch},
		{replay.Target{API: "anthropic", Provider: "anthropic"}, replay.CaseForeignOpaque},
	} {
		out, notes := reg.Carry(h, c.target, nil)
		require.Len(t, notes, 1, "%+v", c.target)
		assert.Equal(t, c.cs, notes[0].Case)
		assert.Equal(t, replay.Drop, notes[0].Action)
		assert.Equal(t, []replay.Block{&replay.Text{Text: "ok"}}, out.Turns[0].Blocks)
	}
}
