// Package jsonw appends JSON to byte slices without reflection. Strings are
// escaped minimally (quote, backslash, control characters; each invalid
// UTF-8 byte becomes U+FFFD) and HTML characters are left alone, so that base64
// signatures and ciphertexts come out exactly as they went in.
package jsonw

import (
	"strconv"
	"unicode/utf8"
)

const hex = "0123456789abcdef"

// String appends s as a JSON string. Runs of bytes that need no escape
// are stepped over eight at a time (nextStopOrHigh), and the two- and
// three-byte characters of valid UTF-8 are recognised inline; invalid
// UTF-8 is written as U+FFFD, a byte at a time.
func String(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; ; {
		if i = nextStopOrHigh(s, i); i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		if n := validShort(s, i); n > 0 {
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			// Written as the character itself, so that reading the output
			// back and writing it again gives the same bytes.
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// validShort returns the length of the two- or three-byte UTF-8 character
// that starts at s[i] (a byte of 0x80 or more), or 0 when there is none
// there (a four-byte character, or invalid bytes): the ranges are those of
// RFC 3629 (no overlong form, no surrogate half).
func validShort(s string, i int) int {
	c := s[i]
	switch {
	case c >= 0xC2 && c <= 0xDF:
		if i+1 < len(s) && s[i+1]&0xC0 == 0x80 {
			return 2
		}
	case c >= 0xE0 && c <= 0xEF:
		if i+2 >= len(s) || s[i+2]&0xC0 != 0x80 {
			return 0
		}
		lo, hi := byte(0x80), byte(0xBF)
		switch c {
		case 0xE0:
			lo = 0xA0
		case 0xED:
			hi = 0x9F
		}
		if b := s[i+1]; b >= lo && b <= hi {
			return 3
		}
	}
	return 0
}

// Key appends a member name and its colon, preceded by a comma unless dst
// ends with '{' or '['.
func Key(dst []byte, k string) []byte {
	dst = Comma(dst)
	dst = String(dst, k)
	return append(dst, ':')
}

// Comma appends a comma unless dst is empty or ends with '{' or '['.
func Comma(dst []byte) []byte {
	if n := len(dst); n > 0 && dst[n-1] != '{' && dst[n-1] != '[' {
		dst = append(dst, ',')
	}
	return dst
}

// Int appends n.
func Int(dst []byte, n int) []byte { return strconv.AppendInt(dst, int64(n), 10) }

// Bool appends true or false.
func Bool(dst []byte, b bool) []byte { return strconv.AppendBool(dst, b) }

// Members appends the members of the JSON object obj (which must be a valid
// object, possibly empty or nil) to an object under construction in dst.
func Members(dst []byte, obj []byte) []byte {
	// Trim the braces and surrounding white space.
	i, j := 0, len(obj)
	for i < j && obj[i] != '{' {
		i++
	}
	for j > i && obj[j-1] != '}' {
		j--
	}
	if j-i < 2 {
		return dst
	}
	inner := obj[i+1 : j-1]
	k, e := 0, len(inner)
	for k < e && isSpace(inner[k]) {
		k++
	}
	for e > k && isSpace(inner[e-1]) {
		e--
	}
	if k == e {
		return dst
	}
	dst = Comma(dst)
	return append(dst, inner[k:e]...)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
