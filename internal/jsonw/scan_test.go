package jsonw

import (
	"strings"
	"testing"
)

// walk reads s with a Scanner, descending into every object, and reports
// End's verdict and the names met, in order.
func walk(s string) (bool, []string) {
	var sc Scanner
	sc.Reset(s)
	var names []string
	var obj func()
	obj = func() {
		var o Object
		if !sc.Object(&o) {
			sc.Value()
			return
		}
		for n, ok := sc.Member(&o); ok; n, ok = sc.Member(&o) {
			names = append(names, n)
			if len(names)%3 == 0 {
				continue // left for Member to skip
			}
			obj()
		}
	}
	obj()
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

func TestScannerAgreesWithValid(t *testing.T) {
	for _, s := range scanCases {
		got, _ := walk(s)
		if want := Valid(s); got != want {
			t.Errorf("%.60q: scanner %v, Valid %v", s, got, want)
		}
	}
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

func FuzzScanner(f *testing.F) {
	for _, s := range scanCases[:25] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := func() bool { ok, _ := walk(s); return ok }(), Valid(s); got != want {
			t.Fatalf("%q: scanner %v, Valid %v", s, got, want)
		}
	})
}
