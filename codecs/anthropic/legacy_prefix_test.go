package anthropic_test

import (
	"strings"
	"testing"
	"time"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// legacyRequest is a Messages request replaying a signed thinking turn at
// messages[1]. Its version-1 prefix hash before message 1 (the first
// definition, computed by the last build that had it) is legacyHash.
const (
	legacyRequest = `{"model":"claude-fable-5-1","max_tokens":1024,"system":"You are terse.",` +
		`"tools":[{"name":"get_weather","input_schema":{"type":"object"}}],"messages":[` +
		`{"role":"user","content":"Weather?"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"Look it up.","signature":"EqQBCkYIBxgC"},{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"12 C"}]}]}`
	legacyHash = "sha256:cc10dca8b0a5d7b2d160da2385ae42fc1e0c9d76fb6d7dc404d874f8d7a41977"
)

// legacyTurn reads a document of the captured turn, of the given version,
// with the given prefix_hash.
func legacyTurn(t *testing.T, version, hash string) *replay.Turn {
	t.Helper()
	doc := `{"version":` + version + `,"provenance":{"api":"anthropic","provider":"anthropic","model":"claude-fable-5-1","prefix_hash":"` + hash + `"},"complete":true,"blocks":[` +
		`{"type":"reasoning.text","text":"Look it up.","signature":"EqQBCkYIBxgC","format":"anthropic-claude-v1","index":0},` +
		`{"type":"tool_call","id":"toolu_01","name":"get_weather","arguments":"{}"}]}`
	tu, err := replay.UnmarshalTurn([]byte(doc))
	require.NoError(t, err)
	return tu
}

// A version-1 document's prefix_hash keeps the meaning it was written with:
// matched by either definition of that version, it is clean; matched by
// neither, it is "not verified" (a risk), never a mismatch. A version-2
// document's prefix_hash is the binding hash, and a difference is a
// mismatch.
func TestLegacyPrefixHash(t *testing.T) {
	binding, err := anthropic.PrefixHashBefore([]byte(legacyRequest), 1)
	require.NoError(t, err)
	require.NotEqual(t, binding, legacyHash, "the two definitions differ on this request")
	tg := replay.Target{API: "anthropic", Model: "claude-fable-5-1", AccountCreated: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)}
	rules := func(tu *replay.Turn, body string) []string {
		h := replay.History{Turns: []*replay.Turn{tu}, Request: []byte(body), Pointers: []string{"/messages/1"}}
		var out []string
		for _, id := range []string{anthropic.RulePrefixMismatch, anthropic.RulePrefixUnverified} {
			for _, v := range audit(t, id, h, tg) {
				out = append(out, v.Rule+" "+string(v.Severity)+" "+v.Pointer)
			}
		}
		return out
	}
	old := legacyTurn(t, "1", legacyHash)
	assert.Equal(t, "", old.Provenance.PrefixHash)
	assert.Equal(t, legacyHash, old.Provenance.LegacyPrefixHash)
	assert.Empty(t, rules(old, legacyRequest), "the first definition matches")
	assert.Empty(t, rules(legacyTurn(t, "1", binding), legacyRequest), "the binding definition matches")
	// Sampling settings and thinking blocks were never part of either.
	other := strings.Replace(legacyRequest, `"max_tokens":1024`, `"max_tokens":9`, 1)
	assert.Empty(t, rules(old, other))
	// Another system prompt: neither matches; not verified, not a mismatch.
	changed := strings.Replace(legacyRequest, "You are terse.", "You are verbose.", 1)
	assert.Equal(t, []string{"anthropic/prefix-unverified risk /messages/1/content/0"}, rules(old, changed))
	// Written again, the legacy hash stays legacy.
	again, err := replay.UnmarshalTurn(old.AppendJSON(nil))
	require.NoError(t, err)
	assert.Equal(t, old.Provenance, again.Provenance)
	assert.Contains(t, string(old.AppendJSON(nil)), `"legacy_prefix_hash":"`+legacyHash+`"`)
	// Version 2: prefix_hash is the binding hash.
	assert.Empty(t, rules(legacyTurn(t, "2", binding), legacyRequest))
	assert.Equal(t, []string{"anthropic/prefix-mismatch reject /messages/1/content/0"}, rules(legacyTurn(t, "2", legacyHash), legacyRequest))

	// Without the request, against Target.PrefixHash (the binding hash):
	// equal is clean, different is not verified.
	for hash, want := range map[string][]string{binding: nil, legacyHash: {"anthropic/prefix-unverified risk "}} {
		tt := tg
		tt.PrefixHash = binding
		h := replay.History{Turns: []*replay.Turn{legacyTurn(t, "1", hash)}}
		var got []string
		for _, id := range []string{anthropic.RulePrefixMismatch, anthropic.RulePrefixUnverified} {
			for _, v := range audit(t, id, h, tt) {
				got = append(got, v.Rule+" "+string(v.Severity)+" "+v.Pointer)
			}
		}
		assert.Equal(t, want, got, hash)
	}
}
