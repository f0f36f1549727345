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
