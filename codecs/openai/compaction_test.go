package openai_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/openai"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	cmpID  = "cmp_68f0a1b2c3d4e5f6"
	cmpEnc = "gAAAAABpQ29tcGFjdGVkLXN0YXRlLWZvci10ZXN0cy1vbmx5LTAxMjM0NTY3ODk="
	rs2ID  = "rs_68f0a1b2c3d4e5f7"
	rs2Enc = "gAAAAABpUmVhc29uaW5nLWFmdGVyLWNvbXBhY3Rpb24tdGVzdHMtb25seQ=="
)

// Compaction items decode as a typed block, in the stream and the body
// alike, byte-exact.
func TestCompactionDecode(t *testing.T) {
	res := sweep(t, "compaction.sse", openai.Codec{})
	require.NoError(t, res.Err)
	body, err := decodeBody(t, "compaction.json", openai.Codec{})
	require.NoError(t, err)
	for _, tu := range []*replay.Turn{res.Turn, body} {
		require.Len(t, tu.Blocks, 3)
		x := tu.Blocks[0].(*replay.Compaction)
		assert.Equal(t, replay.Compaction{Format: formats.OpenAIResponses, ID: cmpID, Data: cmpEnc}, *x)
		assert.Equal(t, rs2Enc, tu.Blocks[1].(*replay.Encrypted).Data)
	}
	// The same document, but for the usage object, kept as each sent it.
	assert.JSONEq(t, string(res.Turn.AppendJSON(nil)), string(body.AppendJSON(nil)))

	out, err := openai.Codec{}.Encode(res.Turn)
	require.NoError(t, err)
	require.Equal(t, `[{"type":"compaction","id":"`+cmpID+`","encrypted_content":"`+cmpEnc+`"},`+
		`{"type":"reasoning","id":"`+rs2ID+`","summary":[],"encrypted_content":"`+rs2Enc+`"},`+
		`{"type":"message","role":"assistant","id":"msg_68f0a1b2c3d4e5f8","content":[{"type":"output_text","text":"The build is green again.","annotations":[]}]}]`, string(out))

	// Cut before its output_item.done: unfinished, never sent.
	cut := read(t, "compaction.sse")
	cut = cut[:bytes.Index(cut, []byte("event: response.output_item.done"))]
	tu, err := stream.Decode(bytes.NewReader(cut), openai.Codec{}, stream.Options{})
	require.Error(t, err)
	require.True(t, tu.Blocks[0].(*replay.Compaction).Unfinished)
	out, err = openai.Codec{}.Encode(tu)
	require.NoError(t, err)
	require.Equal(t, `[]`, string(out))
}

// Items before the newest compaction item are pruned on encode; a
// compaction item of another host is not sent and prunes nothing.
func TestCompactionPrunesOnEncode(t *testing.T) {
	body, err := decodeBody(t, "compaction.json", openai.Codec{})
	require.NoError(t, err)
	old := &replay.Text{ID: "msg_old", Text: "old answer"}
	call := &replay.ToolCall{ID: "call_old", ItemID: "fc_old", Name: "ls", Arguments: "{}"}
	tu := *body
	tu.Blocks = append([]replay.Block{old, call}, body.Blocks...)
	out, err := openai.Codec{}.Encode(&tu)
	require.NoError(t, err)
	assert.NotContains(t, string(out), "msg_old")
	assert.NotContains(t, string(out), "call_old")
	assert.True(t, bytes.HasPrefix(out, []byte(`[{"type":"compaction","id":"`+cmpID+`"`)), "%s", out)

	out, err = openai.Codec{Provider: "azure"}.Encode(&tu)
	require.NoError(t, err)
	assert.NotContains(t, string(out), cmpID)
	assert.Contains(t, string(out), "call_old")
}

// Bound to the minting host and account: Carry drops it elsewhere and the
// audit predicts the failure.
func TestCompactionBound(t *testing.T) {
	body, err := decodeBody(t, "compaction.json", openai.Codec{})
	require.NoError(t, err)
	body.Provenance.Account = "org-a"
	h := replay.History{Turns: []*replay.Turn{body}}
	same := replay.Target{API: openai.API, Provider: "openai", Model: "gpt-5.5", Account: "org-a"}
	require.Empty(t, only(audit(h, same), openai.RuleCompactionForeign))
	carried, _ := replay.Carry(h, same, replay.DefaultPolicy())
	require.IsType(t, &replay.Compaction{}, carried.Turns[0].Blocks[0])

	pred := "The encrypted content for item " + cmpID + " could not be verified. Reason: "
	for _, c := range []struct {
		tg     replay.Target
		reason string
	}{
		{replay.Target{API: openai.API, Provider: "openai", Model: "gpt-5.5", Account: "org-b"}, "Encrypted content organization_id did not match the target organization."},
		{replay.Target{API: openai.API, Provider: "azure", Model: "gpt-5.5"}, "Encrypted content could not be decrypted or parsed."},
		{replay.Target{API: openai.API, Provider: "xai", Model: "grok-4"}, "Encrypted content could not be decrypted or parsed."},
	} {
		tg, reason := c.tg, c.reason
		vs := only(audit(h, tg), openai.RuleCompactionForeign)
		require.Len(t, vs, 1, tg)
		assert.Equal(t, pred+reason, vs[0].Predicted)
		assert.Equal(t, replay.SeverityReject, vs[0].Severity)
		carried, notices := replay.Carry(h, tg, replay.DefaultPolicy())
		for _, b := range carried.Turns[0].Blocks {
			require.NotContains(t, []string{cmpID}, blockID(b), tg)
		}
		require.NotEmpty(t, notices)
		require.Empty(t, only(audit(carried, tg), openai.RuleCompactionForeign))
	}
}

func blockID(b replay.Block) string {
	if x, ok := b.(*replay.Compaction); ok {
		return x.ID
	}
	return ""
}

// A request that carries a compaction item reads it back as one.
func TestCompactionRequest(t *testing.T) {
	body := []byte(`{"model":"gpt-5.5","input":[{"type":"compaction","id":"` + cmpID + `","encrypted_content":"` + cmpEnc + `"},{"role":"user","content":"go on"}]}`)
	h, _, err := openai.Codec{}.DecodeRequest(body)
	require.NoError(t, err)
	require.Len(t, h.Turns, 1)
	assert.Equal(t, &replay.Compaction{Format: formats.OpenAIResponses, ID: cmpID, Data: cmpEnc}, h.Turns[0].Blocks[0])
	r, err := replay.AuditRequest(openai.API, body)
	require.NoError(t, err)
	assert.True(t, r.Clean(), "%v", r.Violations)
}

// Issue 11: a lone surrogate escape in ciphertext or an id is a typed
// error at the member, never U+FFFD.
func TestLoneSurrogateRefused(t *testing.T) {
	for ptr, item := range map[string]string{
		"/output/0/encrypted_content": `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAA\ud800AB"}`,
		"/output/0/id":                `{"type":"reasoning","id":"rs_\udc00","summary":[],"encrypted_content":"gAAA"}`,
		"/output/1/encrypted_content": `{"type":"message","id":"m","content":[]},{"type":"compaction","id":"cmp_1","encrypted_content":"\ud83d"}`,
	} {
		_, err := openai.Codec{}.Decode([]byte(`{"status":"completed","output":[` + item + `]}`))
		var e *replay.Error
		require.True(t, errors.As(err, &e), "%s: %v", ptr, err)
		assert.Equal(t, ptr, e.Pointer)
		assert.True(t, errors.Is(err, replay.ErrMalformed))
	}
	// A pair is one character, kept.
	tu, err := openai.Codec{}.Decode([]byte(`{"status":"completed","output":[{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"\ud83d\ude00"}]}`))
	require.NoError(t, err)
	assert.Equal(t, "😀", tu.Blocks[0].(*replay.Encrypted).Data)
	// The stream refuses it too.
	s := `data: {"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"\ud800"}}` + "\n\n"
	_, err = stream.Decode(bytes.NewReader([]byte(s)), openai.Codec{}, stream.Options{})
	require.True(t, errors.Is(err, replay.ErrMalformed), "%v", err)
}

// Issue 11: an item added without a string type, a content_part.done that
// names it reasoning, then response.completed (once a panic).
func TestStreamUntypedItemThenCompleted(t *testing.T) {
	for _, typ := range []string{`""`, `1`, `null`} {
		s := `data: {"type":"response.output_item.added","output_index":0,"item":{"type":` + typ + `}}` + "\n\n" +
			`data: {"type":"response.content_part.done","output_index":0,"content_index":0,"part":{"type":"reasoning_text","text":"a"}}` + "\n\n" +
			`data: {"type":"response.completed","response":{"output":[{"type":"reasoning","id":"rs_1","summary":[]}]}}` + "\n\n"
		res := sweepNoGolden(t, []byte(s))
		require.NoError(t, res.Err, typ)
		require.Len(t, res.Turn.Blocks, 1)
		r := res.Turn.Blocks[0].(*replay.ReasoningText)
		assert.Equal(t, "a", r.Text)
		assert.Equal(t, "rs_1", r.ID.Value())
	}
}
