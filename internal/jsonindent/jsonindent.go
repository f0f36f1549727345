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

// The bytes of a word, one bit each: the lowest; every bit but the
// highest of each byte; and the odd bits of a word.
const (
	lsb  = 0x0101010101010101
	low7 = 0x7f7f7f7f7f7f7f7f
	odd  = 0xaaaaaaaaaaaaaaaa
)

// equal returns the highest bit of each byte of x that equals c, and no
// other bit: exact, with no false flag, as the per-byte sum of the low
// seven bits cannot carry into the next byte.
func equal(x uint64, c byte) uint64 {
	y := x ^ (uint64(c) * lsb)
	return ^((y&low7 + low7) | y | low7)
}

// gather moves the bits equal sets, the highest of each byte i of m, to
// bit i of one byte (the multiplication's partial products never share a
// bit, so nothing carries).
func gather(m uint64) uint64 {
	return (m >> 7) * 0x0102040810204080 >> 56
}

// stringEnd returns the index of the quote that closes the JSON string b
// is read in, or len(b) if b does not hold it; escaped says that b's
// first byte is escaped (the byte before it was a backslash that began
// an escape). When b holds no closing quote, it also reports whether b
// ends with a backslash that escapes the byte after it.
//
// It reads 64 bytes at a time, without a branch per escape: a mask of
// the block's quotes and one of its backslashes, one bit per byte, and
// the bytes the backslashes escape found from the second by the parity
// of each run of backslashes (a subtraction carries through a run; the
// carry out of the block says whether the next one starts escaped). The
// first quote not escaped closes the string.
func stringEnd(b []byte, escaped bool) (int, bool) {
	var carry uint64 // 1: the next byte is escaped
	if escaped {
		carry = 1
	}
	i := 0
	for ; i+64 <= len(b); i += 64 {
		var q, s uint64
		for k := 0; k < 64; k += 8 {
			x := binary.LittleEndian.Uint64(b[i+k:])
			q |= gather(equal(x, '"')) << k
			s |= gather(equal(x, '\\')) << k
		}
		esc := carry // the bytes escaped
		if s != 0 {
			starts := s &^ carry // backslashes that may begin an escape
			code := ((starts<<1 | odd) - starts) ^ odd
			esc = code ^ (s | carry)
			carry = (code & s) >> 63
		} else {
			carry = 0
		}
		if m := q &^ esc; m != 0 {
			return i + bits.TrailingZeros64(m), false
		}
	}
	escaped = carry != 0
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
