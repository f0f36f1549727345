package kit

import "testing"

func TestLoneSurrogate(t *testing.T) {
	for raw, want := range map[string]bool{
		`"abc"`:                false,
		`"\ud800"`:             true,
		`"x\udc00y"`:           true,
		`"\ud83d\ude00"`:       false,
		`"\ud83d\u0041"`:       true,
		`"\\ud800"`:            false, // an escaped backslash, then text
		`"\\\ud800"`:           true,
		`"\u00e9\uD800"`:       true,
		`"\uD83D\uDE00\ud800"`: true,
		`"\ud83d"`:             true,
	} {
		if got := LoneSurrogate(raw); got != want {
			t.Errorf("LoneSurrogate(%s) = %v, want %v", raw, got, want)
		}
	}
}
