package jsonw

import (
	"unicode/utf16"
	"unicode/utf8"

	"github.com/reasonreplay/replay/internal/view"
)

// QuotedLen returns len(String(nil, s)), the length of s written as a JSON
// string, without writing it: a writer sizes its buffer once with it.
func QuotedLen(s string) int {
	n := len(s) + 2
	for i := 0; ; {
		if i = nextStopOrHigh(s, i); i >= len(s) {
			return n
		}
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"', '\\', '\n', '\r', '\t':
				n++
			default:
				n += 5
			}
			i++
			continue
		}
		if k := validShort(s, i); k > 0 {
			i += k
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			n += len("\uFFFD") - 1
		}
		i += size
	}
}

// StrIs reports whether raw, a raw JSON value, is a string whose value, as
// gjson decodes it (its Result.Str, see [AppendStr]), is s: a member name
// or a type written `"t\u0079pe"` is "type". A literal with no escape is
// compared in place; one with escapes is decoded as it is compared, so
// that it never allocates.
func StrIs(raw, s string) bool {
	if len(raw) < 2 || raw[0] != '"' {
		return false
	}
	// An escape shortens a literal: one as long as s is s itself or not s.
	if len(raw) == len(s)+2 {
		return raw[1:len(raw)-1] == s
	}
	return len(raw) > len(s)+2 && escapedStrIs(raw[1:len(raw)-1], s)
}

// escapedStrIs is StrIs for the inside lit of a literal longer than s:
// it decodes lit a byte or an escape at a time, as AppendStr does, and
// stops at the first that differs from s (a name compared with the
// names of an object mostly differs at its first byte).
func escapedStrIs(lit, s string) bool {
	k := 0 // s[:k] matched
	for i := 0; i < len(lit); {
		c := lit[i]
		if c != '\\' {
			if k >= len(s) || s[k] != c {
				return false
			}
			i, k = i+1, k+1
			continue
		}
		if i+1 >= len(lit) {
			return k == len(s) // AppendStr stops at a broken escape
		}
		if e := lit[i+1]; e != 'u' {
			u := Unescapes[e]
			if u == 0 {
				return k == len(s)
			}
			if k >= len(s) || s[k] != u {
				return false
			}
			i, k = i+2, k+1
			continue
		}
		if i+6 > len(lit) {
			return k == len(s)
		}
		r := hexRune(lit[i+2 : i+6])
		i += 6
		if utf16.IsSurrogate(r) && i+6 <= len(lit) && lit[i] == '\\' && lit[i+1] == 'u' {
			r = utf16.DecodeRune(r, hexRune(lit[i+2:i+6]))
			i += 6
		}
		var b [utf8.UTFMax]byte
		n := utf8.EncodeRune(b[:], r)
		if n > len(s)-k || string(b[:n]) != s[k:k+n] {
			return false
		}
		k += n
	}
	return k == len(s)
}

// DropElems removes from the JSON object raw the elements of its array
// member name that drop reports, and appends their indexes to removed.
// drop is given each element's member key, raw ("" when the element has
// none, or is no object). The array is written again without white space
// between the elements it keeps, each of them copied as it is; the rest
// of raw is copied around it. raw itself comes back, and nothing is
// allocated, when no element goes (or name is no array, or raw is invalid
// JSON that the walk cannot follow to the array's end).
func DropElems(raw []byte, name, key string, drop func(val string) bool, removed []int) ([]byte, []int) {
	s := view.String(raw)
	at := MemberValueAt(s, name)
	if at < 0 || s[at] != '[' {
		return raw, removed
	}
	end := StepValue(s, at)
	if end < 0 {
		return raw, removed
	}
	arr := s[at:end]
	keys := [1]string{key}
	var vals [1]string
	var out []byte
	first := len(removed)
	n := 0 // elements kept
	pos := 0
	for j := 0; ; j++ {
		el, next, ok := NextMembers(arr, pos, keys[:], vals[:])
		if !ok || el == "" { // an empty element is no progress, on invalid JSON
			break
		}
		switch {
		case drop(vals[0]):
			if out == nil {
				out = make([]byte, 0, len(raw))
				out = append(out, raw[:at]...)
				out = append(out, '[')
				// The elements before this one (n of them) are kept.
				for q, i := 0, 0; i < n; i++ {
					var e string
					e, q, _ = NextElem(arr, q)
					if i > 0 {
						out = append(out, ',')
					}
					out = append(out, e...)
				}
			}
			removed = append(removed, j)
		case out != nil:
			if n > 0 {
				out = append(out, ',')
			}
			out = append(out, el...)
			n++
		default:
			n++
		}
		pos = next
	}
	if out == nil || !arrayEnds(arr, pos) {
		return raw, removed[:first]
	}
	out = append(out, ']')
	return append(out, raw[at+len(arr):]...), removed
}

// arrayEnds reports whether a walk of the elements of the array arr that
// stopped at pos read them all: only white space and the closing bracket
// follow.
func arrayEnds(arr string, pos int) bool {
	if pos == 0 {
		pos = skipSpace(arr, 0) + 1
	}
	pos = skipSpace(arr, pos)
	return pos == len(arr)-1 && arr[pos] == ']'
}
