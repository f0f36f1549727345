package jsonw

import (
	"strings"
	"unsafe"
)

// Reader reads one JSON text in a single pass and validates everything it
// reads or passes exactly as [Valid] does (grammar, UTF-8, at most 512
// levels deep, no member name repeated in its object), so that a stream
// decoder can validate an event and extract what it needs at once instead
// of validating it first and walking it again for each path.
//
// The caller descends with [Reader.Object] and [Reader.Member] (or
// [Reader.Array] and [Reader.Elem]), takes the values it wants with
// [Reader.Raw] and passes the others with [Reader.Skip]; [Reader.End]
// validates whatever the caller left (the rest of each open container,
// and the root when it was not read) and reports whether the whole text
// is valid JSON. A failure sticks: later calls return zero values and End
// false. Values are substrings of the text, valid as long as it is; the
// caller must act on them only once End has said the text is valid.
//
// A Reader is reused across texts with [Reader.Reset]; its zero value
// reads the empty text. Reading allocates only to grow the Reader's
// stack the first time it is entered this deep, and to decode a member
// name written with escapes.
type Reader struct {
	s     string
	i     int // the cursor: the next value, or where the next separator is looked for
	start int // where the root value starts
	depth int // containers entered
	first bool
	bad   bool
	open  []bool        // per entered container: an object (else an array)
	names []memberNames // per entered object, the names seen
}

// Reset makes r read s from its start.
func (r *Reader) Reset(s string) {
	r.s, r.depth, r.first, r.bad = s, 0, false, false
	r.i = skipSpace(s, 0)
	r.start = r.i
	r.open = r.open[:0]
	r.names = r.names[:0]
}

// ResetBytes is Reset for a byte slice, read in place: b must not change
// while r reads it.
func (r *Reader) ResetBytes(b []byte) {
	if len(b) == 0 {
		r.Reset("")
		return
	}
	r.Reset(unsafe.String(&b[0], len(b)))
}

// Peek returns the first byte of the value at the cursor ('{', '[', '"',
// 't', 'f', 'n', '-' or a digit when the text is valid there), or 0 after
// a failure or at the end of the text.
func (r *Reader) Peek() byte {
	if r.bad || r.i >= len(r.s) {
		return 0
	}
	return r.s[r.i]
}

// Object enters the object at the cursor and reports whether it did: false
// (the cursor unmoved) when the value there is not an object. Its members
// follow with Member.
func (r *Reader) Object() bool {
	if r.Peek() != '{' {
		return false
	}
	if !r.enter(true) {
		return false
	}
	n := len(r.names)
	if n < cap(r.names) {
		r.names = r.names[:n+1]
		r.names[n].n, r.names[n].set = 0, nil
	} else {
		r.names = append(r.names, memberNames{})
	}
	return true
}

// Array enters the array at the cursor and reports whether it did: false
// (the cursor unmoved) when the value there is not an array. Its elements
// follow with Elem.
func (r *Reader) Array() bool {
	if r.Peek() != '[' {
		return false
	}
	return r.enter(false)
}

func (r *Reader) enter(object bool) bool {
	if r.depth >= maxDepth {
		r.bad = true
		return false
	}
	r.depth++
	r.open = append(r.open, object)
	r.i = skipSpace(r.s, r.i+1)
	r.first = true
	return true
}

// leave closes the innermost container, whose closing bracket is at i.
func (r *Reader) leave(i int) {
	r.i = i + 1
	r.depth--
	if r.open[len(r.open)-1] {
		r.names = r.names[:len(r.names)-1]
	}
	r.open = r.open[:len(r.open)-1]
	r.first = false
}

// Member moves to the next member of the innermost object entered and
// returns its name as written between its quotes (escapes not decoded:
// see [Name]); the cursor is then at its value, which the caller must
// read, enter or Skip before the next call. At the end of the object it
// returns ok false and leaves the object.
func (r *Reader) Member() (name string, ok bool) {
	if r.bad {
		return "", false
	}
	s, i := r.s, r.i
	if r.first {
		r.first = false
	} else {
		i = skipSpace(s, i)
		if i < len(s) && s[i] == ',' {
			i = skipSpace(s, i+1)
		} else {
			if i < len(s) && s[i] == '}' {
				r.leave(i)
			} else {
				r.bad = true
			}
			return "", false
		}
	}
	if i >= len(s) || s[i] != '"' {
		// An object's first place may close it; after a comma it may not.
		if i < len(s) && s[i] == '}' && r.i == i {
			r.leave(i)
		} else {
			r.bad = true
		}
		return "", false
	}
	end, ok := validString(s, i+1)
	if !ok || r.names[len(r.names)-1].repeated(s[i:end]) {
		r.bad = true
		return "", false
	}
	j := skipSpace(s, end)
	if j >= len(s) || s[j] != ':' {
		r.bad = true
		return "", false
	}
	r.i = skipSpace(s, j+1)
	return s[i+1 : end-1], true
}

// Elem moves to the next element of the innermost array entered and
// reports whether there is one; the cursor is then at it, and the caller
// must read, enter or Skip it before the next call. At the end of the
// array it returns false and leaves the array.
func (r *Reader) Elem() bool {
	if r.bad {
		return false
	}
	s, i := r.s, r.i
	if r.first {
		r.first = false
		if i < len(s) && s[i] == ']' {
			r.leave(i)
			return false
		}
		return i < len(s) || r.fail()
	}
	i = skipSpace(s, i)
	if i < len(s) && s[i] == ',' {
		r.i = skipSpace(s, i+1)
		return true
	}
	if i < len(s) && s[i] == ']' {
		r.leave(i)
		return false
	}
	return r.fail()
}

func (r *Reader) fail() bool {
	r.bad = true
	return false
}

// Raw validates the value at the cursor, moves past it and returns its
// JSON text ("" after a failure).
func (r *Reader) Raw() string {
	if r.bad {
		return ""
	}
	e, ok := value(r.s, r.i, r.depth)
	if !ok {
		r.bad = true
		return ""
	}
	v := r.s[r.i:e]
	r.i = e
	return v
}

// Skip validates the value at the cursor and moves past it.
func (r *Reader) Skip() { r.Raw() }

// End validates what is left of the text (the rest of every container
// still entered, the root when nothing read it) and reports whether the
// whole text is one valid JSON value with nothing but white space after
// it.
func (r *Reader) End() bool {
	if !r.bad && r.depth == 0 && r.i == r.start {
		r.Skip()
	}
	for !r.bad && r.depth > 0 {
		if r.open[len(r.open)-1] {
			for {
				if _, ok := r.Member(); !ok {
					break
				}
				r.Skip()
			}
		} else {
			for r.Elem() {
				r.Skip()
			}
		}
	}
	return !r.bad && skipSpace(r.s, r.i) == len(r.s)
}

// Name returns the member name raw (as [Reader.Member] returns it, between
// its quotes) with its escapes decoded; it allocates only when there are
// escapes.
func Name(raw string) string {
	if strings.IndexByte(raw, '\\') < 0 {
		return raw
	}
	var b strings.Builder
	WriteUnquoted(&b, `"`+raw+`"`)
	return b.String()
}

// Offset returns the cursor's offset in the text: taken before entering a
// value, it lets [Reader.Text] return the value's text once read.
func (r *Reader) Offset() int { return r.i }

// Text returns the text from offset start (an earlier [Reader.Offset]) to
// the cursor: the JSON text of a container entered at start and since
// left.
func (r *Reader) Text(start int) string {
	if r.bad || start > r.i {
		return ""
	}
	return r.s[start:r.i]
}
