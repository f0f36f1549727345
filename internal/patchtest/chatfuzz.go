package patchtest

import (
	"testing"

	"github.com/reasonreplay/replay/internal/chatstream/fuzzturn"
)

// ChatFuzzPatch is the FuzzPatch of a chat codec with one profile: patch
// is held to ref (SamePatch) on the fuzzed message and on the message
// fuzzturn makes, with the turn fuzzturn makes. The seeds pair each of
// fuzzturn's messages with a turn.
func ChatFuzzPatch(f *testing.F, patch, ref Patch) {
	for i, m := range fuzzturn.Messages {
		f.Add([]byte(m), []byte{byte(i), byte(i * 5)}, []byte{2, byte(i * 3), 0, 0, 4, 0x40, 1, 1, 5, byte(i * 64)})
	}
	f.Fuzz(func(t *testing.T, msg, mspec, tspec []byte) {
		tu := fuzzturn.Turn(tspec)
		SamePatch(t, patch, ref, msg, tu)
		SamePatch(t, patch, ref, fuzzturn.Message(mspec), tu)
	})
}
