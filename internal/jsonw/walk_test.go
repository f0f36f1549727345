package jsonw

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// walkW reads the value at sc: descending into objects and arrays when
// deep, else skipping them, and records what it saw.
func walkW(sc *Walker, deep bool, out *strings.Builder) {
	switch c := sc.Peek(); {
	case deep && c == '{':
		var o WalkObject
		out.WriteByte('{')
		for name, ok := sc.Member(&o); ok; name, ok = sc.Member(&o) {
			out.WriteString(name + ":")
			walkW(sc, deep, out)
			out.WriteByte(',')
		}
		out.WriteByte('}')
	case deep && c == '[':
		var a WalkArray
		out.WriteByte('[')
		for sc.Elem(&a) {
			walkW(sc, deep, out)
			out.WriteByte(',')
		}
		out.WriteByte(']')
	default:
		out.WriteString(sc.Skip())
	}
}

// scanValidW walks s with the scanner (deep: every object and array
// entered; else the top value skipped) and reports its verdict.
func scanValidW(s string, deep bool) bool {
	sc := NewWalker(s)
	var out strings.Builder
	walkW(&sc, deep, &out)
	return sc.End()
}

var walkCases = append(append([]string{}, validCases...),
	`{"a":1,"a":2}`, `{"a":1,"\u0061":1}`, `[{"x":{"k":1,"b":2,"k":3}}]`, `{"a":{"b":[1,{"c":"d"}]},"e":[]}`,
	`{"a":1 "b":2}`, `[1,,2]`, `{"a":}`, `{"a"}`, `{"a":1]`, `[1}`, `{"a":[1,2}`, ` [ ] `, `{ }`, "\"\xff\"", `[{}, {"a":{}}]`)

func TestWalkerMatchesValid(t *testing.T) {
	for _, c := range walkCases {
		want := Valid(c)
		assert.Equal(t, want, scanValidW(c, true), "deep walkW of %q", c)
		assert.Equal(t, want, scanValidW(c, false), "skip of %q", c)
	}
	deep := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	assert.True(t, scanValidW(deep, true))
	assert.False(t, scanValidW("["+deep+"]", true), "one level too deep, entered")
	assert.False(t, scanValidW("["+deep+"]", false), "one level too deep, skipped")
	many := `{"k0":0`
	for i := 1; i < 40; i++ {
		many += `,"k` + strconv.Itoa(i) + `":0`
	}
	assert.True(t, scanValidW(many+"}", true))
	assert.False(t, scanValidW(many+`,"k33":1}`, true), "a large object's names are checked through the set")
}

func TestWalkerYieldsRawValues(t *testing.T) {
	s := ` {"a" : [1, {"b":"x\"y"}], "c":null, "d":{"e":true}} `
	sc := NewWalker(s)
	var got []string
	var o WalkObject
	for name, ok := sc.Member(&o); ok; name, ok = sc.Member(&o) {
		switch {
		case WalkNameIs(name, "a"):
			var a WalkArray
			for sc.Elem(&a) {
				if sc.Peek() == '{' {
					var inner WalkObject
					for n, ok := sc.Member(&inner); ok; n, ok = sc.Member(&inner) {
						got = append(got, n+"="+sc.Skip())
					}
					continue
				}
				got = append(got, "elem="+sc.Skip())
			}
		case WalkNameIs(name, "d"):
			sc.Peek()
			p := sc.Pos()
			var inner WalkObject
			for _, ok := sc.Member(&inner); ok; _, ok = sc.Member(&inner) {
			} // every member left unread: skipped
			got = append(got, "d="+sc.Text(p, sc.Pos()))
		}
		// "c" is left unread: skipped by the next step
	}
	assert.True(t, sc.End())
	assert.Equal(t, []string{`elem=1`, `"b"="x\"y"`, `d={"e":true}`}, got)

	sc = NewWalker(`{"a":[1,2],"b":{"c":1,"c":2}}`)
	var top WalkObject
	for name, ok := sc.Member(&top); ok; name, ok = sc.Member(&top) {
		if WalkNameIs(name, "a") {
			var a WalkArray
			for sc.Elem(&a) {
			}
		}
	}
	assert.True(t, sc.Failed(), "a repeated name in a member left unread is found when it is skipped")
	assert.False(t, sc.End())
}

func FuzzWalker(f *testing.F) {
	for _, c := range walkCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := Valid(s)
		if got := scanValidW(s, true); got != want {
			t.Fatalf("deep scan of %q = %v, Valid says %v", s, got, want)
		}
		if got := scanValidW(s, false); got != want {
			t.Fatalf("skipping scan of %q = %v, Valid says %v", s, got, want)
		}
	})
}

func TestWalkObjectIs(t *testing.T) {
	sc := NewWalker(`{"plain":1,"\u0065sc":2,"pla\"in":3}`)
	var o WalkObject
	var got []string
	for _, ok := sc.Member(&o); ok; _, ok = sc.Member(&o) {
		for _, k := range []string{"plain", "esc", `pla"in`, "pla"} {
			if o.Is(k) {
				got = append(got, k)
			}
		}
	}
	assert.True(t, sc.End())
	assert.Equal(t, []string{"plain", "esc", `pla"in`}, got)
}

func TestNextMembersWalk(t *testing.T) {
	arr := ` [ {"type":"a","text":"x\"}"} , "s", {"text":[1,{"type":"no"}],"type":"b"}, {} ] `
	keys := []string{"type", "text"}
	vals := make([]string, 2)
	var got []string
	for e, pos, ok := NextMembers(arr, 0, keys, vals); ok; e, pos, ok = NextMembers(arr, pos, keys, vals) {
		got = append(got, e+"|"+vals[0]+"|"+vals[1])
	}
	assert.Equal(t, []string{`{"type":"a","text":"x\"}"}|"a"|"x\"}"`, `"s"||`, `{"text":[1,{"type":"no"}],"type":"b"}|"b"|[1,{"type":"no"}]`, `{}||`}, got)
}
