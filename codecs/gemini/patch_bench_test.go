package gemini

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/benchreq"
	"github.com/reasonreplay/replay/internal/jsonw"
)

// benchTurn is a model turn of the coding agent's tool loop as cold
// repair meets it: the content as the client sent it, stripped of its
// signature, and its turn as read from a request that carries it.
type benchTurn struct {
	raw, stripped []byte
	want          *replay.Turn
}

func benchTurns(b *testing.B) []benchTurn {
	b.Helper()
	const n = 8
	var sh *benchreq.Shape
	for _, s := range benchreq.Shapes() {
		if s.API == API {
			sh = s
		}
	}
	h, _, err := Codec{}.DecodeRequest(sh.Request(n))
	if err != nil {
		b.Fatal(err)
	}
	var out []benchTurn
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
		out = append(out, benchTurn{raw: raw, stripped: stripped, want: want})
	}
	return out
}

// benchValid is jsonw.Valid over the same bytes, for scale.
func benchValid(b *testing.B, m []byte) {
	if !jsonw.ValidBytes(m) {
		b.Fatal("invalid")
	}
}

// BenchmarkPatch patches the stripped turns of the tool loop back, as
// cold repair does: the reference (gjson and sjson), Patch, and
// jsonw.Valid over the same bytes.
func BenchmarkPatch(b *testing.B) {
	turns := benchTurns(b)
	size := 0
	for _, t := range turns {
		size += len(t.stripped)
	}
	run := func(b *testing.B, patch func([]byte, *replay.Turn) ([]byte, error)) {
		b.ReportAllocs()
		b.SetBytes(int64(size / len(turns)))
		for i := 0; b.Loop(); i++ {
			t := &turns[i%len(turns)]
			if _, err := patch(t.stripped, t.want); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("impl=ref", func(b *testing.B) {
		run(b, func(m []byte, t *replay.Turn) ([]byte, error) {
			out, _, err := refPatch(Codec{}, m, t)
			return out, err
		})
	})
	b.Run("impl=new", func(b *testing.B) { run(b, Codec{}.Patch) })
	b.Run("impl=valid", func(b *testing.B) {
		run(b, func(m []byte, _ *replay.Turn) ([]byte, error) { benchValid(b, m); return m, nil })
	})
}

// BenchmarkStrip strips the turns of the tool loop: as the client sent
// them (the call's signature goes), and already stripped (nothing goes:
// cold repair's case).
func BenchmarkStrip(b *testing.B) {
	turns := benchTurns(b)
	for _, c := range []struct {
		name string
		msg  func(t *benchTurn) []byte
	}{{"signed", func(t *benchTurn) []byte { return t.raw }}, {"bare", func(t *benchTurn) []byte { return t.stripped }}} {
		size := 0
		for i := range turns {
			size += len(c.msg(&turns[i]))
		}
		for _, impl := range []struct {
			name  string
			strip func([]byte) ([]byte, []codecs.Change)
		}{
			{"ref", refStrip},
			{"new", Codec{}.Strip},
			{"valid", func(m []byte) ([]byte, []codecs.Change) { benchValid(b, m); return m, nil }},
		} {
			b.Run("msg="+c.name+"/impl="+impl.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(size / len(turns)))
				for i := 0; b.Loop(); i++ {
					impl.strip(c.msg(&turns[i%len(turns)]))
				}
			})
		}
	}
}
