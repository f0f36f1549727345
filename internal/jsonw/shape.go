package jsonw

import "github.com/reasonreplay/replay/internal/view"

// MaxHoles is the most values a [Shape] cuts out of the text it learns.
const MaxHoles = 4

// Shape is the learned form of one JSON text: its bytes with a few string
// or number values cut out (the holes). A text that repeats every other
// byte and holds, in each hole, a valid value of the kind the hole held is
// itself valid JSON with the same members, nesting and names: replacing a
// string by another string, or a number by another number, changes
// nothing else. So a stream decoder that has read one event in full (with
// a [Scanner], trusting nothing) learns its shape, and reads each next
// event like it by [Shape.Match]: it compares the bytes around the holes
// and validates only the holes, instead of walking the whole event again.
//
// Streams repeat one event shape hundreds of times (a thinking delta, a
// content chunk), differing only in the text they carry and a counter or
// two; the holes are those. A decoder chooses as holes only values whose
// meaning it takes from the value alone (text to append, a counter it
// ignores), never one that decides what the event is (a type, an index).
// The zero Shape matches nothing. It keeps one buffer, reused by every
// [Shape.Learn].
type Shape struct {
	buf   []byte            // the text with the holes cut out
	lits  [MaxHoles + 1]int // end of each literal run in buf
	kinds [MaxHoles]byte    // '"' a string, '0' a number
	flags [MaxHoles]uint8   // each string hole's escapes, as last matched
	twin  [MaxHoles]uint8   // 1 + the earlier hole a hole repeats, 0 for none
	n     int               // holes
	ok    bool
}

// Forget makes sh match nothing until it learns again.
func (sh *Shape) Forget() { sh.ok = false }

// Learned reports whether sh holds a shape.
func (sh *Shape) Learned() bool { return sh.ok }

// Learn records the shape of s, a JSON text the caller has validated in
// full, with the given holes: values in s (views of it, as a [Scanner]
// returns them), in the order they appear, each a string literal or a
// number. It reports false, and sh matches nothing, when a hole is not
// such a view or there are more than [MaxHoles].
func (sh *Shape) Learn(s string, holes []string) bool {
	sh.ok = false
	sh.twin = [MaxHoles]uint8{}
	if len(holes) > MaxHoles || len(s) == 0 {
		return false
	}
	sh.buf = sh.buf[:0]
	at := 0
	for h, v := range holes {
		if len(v) == 0 {
			return false
		}
		off, ok := view.Offset(s, v)
		if !ok || off < at {
			return false
		}
		switch c := v[0]; {
		case c == '"':
			if end, ok := validString(v, 1); !ok || end != len(v) {
				return false
			}
			sh.kinds[h] = '"'
		case c == '-' || (c >= '0' && c <= '9'):
			if end, ok := number(v, 0); !ok || end != len(v) {
				return false
			}
			sh.kinds[h] = '0'
		default:
			return false
		}
		sh.buf = append(sh.buf, s[at:off]...)
		sh.lits[h] = len(sh.buf)
		at = off + len(v)
	}
	sh.buf = append(sh.buf, s[at:]...)
	sh.lits[len(holes)] = len(sh.buf)
	sh.n = len(holes)
	sh.ok = true
	return true
}

// Match reports whether s has the learned shape: the same bytes outside
// the holes and, in each, a valid value of the hole's kind (a string of
// valid UTF-8 and valid escapes, or a number). It sets raws[h] to hole h's
// value in s (a view of s, quotes included); raws must have room for every
// hole. When it reports true, s is valid JSON: the caller need not walk
// it.
func (sh *Shape) Match(s string, raws []string) bool {
	_, ok := sh.MatchValue(s, raws, -1, nil)
	return ok
}

// MatchValue is [Shape.Match] that also appends the value of string hole
// v (what [WriteUnquoted] writes for it) to dst, decoded in the pass that
// validates it, and returns dst. The value is there only when the hole
// holds no \u escape of a surrogate half ([Shape.Surrogate] reports false) and is not a twin
// (see [Shape.Twin]); otherwise, or for v -1, dst comes back as it was
// given or with part of the value, not to be used.
func (sh *Shape) MatchValue(s string, raws []string, v int, dst []byte) ([]byte, bool) {
	if !sh.ok || len(raws) < sh.n {
		return dst, false
	}
	pos, prev := 0, 0
	for h := 0; h < sh.n; h++ {
		lit := sh.buf[prev:sh.lits[h]]
		if len(s)-pos < len(lit) || s[pos:pos+len(lit)] != string(lit) {
			return dst, false
		}
		pos += len(lit)
		start := pos
		if pos >= len(s) {
			return dst, false
		}
		var ok bool
		if t := sh.twin[h]; t != 0 {
			tw := raws[t-1] // a valid string, matched before: its copy is one
			if len(s)-pos < len(tw) || s[pos:pos+len(tw)] != tw {
				return dst, false
			}
			pos += len(tw)
			sh.flags[h] = sh.flags[t-1]
		} else if sh.kinds[h] == '"' {
			if s[pos] != '"' {
				return dst, false
			}
			if h == v {
				pos, sh.flags[h], dst, ok = scanValue(s, pos+1, dst)
			} else {
				pos, sh.flags[h], ok = scanString(s, pos+1)
			}
			if !ok {
				return dst, false
			}
		} else {
			if c := s[pos]; c != '-' && (c < '0' || c > '9') {
				return dst, false
			}
			if pos, ok = number(s, pos); !ok {
				return dst, false
			}
		}
		raws[h] = s[start:pos]
		prev = sh.lits[h]
	}
	return dst, s[pos:] == string(sh.buf[prev:sh.lits[sh.n]])
}

// Twin records that string hole g repeats string hole h (h < g) byte for
// byte, as a host that mirrors one text in two members sends it (the
// caller has seen them equal in the learned text): from then on Match
// requires the same of each text, and compares hole g's bytes with hole
// h's instead of scanning them (a copy of a valid string literal is one).
// It reports false, and records nothing, unless sh is learned, h < g <
// the number of holes, and both holes are strings.
func (sh *Shape) Twin(g, h int) bool {
	if !sh.ok || h < 0 || h >= g || g >= sh.n || sh.kinds[g] != '"' || sh.kinds[h] != '"' {
		return false
	}
	sh.twin[g] = uint8(h) + 1
	return true
}

// Surrogate reports whether string hole h, as last matched, holds a \u
// escape of a surrogate half: only such a string can hold a lone
// surrogate (see [LoneAt]), and only its value MatchValue leaves undecoded.
func (sh *Shape) Surrogate(h int) bool { return sh.flags[h]&flagSurrogate != 0 }

// Unicode reports whether string hole h, as last matched, holds any \u
// escape.
func (sh *Shape) Unicode(h int) bool { return sh.flags[h]&flagUnicode != 0 }

// Escaped reports whether string hole h, as last matched, holds any
// escape: without one, its value is its text between the quotes.
func (sh *Shape) Escaped(h int) bool { return sh.flags[h]&flagEscape != 0 }
