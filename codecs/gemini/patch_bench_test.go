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
			b.Fatalf("turn %d: %d signatures stripped", k, len(ch))
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
