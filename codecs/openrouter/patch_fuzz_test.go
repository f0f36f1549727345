package openrouter

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/chatstream/fuzzturn"
	"github.com/reasonreplay/replay/internal/patchtest"
)

// checkPatch holds Patch to refPatch (see patchtest.SamePatch).
func checkPatch(t *testing.T, c Codec, msg []byte, tu *replay.Turn) {
	patchtest.SamePatch(t, c.Patch, c.refPatch, msg, tu)
}

// FuzzPatch holds Patch to refPatch (see patchtest.ChatFuzzPatch).
func FuzzPatch(f *testing.F) { patchtest.ChatFuzzPatch(f, Codec{}.Patch, Codec{}.refPatch) }

// TestPatchMatchesReference patches every seed message with turns that
// put signatures on calls 1 to 3 in each place, and reasoning of each kind.
func TestPatchMatchesReference(t *testing.T) {
	specs := [][]byte{
		{2, 0x24, 4, 0x80, 4, 0x82, 0, 0},
		{4, 0xc0, 4, 0xc2, 5, 0xc1, 1, 1, 3, 0, 6, 0x10, 9, 0},
		{2, 0x2c, 3, 0x12, 8, 0, 7, 0},
		{},
	}
	for _, m := range fuzzturn.Messages {
		for _, sp := range specs {
			checkPatch(t, Codec{}, []byte(m), fuzzturn.Turn(sp))
		}
	}
}
