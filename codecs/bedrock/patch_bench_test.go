package bedrock

import (
	"testing"

	"github.com/reasonreplay/replay/internal/patchtest"
)

// repairTurns returns the assistant turns of the Claude Code tool loop
// in the Converse shape as cold repair meets them: each message as the
// client sent it, stripped of its reasoning, and its turn decoded from a
// request that carries it.
func repairTurns(b *testing.B) []patchtest.Turn {
	b.Helper()
	const n = 8
	sh := patchtest.Shape(b, API)
	h, _, err := Codec{}.DecodeRequest(sh.Request(n))
	if err != nil {
		b.Fatal(err)
	}
	var out []patchtest.Turn
	for k := 0; k < n; k++ {
		raw := []byte(sh.AssistantOf(k))
		stripped, ch := Codec{}.Strip(raw)
		if len(ch) != 1 {
			b.Fatalf("turn %d: %d blocks stripped", k, len(ch))
		}
		want := h.Turns[k]
		if got, err := (Codec{}).Patch(stripped, want); err != nil || string(got) != string(raw) {
			b.Fatalf("turn %d: patched %s (%v), want %s", k, got, err, raw)
		}
		out = append(out, patchtest.Turn{Raw: raw, Stripped: stripped, Want: want})
	}
	return out
}

// BenchmarkPatch patches the stripped turns of the tool loop back, as
// cold repair does: the reference (gjson), Patch, and jsonw.Valid over
// the same bytes for scale.
func BenchmarkPatch(b *testing.B) {
	patchtest.BenchPatch(b, repairTurns(b), refPatch, Codec{}.Patch)
}

// BenchmarkStrip strips the turns of the tool loop: as the client sent
// them (a reasoning block goes), and already stripped (nothing goes, the
// case of cold repair).
func BenchmarkStrip(b *testing.B) {
	patchtest.BenchStrip(b, repairTurns(b), refStrip, Codec{}.Strip)
}
