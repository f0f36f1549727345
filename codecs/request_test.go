package codecs_test

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readAs(t *testing.T, api, body string) (codecs.HTTPCodec, *codecs.Request) {
	t.Helper()
	c, err := replay.Lookup(api, "", "")
	require.NoError(t, err)
	hc := c.(codecs.HTTPCodec)
	r, err := hc.ReadRequest([]byte(body))
	require.NoError(t, err)
	return hc, r
}

// A request is read once: its elements with their bytes and turns, the
// members its turns are bound to.
func TestReadRequestSpans(t *testing.T) {
	body := ` {"system":"Be brief.","messages":[ {"role":"user","content":"Hi"} ,{"role":"assistant","content":"Hello."},{"role":"user","content":"Bye"}],"model":"claude-sonnet-4-5"}`
	_, r := readAs(t, "anthropic", body)
	require.Len(t, r.Elements, 3)
	for i, want := range []string{`{"role":"user","content":"Hi"}`, `{"role":"assistant","content":"Hello."}`, `{"role":"user","content":"Bye"}`} {
		assert.Equal(t, want, body[r.Elements[i].Start:r.Elements[i].End])
	}
	assert.Equal(t, []int{-1, 0, -1}, []int{r.Elements[0].Turn, r.Elements[1].Turn, r.Elements[2].Turn})
	require.Len(t, r.Bound, 2)
	assert.Equal(t, `"Be brief."`, body[r.Bound[0].Start:r.Bound[0].End])
	assert.Equal(t, r.Bound[1].Start, r.Bound[1].End, "no tools")
	first, end := r.TurnSpan(0)
	assert.Equal(t, []int{1, 2}, []int{first, end})
	assert.Equal(t, "/messages/1", r.Pointer(first))
}

// A Responses turn is a run of input items: its raw text is an array of
// them, and a Splice that empties it removes the run with one comma.
func TestRunsSplice(t *testing.T) {
	body := `{"model":"gpt-5","input":[{"role":"user","content":"Hi"},{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAA"},{"type":"function_call","id":"fc_1","call_id":"c1","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"ok"}]}`
	c, r := readAs(t, "openai-responses", body)
	require.True(t, r.Runs)
	first, end := r.TurnSpan(0)
	assert.Equal(t, []int{1, 3}, []int{first, end})
	raw := r.TurnRaw(first, end)
	assert.Equal(t, `[{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAA"},{"type":"function_call","id":"fc_1","call_id":"c1","name":"f","arguments":"{}"}]`, string(raw))
	stripped, changes := c.Strip(raw)
	assert.Equal(t, `[{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"}]`, string(stripped))
	assert.Equal(t, []codecs.Change{
		{Pointer: "/0", Removed: true, Detail: `reasoning item "rs_1" removed`},
		{Pointer: "/1", Removed: true, Detail: `item id "fc_1" removed with the reasoning item it followed`},
	}, changes)
	out := r.Splice(func(int, []byte) []byte { return []byte("[]") })
	assert.Equal(t, `{"model":"gpt-5","input":[{"role":"user","content":"Hi"},{"type":"function_call_output","call_id":"c1","output":"ok"}]}`, string(out))
	assert.Equal(t, body, string(r.Splice(func(int, []byte) []byte { return nil })), "nothing changed")
	// EditTurns makes the pointers of a run's items pointers into the body.
	fixed, changes := codecs.EditTurns(r, nil, func(_ int, raw []byte) ([]byte, []codecs.Change) { return c.Strip(raw) })
	assert.Equal(t, `{"model":"gpt-5","input":[{"role":"user","content":"Hi"},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"ok"}]}`, string(fixed))
	assert.Equal(t, []string{"/input/1", "/input/2"}, []string{changes[0].Pointer, changes[1].Pointer})
}

// The one fix every codec of the module knows, drop-reasoning, takes only
// reasoning out of the turns it is given, and nothing out of the others.
func TestFixDropReasoningOnlyTurns(t *testing.T) {
	body := `{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"Hi"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"a","signature":"s1"},{"type":"text","text":"One."}]},{"role":"user","content":"More"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"b","signature":"s2"},{"type":"text","text":"Two."}]},{"role":"user","content":"Bye"}]}`
	c, r := readAs(t, "anthropic", body)
	out, _, changes := c.Fix(codecs.FixDropReasoning, r, func(ti int) bool { return ti == 1 }, nil)
	want := `{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"Hi"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"a","signature":"s1"},{"type":"text","text":"One."}]},{"role":"user","content":"More"},` +
		`{"role":"assistant","content":[{"type":"text","text":"Two."}]},{"role":"user","content":"Bye"}]}`
	assert.Equal(t, want, string(out))
	assert.Equal(t, []codecs.Change{{Pointer: "/messages/3/content/0", Removed: true, Detail: "thinking block removed"}}, changes)
	same, _, none := c.Fix("no-such-fix", r, nil, nil)
	assert.Equal(t, body, string(same))
	assert.Empty(t, none)
}
