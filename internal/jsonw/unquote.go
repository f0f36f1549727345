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

// AppendUnquoted is [WriteUnquoted] for a byte slice: it appends the value
// of the JSON string literal raw to dst, the same bytes WriteUnquoted
// writes, and reports false (dst unchanged) when raw is not a string
// literal. The value of a valid literal is never longer than raw less its
// quotes (no escape is shorter than what it stands for), so a dst with
// room for that many more bytes does not grow.
func AppendUnquoted(dst []byte, raw string) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return dst, false
	}
	s := raw[1 : len(raw)-1]
	i := strings.IndexByte(s, '\\')
	for i >= 0 {
		dst = append(dst, s[:i]...)
		s = s[i:]
		if len(s) < 2 {
			return utf8.AppendRune(dst, utf8.RuneError), true
		}
		switch c := s[1]; c {
		case '"', '\\', '/':
			dst = append(dst, c)
			s = s[2:]
		case 'b':
			dst = append(dst, '\b')
			s = s[2:]
		case 'f':
			dst = append(dst, '\f')
			s = s[2:]
		case 'n':
			dst = append(dst, '\n')
			s = s[2:]
		case 'r':
			dst = append(dst, '\r')
			s = s[2:]
		case 't':
			dst = append(dst, '\t')
			s = s[2:]
		case 'u':
			r, ok := hex4(s[2:])
			if !ok {
				dst = utf8.AppendRune(dst, utf8.RuneError)
				s = s[2:]
				break
			}
			s = s[6:]
			if utf16.IsSurrogate(r) {
				if len(s) >= 6 && s[0] == '\\' && s[1] == 'u' {
					if r2, ok := hex4(s[2:]); ok {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							dst = utf8.AppendRune(dst, dec)
							s = s[6:]
							break
						}
					}
				}
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
		default:
			dst = utf8.AppendRune(dst, utf8.RuneError)
			s = s[2:]
		}
		i = strings.IndexByte(s, '\\')
	}
	return append(dst, s...), true
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

// WriteUnquotedJoin is WriteUnquoted for a string that continues the
// previous fragment of the same text. A host that cuts text by UTF-16 code
// units (JavaScript string slicing) may send the two halves of a surrogate
// pair in two fragments, "\ud83c" then "\udf0a"; decoded one by one, each
// half would become U+FFFD. *hi carries a high half that ended the
// previous fragment (0 for none): it is joined with a low half that starts
// raw, or written as U+FFFD; a high half that ends raw is held in *hi
// instead of being written. Call FlushHalf when the text ends.
func WriteUnquotedJoin(b *strings.Builder, raw string, hi *rune) bool {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	if *hi != 0 {
		if lo, ok := LeadingLow(raw); ok {
			b.WriteRune(utf16.DecodeRune(*hi, lo))
			raw = `"` + raw[7:] // the rest, after the low half's escape
		} else {
			b.WriteRune(utf8.RuneError)
		}
		*hi = 0
	}
	if h, ok := TrailingHigh(raw); ok {
		*hi = h
		return WriteUnquoted(b, raw[:len(raw)-7]+`"`)
	}
	return WriteUnquoted(b, raw)
}

// FlushHalf writes a held high half as U+FFFD, as a lone half decodes.
func FlushHalf(b *strings.Builder, hi *rune) {
	if *hi != 0 {
		b.WriteRune(utf8.RuneError)
		*hi = 0
	}
}

// LeadingLow returns the low surrogate escaped first in the JSON string
// literal raw, if it starts with one.
func LeadingLow(raw string) (rune, bool) {
	if len(raw) < 8 || raw[1] != '\\' || raw[2] != 'u' {
		return 0, false
	}
	r, ok := hex4(raw[3:])
	return r, ok && r >= 0xDC00 && r <= 0xDFFF
}

// TrailingHigh returns the high surrogate escaped last in the JSON string
// literal raw, when that escape really is one (an odd run of backslashes
// before it).
func TrailingHigh(raw string) (rune, bool) {
	n := len(raw) - 1 // the closing quote
	if n < 7 || raw[n-6] != '\\' || raw[n-5] != 'u' {
		return 0, false
	}
	r, ok := hex4(raw[n-4 : n])
	if !ok || r < 0xD800 || r > 0xDBFF {
		return 0, false
	}
	k := 0
	for i := n - 6; i >= 1 && raw[i] == '\\'; i-- {
		k++
	}
	return r, k%2 == 1
}

// Unquote returns the value of the JSON string literal raw as a new string
// ("" when raw is not a string literal or is empty). Invalid escapes and
// lone surrogates become U+FFFD.
func Unquote(raw string) string {
	if len(raw) <= 2 || raw[0] != '"' {
		return ""
	}
	v := raw[1 : len(raw)-1]
	if strings.IndexByte(v, '\\') < 0 {
		return strings.Clone(v)
	}
	var b strings.Builder
	WriteUnquoted(&b, raw)
	return b.String()
}

// UnquoteView is Unquote that returns a view of raw, without a copy, when
// the literal has no escapes: the result is valid only while raw is.
func UnquoteView(raw string) string {
	if len(raw) <= 2 || raw[0] != '"' {
		return ""
	}
	if v := raw[1 : len(raw)-1]; strings.IndexByte(v, '\\') < 0 {
		return v
	}
	return Unquote(raw)
}
