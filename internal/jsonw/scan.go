package jsonw

import (
	"strings"
	"unicode/utf8"

	"github.com/reasonreplay/replay/internal/view"
)

// Scanner reads one JSON text in a single pass that validates and extracts
// at once: a stream decoder walks an event's members with [Scanner.Member],
// descends into the objects it needs with [Scanner.Object] (and the arrays
// with [Scanner.Array] and [Scanner.Elem]), and lets every other value be
// validated and skipped. What it accepts is exactly what
// [Valid] accepts (UTF-8, RFC 8259, nesting at most 512 deep, no member
// name repeated in its object); any refusal makes [Scanner.End] report
// false, so a caller checks End before it trusts what it read. It does not
// allocate unless a member name is written with escapes.
//
// Usage, for an object whose "delta" member is an object:
//
//	var sc jsonw.Scanner
//	if !sc.Reset(s) { ... } // s is not UTF-8
//	var top jsonw.Object
//	if !sc.Object(&top) { ... } // not an object (or already invalid)
//	for name, ok := sc.Member(&top); ok; name, ok = sc.Member(&top) {
//		switch name {
//		case "type":
//			typ = sc.Value() // the raw literal, quotes included
//		case "delta":
//			var d jsonw.Object
//			if sc.Object(&d) { for ... sc.Member(&d) ... }
//		}	// any other member's value is skipped by the next Member
//	}
//	if !sc.End() { ... } // invalid somewhere: what was read is not to be trusted
type Scanner struct {
	s       string
	i       int
	depth   int
	bad     bool
	pending bool // a member's value or an element has not been consumed yet
	top     bool // the top-level value was opened or read
}

// Object is the state of one object being read by a [Scanner]: the names
// seen so far (to refuse a repeated one). Its zero value is ready; keep it
// on the caller's stack.
type Object struct {
	names memberNames
	after bool // a member has been read: a comma or the end comes next
	done  bool
}

// Array is the state of one array being read by a [Scanner]. Its zero
// value is ready; keep it on the caller's stack.
type Array struct {
	after bool // an element has been read: a comma or the end comes next
	done  bool
}

// Reset starts reading s; it reports false (and End will) when s is not
// valid UTF-8.
func (sc *Scanner) Reset(s string) bool {
	*sc = Scanner{s: s}
	if !utf8.ValidString(s) {
		sc.bad = true
		return false
	}
	sc.i = skipSpace(s, 0)
	return true
}

// ResetBytes is Reset for a byte slice, read in place: b must not change
// while sc reads it, and what sc returns views it.
func (sc *Scanner) ResetBytes(b []byte) bool {
	if len(b) == 0 {
		return sc.Reset("")
	}
	return sc.Reset(view.String(b))
}

// Failed reports whether the text was found invalid so far.
func (sc *Scanner) Failed() bool { return sc.bad }

// consume validates and skips a member's value left unread.
func (sc *Scanner) consume() {
	if sc.pending {
		sc.Value()
	}
}

// Object opens the object at the current position (the text's start, or a
// member's value just returned by Member) into o. It reports false, and
// consumes nothing, when the value there is not an object (or the text is
// already invalid); the value is then read or skipped as any other.
func (sc *Scanner) Object(o *Object) bool {
	if !sc.open('{') {
		return false
	}
	*o = Object{}
	return true
}

// Array opens the array at the current position into a, as
// [Scanner.Object] opens an object; [Scanner.Elem] then steps through its
// elements.
func (sc *Scanner) Array(a *Array) bool {
	if !sc.open('[') {
		return false
	}
	*a = Array{}
	return true
}

// open enters the container starting with c at the current position.
func (sc *Scanner) open(c byte) bool {
	if sc.bad || sc.i >= len(sc.s) || sc.s[sc.i] != c {
		return false
	}
	if sc.depth >= maxDepth {
		sc.bad = true
		return false
	}
	sc.top = true
	sc.depth++
	sc.pending = false
	sc.i = skipSpace(sc.s, sc.i+1)
	return true
}

// Elem steps to the next element of a and stops at it, after skipping the
// previous element if it was not read. It reports false at the array's end
// or when the text is invalid.
func (sc *Scanner) Elem(a *Array) bool {
	sc.consume()
	if sc.bad || a.done {
		return false
	}
	s, i := sc.s, sc.i
	if i >= len(s) {
		sc.bad = true
		return false
	}
	if a.after {
		switch s[i] {
		case ',':
			i = skipSpace(s, i+1)
		case ']':
			return sc.close(&a.done, i)
		default:
			sc.bad = true
			return false
		}
	} else if s[i] == ']' {
		return sc.close(&a.done, i)
	}
	sc.i = i
	a.after = true
	sc.pending = true
	return true
}

// Member reads the next member name of o and stops at its value, after
// skipping the value of the previous member if it was not read. It returns
// the name's value (a view of the text when written without escapes) and
// true, or false at the object's end or when the text is invalid.
func (sc *Scanner) Member(o *Object) (string, bool) {
	sc.consume()
	if sc.bad || o.done {
		return "", false
	}
	s, i := sc.s, sc.i
	if i >= len(s) {
		sc.bad = true
		return "", false
	}
	if o.after {
		switch s[i] {
		case ',':
			i = skipSpace(s, i+1)
		case '}':
			return "", sc.close(&o.done, i)
		default:
			sc.bad = true
			return "", false
		}
	} else if s[i] == '}' {
		return "", sc.close(&o.done, i)
	}
	if i >= len(s) || s[i] != '"' {
		sc.bad = true
		return "", false
	}
	end, ok := validString(s, i+1)
	if !ok || o.names.repeated(s[i:end]) {
		sc.bad = true
		return "", false
	}
	raw := s[i:end]
	i = skipSpace(s, end)
	if i >= len(s) || s[i] != ':' {
		sc.bad = true
		return "", false
	}
	sc.i = skipSpace(s, i+1)
	o.after = true
	sc.pending = true
	name := raw[1 : len(raw)-1]
	if strings.IndexByte(name, '\\') >= 0 {
		name = Unquote(raw)
	}
	return name, true
}

// close ends the object or array whose done flag is given at s[i] ('}' or
// ']'); it always returns false, what Member and Elem return at the end.
func (sc *Scanner) close(done *bool, i int) bool {
	*done = true
	sc.depth--
	sc.i = skipSpace(sc.s, i+1)
	return false
}

// Value validates and skips the value at the current position and returns
// its raw text ("" when it is invalid).
func (sc *Scanner) Value() string {
	sc.pending = false
	if sc.bad {
		return ""
	}
	sc.top = true
	start := sc.i
	end, ok := value(sc.s, start, sc.depth)
	if !ok {
		sc.bad = true
		return ""
	}
	sc.i = skipSpace(sc.s, end)
	return sc.s[start:end]
}

// Skip validates and skips the rest of the object o (after a caller has
// what it needs of it).
func (sc *Scanner) Skip(o *Object) {
	for _, ok := sc.Member(o); ok; _, ok = sc.Member(o) {
	}
}

// Mark returns the current position, for [Scanner.Since].
func (sc *Scanner) Mark() int { return sc.i }

// Since returns the text from mark to the end of the value just read (an
// object closed by Member, or a value returned by Value), without the
// white space after it.
func (sc *Scanner) Since(mark int) string {
	end := sc.i
	for end > mark && isSpace(sc.s[end-1]) {
		end--
	}
	return sc.s[mark:end]
}

// End reports whether the whole text was one valid JSON value: the
// top-level value is finished (read, or skipped now when it was never
// opened), only white space follows, and nothing read was invalid. An
// object opened with [Scanner.Object] must be read to its end (with
// Member until it returns false, or [Scanner.Skip]) or End reports false.
func (sc *Scanner) End() bool {
	if sc.pending || !sc.top {
		sc.Value()
	}
	if sc.bad || sc.depth != 0 {
		return false
	}
	return sc.i == len(sc.s)
}
