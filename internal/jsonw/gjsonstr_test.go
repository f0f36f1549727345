package jsonw

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/tidwall/gjson"
)

var strCases = []string{`""`, `"plain"`, `"a\"b\\c\/d\be\ff\ng\rh\ti"`, `"\u00e9\u4e2d"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ude00x"`,
	`"\ud83d\u0041"`, `"\ud83dx"`, `"x\ud83d\ud83d\ude00"`, `"Zürich ✓"`, `"\u0000"`}

// AppendStr decodes every string as gjson does.
func TestAppendStrIsGjson(t *testing.T) {
	for _, c := range strCases {
		assert.Equal(t, gjson.Parse(c).Str, string(AppendStr(nil, c)), c)
		assert.Equal(t, "x"+gjson.Parse(c).Str, string(AppendStr([]byte("x"), c)), c)
	}
}

func FuzzAppendStr(f *testing.F) {
	for _, c := range strCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = strings.TrimSpace(s) // a value's raw text has no white space around it
		if !Valid(s) || s[0] != '"' {
			return
		}
		if got, want := string(AppendStr(nil, s)), gjson.Parse(s).Str; got != want {
			t.Fatalf("AppendStr(%q) = %q, gjson says %q", s, got, want)
		}
	})
}
