package jsonw

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/reasonreplay/replay/internal/benchreq"
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

// TopString finds in a valid body what gjson finds, whatever the value.
func TestTopString(t *testing.T) {
	for _, body := range []string{`{"model":"claude-opus-5-5"}`, `{"messages":[{"model":"no"}],"model":"m\u00e9"}`, `{"model":12.50}`,
		`{"model":true}`, `{"model":null}`, `{"model":{"a":[1]}}`, `{"x":1}`, `[1]`, `{"\u006dodel":"esc"}`, `{"model":"a\"b"}`,
		`{"a":"x\\","model":"even"}`, `{"a":"x\\\"\\","model":"odd then even"}`, `{"a":"\\\\\"","model":"four, one"}`,
		`{"a":["\"model\":\"no\""],"model":"after an escaped member"}`} {
		assert.Equal(t, gjson.Get(body, "model").String(), TopString([]byte(body), "model"), body)
	}
	assert.Equal(t, "", TopString(nil, "model"))
}

func FuzzTopString(f *testing.F) {
	f.Add(`{"model":"m","messages":[]}`)
	f.Add(`{"a":{"model":1},"model":[true]}`)
	f.Fuzz(func(t *testing.T, s string) {
		got := TopString([]byte(s), "model") // never panics, whatever s is
		if Valid(s) {
			if want := gjson.Get(s, "model").String(); got != want {
				t.Fatalf("TopString(%q) = %q, gjson says %q", s, got, want)
			}
		}
	})
}

// BenchmarkTopString finds the model of a 2 MB Anthropic request written
// with "model" first, and written as anthropic-sdk-go writes it, after
// "messages": the search then steps over the whole conversation. Valid on
// the same bytes is the yardstick.
//
//	go test ./internal/jsonw -run '^$' -bench TopString
func BenchmarkTopString(b *testing.B) {
	first, _ := benchreq.Anthropic().Sized(2 << 20)
	const m = `"model":"claude-opus-5-5",`
	i := bytes.Index(first, []byte(m))
	if i != 1 {
		b.Fatal("the shape's model is not its first member")
	}
	last := slices.Concat([]byte{'{'}, first[i+len(m):len(first)-1], []byte(`,`+strings.TrimSuffix(m, ",")+`}`))
	for _, c := range []struct {
		name string
		body []byte
	}{{"valid", last}, {"first", first}, {"last", last}} {
		b.Run(c.name, func(b *testing.B) {
			if !ValidBytes(c.body) || TopString(c.body, "model") != "claude-opus-5-5" {
				b.Fatal("the body has no model")
			}
			b.SetBytes(int64(len(c.body)))
			b.ReportAllocs()
			for b.Loop() {
				if c.name == "valid" {
					ValidBytes(c.body)
				} else {
					TopString(c.body, "model")
				}
			}
		})
	}
}
