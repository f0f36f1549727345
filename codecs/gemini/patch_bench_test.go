package gemini

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/patchtest"
)

// benchTurns returns the model turns of the coding agent's tool loop as
// cold repair meets them: each content as the client sent it, stripped of
// its signature, and its turn as read from a request that carries it.
func benchTurns(b *testing.B) []patchtest.Turn {
	return patchtest.LoopTurns(b, API, Codec{}, nil, 1, nil)
}

// BenchmarkPatch patches the stripped turns of the tool loop back, as
// cold repair does: the reference (gjson and sjson), Patch, and
// jsonw.Valid over the same bytes.
func BenchmarkPatch(b *testing.B) {
	patchtest.BenchPatch(b, benchTurns(b), func(m []byte, t *replay.Turn) ([]byte, error) {
		out, _, err := refPatch(Codec{}, m, t)
		return out, err
	}, Codec{}.Patch)
}

// BenchmarkStrip strips the turns of the tool loop: as the client sent
// them (the call's signature goes), and already stripped (nothing goes:
// cold repair's case).
func BenchmarkStrip(b *testing.B) {
	patchtest.BenchStrip(b, benchTurns(b), refStrip, Codec{}.Strip)
}
