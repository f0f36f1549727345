package jsonw

import "unicode/utf8"

// Walker reads one JSON text in a single pass, validating as it goes:
// what it accepts is exactly what [Valid] accepts (UTF-8, RFC 8259
// grammar, nesting at most maxDepth deep, no member name repeated in its
// object), and a caller extracts what it needs while it walks, instead of
// validating the text first and then finding members in further passes.
//
// The walk is driven by the caller: [Walker.Peek] tells what the next
// value is, [Walker.Member] and [Walker.Elem] step into an object's
// members or an array's elements, and [Walker.Skip] validates a value
// without descending and returns its raw text (a view of the input).
// A member or element the caller leaves unread is skipped (validated) by
// the next call. Once the walk is over, [Walker.End] skips what is left
// and reports whether the whole text was valid. The scanner never
// allocates unless an object has more than eight members or a member name
// carries escapes.
//
// Side effects belong after End: the text may turn out invalid after the
// values the caller has read.
type Walker struct {
	s       string
	i       int
	depth   int
	bad     bool
	touched bool // the top value was entered or skipped
}

// NewWalker returns a scanner at the start of s (a whole JSON text). Text
// that is not valid UTF-8 fails at once.
func NewWalker(s string) Walker {
	return Walker{s: s, bad: !utf8.ValidString(s)}
}

// WalkObject is the state of one object being walked by [Walker.Member]; its
// zero value is ready.
type WalkObject struct {
	names   memberNames
	started bool
	done    bool
	pending int  // where the current member's value starts
	esc     bool // the current member's name holds an escape
}

// Is reports whether the name of the member the last [Walker.Member]
// returned is key (compared by value, so "\u0061" is "a").
func (o *WalkObject) Is(key string) bool {
	name := o.names.last
	if !o.esc {
		return len(name) == len(key)+2 && name[1:len(name)-1] == key
	}
	return keyEquals(name, key)
}

// escaped reports whether the raw string literal s holds a backslash.
func walkEscaped(s string) bool {
	for i := 1; i < len(s)-1; i++ {
		if s[i] == '\\' {
			return true
		}
	}
	return false
}

// WalkArray is the state of one array being walked by [Walker.Elem]; its zero
// value is ready.
type WalkArray struct {
	started bool
	done    bool
	pending int // where the current element starts
}

// Failed reports whether the text is already known to be invalid.
func (sc *Walker) Failed() bool { return sc.bad }

func (sc *Walker) fail() bool {
	sc.bad = true
	return false
}

// Peek returns the first byte of the next value ('{', '[', '"', 't', 'f',
// 'n', '-' or a digit), or 0 at the end of the input or after a failure.
func (sc *Walker) Peek() byte {
	if sc.bad {
		return 0
	}
	sc.i = skipSpace(sc.s, sc.i)
	if sc.i >= len(sc.s) {
		return 0
	}
	return sc.s[sc.i]
}

// Skip validates the next value and returns its raw text, or "" (and the
// scanner fails) when it is not valid.
func (sc *Walker) Skip() string {
	if sc.bad {
		return ""
	}
	sc.touched = true
	start := skipSpace(sc.s, sc.i)
	end, ok := value(sc.s, start, sc.depth)
	if !ok {
		sc.fail()
		return ""
	}
	sc.i = end
	return sc.s[start:end]
}

// Pos returns the offset of the scanner in the input: taken before and
// after a value is walked, the two give its raw text with [Walker.Text].
// Before a value, call [Walker.Peek] first (it steps over white space).
func (sc *Walker) Pos() int { return sc.i }

// Text returns the input between the offsets a and b.
func (sc *Walker) Text(a, b int) string { return sc.s[a:b] }

// Member steps to the next member of the object at the scanner (the first
// call enters it) and returns its name as a raw string literal (compare it
// with [WalkNameIs]); the scanner is then at the member's value. It returns
// false at the end of the object, or when the input is not valid (see
// [Walker.Failed]). The value left unread by the caller is skipped.
func (sc *Walker) Member(o *WalkObject) (name string, ok bool) {
	if sc.bad || o.done {
		return "", false
	}
	s := sc.s
	i := sc.i
	if !o.started {
		o.started, sc.touched = true, true
		i = skipSpace(s, i)
		if i >= len(s) || s[i] != '{' {
			return "", sc.fail()
		}
		if sc.depth >= maxDepth {
			return "", sc.fail()
		}
		sc.depth++
		i = skipSpace(s, i+1)
		if i < len(s) && s[i] == '}' {
			sc.i, o.done = i+1, true
			sc.depth--
			return "", false
		}
	} else {
		if i == o.pending { // the value was left unread
			end, ok := value(s, i, sc.depth)
			if !ok {
				return "", sc.fail()
			}
			i = end
		}
		i = skipSpace(s, i)
		if i >= len(s) {
			return "", sc.fail()
		}
		switch s[i] {
		case ',':
			i = skipSpace(s, i+1)
		case '}':
			sc.i, o.done = i+1, true
			sc.depth--
			return "", false
		default:
			return "", sc.fail()
		}
	}
	if i >= len(s) || s[i] != '"' {
		return "", sc.fail()
	}
	end, ok := validString(s, i+1)
	if !ok {
		return "", sc.fail()
	}
	name = s[i:end]
	o.esc = walkEscaped(name)
	if o.names.seen(name, o.esc) {
		return "", sc.fail()
	}
	i = skipSpace(s, end)
	if i >= len(s) || s[i] != ':' {
		return "", sc.fail()
	}
	i = skipSpace(s, i+1)
	sc.i, o.pending = i, i
	return name, true
}

// Elem steps to the next element of the array at the scanner (the first
// call enters it); the scanner is then at the element. It returns false at
// the end of the array, or when the input is not valid. An element left
// unread by the caller is skipped.
func (sc *Walker) Elem(a *WalkArray) bool {
	if sc.bad || a.done {
		return false
	}
	s := sc.s
	i := sc.i
	if !a.started {
		a.started, sc.touched = true, true
		i = skipSpace(s, i)
		if i >= len(s) || s[i] != '[' {
			return sc.fail()
		}
		if sc.depth >= maxDepth {
			return sc.fail()
		}
		sc.depth++
		i = skipSpace(s, i+1)
		if i < len(s) && s[i] == ']' {
			sc.i, a.done = i+1, true
			sc.depth--
			return false
		}
	} else {
		if i == a.pending { // the value was left unread
			end, ok := value(s, i, sc.depth)
			if !ok {
				return sc.fail()
			}
			i = end
		}
		i = skipSpace(s, i)
		if i >= len(s) {
			return sc.fail()
		}
		switch s[i] {
		case ',':
			i = skipSpace(s, i+1)
		case ']':
			sc.i, a.done = i+1, true
			sc.depth--
			return false
		default:
			return sc.fail()
		}
	}
	if i >= len(s) {
		return sc.fail()
	}
	sc.i, a.pending = i, i
	return true
}

// End reports whether the whole input was one valid JSON text with
// nothing but white space after it. Every object and array entered must
// have been walked to its end (Member or Elem returned false); a top value
// never entered is skipped here.
func (sc *Walker) End() bool {
	if sc.bad || sc.depth != 0 {
		return false
	}
	if !sc.touched {
		sc.Skip()
	}
	return !sc.bad && skipSpace(sc.s, sc.i) == len(sc.s)
}

// WalkNameIs reports whether the raw member name (a string literal, as
// [Walker.Member] returns it) is key.
func WalkNameIs(raw, key string) bool { return keyEquals(raw, key) }
