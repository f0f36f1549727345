package cohere

import (
	"errors"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/chatstream/fuzzturn"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/stretchr/testify/require"
)

// checkPatch holds Patch to refPatch: the same bytes, or errors that say
// the same.
func checkPatch(t *testing.T, c Codec, msg []byte, tu *replay.Turn) {
	got, err := c.Patch(msg, tu)
	want, wantErr := c.refPatch(msg, tu)
	if wantErr != nil || err != nil {
		require.Error(t, err, "Patch(%q) = %q, want the error %v", msg, got, wantErr)
		require.Error(t, wantErr, "Patch(%q): %v, want %q", msg, err, want)
		require.Equal(t, errors.Is(wantErr, replay.ErrMalformed), errors.Is(err, replay.ErrMalformed))
		require.Equal(t, wantErr.Error(), err.Error())
		return
	}
	require.Equal(t, string(want), string(got), "Patch(%q)", msg)
}

func FuzzPatch(f *testing.F) {
	for i, m := range fuzzturn.Messages {
		f.Add([]byte(m), []byte{byte(i), byte(i * 5)}, []byte{2, byte(i * 3), 0, 0, 4, 0x40, 1, 1, 5, byte(i * 64)})
	}
	f.Fuzz(func(t *testing.T, msg, mspec, tspec []byte) {
		c := Codec{}
		tu := fuzzturn.Turn(tspec)
		checkPatch(t, c, msg, tu)
		checkPatch(t, c, fuzzturn.Message(mspec), tu)
	})
}

// checkStrip holds Strip to refStrip on raw, a valid message (a request's
// elements are valid JSON): the same bytes and changes, and raw itself
// when there is nothing to strip. Other bytes must only not panic.
func checkStrip(t *testing.T, raw []byte) {
	got, changes := Codec{}.Strip(raw)
	if !jsonw.ValidBytes(raw) {
		return
	}
	want, wantChanges := Codec{}.refStrip(raw)
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
	f.Fuzz(func(t *testing.T, raw, spec []byte) {
		checkStrip(t, raw)
		checkStrip(t, fuzzturn.Message(spec))
	})
}

// TestPatchMatchesReference patches every seed message with turns that
// interleave reasoning of each kind with text.
func TestPatchMatchesReference(t *testing.T) {
	specs := [][]byte{
		{2, 0x50, 0, 0, 1, 1},
		{2, 0x50, 0, 0, 2, 0x51, 0, 2, 2, 0x52},
		{0, 0, 2, 0x50, 0, 1, 7, 0, 0, 2, 6, 0x40, 2, 0x60},
		{2, 0x50, 0, 1, 0, 2, 0, 3, 2, 0x51, 7, 0},
		{7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0x50},
		{},
	}
	for _, m := range fuzzturn.Messages {
		for _, sp := range specs {
			checkPatch(t, Codec{}, []byte(m), fuzzturn.Turn(sp))
		}
	}
}
