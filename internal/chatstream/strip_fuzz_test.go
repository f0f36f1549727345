package chatstream

import (
	"bytes"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/chatstream/fuzzturn"
	"github.com/reasonreplay/replay/internal/gemsig"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/stretchr/testify/require"
)

// checkStrip holds Strip to refStrip on raw: the same bytes and the same
// changes for every valid message (a request's elements are valid JSON), and
// raw itself, unallocated, when there is nothing to strip. Bytes that are
// not valid JSON are never a request's element: Strip must only not panic.
func checkStrip(t *testing.T, raw []byte) {
	got, changes := Strip(raw)
	if !jsonw.ValidBytes(raw) {
		return
	}
	want, wantChanges := refStrip(raw)
	require.Equal(t, string(want), string(got), "Strip(%q)", raw)
	require.Equal(t, wantChanges, changes, "Strip(%q)", raw)
	if len(changes) == 0 && len(raw) > 0 {
		require.True(t, &got[0] == &raw[0], "Strip(%q) copied a message it left as it was", raw)
	}
}

func FuzzStrip(f *testing.F) {
	for i, m := range fuzzturn.Messages {
		f.Add([]byte(m), []byte{byte(i), byte(i * 7), byte(i * 13)})
	}
	f.Add([]byte(`{"content":[{"type":"thinking"}]}`), []byte{3, 0x46, 0x8b, 0xca, 0x0c, 0x07})
	f.Fuzz(func(t *testing.T, raw, spec []byte) {
		checkStrip(t, raw)
		checkStrip(t, fuzzturn.Message(spec))
	})
}
func TestStripKeepsRaw(t *testing.T) {
	raw := []byte(`{"role":"assistant","content":"reasoning and thinking","tool_calls":[{"id":"a","extra_content":{"google":{}}}]}`)
	got, ch := Strip(raw)
	require.Nil(t, ch)
	require.True(t, &got[0] == &raw[0])
	require.Equal(t, 0.0, testing.AllocsPerRun(20, func() { Strip(raw) }))
	// An escaped name is still a name.
	got, ch = Strip([]byte(`{"content":[{"t\u0079pe":"thinkin\u0067"},1],"reasonin\u0067":2}`))
	require.Equal(t, `{"content":[1]}`, string(got))
	require.Len(t, ch, 2)
	require.False(t, bytes.Equal(got, raw))
}

// TestNotArrayNotObject pins the two decisions in which Strip and
// PatchMessage differ from the gjson/sjson code they replaced (see
// refStrip): a tool_calls member that is not an array holds no calls, and
// a value that is not an object has no members, whatever its text holds.
func TestNotArrayNotObject(t *testing.T) {
	raw := []byte(`{"tool_calls":{"0":{"id":"call_1","extra_content":{"google":{"thought_signature":"x"}}}}}`)
	got, ch := Strip(raw)
	require.Nil(t, ch)
	require.Equal(t, string(raw), string(got))

	raw = []byte(`{"content":["{\"type\":\"thinking\"}",{"type":"thinking"}]}`)
	got, ch = Strip(raw)
	require.Equal(t, `{"content":["{\"type\":\"thinking\"}"]}`, string(got))
	require.Equal(t, []codecs.Change{{Pointer: "/content/1", Removed: true, Detail: "thinking block removed"}}, ch)

	tu := &replay.Turn{Blocks: []replay.Block{gemsig.Item("c2ln", "call_1"), &replay.ToolCall{ID: "call_1", Name: "f"}}}
	got, err := PatchMessage("x", []byte(`{"tool_calls":[{"id":"call_1","extra_content":"{\"google\":{}}"}]}`), nil, tu, true)
	require.NoError(t, err)
	require.Equal(t, `{"tool_calls":[{"id":"call_1","extra_content":{"google":{"thought_signature":"c2ln"}}}]}`, string(got))
	got, err = PatchMessage("x", []byte(`{"tool_calls":{"0":{"id":"call_1"}}}`), nil, tu, true)
	require.NoError(t, err)
	require.Equal(t, `{"tool_calls":{"0":{"id":"call_1"}}}`, string(got))
	_, err = PatchMessage("x", []byte(`{"tool_calls":[{"id":"call_1","extra_content":[]}]}`), nil, tu, true)
	require.ErrorIs(t, err, replay.ErrMalformed)
	require.Contains(t, err.Error(), "cannot set array element for non-numeric key 'google'")
}
