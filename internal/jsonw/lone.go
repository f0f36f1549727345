package jsonw

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// LoneAt returns the byte offset in the JSON string literal raw of the
// first surrogate escape (`\ud800` .. `\udfff`) that has no partner, or -1.
// Such an escape names no character: every decoder turns it into U+FFFD,
// so bytes that are signed or opaque would silently change. held says a
// high half ended the previous fragment of the same text (a low half that
// starts raw is its partner, see [WriteUnquotedJoin]); a high half that
// ends raw is a lone half here (the caller decides whether the next
// fragment may pair it, with [TrailingHigh]).
func LoneAt(raw string, held bool) int {
	if len(raw) < 2 {
		return -1
	}
	s := raw[1 : len(raw)-1]
	i := strings.IndexByte(s, '\\')
	for i >= 0 {
		if i+1 >= len(s) {
			return -1
		}
		if s[i+1] != 'u' {
			i += 2
		} else {
			r, ok := hex4(s[i+2:])
			switch {
			case !ok || !utf16.IsSurrogate(r):
			case r >= 0xDC00: // a low half: lone unless it pairs a held high
				if !(held && i == 0) {
					return 1 + i
				}
			default: // a high half: it needs a low half right after it
				lo, ok := rune(0), false
				if i+12 <= len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
					lo, ok = hex4(s[i+8:])
				}
				if !ok || lo < 0xDC00 || lo > 0xDFFF {
					return 1 + i
				}
				i += 6
			}
			i += 6
		}
		if i >= len(s) {
			return -1
		}
		j := strings.IndexByte(s[i:], '\\')
		if j < 0 {
			return -1
		}
		i += j
	}
	return -1
}

// WriteUnquotedJoinLone is [WriteUnquotedJoin] that also reports how many
// surrogate halves it wrote as U+FFFD because they had no partner: a held
// high half not followed by a low one, and lone halves inside raw. A high
// half that ends raw is held, not counted.
func WriteUnquotedJoinLone(b *strings.Builder, raw string, hi *rune) (lone int, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return 0, false
	}
	if *hi != 0 {
		if _, ok := LeadingLow(raw); !ok {
			lone++
		}
	}
	if strings.IndexByte(raw, '\\') >= 0 {
		body := raw
		if *hi != 0 {
			if _, ok := LeadingLow(raw); ok {
				body = `"` + raw[7:]
			}
		}
		if _, held := TrailingHigh(body); held {
			body = body[:len(body)-7] + `"`
		}
		lone += countLone(body)
	}
	return lone, WriteUnquotedJoin(b, raw, hi)
}

// countLone counts the lone surrogate escapes of the literal raw.
func countLone(raw string) int {
	n := 0
	for {
		k := LoneAt(raw, false)
		if k < 0 {
			return n
		}
		n++
		raw = `"` + raw[k+6:]
	}
}

// FlushHalfLone is [FlushHalf] that reports whether a held half was
// written as U+FFFD.
func FlushHalfLone(b *strings.Builder, hi *rune) bool {
	if *hi == 0 {
		return false
	}
	b.WriteRune(utf8.RuneError)
	*hi = 0
	return true
}

// Lone reports whether the JSON string literal raw (with its quotes) holds
// a surrogate escape with no partner: decoding would put U+FFFD in its
// place, so a signature, ciphertext or id holding one is refused rather
// than altered.
func Lone(raw string) bool { return LoneAt(raw, false) >= 0 }

// SurrogateEscape reports whether raw may hold a \u escape of a
// surrogate half (D800 to DFFF): an escaped backslash before "ud8" counts
// too. A literal without one decodes to the same bytes alone as after
// any other fragment ([WriteUnquotedJoin] joins only surrogate halves).
func SurrogateEscape(raw string) bool {
	for i := strings.Index(raw, `\u`); i >= 0; {
		if h := raw[i+2:]; len(h) >= 2 && (h[0] == 'd' || h[0] == 'D') {
			switch h[1] {
			case '8', '9', 'a', 'b', 'c', 'd', 'e', 'f', 'A', 'B', 'C', 'D', 'E', 'F':
				return true
			}
		}
		j := strings.Index(raw[i+2:], `\u`)
		if j < 0 {
			return false
		}
		i += 2 + j
	}
	return false
}
