package openai

import (
	"bytes"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/patchtest"
)

// benchTurns returns the assistant turns of the coding agent's tool loop
// as cold repair meets them: each run of input items as the client sent
// it, stripped of its reasoning, and its turn as read from a request that
// carries it.
func benchTurns(b *testing.B) []patchtest.Turn {
	return patchtest.LoopTurns(b, API, Codec{}, func(s string) []byte { return []byte("[" + s + "]") }, 2,
		func(_, got []byte) bool { return bytes.Contains(got, []byte(`"encrypted_content"`)) })
}

// BenchmarkPatch patches the stripped runs of the tool loop back, as cold
// repair does: the reference (gjson and sjson), Patch, and jsonw.Valid
// over the same bytes.
func BenchmarkPatch(b *testing.B) {
	patchtest.BenchPatch(b, benchTurns(b), func(m []byte, t *replay.Turn) ([]byte, error) { return refPatch(Codec{}, m, t) }, Codec{}.Patch)
}

// BenchmarkStrip strips the runs of the tool loop: as the client sent
// them (the reasoning item and the message's id go), and already stripped
// (nothing goes: cold repair's case).
func BenchmarkStrip(b *testing.B) {
	patchtest.BenchStrip(b, benchTurns(b), refStrip, Codec{}.Strip)
}
