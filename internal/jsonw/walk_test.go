package jsonw

import "testing"

// TestWalkMembers: NextName, StepValue and AfterValue find the members
// NextMember finds, byte for byte, and CloseEnd the object's end, with
// text after the object left unread.
func TestWalkMembers(t *testing.T) {
	for _, tc := range []struct {
		obj   string
		names []string
		vals  []string
		end   int
	}{
		{`{}`, nil, nil, 2},
		{` { } ,"x"`, nil, nil, 4},
		{`{"a":1}`, []string{`"a"`}, []string{`1`}, 7},
		{`{ "a" : [1,{"b":"]}"}] , "c\"d":"e\\" }]`, []string{`"a"`, `"c\"d"`}, []string{`[1,{"b":"]}"}]`, `"e\\"`}, 39},
		{`{"a":{"b":null},"c":true}{"d":2}`, []string{`"a"`, `"c"`}, []string{`{"b":null}`, `true`}, 25},
	} {
		pos, i := 0, 0
		for {
			name, at, ok := NextName(tc.obj, pos)
			n2, v2, p2, ok2 := NextMember(tc.obj, pos)
			if ok != ok2 {
				t.Fatalf("%s: member %d: NextName %v, NextMember %v", tc.obj, i, ok, ok2)
			}
			if !ok {
				break
			}
			end := StepValue(tc.obj, at)
			if name != tc.names[i] || tc.obj[at:end] != tc.vals[i] || name != n2 || tc.obj[at:end] != v2 {
				t.Fatalf("%s: member %d: %s:%s, want %s:%s", tc.obj, i, name, tc.obj[at:end], tc.names[i], tc.vals[i])
			}
			pos = AfterValue(tc.obj, end)
			if pos != p2 && p2 != len(tc.obj) {
				t.Fatalf("%s: member %d: next pos %d, NextMember's %d", tc.obj, i, pos, p2)
			}
			i++
		}
		if i != len(tc.names) {
			t.Fatalf("%s: %d members, want %d", tc.obj, i, len(tc.names))
		}
		if got := CloseEnd(tc.obj, pos); got != tc.end {
			t.Fatalf("%s: CloseEnd %d, want %d", tc.obj, got, tc.end)
		}
	}
}

// TestWalkElems: NextValue and StepValue find the elements NextElem finds,
// and CloseEnd the array's end.
func TestWalkElems(t *testing.T) {
	for _, tc := range []struct {
		arr   string
		elems []string
		end   int
	}{
		{`[]`, nil, 2},
		{` [ ] x`, nil, 4},
		{`[1]`, []string{`1`}, 3},
		{`[ {"a":"[]"} , "x\"" ,null,[[]]]],`, []string{`{"a":"[]"}`, `"x\""`, `null`, `[[]]`}, 32},
	} {
		pos, i := 0, 0
		for {
			at, ok := NextValue(tc.arr, pos)
			v2, p2, ok2 := NextElem(tc.arr, pos)
			if ok != ok2 {
				t.Fatalf("%s: element %d: NextValue %v, NextElem %v", tc.arr, i, ok, ok2)
			}
			if !ok {
				break
			}
			end := StepValue(tc.arr, at)
			if tc.arr[at:end] != tc.elems[i] || v2 != tc.elems[i] {
				t.Fatalf("%s: element %d: %s, want %s", tc.arr, i, tc.arr[at:end], tc.elems[i])
			}
			pos = AfterValue(tc.arr, end)
			if pos != p2 {
				t.Fatalf("%s: element %d: next pos %d, NextElem's %d", tc.arr, i, pos, p2)
			}
			i++
		}
		if i != len(tc.elems) {
			t.Fatalf("%s: %d elements, want %d", tc.arr, i, len(tc.elems))
		}
		if got := CloseEnd(tc.arr, pos); got != tc.end {
			t.Fatalf("%s: CloseEnd %d, want %d", tc.arr, got, tc.end)
		}
	}
	// Not an array, or not an object: no element, no member.
	for _, s := range []string{``, `1`, `"a"`, `{"a":1}`} {
		if _, ok := NextValue(s, 0); ok {
			t.Fatalf("%s: NextValue found an element", s)
		}
	}
	for _, s := range []string{``, `1`, `"a"`, `["a"]`} {
		if _, _, ok := NextName(s, 0); ok {
			t.Fatalf("%s: NextName found a member", s)
		}
	}
	if got := CloseEnd(`{"a":1}`, 0); got != -1 {
		t.Fatalf("CloseEnd before a member: %d, want -1", got)
	}
	if got := StepValue(`[}`, 1); got != -1 {
		t.Fatalf("StepValue of no value: %d, want -1", got)
	}
}
