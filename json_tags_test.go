package replay_test

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/reasonreplay/replay"
	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/reasonreplay/replay/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// The exported types that documents carry marshal with encoding/json as
// the documents write them: a report's violations and target, a turn's
// provenance, error and transformations; and a report document unmarshals
// into a Report.
func TestJSONTagsMarshalAsTheDocuments(t *testing.T) {
	body, err := os.ReadFile("testdata/bedrock-converse/claude-history-to-qwen.request")
	require.NoError(t, err)
	rep, err := replay.AuditRequest("bedrock-converse", body)
	require.NoError(t, err)
	require.NotEmpty(t, rep.Violations)
	rep.Target.Account, rep.Target.PrefixHash, rep.Target.Tools = "org-1", "h1", true
	doc := rep.AppendJSON(nil)
	require.NoError(t, schema.Validate(schema.Report, doc))
	withPointer := false
	for _, v := range rep.Violations {
		withPointer = withPointer || v.Pointer != "" && v.Fix != ""
	}
	assert.True(t, withPointer, "a violation with its optional members")

	got, err := json.Marshal(rep.Violations)
	require.NoError(t, err)
	assert.Equal(t, gjson.GetBytes(doc, "violations").Raw, string(got))
	got, err = json.Marshal(rep.Target)
	require.NoError(t, err)
	assert.Equal(t, gjson.GetBytes(doc, "target").Raw, string(got))
	// The HTTP layer's facts stay out of it: headers carry credentials.
	tg := rep.Target
	tg.Headers = map[string][]string{"Authorization": {"Bearer sk-secret"}}
	tg.Batch = true
	got, err = json.Marshal(tg)
	require.NoError(t, err)
	assert.Equal(t, gjson.GetBytes(doc, "target").Raw, string(got))

	var back replay.Report
	require.NoError(t, json.Unmarshal(doc, &back))
	assert.Equal(t, rep.Violations, back.Violations)
	assert.Equal(t, rep.Target, back.Target)
	assert.Equal(t, rep.Formats, back.Formats)
	assert.Equal(t, rep.Items, back.Items)

	var errs, transformations int
	for _, f := range []string{"testdata/anthropic/golden/transformations-fallback.turn.json", "testdata/anthropic/golden/error-midstream.turn.json"} {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		tu, err := replay.UnmarshalTurn(data)
		require.NoError(t, err)
		turn := tu.AppendJSON(nil)
		got, err := json.Marshal(tu.Provenance)
		require.NoError(t, err)
		assert.Equal(t, gjson.GetBytes(turn, "provenance").Raw, string(got), f)
		if tu.Error != nil {
			errs++
			got, err := json.Marshal(tu.Error)
			require.NoError(t, err)
			assert.Equal(t, gjson.GetBytes(turn, "error").Raw, string(got), f)
		}
		if len(tu.Transformations) > 0 {
			transformations++
			got, err := json.Marshal(tu.Transformations)
			require.NoError(t, err)
			assert.JSONEq(t, gjson.GetBytes(turn, "transformations").Raw, string(got), f)
		}
	}
	assert.Equal(t, 1, errs)
	assert.Equal(t, 1, transformations)
}

// Carry's notices and the policy table marshal with lower-case names.
func TestJSONTagsNoticesAndPolicy(t *testing.T) {
	row, err := json.Marshal(replay.PolicyTable()[0])
	require.NoError(t, err)
	assert.Equal(t, []string{"allowed", "case", "default", "doc"}, keys(t, row))
	n, err := json.Marshal(replay.Notice{Turn: 1, Block: 2, Case: replay.CaseToolCallID, Action: replay.Keep, Reason: "r", NewID: "c1"})
	require.NoError(t, err)
	assert.Equal(t, `{"turn":1,"block":2,"case":"`+string(replay.CaseToolCallID)+`","action":"keep","reason":"r","new_id":"c1"}`, string(n))
	l, err := json.Marshal(replay.Limits{MaxEvent: 1, MaxTurn: 4})
	require.NoError(t, err)
	assert.Equal(t, `{"max_event":1,"max_turn":4}`, string(l))
}

func keys(t *testing.T, obj []byte) []string {
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(obj, &m))
	var out []string
	gjson.ParseBytes(obj).ForEach(func(k, _ gjson.Result) bool { out = append(out, k.Str); return true })
	require.Len(t, out, len(m))
	slices.Sort(out)
	return out
}
