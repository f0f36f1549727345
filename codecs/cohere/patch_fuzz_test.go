package cohere

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/chatstream/fuzzturn"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/patchtest"
)

// checkPatch holds Patch to refPatch (see patchtest.SamePatch).
func checkPatch(t *testing.T, c Codec, msg []byte, tu *replay.Turn) {
	patchtest.SamePatch(t, c.Patch, c.refPatch, msg, tu)
}

// FuzzPatch holds Patch to refPatch (see patchtest.ChatFuzzPatch).
func FuzzPatch(f *testing.F) { patchtest.ChatFuzzPatch(f, Codec{}.Patch, Codec{}.refPatch) }

// checkStrip holds Strip to refStrip on raw when it is valid (a
// request's elements are valid JSON); see patchtest.SameStrip.
func checkStrip(t *testing.T, raw []byte) {
	patchtest.SameStrip(t, Codec{}.Strip, Codec{}.refStrip, jsonw.ValidBytes, raw)
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
