package jsonw

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// WriteUnquoted appends the value of the JSON string literal raw (with its
// quotes, as gjson's Result.Raw gives it) to b, without allocating beyond
// b's growth. It reports false when raw is not a string literal. Invalid
// escapes and lone surrogates become U+FFFD, as encoding/json does.
func WriteUnquoted(b *strings.Builder, raw string) bool {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	s := raw[1 : len(raw)-1]
	i := strings.IndexByte(s, '\\')
	if i < 0 {
		b.WriteString(s)
		return true
	}
	b.Grow(len(s))
	for i >= 0 {
		b.WriteString(s[:i])
		s = s[i:]
		if len(s) < 2 {
			b.WriteRune(utf8.RuneError)
			return true
		}
		switch c := s[1]; c {
		case '"', '\\', '/':
			b.WriteByte(c)
			s = s[2:]
		case 'b':
			b.WriteByte('\b')
			s = s[2:]
		case 'f':
			b.WriteByte('\f')
			s = s[2:]
		case 'n':
			b.WriteByte('\n')
			s = s[2:]
		case 'r':
			b.WriteByte('\r')
			s = s[2:]
		case 't':
			b.WriteByte('\t')
			s = s[2:]
		case 'u':
			r, ok := hex4(s[2:])
			if !ok {
				b.WriteRune(utf8.RuneError)
				s = s[2:]
				break
			}
			s = s[6:]
			if utf16.IsSurrogate(r) {
				if len(s) >= 6 && s[0] == '\\' && s[1] == 'u' {
					if r2, ok := hex4(s[2:]); ok {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							b.WriteRune(dec)
							s = s[6:]
							break
						}
					}
				}
				r = utf8.RuneError
			}
			b.WriteRune(r)
		default:
			b.WriteRune(utf8.RuneError)
			s = s[2:]
		}
		i = strings.IndexByte(s, '\\')
	}
	b.WriteString(s)
	return true
}

func hex4(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for i := 0; i < 4; i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
