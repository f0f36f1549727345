package jsonw

import (
	"strings"
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
// gjson decodes it (its Result.Str, see [AppendStr]), is s. A literal with
// no escape is compared in place; one with escapes is decoded into a
// buffer on the stack when it is short, so that it does not allocate.
func StrIs(raw, s string) bool {
	if len(raw) < 2 || raw[0] != '"' {
		return false
	}
	if len(raw) == len(s)+2 && raw[1:len(raw)-1] == s {
		return true
	}
	// Decoding never lengthens a literal.
	if len(s) > len(raw)-2 || strings.IndexByte(raw, '\\') < 0 {
		return false
	}
	var buf [128]byte
	return string(AppendStr(buf[:0], raw)) == s
}

// ObjectMember finds the member name of the JSON object s (valid JSON;
// on other text it finds what it can, never reading out of bounds, and
// val may be empty): its
// raw value, a view of s, and where that value starts in s. The first of
// repeated members is found, as gjson finds it, and names are compared by
// their value (StrIs). ok is false when s is no object or has no such
// member.
func ObjectMember(s, name string) (val string, at int, ok bool) {
	for pos := 0; ; {
		k, v, next, more := NextMember(s, pos)
		if !more {
			return "", 0, false
		}
		if StrIs(k, name) {
			at, _ = view.Offset(s, v)
			return v, at, true
		}
		pos = next
	}
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
	arr, at, ok := ObjectMember(s, name)
	if !ok || arr == "" || arr[0] != '[' {
		return raw, removed
	}
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
