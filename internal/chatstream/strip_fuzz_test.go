package chatstream

import (
	"bytes"
	"testing"

	"github.com/reasonreplay/replay/internal/chatstream/fuzzturn"
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
