package anthropic

import (
	"testing"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/stretchr/testify/assert"
)

// blankVal, which decodes escapes one at a time, says what blank says of
// the decoded text.
func TestBlankValInPlace(t *testing.T) {
	for _, tc := range []struct {
		lit  string
		want bool
	}{
		{`""`, false}, {`" "`, true}, {`"\n"`, true}, {`"\n\t\r\f "`, true}, {`"\u0020\u00a0\u2028\u3000"`, true},
		{`"\u0085x"`, false}, {`"\n x"`, false}, {`"\nx"`, false}, {`"\b"`, false}, {`"\/"`, false}, {`"\\"`, false},
		{`"\""`, false}, {`"\ud83d\ude00"`, false}, {`"\ud800"`, false}, {`"\n\u00A0 "`, true}, {`"\n` + "\u00a0\u2003" + `"`, true},
		{`"\n\u200b"`, false}, {`"\u000b\u000c"`, true},
	} {
		var tp jsonw.Tape
		if !assert.True(t, tp.Reset(tc.lit), tc.lit) {
			continue
		}
		v := tp.Root()
		assert.Equal(t, tc.want, blankVal(v), tc.lit)
		assert.Equal(t, blank(v.Str()), blankVal(v), tc.lit)
	}
	var tp jsonw.Tape
	if assert.True(t, tp.Reset(`{"a":"\n\t"}`)) {
		assert.True(t, blankVal(tp.Root().Get("a")))
		assert.False(t, blankVal(tp.Root()))
	}
	// Read in place: no decoded copy.
	if assert.True(t, tp.Reset(`"\n\t\u00a0 \u2028 x"`)) {
		v := tp.Root()
		assert.Zero(t, testing.AllocsPerRun(100, func() { blankVal(v) }))
	}
}

func FuzzBlankVal(f *testing.F) {
	for _, s := range []string{` `, `\n`, `\u00a0`, `\u2028 x`, `\ud83d\ude00`, `\b`, `\n\u0020`, `\u0085`, "\u3000\\t", `\ud800\u0020`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var tp jsonw.Tape
		if !tp.Reset(`"` + s + `"`) {
			return
		}
		v := tp.Root()
		if got, want := blankVal(v), blank(v.Str()); got != want {
			t.Fatalf("%q: blankVal %v, blank of the decoded text %v", s, got, want)
		}
	})
}
