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
	w := p[:min(len(p), flushAt)] // the window looked at
	end, escaped := stringEnd(w, x.escaped)
	if end < len(w) {
		x.inString, x.escaped = false, false
		return append(buf, w[:end+1]...), p[end+1:]
	}
	x.escaped = escaped
	return append(buf, w...), p[len(w):]
}

// The bytes of a word, one bit each: the lowest, and the highest; and
// every bit but the highest of each byte.
const (
	lsb  = 0x0101010101010101
	msb  = 0x8080808080808080
	low7 = 0x7f7f7f7f7f7f7f7f
)

// equal returns the highest bit of each byte of x that equals c, and no
// other bit: exact, with no false flag, as the per-byte sum of the low
// seven bits cannot carry into the next byte.
func equal(x uint64, c byte) uint64 {
	y := x ^ (uint64(c) * lsb)
	return ^((y&low7 + low7) | y | low7)
}

// stringEnd returns the index of the quote that closes the JSON string b
// is read in, or len(b) if b does not hold it; escaped says that b's
// first byte is escaped (the byte before it was a backslash that began
// an escape). When b holds no closing quote, it also reports whether b
// ends with a backslash that escapes the byte after it.
//
// It reads eight bytes at a time and stops only at quotes: a backslash
// found in a word escapes the byte after it, which is taken out of the
// word's quotes and backslashes (or carried to the next word), so that a
// string of many escapes is read in one pass of the words, not restarted
// at every escape.
func stringEnd(b []byte, escaped bool) (int, bool) {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q, s := equal(x, '"'), equal(x, '\\')
		if escaped {
			q, s = q&^0x80, s&^0x80
			escaped = false
		}
		for s != 0 {
			k := uint(bits.TrailingZeros64(s)) // the highest bit of the backslash's byte
			if below := q & (1<<k - 1); below != 0 {
				return i + bits.TrailingZeros64(below)/8, false
			}
			if k == 63 {
				escaped = true // it escapes the next word's first byte
				s = 0
				break
			}
			s &^= 1<<(k+1) - 1 // this backslash, and none below it
			q &^= 1 << (k + 8) // the byte it escapes is neither a quote
			s &^= 1 << (k + 8) // nor a backslash
		}
		if q != 0 {
			return i + bits.TrailingZeros64(q)/8, false
		}
	}
	for ; i < len(b); i++ {
		switch {
		case escaped:
			escaped = false
		case b[i] == '"':
			return i, false
		case b[i] == '\\':
			escaped = true
		}
	}
	return len(b), escaped
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
