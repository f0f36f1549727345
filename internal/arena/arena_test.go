package arena

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Texts written in turns, decoded or unquoted, end as written, and no
// string a text gave out changes as texts grow, in the arena or alone.
func TestArenaTexts(t *testing.T) {
	var a Arena
	var x, y, z Text
	var want [3]strings.Builder
	var seen []string
	var seenWant []string
	texts := [...]*Text{&x, &y, &z}
	for i := 0; i < 600; i++ {
		k := i % 3
		if i >= 300 {
			k = 0 // x alone again, after others wrote past it
		}
		piece := strings.Repeat("ab\"", 1+i%7)
		raw := `"` + strings.ReplaceAll(piece, `"`, `\"`) + `"`
		if i%2 == 0 {
			a.Write(texts[k], raw, []byte(piece), true)
		} else {
			a.Write(texts[k], raw, nil, false)
		}
		want[k].WriteString(piece)
		seen = append(seen, texts[k].String())
		seenWant = append(seenWant, want[k].String())
	}
	assert.Equal(t, want[0].String(), x.String())
	assert.Equal(t, want[1].String(), y.String())
	assert.Equal(t, want[2].String(), z.String())
	assert.Equal(t, seenWant, seen)
	var e Text
	assert.Equal(t, "", e.String())
	a.Write(&e, `""`, nil, false)
	assert.Equal(t, 0, e.Len())
}
