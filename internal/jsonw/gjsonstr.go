package jsonw

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/reasonreplay/replay/internal/view"
	"github.com/tidwall/gjson"
)

// AppendStr appends the value of the JSON string literal raw (valid JSON,
// quotes included) to dst, decoded exactly as gjson decodes it (its
// Result.Str): the readers written on gjson keep the same bytes when they
// read through a tape. It differs from [AppendUnquoted] on surrogate
// escapes only: gjson joins a high half with whatever \u escape follows it
// (U+FFFD when that is not a low half, which it consumes), and writes a
// lone half as U+FFFD.
func AppendStr(dst []byte, raw string) []byte {
	if len(raw) < 2 {
		return dst
	}
	s := raw[1 : len(raw)-1]
	for {
		i := strings.IndexByte(s, '\\')
		if i < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:i]...)
		s = s[i:]
		if len(s) < 2 {
			return dst
		}
		switch c := s[1]; c {
		case 'u':
			if len(s) < 6 {
				return dst
			}
			r := hexRune(s[2:6])
			s = s[6:]
			if utf16.IsSurrogate(r) && len(s) >= 6 && s[0] == '\\' && s[1] == 'u' {
				r = utf16.DecodeRune(r, hexRune(s[2:6]))
				s = s[6:]
			}
			dst = utf8.AppendRune(dst, r)
		default:
			u := Unescapes[c]
			if u == 0 {
				return dst
			}
			dst = append(dst, u)
			s = s[2:]
		}
	}
}

// hexRune reads four hex digits as gjson does (its runeit: 0 when they
// are not hex digits), without allocating.
func hexRune(h string) rune {
	var r rune
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0
		}
		r = r<<4 | rune(c)
	}
	return r
}

// TopString returns what gjson's String gives for the top-level member
// name of the object body, or "" when there is none, found by stepping
// over the values before it without validating them (one step per byte,
// no recursion, so it is safe on any input). On an invalid body it may
// find a member gjson would not: a caller trusts it only for a body it
// validates afterwards, and treats an invalid one as having no member.
func TopString(body []byte, name string) string {
	if len(body) == 0 {
		return ""
	}
	return RawString(RawMember(view.String(body), name))
}

// RawString returns what gjson's String gives for the raw JSON value raw
// ("" for none), as a string of its own.
func RawString(raw string) string {
	if raw == "" {
		return ""
	}
	if raw[0] == '"' {
		return string(AppendStr(nil, raw))
	}
	return strings.Clone(gjson.Parse(raw).String())
}
