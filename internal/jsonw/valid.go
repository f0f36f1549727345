package jsonw

import (
	"math/bits"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/reasonreplay/replay/internal/view"
)

// maxDepth bounds nesting. Recursive readers (gjson's walkers, a
// canonicaliser) cost a stack frame per level, and those that walk a value
// per level cost up to depth times the input's length: 512 levels keep
// both small, and are deeper than any provider payload or tool arguments
// this library has seen by an order of magnitude.
const maxDepth = 512

// Valid reports whether s is one valid JSON value (RFC 8259), surrounded by
// optional white space, in UTF-8 as the RFC requires, nested at most
// maxDepth deep, with no object member name repeated in its object: it
// accepts exactly what encoding/json.Valid accepts when s is valid UTF-8,
// shallow enough and free of repeated names. It refuses invalid UTF-8,
// which could not be kept byte-exact through a document, and repeated
// names, because parsers disagree on which of two members counts (gjson
// reads the first, most servers the last): input whose meaning depends on
// the reader is refused rather than read one way here and the other way by
// the provider. Strings are
// scanned with IndexByte and an eight-bytes-at-a-time control check:
// reasoning payloads are mostly long strings, and validation runs once on
// every stream event.
func Valid(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	i, ok := value(s, skipSpace(s, 0), 0)
	return ok && skipSpace(s, i) == len(s)
}

// ValidBytes is Valid for a byte slice.
func ValidBytes(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	return Valid(view.String(b))
}

func value(s string, i, depth int) (int, bool) {
	if i >= len(s) {
		return i, false
	}
	switch c := s[i]; {
	case c == '"':
		return validString(s, i+1)
	case c == '{':
		return object(s, i, depth)
	case c == '[':
		if depth >= maxDepth {
			return i, false
		}
		i = skipSpace(s, i+1)
		if i < len(s) && s[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = value(s, i, depth+1); !ok {
				return i, false
			}
			i = skipSpace(s, i)
			if i >= len(s) {
				return i, false
			}
			switch s[i] {
			case ',':
				i = skipSpace(s, i+1)
			case ']':
				return i + 1, true
			default:
				return i, false
			}
		}
	case c == 't':
		return literal(s, i, "true")
	case c == 'f':
		return literal(s, i, "false")
	case c == 'n':
		return literal(s, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return number(s, i)
	}
	return i, false
}

func literal(s string, i int, lit string) (int, bool) {
	if len(s)-i >= len(lit) && s[i:i+len(lit)] == lit {
		return i + len(lit), true
	}
	return i, false
}

func number(s string, i int) (int, bool) {
	if s[i] == '-' {
		i++
	}
	if i >= len(s) {
		return i, false
	}
	if s[i] == '0' {
		i++
	} else if s[i] >= '1' && s[i] <= '9' {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	} else {
		return i, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j {
			return i, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j {
			return i, false
		}
	}
	return i, true
}

// stop marks the bytes a string scan must look at: the quote, the
// backslash and the control characters.
var stop = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// Load64 returns the eight bytes of s at i as a little-endian word (the
// compiler reads them in one load); i+8 must be at most len(s).
func Load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// nextStop returns the index of the first quote, backslash or control
// byte of s at or after i, or len(s). It tests eight bytes at a time: in
// each of the three masks the lowest flagged byte is a true match (a
// false flag can only sit above a true one), so the lowest of all is.
func nextStop(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		x := Load64(s, i)
		q := x ^ ('"' * lsb)
		b := x ^ ('\\' * lsb)
		if m := ((q - lsb) &^ q) | ((b - lsb) &^ b) | ((x - 0x20*lsb) &^ x); m&msb != 0 {
			return i + bits.TrailingZeros64(m&msb)/8
		}
	}
	for ; i < len(s); i++ {
		if stop[s[i]] {
			return i
		}
	}
	return i
}

// validString validates a string's contents from i (just after the opening
// quote) and returns the index after the closing quote. The bytes between
// escapes are stepped over eight at a time (nextStop).
func validString(s string, i int) (int, bool) {
	for {
		i = nextStop(s, i)
		if i >= len(s) {
			return len(s), false
		}
		switch c := s[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		}
		if i+1 >= len(s) {
			return i, false
		}
		switch s[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if _, ok := hex4(s[i+2:]); !ok {
				return i, false
			}
			i += 6
		default:
			return i, false
		}
	}
}

// object validates the object at s[i] ('{'), kept out of value so that
// value's frame, on every level of the recursion, stays small.
func object(s string, i, depth int) (int, bool) {
	if depth >= maxDepth {
		return i, false
	}
	i = skipSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		return i + 1, true
	}
	var names memberNames
	for {
		if i >= len(s) || s[i] != '"' {
			return i, false
		}
		start := i
		var ok bool
		if i, ok = validString(s, i+1); !ok {
			return i, false
		}
		if names.repeated(s[start:i]) {
			return start, false
		}
		i = skipSpace(s, i)
		if i >= len(s) || s[i] != ':' {
			return i, false
		}
		if i, ok = value(s, skipSpace(s, i+1), depth+1); !ok {
			return i, false
		}
		i = skipSpace(s, i)
		if i >= len(s) {
			return i, false
		}
		switch s[i] {
		case ',':
			i = skipSpace(s, i+1)
		case '}':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// memberNames records the names of one object's members to find a repeated
// one. The first few are compared in place with no allocation; a large
// object switches to a set, so that many members cost linear time.
type memberNames struct {
	small [8]string
	n     int
	set   map[string]struct{}
}

// repeated records the raw name (a string literal with its quotes) and
// reports whether the object already has a member of that name. Names are
// compared decoded, so "a" and "\u0061" are the same name.
func (m *memberNames) repeated(raw string) bool {
	name := raw[1 : len(raw)-1]
	if strings.IndexByte(name, '\\') >= 0 {
		var b strings.Builder
		WriteUnquoted(&b, raw)
		name = b.String()
	}
	if m.set != nil {
		if _, ok := m.set[name]; ok {
			return true
		}
		m.set[name] = struct{}{}
		return false
	}
	for _, k := range m.small[:m.n] {
		if k == name {
			return true
		}
	}
	if m.n < len(m.small) {
		m.small[m.n] = name
		m.n++
		return false
	}
	m.set = make(map[string]struct{}, 2*len(m.small))
	for _, k := range m.small {
		m.set[k] = struct{}{}
	}
	m.set[name] = struct{}{}
	return false
}

// String flags, as [scanString] reports them.
const (
	flagEscape    = 1 << iota // a backslash escape
	flagUnicode               // a \u escape
	flagSurrogate             // a \u escape of a surrogate half (perhaps a lone one)
)

// nextStopOrHigh is nextStop that also stops at a byte above ASCII.
func nextStopOrHigh(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		x := Load64(s, i)
		q := x ^ ('"' * lsb)
		b := x ^ ('\\' * lsb)
		if m := ((q - lsb) &^ q) | ((b - lsb) &^ b) | ((x - 0x20*lsb) &^ x) | x; m&msb != 0 {
			return i + bits.TrailingZeros64(m&msb)/8
		}
	}
	for i < len(s) && !stop[s[i]] && s[i] < utf8.RuneSelf {
		i++
	}
	return i
}

// scanString is validString that also checks the string is UTF-8 (so
// that a caller needs no separate pass) and reports the escapes it holds
// (flagEscape, flagUnicode, flagSurrogate). It stops (nextStopOrHigh) at
// a quote, a backslash, a control byte or a byte of a multi-byte
// character, where the run of such bytes is checked.
func scanString(s string, i int) (end int, flags uint8, ok bool) {
	for {
		i = nextStopOrHigh(s, i)
		if i >= len(s) {
			return len(s), flags, false
		}
		switch c := s[i]; {
		case c == '"':
			return i + 1, flags, true
		case c >= utf8.RuneSelf:
			j, ok := highRun(s, i)
			if !ok {
				return i, flags, false
			}
			i = j
			continue
		case c < 0x20:
			return i, flags, false
		}
		if i+1 >= len(s) {
			return i, flags, false
		}
		flags |= flagEscape
		switch s[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			r, ok := hex4(s[i+2:])
			if !ok {
				return i, flags, false
			}
			flags |= flagUnicode
			if utf16.IsSurrogate(r) {
				flags |= flagSurrogate
			}
			i += 6
		default:
			return i, flags, false
		}
	}
}

// scanValue is scanString that also appends the string's value to dst in
// the same pass, as long as it meets no \u escape of a surrogate half:
// with flagSurrogate reported, dst holds only part of the value and is not
// to be used.
func scanValue(s string, i int, dst []byte) (end int, flags uint8, out []byte, ok bool) {
	run := i // the start of the bytes not yet appended
	for {
		i = nextStopOrHigh(s, i)
		if i >= len(s) {
			return len(s), flags, dst, false
		}
		switch c := s[i]; {
		case c == '"':
			if flags&flagSurrogate == 0 {
				dst = append(dst, s[run:i]...)
			}
			return i + 1, flags, dst, true
		case c >= utf8.RuneSelf:
			j, ok := highRun(s, i)
			if !ok {
				return i, flags, dst, false
			}
			i = j
			continue
		case c < 0x20:
			return i, flags, dst, false
		}
		if i+1 >= len(s) {
			return i, flags, dst, false
		}
		flags |= flagEscape
		if flags&flagSurrogate == 0 {
			dst = append(dst, s[run:i]...)
		}
		switch e := s[i+1]; e {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			if flags&flagSurrogate == 0 {
				dst = append(dst, Unescapes[e])
			}
			i += 2
		case 'u':
			r, ok := hex4(s[i+2:])
			if !ok {
				return i, flags, dst, false
			}
			flags |= flagUnicode
			if utf16.IsSurrogate(r) {
				flags |= flagSurrogate // a pair, or a lone half: left to the caller
			} else if flags&flagSurrogate == 0 {
				dst = utf8.AppendRune(dst, r)
			}
			i += 6
		default:
			return i, flags, dst, false
		}
		run = i
	}
}

// highRun checks the run of bytes above ASCII that starts at s[i] (a
// multi-byte character is all such bytes, so a run holds whole characters
// or is not UTF-8) and returns its end. A short run, a character or two
// in Latin text, is decoded in place; a long one (CJK text) is checked in
// one call.
func highRun(s string, i int) (int, bool) {
	j := i + 1
	for j < len(s) && s[j] >= utf8.RuneSelf {
		j++
	}
	if j-i > 2*utf8.UTFMax {
		return j, utf8.ValidString(s[i:j])
	}
	for k := i; k < j; {
		r, n := utf8.DecodeRuneInString(s[k:j])
		if r == utf8.RuneError && n == 1 {
			return j, false
		}
		k += n
	}
	return j, true
}
