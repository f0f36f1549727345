package jsonw

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

var validCases = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1.5e+10`, `-12.75E-3`, `true`, `false`, `null`, ` {"a" : [1, 2, {"b": null}] } `,
	`"long text with no escapes at all, enough to use the eight-byte path"`, `"esc \" \\ \/ \b \f \n \r \t \u00e9 end"`,
	`"Zürich — ✓ 😀"`, `{"a":"x","b":"` + strings.Repeat("abcdefgh", 20) + `"}`,
	// invalid
	``, ` `, `{`, `[1,]`, `{"a":1,}`, `01`, `1.`, `1e`, `-`, `+1`, `.5`, `"unterminated`, `"ctl ` + "\x01" + `"`, `"bad \x"`,
	`"bad \u12g4"`, `{"a" 1}`, `{1:2}`, `[1 2]`, `tru`, `nul`, `{"a":1}}`, `[] []`, "\"tab\tinside\"", `"` + strings.Repeat("q", 15) + "\n" + `"`,
	"\"\xff\xfe invalid utf-8\"",
}

func TestValidMatchesEncodingJSON(t *testing.T) {
	for _, c := range validCases {
		assert.Equal(t, json.Valid([]byte(c)) && utf8.ValidString(c), Valid(c), "%q", c)
	}
	assert.False(t, Valid("\"\xff\""), "invalid UTF-8 is refused")
	assert.False(t, Valid(strings.Repeat("[", maxDepth+1)+strings.Repeat("]", maxDepth+1)))
	assert.True(t, Valid(strings.Repeat("[", 100)+strings.Repeat("]", 100)))
	assert.False(t, ValidBytes(nil))
}

func FuzzValid(f *testing.F) {
	for _, c := range validCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.Count(s, "[")+strings.Count(s, "{") > 1000 {
			return // encoding/json has no depth limit of ours to compare with
		}
		if got, want := Valid(s), json.Valid([]byte(s)) && utf8.ValidString(s); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", s, got, want)
		}
	})
}

func BenchmarkValid(b *testing.B) {
	doc := `{"candidates":[{"content":{"parts":[{"text":"` + strings.Repeat("The user wants tide times; I will query both harbours at once. ", 20) + `","thought":true}],"role":"model"},"index":0}],"modelVersion":"gemini-3-flash-preview"}`
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if !Valid(doc) {
			b.Fatal("invalid")
		}
	}
}
