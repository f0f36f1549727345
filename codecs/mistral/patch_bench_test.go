package mistral

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/benchreq"
	"github.com/stretchr/testify/require"
)

var benchCodec = Codec{}

// benchTurn returns a tool-loop assistant message of the codec's request
// shape, the same without its reasoning (as repair strips it), and its
// decoded turn.
func benchTurn(b *testing.B) (raw, stripped []byte, tu *replay.Turn) {
	b.Helper()
	var sh *benchreq.Shape
	for _, s := range benchreq.Shapes() {
		if s.API == "mistral" {
			sh = s
		}
	}
	r, err := benchCodec.ReadRequest(sh.Request(6))
	require.NoError(b, err)
	const ti = 3
	first, end := r.TurnSpan(ti)
	raw, tu = r.TurnRaw(first, end), r.History.Turns[ti]
	stripped, ch := benchCodec.Strip(raw)
	require.NotEmpty(b, ch)
	out, err := benchCodec.Patch(stripped, tu)
	require.NoError(b, err)
	ref, err := benchCodec.refPatch(stripped, tu)
	require.NoError(b, err)
	require.Equal(b, string(ref), string(out))
	require.NotEqual(b, string(stripped), string(out))
	return raw, stripped, tu
}

// BenchmarkPatch patches the stripped message of benchTurn, as cold repair
// does, with Patch ("new") and with the reference it replaced ("ref").
func BenchmarkPatch(b *testing.B) {
	_, stripped, tu := benchTurn(b)
	for _, c := range []struct {
		name  string
		patch func([]byte, *replay.Turn) ([]byte, error)
	}{{"new", benchCodec.Patch}, {"ref", benchCodec.refPatch}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(stripped)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := c.patch(stripped, tu); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
