package jsonw

// This file walks a valid JSON text for a reader that reads a value where
// it stands instead of stepping over it first: it finds where a member's
// or an element's value starts, and the reader, having read the value,
// says where it ended.

// NextName is [NextMember] stopping at the value: it returns the next
// member's raw name (quotes included) and the index where its value
// starts, or ok false when there are no more (or obj is not an object).
// The caller steps over or reads the value and continues with
// [AfterValue] of its end. Text after the object's end is never read.
func NextName(obj string, pos int) (name string, val int, ok bool) {
	i := pos
	if i == 0 {
		i = skipSpace(obj, 0)
		if i >= len(obj) || obj[i] != '{' {
			return "", len(obj), false
		}
		i++
	}
	nameAt, nameEnd, valAt := StepMember(obj, i)
	if valAt < 0 {
		return "", len(obj), false
	}
	return obj[nameAt:nameEnd], valAt, true
}

// NextValue is [NextElem] stopping at the element: it returns the index
// where the next element of the array arr starts, or ok false when there
// are no more (or arr is not an array). The caller steps over or reads
// the element and continues with [AfterValue] of its end.
func NextValue(arr string, pos int) (val int, ok bool) {
	i := pos
	if i == 0 {
		i = skipSpace(arr, 0)
		if i >= len(arr) || arr[i] != '[' {
			return len(arr), false
		}
		i++
	}
	at, _ := StepElem(arr, i)
	if at < 0 || arr[at] == '}' {
		return len(arr), false
	}
	return at, true
}

// AfterValue returns the pos from which [NextName], [NextValue],
// [NextMember] or [NextElem] find the member or element after the one
// whose value ends at end.
func AfterValue(s string, end int) int {
	j := skipSpace(s, end)
	if j < len(s) && s[j] == ',' {
		j++
	}
	return j
}

// CloseEnd returns the index after the closing bracket of the object or
// array that pos (a pos of the iterators above, or 0) has walked to the
// end of, or -1 when no closing bracket is there.
func CloseEnd(s string, pos int) int {
	i := pos
	if i == 0 {
		i = skipSpace(s, 0)
		if i >= len(s) || s[i] != '{' && s[i] != '[' {
			return -1
		}
		i++
	}
	i = skipSpace(s, i)
	if i < len(s) && (s[i] == '}' || s[i] == ']') {
		return i + 1
	}
	return -1
}
