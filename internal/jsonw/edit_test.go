package jsonw

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

var quotedLenCases = []string{"", "a", "plain ascii text of some length", "\"\\\n\r\t", "\x00\x01\x1f\x7f",
	"é€😀", "\xff", "a\xe2\x82", "\xed\xa0\x80", "\u2028<>&/", strings.Repeat("ab\"cd", 40), "\xf0\x9f\x98"}

func TestQuotedLen(t *testing.T) {
	for _, s := range quotedLenCases {
		if got, want := QuotedLen(s), len(String(nil, s)); got != want {
			t.Errorf("QuotedLen(%q) = %d, String writes %d bytes", s, got, want)
		}
	}
}

func FuzzQuotedLen(f *testing.F) {
	for _, s := range quotedLenCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := QuotedLen(s), len(String(nil, s)); got != want {
			t.Fatalf("QuotedLen(%q) = %d, String writes %d bytes", s, got, want)
		}
	})
}

func TestStrIs(t *testing.T) {
	for _, c := range []struct {
		raw, s string
		want   bool
	}{
		{`"thinking"`, "thinking", true},
		{`"th\u0069nking"`, "thinking", true},
		{`"\u0074\u0068\u0069\u006e\u006b\u0069\u006e\u0067"`, "thinking", true},
		{`"thinking"`, "thinkin", false},
		{`"thinkin"`, "thinking", false},
		{`"a\/b"`, "a/b", true},
		{`"a\nb"`, "a\nb", true},
		{`"\ud83d\ude00"`, "😀", true},
		{`"\ud800"`, "\ufffd", true},             // a lone half, as gjson reads it
		{`"\ud800\u0074ext"`, "\ufffdext", true}, // gjson joins a half with the next escape
		{`"` + strings.Repeat(`\u0061`, 50) + `"`, strings.Repeat("a", 50), true},
		{`"` + strings.Repeat(`\u0061`, 200) + `"`, strings.Repeat("a", 200), true}, // past the stack buffer
		{`7`, "", false},
		{`""`, "", true},
		{`null`, "", false},
		{``, "", false},
		{`"`, "", false},
		// Member names and types, as the patches compare them.
		{`"type"`, "type", true},
		{`"t\u0079pe"`, "type", true},
		{`"\u0074\u0079\u0070\u0065"`, "type", true},
		{`"t\u0059pe"`, "type", false},
		{`"a\"b"`, `a"b`, true},
		{`"typ"`, "type", false},
		{`"types"`, "type", false},
		{`"\u00e9"`, "e", false},
		{`"\u00e9"`, "é", true},
		{`"\ud800\u0074"`, "t", false},
		{`"t\u0079pe\n"`, "type", false},
		{`"\u0000"`, "", false},
		{`"\u0000"`, "\x00", true},
		{`"\u0041\u00E9"`, "Aé", true},
		{`"\u004G"`, "\x00", true}, // not JSON: gjson reads what is not a hex digit as 0
	} {
		if got := StrIs(c.raw, c.s); got != c.want {
			t.Errorf("StrIs(%s, %q) = %v", c.raw, c.s, got)
		}
		if c.want && c.raw[0] == '"' && gjson.Parse(c.raw).Str != c.s {
			t.Errorf("gjson reads %s as %q, not %q", c.raw, gjson.Parse(c.raw).Str, c.s)
		}
	}
	long, longS := `"`+strings.Repeat(`\u00e9\n`, 100)+`"`, strings.Repeat("é\n", 100)
	for _, c := range [][2]string{{`"th\u0069nking"`, "thinking"}, {`"thoughtSign\u0061ture"`, "thoughtSignature"}, {long, longS}} {
		if !StrIs(c[0], c[1]) {
			t.Errorf("StrIs(%s, %q) = false", c[0], c[1])
		}
		if n := testing.AllocsPerRun(100, func() { StrIs(c[0], c[1]) }); n != 0 {
			t.Errorf("StrIs of an escaped literal: %v allocations", n)
		}
	}
}

func FuzzStrIs(f *testing.F) {
	f.Add(`"th\u0069nking"`, "thinking")
	f.Add(`"\ud800\u0074"`, "\ufffd")
	f.Add(`12`, "")
	f.Fuzz(func(t *testing.T, raw, s string) {
		if !Valid(raw) {
			return
		}
		v := gjson.Parse(raw)
		want := v.Type == gjson.String && v.Str == s
		if got := StrIs(raw, s); got != want {
			t.Fatalf("StrIs(%s, %q) = %v, gjson reads %q", raw, s, got, v.Str)
		}
	})
}

func TestMemberValueAt(t *testing.T) {
	for _, c := range []struct {
		s, name, val string
		ok           bool
	}{
		{`{"role":"assistant","content":[1, 2]}`, "content", `[1, 2]`, true},
		{` { "c\u006fntent" : "x" } `, "content", `"x"`, true},
		{`{"content":1,"content":2}`, "content", `1`, true},
		{`{"a":{"content":1}}`, "content", ``, false},
		{`[{"content":1}]`, "content", ``, false},
		{`"{\"content\":1}"`, "content", ``, false},
		{`{}`, "content", ``, false},
		{`{"content":`, "content", ``, false},
		{``, "content", ``, false},
	} {
		at := MemberValueAt(c.s, c.name)
		if (at >= 0) != c.ok || at >= 0 && c.s[at:StepValue(c.s, at)] != c.val {
			t.Errorf("MemberValueAt(%s, %q) = %d", c.s, c.name, at)
		}
	}
}

func TestDropElems(t *testing.T) {
	isX := func(v string) bool { return StrIs(v, "x") }
	for _, c := range []struct {
		raw, out string
		removed  []int
	}{
		{`{"a":[{"k":"x"},{"k":"y"}]}`, `{"a":[{"k":"y"}]}`, []int{0}},
		{` { "b" : 1 , "a" : [ 1 , {"k":"y"} , {"k" : "\u0078"} , "x" , {"k":"x","k":"y"} ] , "c" : [] } `,
			` { "b" : 1 , "a" : [1,{"k":"y"},"x"] , "c" : [] } `, []int{2, 4}},
		{`{"a":[{"k":"x"}]}`, `{"a":[]}`, []int{0}},
		{`{"a":[{"k":"y"},{"k":["x"]}]}`, `{"a":[{"k":"y"},{"k":["x"]}]}`, nil},
		{`{"a":{"k":"x"}}`, `{"a":{"k":"x"}}`, nil},
		{`{"a":[{"k":"x"},}`, `{"a":[{"k":"x"},}`, nil},
		{`{"a":[{"k":"x"}`, `{"a":[{"k":"x"}`, nil},
		{`[{"k":"x"}]`, `[{"k":"x"}]`, nil},
	} {
		out, removed := DropElems([]byte(c.raw), "a", "k", isX, nil)
		if string(out) != c.out || len(removed) != len(c.removed) {
			t.Errorf("DropElems(%s) = %s %v, want %s %v", c.raw, out, removed, c.out, c.removed)
			continue
		}
		for i := range removed {
			if removed[i] != c.removed[i] {
				t.Errorf("DropElems(%s) removed %v, want %v", c.raw, removed, c.removed)
			}
		}
	}
	raw := []byte(`{"a":[{"k":"y"},{"k":"z"}]}`)
	if n := testing.AllocsPerRun(100, func() {
		if out, _ := DropElems(raw, "a", "k", isX, nil); &out[0] != &raw[0] {
			t.Error("DropElems copied an object it removed nothing from")
		}
	}); n != 0 {
		t.Errorf("DropElems removing nothing: %v allocations", n)
	}
}
