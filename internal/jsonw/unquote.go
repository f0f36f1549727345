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
		r, n := escape(s[i:])
		if r < utf8.RuneSelf {
			b.WriteByte(byte(r))
		} else {
			b.WriteRune(r)
		}
		s = s[i+n:]
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
		r, n := escape(s[i:])
		dst = utf8.AppendRune(dst, r)
		s = s[i+n:]
		i = strings.IndexByte(s, '\\')
	}
	return append(dst, s...), true
}

// Unescapes maps the letter of a one-letter escape to the byte it stands
// for (0 for a letter that is not one).
var Unescapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// escape decodes the escape at the start of s (a backslash) and returns
// what it stands for and its length: a surrogate pair escaped as two \u
// escapes is one character; a lone half, an invalid escape or a lone
// final backslash is U+FFFD, as encoding/json decodes them.
func escape(s string) (rune, int) {
	if len(s) < 2 {
		return utf8.RuneError, len(s)
	}
	if c := Unescapes[s[1]]; c != 0 {
		return rune(c), 2
	}
	if s[1] != 'u' {
		return utf8.RuneError, 2
	}
	r, ok := hex4(s[2:])
	if !ok {
		return utf8.RuneError, 2
	}
	if !utf16.IsSurrogate(r) {
		return r, 6
	}
	if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
		if r2, ok := hex4(s[8:]); ok {
			if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
				return dec, 12
			}
		}
	}
	return utf8.RuneError, 6
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

// AppendUnquotedJoin is [WriteUnquotedJoin] for a byte slice: it appends
// to dst the bytes WriteUnquotedJoin writes, holding or joining surrogate
// halves through *hi the same way, and reports false (dst unchanged) when
// raw is not a string literal. For a valid literal, what it appends is
// never longer than raw less its quotes plus one held half written as
// U+FFFD (utf8.UTFMax covers it). Call [AppendHalf] when the text ends.
func AppendUnquotedJoin(dst []byte, raw string, hi *rune) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return dst, false
	}
	if *hi != 0 {
		if lo, ok := LeadingLow(raw); ok {
			dst = utf8.AppendRune(dst, utf16.DecodeRune(*hi, lo))
			raw = `"` + raw[7:]
		} else {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		}
		*hi = 0
	}
	if h, ok := TrailingHigh(raw); ok {
		*hi = h
		return AppendUnquoted(dst, raw[:len(raw)-7]+`"`)
	}
	return AppendUnquoted(dst, raw)
}

// AppendHalf is [FlushHalf] for a byte slice: a held high half is appended
// as U+FFFD.
func AppendHalf(dst []byte, hi *rune) []byte {
	if *hi != 0 {
		dst = utf8.AppendRune(dst, utf8.RuneError)
		*hi = 0
	}
	return dst
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
