package jsonw

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

var spanTexts = []string{
	`{}`, ` { } `, `{"a":1}`, `{ "a" : 1 , "b":[1,{"c":"}"}] ,"d\"":"x\\"}`, `{"t\u0079pe":"thinking","":null}`,
	`[]`, `[ ]`, `[1,"a",{"b":[2]} , [3] ,true,null,-1.5e3]`, `"x"`, `1`, `nope`,
}

// StepMember, StepElem and StepValue step as NextMember and NextElem do,
// giving offsets of what they give as text.
func TestStepAsNext(t *testing.T) {
	for _, s := range spanTexts {
		var got, want []string
		if i := skipSpace(s, 0); i < len(s) && s[i] == '{' {
			pos := i + 1
			for {
				nameAt, nameEnd, at := StepMember(s, pos)
				if at < 0 {
					if nameAt < 0 || s[nameAt:nameEnd] != "}" {
						t.Fatalf("%s: the object's end not found at %d", s, pos)
					}
					break
				}
				end := StepValue(s, at)
				got = append(got, s[nameAt:nameEnd], s[at:end])
				pos = end
			}
		}
		for name, val, pos, ok := NextMember(s, 0); ok; name, val, pos, ok = NextMember(s, pos) {
			want = append(want, name, val)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: members %q, NextMember %q", s, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: members %q, NextMember %q", s, got, want)
			}
		}
		got, want = got[:0], want[:0]
		if i := skipSpace(s, 0); i < len(s) && s[i] == '[' {
			pos := i + 1
			for {
				at, close := StepElem(s, pos)
				if at < 0 {
					if close < 0 || s[close] != ']' {
						t.Fatalf("%s: the array's end not found at %d", s, pos)
					}
					break
				}
				end := StepValue(s, at)
				got = append(got, s[at:end])
				pos = end
			}
		}
		for el, pos, ok := NextElem(s, 0); ok; el, pos, ok = NextElem(s, pos) {
			want = append(want, el)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: elements %q, NextElem %q", s, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: elements %q, NextElem %q", s, got, want)
			}
		}
	}
	if _, _, at := StepMember(`{"a":}`, 1); StepValue(`{"a":}`, at) >= 0 {
		t.Fatal("a member with no value")
	}
	if at, close := StepElem(`[`, 1); at >= 0 || close >= 0 {
		t.Fatal("an array cut short")
	}
	if a, b, c := StepMember(`{1:2}`, 1); a >= 0 || b >= 0 || c >= 0 {
		t.Fatal("a member with no name")
	}
}

// FuzzStrIsASCII holds StrIs to StringEquals on every valid string
// literal and ASCII name (where gjson's and encoding/json's decodings
// agree).
func FuzzStrIsASCII(f *testing.F) {
	f.Add(`"t\u0079pe"`, "type")
	f.Add(`"\ud83d\ude00"`, "x")
	f.Fuzz(func(t *testing.T, raw, key string) {
		for i := 0; i < len(key); i++ {
			if key[i] >= 0x80 {
				return
			}
		}
		if len(raw) < 2 || raw[0] != '"' || !Valid(raw) {
			return
		}
		if got, want := StrIs(raw, key), StringEquals(raw, key); got != want {
			t.Fatalf("StrIs(%s, %q) = %v, StringEquals %v", raw, key, got, want)
		}
	})
}

// PlainASCII agrees with a byte at a time test on every string.
func FuzzPlainASCII(f *testing.F) {
	f.Add("QQ==")
	f.Add("abcdefgh\"ijklmnop")
	f.Add("abcdefghijklmno\x7f\x80")
	f.Fuzz(func(t *testing.T, s string) {
		want := true
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < ' ' || c > 0x7f || c == '"' || c == '\\' {
				want = false
			}
		}
		if got := PlainASCII(s); got != want {
			t.Fatalf("PlainASCII(%q) = %v", s, got)
		}
	})
}

// MemberValueAt finds what gjson's Get finds, and CutMember removes what
// sjson's Delete removes, on every valid object.
func FuzzCutMember(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{ "a" : 1 , "b":2 }`, `{"b":2 , "a" : [1] }`, `{"b":2,"a":{"c":"}"},"d":3}`, `{"\u0061":"x"}`, `{ "b" : { "a" : 1 } }`} {
		f.Add(s, "a")
	}
	f.Fuzz(func(t *testing.T, s, name string) {
		if !Valid(s) || name == "" {
			return
		}
		for i := 0; i < len(name); i++ {
			if c := name[i]; c >= 0x80 || c == '.' || c == '*' || c == '?' || c == '|' || c == '#' || c == '@' || c == '\\' || c == '!' || c == '[' || c == '{' || c == ':' {
				return // not a plain gjson path
			}
		}
		at := skipSpace(s, 0)
		if s[at] != '{' {
			if MemberValueAt(s, name) != -1 {
				t.Fatalf("a member of %s, which is not an object", s)
			}
			return
		}
		v := MemberValueAt(s, name)
		got := gjson.Get(s, name)
		if (v >= 0) != got.Exists() {
			t.Fatalf("%s %q: value at %d, gjson %q", s, name, v, got.Raw)
		}
		if v < 0 {
			return
		}
		end := StepValue(s, v)
		if s[v:end] != got.Raw {
			t.Fatalf("%s %q: value %q, gjson %q", s, name, s[v:end], got.Raw)
		}
		var nameAt int
		for pos := at + 1; ; {
			nAt, _, vAt := StepMember(s, pos)
			if vAt == v {
				nameAt = nAt
				break
			}
			pos = StepValue(s, vAt)
		}
		objEnd := StepValue(s, at)
		from, to := CutMember(s, at, objEnd, nameAt, end)
		want, err := sjson.Delete(s[at:objEnd], name)
		if err != nil {
			t.Skip(err)
		}
		if cut := s[at:from] + s[to:objEnd]; cut != want {
			t.Fatalf("%s %q: cut %s, sjson %s", s, name, cut, want)
		}
	})
}

// AppendElems keeps the elements that start before until, joined by bare
// commas, whatever white space stood between them.
func TestAppendElems(t *testing.T) {
	s := `[ 1 , {"a":[2]} ,"x" ,3]`
	at := strings.Index(s, `"x"`)
	assert.Equal(t, `[1,{"a":[2]}`, string(AppendElems([]byte("["), s, 1, at)))
	assert.Equal(t, `[`, string(AppendElems([]byte("["), s, 1, 2)))
	assert.Equal(t, `[1,{"a":[2]},"x",3`, string(AppendElems([]byte("["), s, 1, len(s))))
	assert.Equal(t, `[]`, string(AppendElems([]byte("["), `[]`, 1, 2))+"]")
}
