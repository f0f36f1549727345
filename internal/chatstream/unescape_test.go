package chatstream

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/stretchr/testify/require"
)

// TestWriteEscaped: for valid string literals without \u escapes (every
// escape at every offset, around the eight-byte steps and the buffer's
// flushes, multi-byte UTF-8) writeEscaped writes what jsonw.WriteUnquoted
// writes, after what the builder held.
func TestWriteEscaped(t *testing.T) {
	pieces := []string{`a`, `é`, `日本`, `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, ` `, `xxxxxxx`, strings.Repeat("y", 250)}
	rng := rand.New(rand.NewSource(1))
	cases := []string{`""`, `"\n"`, `"\\\\"`, `"abcdefgh"`, `"abcdefg\n"`, `"token 1, the \"edge\" case;\n "`}
	for n := 0; n < 3000; n++ {
		var b strings.Builder
		b.WriteByte('"')
		for k := rng.Intn(40); k > 0; k-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		b.WriteByte('"')
		cases = append(cases, b.String())
	}
	for _, raw := range cases {
		require.True(t, jsonw.Valid(raw), raw)
		var want, got strings.Builder
		want.WriteString("held ")
		got.WriteString("held ")
		jsonw.WriteUnquoted(&want, raw)
		writeEscaped(&got, raw)
		require.Equal(t, want.String(), got.String(), raw)
	}
}
