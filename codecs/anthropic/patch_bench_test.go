package anthropic

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/patchtest"
)

// repairTurns returns the assistant turns of the Claude Code tool loop as
// cold repair meets them: each message as the client sent it, stripped
// of its thinking, and its turn decoded from a request that carries it.
func repairTurns(b *testing.B) []patchtest.Turn {
	return patchtest.LoopTurns(b, API, Codec{}, nil, 1, nil)
}

// BenchmarkPatch patches the stripped turns of the tool loop back, as
// cold repair does: the reference (gjson and sjson), Patch, and
// jsonw.Valid over the same bytes for scale.
func BenchmarkPatch(b *testing.B) {
	patchtest.BenchPatch(b, repairTurns(b), func(m []byte, t *replay.Turn) ([]byte, error) { return refPatch(Codec{}, m, t) }, Codec{}.Patch)
}

// BenchmarkStrip strips the turns of the tool loop: as the client sent
// them (a thinking block goes), and already stripped (nothing goes, the
// case of cold repair).
func BenchmarkStrip(b *testing.B) {
	patchtest.BenchStrip(b, repairTurns(b), refStrip, Codec{}.Strip)
}
