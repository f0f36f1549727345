package chatstream

import (
	"testing"

	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/benchreq"
	"github.com/stretchr/testify/require"
)

// BenchmarkStrip strips a tool-loop assistant message of each chat
// request shape that carries its reasoning in the message ("reasoning")
// and the same message already stripped ("none", as cold repair meets
// it), with Strip ("new") and with the reference it replaced ("ref").
func BenchmarkStrip(b *testing.B) {
	for _, sh := range benchreq.Shapes() {
		switch sh.API {
		case "deepseek", "openrouter", "mistral":
		default:
			continue
		}
		raw := []byte(sh.AssistantOf(3))
		stripped, ch := refStrip(raw)
		require.NotEmpty(b, ch)
		for _, m := range []struct {
			name string
			msg  []byte
		}{{"reasoning", raw}, {"none", stripped}} {
			want, wantCh := refStrip(m.msg)
			got, gotCh := Strip(m.msg)
			require.Equal(b, string(want), string(got))
			require.Equal(b, wantCh, gotCh)
			for _, c := range []struct {
				name  string
				strip func([]byte) ([]byte, []codecs.Change)
			}{{"new", Strip}, {"ref", refStrip}} {
				b.Run(sh.API+"/"+m.name+"/"+c.name, func(b *testing.B) {
					b.SetBytes(int64(len(m.msg)))
					b.ReportAllocs()
					for i := 0; i < b.N; i++ {
						c.strip(m.msg)
					}
				})
			}
		}
	}
}
