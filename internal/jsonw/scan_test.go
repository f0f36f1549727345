package jsonw

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// walk reads s with a Scanner, descending into every object and array
// (but leaving every third member and every second element for Member and
// Elem to skip), and reports End's verdict and the names met, in order.
func walk(s string) (bool, []string) {
	var sc Scanner
	sc.Reset(s)
	var names []string
	var val func()
	val = func() {
		var o Object
		var a Array
		switch {
		case sc.Object(&o):
			for n, ok := sc.Member(&o); ok; n, ok = sc.Member(&o) {
				names = append(names, n)
				if len(names)%3 == 0 {
					continue // left for Member to skip
				}
				val()
			}
		case sc.Array(&a):
			for i := 0; sc.Elem(&a); i++ {
				if i%2 == 1 {
					continue // left for Elem to skip
				}
				val()
			}
		default:
			sc.Value()
		}
	}
	val()
	return sc.End(), names
}

var scanCases = []string{
	`{}`, ` {"a":1} `, `{"a":{"b":[1,{"c":2}],"d":"x\"y"},"e":null}`, `{"a":1,"a":2}`,
	`{"a":1,}`, `{"a" 1}`, `{"a":1}x`, `{"a":1`, `[1,2]`, `"s"`, `12`, ``, `  `,
	`{"\u0061":1,"a":2}`, `{"a":{"b":1,"b":2}}`, `{"a":"\ud800"}`, "{\"a\":\"\x01\"}",
	"{\"a\":\"\xff\"}", `{"a":[}`, `{"a":tru}`, `{"a":-}`, `{"a":{"b":{}}}`, `{"a":{}},`,
	`{"a":1}{"b":2}`, `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"x\n"}}`,
	strings.Repeat(`{"a":`, 511) + `1` + strings.Repeat(`}`, 511),
	strings.Repeat(`{"a":`, 512) + `1` + strings.Repeat(`}`, 512),
	strings.Repeat(`{"a":`, 513) + `1` + strings.Repeat(`}`, 513),
	`{"a":` + strings.Repeat(`[`, 511) + strings.Repeat(`]`, 511) + `}`,
	`{"a":` + strings.Repeat(`[`, 512) + strings.Repeat(`]`, 512) + `}`,
}

// moreScanCases adds repeated names, misplaced separators, containers in
// arrays, deep arrays and invalid UTF-8 in and out of strings, and
// validCases.
var moreScanCases = append([]string{
	`{"a":1,"a":2}`, `{"a":{"b":1,"b":1}}`, `[{"x":1},{"x":1}]`, `{"a\u0062":1,"ab":2}`, `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"a":0}`,
	`{,}`, `{"a":1,,"b":2}`, `[,1]`, `[1,,2]`, `{"a":}`, `{"a"}`, `{"a":1 "b":2}`, ` [ ] `, ` { } `, `{"a":[]}`, `[[],{}]`,
	"{\"a\":\"\xc3\xa9\"}", "{\"a\":\"\xc3\"}", "{\"\xff\":1}", "[1,\xff]", "\"ok\" \xff",
	strings.Repeat("[", 512) + strings.Repeat("]", 512), strings.Repeat("[", 511) + "{}" + strings.Repeat("]", 511),
	strings.Repeat(`{"a":`, 513) + "1" + strings.Repeat("}", 513),
	strings.Repeat("[", 513) + strings.Repeat("]", 513), `{"a":1,"\u0061":1}`, `[{"x":{"k":1,"b":2,"k":3}}]`,
	`{"a":{"b":[1,{"c":"d"}]},"e":[]}`, `{"a":1]`, `[1}`, `{"a":[1,2}`, `[{}, {"a":{}}]`, `[1,]`, `[1 2]`, `[`,
	manyMembers + "}", manyMembers + `,"k33":1}`,
}, validCases...)

// manyMembers opens an object with 40 members, more than memberNames
// keeps without its set.
var manyMembers = func() string {
	s := `{"k0":0`
	for i := 1; i < 40; i++ {
		s += `,"k` + strconv.Itoa(i) + `":0`
	}
	return s
}()

// partly reads s as a decoder that wants only the first member does: it
// opens the top object, reads one member's value and skips the rest.
func partly(s string) bool {
	var sc Scanner
	sc.Reset(s)
	var top Object
	if sc.Object(&top) {
		if _, ok := sc.Member(&top); ok {
			sc.Value()
		}
		sc.Skip(&top)
	}
	return sc.End()
}

func TestScannerAgreesWithValid(t *testing.T) {
	for _, s := range append(scanCases, moreScanCases...) {
		got, _ := walk(s)
		if want := Valid(s); got != want {
			t.Errorf("%.60q: scanner %v, Valid %v", s, got, want)
		}
		var sc Scanner
		sc.Reset(s)
		if got, want := sc.End(), Valid(s); got != want {
			t.Errorf("%.60q unread: scanner %v, Valid %v", s, got, want)
		}
		if got, want := partly(s), Valid(s); got != want {
			t.Errorf("%.60q partly read: scanner %v, Valid %v", s, got, want)
		}
	}
}

// TestScannerArrays reads arrays' elements raw, in objects and objects in
// them, elements left unread skipped, and a repeated name in a value left
// unread found when it is skipped.
func TestScannerArrays(t *testing.T) {
	var sc Scanner
	sc.Reset(` {"a" : [1, {"b":"x\"y"}, [2], 3], "c":null, "d":{"e":true}} `)
	var got []string
	var top Object
	assert.True(t, sc.Object(&top))
	for name, ok := sc.Member(&top); ok; name, ok = sc.Member(&top) {
		switch name {
		case "a":
			mark := sc.Mark()
			var a Array
			assert.True(t, sc.Array(&a))
			for i := 0; sc.Elem(&a); i++ {
				var inner Object
				switch {
				case i == 3:
					// left unread: skipped by Elem
				case sc.Object(&inner):
					for n, ok := sc.Member(&inner); ok; n, ok = sc.Member(&inner) {
						got = append(got, n+"="+sc.Value())
					}
				default:
					got = append(got, "elem="+sc.Value())
				}
			}
			got = append(got, "a="+sc.Since(mark))
		case "d":
			mark := sc.Mark()
			var d Object
			assert.True(t, sc.Object(&d))
			sc.Skip(&d)
			got = append(got, "d="+sc.Since(mark))
		}
		// "c" is left unread: skipped by the next Member
	}
	assert.True(t, sc.End())
	assert.Equal(t, []string{`elem=1`, `b="x\"y"`, `elem=[2]`, `a=[1, {"b":"x\"y"}, [2], 3]`, `d={"e":true}`}, got)

	var a Array
	assert.False(t, sc.Reset(`{}`) && sc.Array(&a), "an object is not an array")
	assert.True(t, sc.End())

	sc.Reset(`{"a":[1,2],"b":{"c":1,"c":2}}`)
	assert.True(t, sc.Object(&top))
	for name, ok := sc.Member(&top); ok; name, ok = sc.Member(&top) {
		if name == "a" && sc.Array(&a) {
			for sc.Elem(&a) {
			}
		}
	}
	assert.True(t, sc.Failed(), "a repeated name in a member left unread is found when it is skipped")
	assert.False(t, sc.End())
}

// TestScannerNames compares names by value: escapes are decoded.
func TestScannerNames(t *testing.T) {
	var sc Scanner
	sc.Reset(`{"plain":1,"\u0065sc":2,"pla\"in":3}`)
	var o Object
	assert.True(t, sc.Object(&o))
	var got []string
	for name, ok := sc.Member(&o); ok; name, ok = sc.Member(&o) {
		got = append(got, name)
	}
	assert.True(t, sc.End())
	assert.Equal(t, []string{"plain", "esc", `pla"in`}, got)
}

func TestNextMembers(t *testing.T) {
	arr := ` [ {"type":"a","text":"x\"}"} , "s", {"text":[1,{"type":"no"}],"type":"b"}, {} ] `
	keys := []string{"type", "text"}
	vals := make([]string, 2)
	var got []string
	for e, pos, ok := NextMembers(arr, 0, keys, vals); ok; e, pos, ok = NextMembers(arr, pos, keys, vals) {
		got = append(got, e+"|"+vals[0]+"|"+vals[1])
	}
	assert.Equal(t, []string{`{"type":"a","text":"x\"}"}|"a"|"x\"}"`, `"s"||`, `{"text":[1,{"type":"no"}],"type":"b"}|"b"|[1,{"type":"no"}]`, `{}||`}, got)
}

func TestScannerMembers(t *testing.T) {
	ok, names := walk(`{"type":"x","delta":{"type":"t","th\u0069nking":"a"},"index":3}`)
	if !ok || strings.Join(names, ",") != "type,delta,type,thinking,index" {
		t.Fatalf("%v %q", ok, names)
	}
	var sc Scanner
	sc.Reset(`{"cb":{"type":"text", "text":"hi"} ,"n":1}`)
	var top, cb Object
	if !sc.Object(&top) {
		t.Fatal("not an object")
	}
	if n, _ := sc.Member(&top); n != "cb" {
		t.Fatalf("name %q", n)
	}
	mark := sc.Mark()
	if !sc.Object(&cb) {
		t.Fatal("cb not an object")
	}
	if n, _ := sc.Member(&cb); n != "type" || sc.Value() != `"text"` {
		t.Fatalf("name %q", n)
	}
	sc.Skip(&cb)
	if got := sc.Since(mark); got != `{"type":"text", "text":"hi"}` {
		t.Fatalf("since %q", got)
	}
	if sc.End() {
		t.Fatal("End true with the top object still open")
	}
	sc.Skip(&top)
	if !sc.End() {
		t.Fatal("End false")
	}
}

// TestScannerBytes reads a byte slice in place: white space around the
// text and its separators, a name written with escapes (decoded), an
// array value returned raw, a repeated name failing the read, and the
// empty text refused.
func TestScannerBytes(t *testing.T) {
	var sc Scanner
	assert.True(t, sc.ResetBytes([]byte(` {"a" : [1, {"b":"x\"y"}], "c\u0064": true, "e":{}} `)))
	var top Object
	assert.True(t, sc.Object(&top))
	var got []string
	for name, ok := sc.Member(&top); ok; name, ok = sc.Member(&top) {
		switch name {
		case "a", "cd":
			got = append(got, name+"="+sc.Value())
		case "e":
			mark := sc.Mark()
			var e Object
			assert.True(t, sc.Object(&e))
			_, ok := sc.Member(&e)
			assert.False(t, ok)
			assert.Equal(t, "{}", sc.Since(mark))
		default:
			t.Fatalf("name %q", name)
		}
	}
	assert.True(t, sc.End())
	assert.Equal(t, []string{`a=[1, {"b":"x\"y"}]`, `cd=true`}, got)

	sc.Reset(`{"a":1,"a":2}`)
	assert.True(t, sc.Object(&top))
	_, ok := sc.Member(&top)
	assert.True(t, ok)
	assert.Equal(t, "1", sc.Value())
	_, ok = sc.Member(&top)
	assert.False(t, ok, "a repeated name fails the read")
	assert.Equal(t, "", sc.Value())
	assert.False(t, sc.End())

	assert.True(t, sc.ResetBytes(nil))
	assert.False(t, sc.End(), "the empty text is not JSON")
	assert.False(t, sc.ResetBytes([]byte("\"\xff\"")), "not UTF-8")
	assert.False(t, sc.End())
}

func FuzzScanner(f *testing.F) {
	for _, s := range append(scanCases, moreScanCases...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := Valid(s)
		if got, _ := walk(s); got != want {
			t.Fatalf("%q: scanner %v, Valid %v", s, got, want)
		}
		if got := partly(s); got != want {
			t.Fatalf("%q partly read: scanner %v, Valid %v", s, got, want)
		}
	})
}
