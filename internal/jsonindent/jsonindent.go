// Package jsonindent indents JSON while it is written: the bytes come out
// as encoding/json.Indent would make them from the whole value, without the
// value ever being held whole.
package jsonindent

import (
	"encoding/binary"
	"io"
	"math/bits"
)

// flushAt is how much indented output is gathered before it is written on.
const flushAt = 64 << 10

// Writer indents the JSON value written to it and writes the result to the
// underlying writer. Its input may be cut anywhere between calls to Write.
// For a valid JSON value its output is byte for byte what json.Indent
// gives with the same prefix and indent, except that whitespace after the
// value is dropped (json.Indent keeps it). Invalid input is not detected.
// Call Flush after the last Write.
type Writer struct {
	w              io.Writer
	prefix, indent string
	buf            []byte
	depth          int
	// needIndent: an object or array was opened and its first member has
	// not been seen (an empty one stays "{}" or "[]").
	needIndent bool
	inString   bool
	// escaped: the last byte read was a backslash in a string.
	escaped bool
	err     error
}

// NewWriter returns a Writer that writes to w, beginning each new line with
// prefix followed by one copy of indent per level of nesting.
func NewWriter(w io.Writer, prefix, indent string) *Writer {
	return &Writer{w: w, prefix: prefix, indent: indent, buf: make([]byte, 0, flushAt+1024)}
}

// Write indents p. It returns the first error of the underlying writer.
func (x *Writer) Write(p []byte) (int, error) {
	if x.err != nil {
		return 0, x.err
	}
	n := len(p)
	buf := x.buf
	for len(p) > 0 {
		if len(buf) >= flushAt {
			if buf = x.flush(buf); x.err != nil {
				return 0, x.err
			}
		}
		if x.inString {
			buf, p = x.str(buf, p)
			continue
		}
		c := p[0]
		p = p[1:]
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		if x.needIndent && c != '}' && c != ']' {
			x.needIndent = false
			x.depth++
			buf = x.newline(buf)
		}
		switch c {
		case '"':
			x.inString = true
			buf = append(buf, c)
		case '{', '[':
			x.needIndent = true
			buf = append(buf, c)
		case ',':
			buf = append(buf, c)
			buf = x.newline(buf)
		case ':':
			buf = append(buf, ':', ' ')
		case '}', ']':
			if x.needIndent {
				x.needIndent = false
			} else {
				x.depth--
				buf = x.newline(buf)
			}
			buf = append(buf, c)
		default:
			buf = append(buf, c)
		}
	}
	x.buf = buf
	return n, nil
}

// str copies the string bytes at the start of p, up to and including the
// closing quote if p holds it, and returns what is left of p. It copies at
// most flushAt bytes at a time.
func (x *Writer) str(buf, p []byte) ([]byte, []byte) {
	if x.escaped {
		x.escaped = false
		return append(buf, p[0]), p[1:]
	}
	w := p[:min(len(p), flushAt)] // the window looked at
	for i := 0; ; {
		k := quoteOrBackslash(w, i)
		switch {
		case k == len(w):
			return append(buf, w...), p[len(w):]
		case w[k] == '"':
			x.inString = false
			return append(buf, w[:k+1]...), p[k+1:]
		case k+1 < len(w):
			i = k + 2 // the backslash and the byte it escapes
		case len(w) == len(p):
			// The input ends with the backslash: its byte comes next.
			x.escaped = true
			return append(buf, w...), p[len(w):]
		default:
			// The escaped byte is past the window: look at it next time.
			return append(buf, w[:k]...), p[k:]
		}
	}
}

// The bytes of a word, one bit each: the lowest, and the highest.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// quoteOrBackslash returns the index of the first quote or backslash of
// b at or after i, or len(b). It tests eight bytes at a time: in each of
// the two masks the lowest flagged byte is a true match (a false flag can
// only sit above a true one), so the lowest of both is.
func quoteOrBackslash(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q := x ^ ('"' * lsb)
		s := x ^ ('\\' * lsb)
		if m := ((q - lsb) &^ q) | ((s - lsb) &^ s); m&msb != 0 {
			return i + bits.TrailingZeros64(m&msb)/8
		}
	}
	for ; i < len(b); i++ {
		if b[i] == '"' || b[i] == '\\' {
			return i
		}
	}
	return len(b)
}

func (x *Writer) newline(buf []byte) []byte {
	buf = append(buf, '\n')
	buf = append(buf, x.prefix...)
	for i := 0; i < x.depth; i++ {
		buf = append(buf, x.indent...)
	}
	return buf
}

func (x *Writer) flush(buf []byte) []byte {
	if len(buf) > 0 {
		if _, err := x.w.Write(buf); err != nil {
			x.err = err
		}
	}
	return buf[:0]
}

// Flush writes out what is gathered and returns the first error of the
// underlying writer.
func (x *Writer) Flush() error {
	if x.err == nil {
		x.buf = x.flush(x.buf)
	}
	return x.err
}
