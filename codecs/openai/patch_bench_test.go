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
	b.Helper()
	const n = 8
	sh := patchtest.Shape(b, API)
	h, _, err := Codec{}.DecodeRequest(sh.Request(n))
	if err != nil {
		b.Fatal(err)
	}
	var out []patchtest.Turn
	for k := 0; k < n; k++ {
		raw := []byte("[" + sh.AssistantOf(k) + "]")
		stripped, ch := Codec{}.Strip(raw)
		if len(ch) != 2 {
			b.Fatalf("turn %d: %d changes", k, len(ch))
		}
		want := h.Turns[k]
		got, err := Codec{}.Patch(stripped, want)
		if err != nil || !bytes.Contains(got, []byte(`"encrypted_content"`)) {
			b.Fatalf("turn %d: patched %s (%v)", k, got, err)
		}
		out = append(out, patchtest.Turn{Raw: raw, Stripped: stripped, Want: want})
	}
	return out
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
