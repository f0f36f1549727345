package jsonw

// StepMember steps to the next member of an object of the JSON text s
// (valid JSON) from i: just after the object's opening brace, or at the
// end of a member's value (white space and a comma are stepped over). It
// returns the offsets of the member's name (s[nameAt:nameEnd], quotes
// included) and of the start of its value (valAt), without reading the
// value: the caller steps over it ([StepValue]) or walks into it, then
// calls StepMember again from its end. At the object's end valAt is -1
// and s[nameAt:nameEnd] is its closing brace; on text that is not an
// object's continuation all three are -1. It never allocates.
func StepMember(s string, i int) (nameAt, nameEnd, valAt int) {
	i = skipSpace(s, i)
	if i < len(s) && s[i] == ',' {
		i = skipSpace(s, i+1)
	}
	if i >= len(s) {
		return -1, -1, -1
	}
	if s[i] == '}' {
		return i, i + 1, -1
	}
	if s[i] != '"' {
		return -1, -1, -1
	}
	kEnd := skipString(s, i)
	if kEnd < 0 {
		return -1, -1, -1
	}
	j := skipSpace(s, kEnd)
	if j >= len(s) || s[j] != ':' {
		return -1, -1, -1
	}
	j = skipSpace(s, j+1)
	if j >= len(s) {
		return -1, -1, -1
	}
	return i, kEnd, j
}

// StepElem steps to the next element of an array of the JSON text s
// (valid JSON) from i: just after the array's opening bracket, or at the
// end of an element (white space and a comma are stepped over). It
// returns the offset where the element starts, without reading it; at the
// array's end at is -1 and close is the offset of its closing bracket; on
// text that is not an array's continuation both are -1.
func StepElem(s string, i int) (at, close int) {
	i = skipSpace(s, i)
	if i < len(s) && s[i] == ',' {
		i = skipSpace(s, i+1)
	}
	if i >= len(s) {
		return -1, -1
	}
	if s[i] == ']' {
		return -1, i
	}
	return i, -1
}

// StepValue returns the offset just after the JSON value that starts at
// s[at] (valid JSON), or -1 when none does. Strings are stepped over with
// strings.IndexByte and only the bytes between them are read for brackets.
func StepValue(s string, at int) int {
	if at < 0 {
		return -1
	}
	if end := skipValue(s, at); end > at {
		return end
	}
	return -1
}

// PlainASCII reports whether every byte of s is printable ASCII other
// than the quote and the backslash (or DEL): s needs no escape in a JSON
// string, and encoding/json would write it between quotes as it is. It
// tests eight bytes at a time.
func PlainASCII(s string) bool { return nextStopOrHigh(s, 0) >= len(s) }

// MemberValueAt returns the offset of the value of the first member named
// name (matched with its escapes decoded, see [StrIs]) of the object s
// (valid JSON; on other text it finds what it can, never reading out of
// bounds), or -1 when s is not an object or has no such member: the first
// of repeated members, as gjson finds it. It steps over the values before
// it only; a caller that needs the value's end steps over it
// ([StepValue]).
func MemberValueAt(s, name string) int {
	i := skipSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return -1
	}
	for pos := i + 1; ; {
		nameAt, nameEnd, vAt := StepMember(s, pos)
		if vAt < 0 {
			return -1
		}
		if StrIs(s[nameAt:nameEnd], name) {
			return vAt
		}
		if pos = StepValue(s, vAt); pos < 0 {
			return -1
		}
	}
}

// CutMember returns the span s[from:to] that deleting a member of the
// object s[at:end] (valid JSON) removes, as sjson's Delete removes it: the
// member's name starts at nameAt and its value ends at valEnd; a first
// member goes with the white space before it and, when a comma follows,
// with what follows up to and with the comma; any other goes with the
// comma before it and the white space between.
func CutMember(s string, at, end, nameAt, valEnd int) (from, to int) {
	j := nameAt - 1
	for j > at && s[j] != '{' && s[j] != ',' {
		j--
	}
	if s[j] == ',' {
		return j, valEnd
	}
	k := valEnd
	for k < end && isSpace(s[k]) {
		k++
	}
	if k < end && s[k] == ',' {
		return j + 1, k + 1
	}
	return j + 1, valEnd
}

// AppendElems appends to dst, joined by bare commas, the elements of an
// array of the JSON text s (valid JSON) from offset from (just after its
// opening bracket, or at the end of an element) that start before until:
// what a writer that drops the element at until keeps before it.
func AppendElems(dst []byte, s string, from, until int) []byte {
	for q := from; ; {
		a, _ := StepElem(s, q)
		if a < 0 || a >= until {
			return dst
		}
		q = StepValue(s, a)
		dst = Comma(dst)
		dst = append(dst, s[a:q]...)
	}
}
