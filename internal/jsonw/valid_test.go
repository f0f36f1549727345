package jsonw

import (
	"encoding/json"
	"strconv"
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
		if strings.Count(s, "[")+strings.Count(s, "{") > 500 {
			return // encoding/json has no depth limit of ours to compare with
		}
		want := json.Valid([]byte(s)) && utf8.ValidString(s) && !repeatsName(s)
		if got := Valid(s); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", s, got, want)
		}
		if want {
			_, dup := Duplicate(s)
			if dup {
				t.Fatalf("Duplicate(%q) finds a repeated name in valid JSON", s)
			}
		}
	})
}

// repeatsName is the oracle for repeated member names: encoding/json's
// token stream, with one set of names per open object.
func repeatsName(s string) bool {
	dec := json.NewDecoder(strings.NewReader(s))
	type frame struct {
		object bool
		names  map[string]bool
		key    bool // the next string token is a member name
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				if top != nil && top.object {
					top.key = true
				}
				stack = append(stack, &frame{object: v == '{', names: map[string]bool{}, key: v == '{'})
			default:
				stack = stack[:len(stack)-1]
			}
			continue
		case string:
			if top != nil && top.object && top.key {
				if top.names[v] {
					return true
				}
				top.names[v] = true
				top.key = false
				continue
			}
		}
		if top != nil && top.object {
			top.key = true
		}
	}
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

func TestValidRefusesRepeatedNames(t *testing.T) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"signature":"REAL","signature":""}`, `{"a":1,"\u0061":1}`, `[{"x":{"k":1,"b":2,"k":3}}]`} {
		if Valid(s) {
			t.Errorf("Valid(%q) = true, want false: a member name repeats", s)
		}
		if !repeatsName(s) {
			t.Errorf("oracle misses the repeated name in %q", s)
		}
	}
	many := `{"k0":0`
	for i := 1; i < 40; i++ {
		many += `,"k` + strconv.Itoa(i) + `":0`
	}
	if !Valid(many+"}") || Valid(many+`,"k33":1}`) {
		t.Error("a large object's names are checked through the set")
	}
}

// TestValidStringBoundaries puts escapes, UTF-8 sequences, invalid bytes
// and control characters at every offset around the 64 bytes where
// validString leaves its byte loop for IndexByte, against encoding/json.
func TestValidStringBoundaries(t *testing.T) {
	for _, piece := range []string{`\"`, `\\`, `\u00e9`, `\ud83d\ude00`, "é", "😀", "\xff", "\xe2\x82", "\x01", `\x`, `\u12`, `"`} {
		for n := 55; n < 75; n++ {
			for _, s := range []string{`"` + strings.Repeat("a", n) + piece + `b"`, `"` + strings.Repeat("a", n) + piece + `"`, `["` + strings.Repeat("a", n) + piece} {
				want := json.Valid([]byte(s)) && utf8.ValidString(s)
				assert.Equal(t, want, Valid(s), "%q", s)
			}
		}
	}
}
