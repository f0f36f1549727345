package gemini

import (
	"errors"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/sjson"
)

// generateRequest builds a generateContent request whose model content is
// a fixture's turn as Encode writes it back (a parallel batch of three
// calls, the first signed; the unsigned thought part is not replayable and
// is left out), followed by the three function responses.
func generateRequest(t *testing.T, model string) []byte {
	t.Helper()
	tu, err := Codec{}.Decode(read(t, "body-parallel-calls.json"))
	require.NoError(t, err)
	enc, err := Codec{}.Encode(tu)
	require.NoError(t, err)
	content := string(enc)
	return []byte(`{"model":"` + model + `","generationConfig":{"thinkingConfig":{"includeThoughts":true}},` +
		`"tools":[{"functionDeclarations":[{"name":"get_weather"},{"name":"get_time"}]}],"contents":[` +
		`{"role":"user","parts":[{"text":"Weather in Lyon and Oslo, and the time?"}]},` + content + `,` +
		`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","id":"w1lyon00","response":{"t":12}}},` +
		`{"functionResponse":{"name":"get_weather","id":"w2oslo00","response":{"t":3}}},` +
		`{"functionResponse":{"name":"get_time","response":{"now":"10:00"}}}]}]}`)
}

func TestAuditRequest(t *testing.T) {
	body := generateRequest(t, "gemini-3-flash-preview")
	r, err := replay.AuditRequest(API, body)
	require.NoError(t, err)
	assert.True(t, r.Clean(), "%v", r.Err())
	assert.Equal(t, 1, r.Turns)
	assert.Equal(t, map[replay.Format]int{formats.GoogleGemini: 1}, r.Formats)
	assert.Equal(t, "gemini-3-flash-preview", r.Target.Model)
	assert.True(t, r.Target.Thinking)
	assert.True(t, r.Target.Tools)

	h, _, err := Codec{}.DecodeRequest(body)
	require.NoError(t, err)
	assert.Equal(t, []string{"/contents/1"}, h.Pointers)
	tu := h.Turns[0]
	assert.Equal(t, "gemini-3-flash-preview", tu.Provenance.Model)
	require.Len(t, tu.Blocks, 4)
	sig := tu.Blocks[0].(*replay.Encrypted)
	assert.True(t, sig.Attached)
	assert.Equal(t, "Es8FCswFAXLIUGFyYWxsZWxGaXJzdFNpZ25lZA==", sig.Data)
	assert.Equal(t, "w1lyon00", tu.Blocks[1].(*replay.ToolCall).ID)
	assert.Equal(t, "w2oslo00", tu.Blocks[2].(*replay.ToolCall).ID)
	assert.Equal(t, "get_time", tu.Blocks[3].(*replay.ToolCall).Name)

	// The request builder dropped the signature of the batch's first call.
	broken, err := sjson.DeleteBytes(body, "contents.1.parts.0.thoughtSignature")
	require.NoError(t, err)
	r, err = replay.AuditRequest(API, broken)
	require.NoError(t, err)
	require.Len(t, r.Violations, 1)
	v := r.Violations[0]
	assert.Equal(t, RuleMissingSignature, v.Rule)
	assert.Equal(t, "/contents/1/parts/0", v.Pointer)
	assert.Equal(t, predictMissing(&replay.Target{}, "get_weather", 1), v.Predicted)
	assert.True(t, r.Rejects())

	// An unsigned thought part sent back is accepted by the API (research:
	// thought summaries replay fine; only function calls need signatures).
	thought, err := sjson.SetRawBytes(body, "contents.1.parts.-1", []byte(`{"text":"Both cities.","thought":true}`))
	require.NoError(t, err)
	r, err = replay.AuditRequest(API, thought)
	require.NoError(t, err)
	assert.Empty(t, r.Violations)

	// Gemini 2.5 validates since 2026-01-30, but nothing in this request
	// shows the model signs (2.5 signs only when it thinks): a risk.
	old, err := sjson.SetBytes(broken, "model", "gemini-2.5-flash")
	require.NoError(t, err)
	r, err = replay.AuditRequest(API, old)
	require.NoError(t, err)
	require.Len(t, r.Violations, 1)
	assert.Equal(t, replay.SeverityRisk, r.Violations[0].Severity)
	assert.False(t, r.Rejects())
	// Gemini 2.0 does not validate: clean.
	older, err := sjson.SetBytes(broken, "model", "gemini-2.0-flash")
	require.NoError(t, err)
	r, err = replay.AuditRequest(API, older)
	require.NoError(t, err)
	assert.True(t, r.Clean(), "%v", r.Err())

	// A signature re-encoded with the URL-safe alphabet.
	urlsafe, err := sjson.SetBytes(body, "contents.1.parts.0.thoughtSignature", "Es8FCswFAXLIUGFyYWxsZWxGaXJzdFNpZ25lZA_-")
	require.NoError(t, err)
	r, err = replay.AuditRequest(API, urlsafe)
	require.NoError(t, err)
	require.Len(t, r.Violations, 1)
	assert.Equal(t, RuleBadBase64, r.Violations[0].Rule)
	assert.Equal(t, "/contents/1/parts/0/thoughtSignature", r.Violations[0].Pointer)
}

func TestAuditRequestErrors(t *testing.T) {
	for _, body := range []string{`not json`, `[]`, `{"messages":[]}`,
		`{"contents":[{"role":"model","parts":5}]}`} {
		_, err := replay.AuditRequest(API, []byte(body))
		assert.True(t, errors.Is(err, replay.ErrMalformed), "%s: %v", body, err)
	}
}

// A model turn cut short in the request (a call without args, or without
// a name) reads as not complete and audits as incomplete; the same turn
// with its args does not.
func TestDecodeRequestCutTurn(t *testing.T) {
	complete := `{"model":"gemini-3-pro-preview","contents":[` +
		`{"role":"user","parts":[{"text":"Weather in Lyon?"}]},` +
		`{"role":"model","parts":[{"text":"Look it up.","thought":true},{"functionCall":{"name":"get_weather","args":{"city":"Lyon"},"id":"w1"},"thoughtSignature":"RXMwRkNzd0ZBWExJVUdGeQ=="}]}]}`
	h, tg, err := Codec{}.DecodeRequest([]byte(complete))
	require.NoError(t, err)
	require.Len(t, h.Turns, 1)
	assert.True(t, h.Turns[0].Complete)
	assert.Equal(t, []string{"/contents/1"}, h.Pointers)
	assert.Equal(t, "gemini-3-pro-preview", tg.Model)
	assert.True(t, tg.Tools)
	r, err := replay.AuditRequest(API, []byte(complete))
	require.NoError(t, err)
	assert.True(t, r.Clean(), "%v", r.Violations)

	for name, path := range map[string]string{"no args": "contents.1.parts.1.functionCall.args", "no name": "contents.1.parts.1.functionCall.name"} {
		cut, err := sjson.Delete(complete, path)
		require.NoError(t, err)
		h, _, err := Codec{}.DecodeRequest([]byte(cut))
		require.NoError(t, err, name)
		tu := h.Turns[0]
		assert.False(t, tu.Complete, name)
		call := tu.Blocks[2].(*replay.ToolCall)
		assert.True(t, call.Unfinished, name)
		assert.Equal(t, "RXMwRkNzd0ZBWExJVUdGeQ==", tu.Blocks[1].(*replay.Encrypted).Data, name)
		r, err := replay.AuditRequest(API, []byte(cut))
		require.NoError(t, err)
		var rules []string
		for _, v := range r.Violations {
			rules = append(rules, v.Rule)
		}
		assert.Contains(t, rules, "replay/incomplete-turn", name)
	}

	// An unsigned first call on Gemini 3 is complete: the missing-signature
	// rule judges it, not the incomplete-turn rule.
	unsigned, err := sjson.Delete(complete, "contents.1.parts.1.thoughtSignature")
	require.NoError(t, err)
	h, _, err = Codec{}.DecodeRequest([]byte(unsigned))
	require.NoError(t, err)
	assert.True(t, h.Turns[0].Complete)
	r, err = replay.AuditRequest(API, []byte(unsigned))
	require.NoError(t, err)
	require.Len(t, r.Violations, 1)
	assert.Equal(t, RuleMissingSignature, r.Violations[0].Rule)
}

// The request reader keeps what it reads within the codec's limits and
// locates malformed parts by their pointer in the request.
func TestDecodeRequestLimitsAndErrors(t *testing.T) {
	body := `{"contents":[{"role":"model","parts":[{"text":"abcdef","thought":true}]}]}`
	_, _, err := Codec{Limits: replay.Limits{MaxItem: 4}}.DecodeRequest([]byte(body))
	var le *replay.LimitError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, replay.LimitError{What: "item size", Limit: 4, API: API, Event: -1, Block: 0}, *le)

	_, _, err = Codec{}.DecodeRequest([]byte(`{"contents":[{"role":"user","parts":[]},{"role":"model","parts":[{"text":5}]}]}`))
	require.ErrorIs(t, err, replay.ErrMalformed)
	assert.Contains(t, err.Error(), "/contents/1/parts/0/text")

	deep := `{"contents":[{"role":"model","parts":[{"x":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}]}]}`
	_, _, err = Codec{}.DecodeRequest([]byte(deep))
	require.ErrorIs(t, err, replay.ErrMalformed)
}
