package jsonw

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A literal SurrogateEscape clears decodes alone to what it decodes to
// after any fragment: no half is held, none is lone, and the bytes are
// AppendUnquoted's.
func checkSurrogateEscape(t *testing.T, raw string) {
	if !Valid(raw) || len(raw) < 2 || raw[0] != '"' {
		return
	}
	if strings.Contains(strings.ToLower(raw), `\ud`) {
		s := strings.ToLower(raw)
		for i := strings.Index(s, `\ud`); i >= 0 && i+4 <= len(s); {
			if c := s[i+3]; c >= '8' && c <= '9' || c >= 'a' && c <= 'f' {
				assert.True(t, SurrogateEscape(raw), "%s holds a surrogate escape", raw)
				return
			}
			j := strings.Index(s[i+1:], `\ud`)
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	if SurrogateEscape(raw) {
		return
	}
	var b strings.Builder
	var hi rune
	lone, ok := WriteUnquotedJoinLone(&b, raw, &hi)
	want, _ := AppendUnquoted(nil, raw)
	assert.True(t, ok, raw)
	assert.Zero(t, lone, raw)
	assert.Zero(t, hi, raw)
	assert.Equal(t, string(want), b.String(), raw)
}

var surrogateSeeds = []string{
	`"plain"`, `"a\nb\"c\\"`, `"\u00e9\u4e2d"`, `"\ud83d\ude00"`, `"\uD83D\uDE00"`, `"\ud800"`,
	`"ends \ud83d"`, `"\udc00 starts"`, `"\\ud83d not an escape"`, `"\\\ud83d"`, `"\ud7ff\ue000"`,
	`"\u0044\u0038"`, `"x\\u"`, `""`,
}

func TestSurrogateEscape(t *testing.T) {
	for _, raw := range surrogateSeeds {
		checkSurrogateEscape(t, raw)
	}
	assert.True(t, SurrogateEscape(`"\ud83d"`))
	assert.True(t, SurrogateEscape(`"a \uDFFF b"`))
	assert.False(t, SurrogateEscape(`"\ud7ff \ue000 \u00e9"`))
	assert.False(t, SurrogateEscape(`"no escape"`))
}

func FuzzSurrogateEscape(f *testing.F) {
	for _, raw := range surrogateSeeds {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if len(raw) > 1<<12 {
			return
		}
		checkSurrogateEscape(t, raw)
	})
}
