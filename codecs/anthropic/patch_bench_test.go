package anthropic

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/benchreq"
	"github.com/reasonreplay/replay/internal/jsonw"
)

// repairTurns are the assistant turns of the Claude Code tool loop as
// cold repair meets them: each message as the client sent it, stripped
// of its thinking, and its turn decoded from a request that carries it.
type repairTurn struct {
	raw, stripped []byte
	want          *replay.Turn
}

func repairTurns(b *testing.B) []repairTurn {
	b.Helper()
	const n = 8
	sh := benchreq.Anthropic()
	h, _, err := Codec{}.DecodeRequest(sh.Request(n))
	if err != nil {
		b.Fatal(err)
	}
	var out []repairTurn
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
		out = append(out, repairTurn{raw: raw, stripped: stripped, want: want})
	}
	return out
}

// BenchmarkPatch patches the stripped turns of the tool loop back, as
// cold repair does: the reference (gjson and sjson), Patch, and
// jsonw.Valid over the same bytes for scale.
func BenchmarkPatch(b *testing.B) {
	turns := repairTurns(b)
	size := 0
	for _, t := range turns {
		size += len(t.stripped)
	}
	run := func(b *testing.B, patch func([]byte, *replay.Turn) ([]byte, error)) {
		b.ReportAllocs()
		b.SetBytes(int64(size / len(turns)))
		for i := 0; i < b.N; i++ {
			t := &turns[i%len(turns)]
			if _, err := patch(t.stripped, t.want); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("impl=ref", func(b *testing.B) {
		run(b, func(m []byte, t *replay.Turn) ([]byte, error) { return refPatch(Codec{}, m, t) })
	})
	b.Run("impl=new", func(b *testing.B) { run(b, Codec{}.Patch) })
	b.Run("impl=valid", func(b *testing.B) {
		run(b, func(m []byte, _ *replay.Turn) ([]byte, error) {
			if !jsonw.ValidBytes(m) {
				b.Fatal("invalid")
			}
			return m, nil
		})
	})
}

// BenchmarkStrip strips the turns of the tool loop: as the client sent
// them (a thinking block goes), and already stripped (nothing goes, the
// case of cold repair).
func BenchmarkStrip(b *testing.B) {
	turns := repairTurns(b)
	for _, c := range []struct {
		name string
		msg  func(t *repairTurn) []byte
	}{{"signed", func(t *repairTurn) []byte { return t.raw }}, {"bare", func(t *repairTurn) []byte { return t.stripped }}} {
		size := 0
		for i := range turns {
			size += len(c.msg(&turns[i]))
		}
		for _, impl := range []struct {
			name  string
			strip func([]byte) []byte
		}{
			{"ref", func(m []byte) []byte { out, _ := refStrip(m); return out }},
			{"new", func(m []byte) []byte { out, _ := Codec{}.Strip(m); return out }},
			{"valid", func(m []byte) []byte {
				if !jsonw.ValidBytes(m) {
					b.Fatal("invalid")
				}
				return m
			}},
		} {
			b.Run("msg="+c.name+"/impl="+impl.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(size / len(turns)))
				for i := 0; i < b.N; i++ {
					impl.strip(c.msg(&turns[i%len(turns)]))
				}
			})
		}
	}
}
