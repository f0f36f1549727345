package sessions

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/reasonreplay/replay"
)

// This file cuts a session file into records, keeping where each came
// from: a JSON Lines file line by line, a JSON document element by element
// of its one conversation array. Neither holds more than one record (and
// the document's small top-level members) at a time.

// record is where one record of the file is: a JSONL line, or one element
// of a document's conversation array.
type record struct {
	line  int    // 1-based line the record starts on
	index int    // 0-based: the line's index in a JSONL file, the element's in the array
	off   int64  // offset of the record's first byte
	end   int64  // offset just past its last byte (a line without its end)
	next  int64  // a JSONL line: offset of the next line (past the line end)
	base  string // the document's pointer to the element ("/messages/3"); "" for a line
}

// lineReader reads a JSON Lines file one line at a time.
type lineReader struct {
	br   *bufio.Reader
	max  int
	off  int64
	line int
	buf  []byte
	err  error
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its end (LF or CRLF), and where it
// is. The bytes are valid until the next call. io.EOF ends the file; a
// line longer than the limit is a *replay.LimitError.
func (lr *lineReader) next() ([]byte, record, error) {
	if lr.err != nil {
		return nil, record{}, lr.err
	}
	lr.buf = lr.buf[:0]
	start := lr.off
	for {
		chunk, err := lr.br.ReadSlice('\n')
		lr.buf = append(lr.buf, chunk...)
		lr.off += int64(len(chunk))
		if len(lr.buf) > lr.max+2 {
			lr.err = &replay.LimitError{What: "record size", Limit: lr.max, Event: lr.line, Block: -1}
			return nil, record{}, lr.err
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && err != io.EOF {
			lr.err = err
			return nil, record{}, err
		}
		if err == io.EOF && len(lr.buf) == 0 {
			lr.err = io.EOF
			return nil, record{}, io.EOF
		}
		break
	}
	rec := record{line: lr.line + 1, index: lr.line, off: start, next: lr.off}
	lr.line++
	data := lr.buf
	if n := len(data); n > 0 && data[n-1] == '\n' {
		data = data[:n-1]
		if n := len(data); n > 0 && data[n-1] == '\r' {
			data = data[:n-1]
		}
	}
	rec.end = start + int64(len(data))
	return data, rec, nil
}

// docReader reads a JSON document whose conversation is one array: the
// document itself (`[...]`), or one member of the top-level object
// (`{"messages":[...]}`). It yields the object's other members (small
// values) and each element of the array, with its offsets, without ever
// holding the whole document.
type docReader struct {
	br    *bufio.Reader
	max   int
	off   int64
	line  int // 1-based current line
	buf   []byte
	state int // 0 start, 1 in object members, 2 in array, 3 done
	key   string
	top   bool // the array is the document itself
	index int
}

// docItem is what docReader.next returns: a top-level member (key set,
// elem false), or an element of the conversation array.
type docItem struct {
	key  string // the member's name, or the array's ("" for a top-level array)
	elem bool
	data []byte // valid until the next call
	rec  record
}

func newDocReader(r io.Reader, max int) *docReader {
	return &docReader{br: bufio.NewReaderSize(r, 64<<10), max: max, line: 1}
}

var errDocShape = errors.New("not a JSON array or object")

func (d *docReader) peek() (byte, error) {
	for {
		b, err := d.br.ReadByte()
		if err != nil {
			return 0, err
		}
		if d.off == 0 && b == 0xEF { // a UTF-8 byte order mark
			if p, _ := d.br.Peek(2); len(p) == 2 && p[0] == 0xBB && p[1] == 0xBF {
				d.br.Discard(2)
				d.off += 3
				continue
			}
		}
		switch b {
		case ' ', '\t', '\r':
			d.off++
			continue
		case '\n':
			d.off++
			d.line++
			continue
		}
		d.br.UnreadByte()
		return b, nil
	}
}

func (d *docReader) expect(c byte) error {
	b, err := d.peek()
	if err != nil {
		return unexpectedEOF(err)
	}
	if b != c {
		return fmt.Errorf("offset %d: expected %q, found %q", d.off, c, b)
	}
	d.br.ReadByte()
	d.off++
	return nil
}

func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// value reads one JSON value's bytes (not validated: the caller checks
// them) into d.buf.
func (d *docReader) value() ([]byte, record, error) {
	if _, err := d.peek(); err != nil {
		return nil, record{}, unexpectedEOF(err)
	}
	rec := record{line: d.line, off: d.off}
	d.buf = d.buf[:0]
	var kind byte
	depth := 0
	inStr, esc := false, false
	for {
		b, err := d.br.ReadByte()
		if err != nil {
			if err == io.EOF && len(d.buf) > 0 && kind != '"' && !isOpen(kind) {
				break
			}
			return nil, rec, unexpectedEOF(err)
		}
		if kind == 0 {
			kind = b
		} else if kind != '"' && !isOpen(kind) && isDelim(b) {
			d.br.UnreadByte() // the end of a number or literal
			break
		}
		d.off++
		if b == '\n' {
			d.line++
		}
		d.buf = append(d.buf, b)
		if len(d.buf) > d.max {
			return nil, rec, &replay.LimitError{What: "record size", Limit: d.max, Event: -1, Block: -1}
		}
		if kind != '"' && !isOpen(kind) {
			continue
		}
		if kind == '"' {
			inStr = true
		}
		switch {
		case inStr && len(d.buf) == 1:
		case inStr:
			switch {
			case esc:
				esc = false
			case b == '\\':
				esc = true
			case b == '"':
				inStr = false
			}
		case b == '"':
			inStr = true
		case b == '{' || b == '[':
			depth++
		case b == '}' || b == ']':
			depth--
		}
		if kind == '"' && !inStr || isOpen(kind) && depth == 0 {
			break
		}
	}
	rec.end = d.off
	return d.buf, rec, nil
}

func isOpen(b byte) bool { return b == '{' || b == '[' }
func isDelim(b byte) bool {
	return b == ',' || b == '}' || b == ']' || b == ' ' || b == '\t' || b == '\r' || b == '\n'
}

// next returns the next top-level member or array element; io.EOF after
// the document. arrayKey names the object member that holds the
// conversation ("messages", "history"); a top-level array is taken
// whatever it is.
func (d *docReader) next(arrayKey string) (docItem, error) {
	for {
		switch d.state {
		case 0:
			b, err := d.peek()
			if err != nil {
				return docItem{}, unexpectedEOF(err)
			}
			switch b {
			case '[':
				d.br.ReadByte()
				d.off++
				d.state, d.top = 2, true
				if err := d.arrayStart(); err != nil {
					return docItem{}, err
				}
			case '{':
				d.br.ReadByte()
				d.off++
				d.state = 1
				if b, err := d.peek(); err != nil {
					return docItem{}, unexpectedEOF(err)
				} else if b == '}' {
					d.br.ReadByte()
					d.off++
					d.state = 3
				}
			default:
				return docItem{}, errDocShape
			}
		case 1:
			keyRaw, _, err := d.value()
			if err != nil {
				return docItem{}, err
			}
			if len(keyRaw) < 2 || keyRaw[0] != '"' {
				return docItem{}, fmt.Errorf("offset %d: expected a member name", d.off)
			}
			key, ok := unquote(keyRaw)
			if !ok {
				return docItem{}, fmt.Errorf("offset %d: a member name that is not a valid string", d.off)
			}
			if err := d.expect(':'); err != nil {
				return docItem{}, err
			}
			b, err := d.peek()
			if err != nil {
				return docItem{}, unexpectedEOF(err)
			}
			if key == arrayKey && b == '[' && d.key == "" {
				d.br.ReadByte()
				d.off++
				d.key, d.state = key, 2
				if err := d.arrayStart(); err != nil {
					return docItem{}, err
				}
				continue
			}
			v, rec, err := d.value()
			if err != nil {
				return docItem{}, err
			}
			if err := d.afterMember(); err != nil {
				return docItem{}, err
			}
			return docItem{key: key, data: v, rec: rec}, nil
		case 2:
			v, rec, err := d.value()
			if err != nil {
				return docItem{}, err
			}
			rec.index = d.index
			rec.base = "/" + itoa(d.index)
			if !d.top {
				rec.base = "/" + pointerEscape(d.key) + rec.base
			}
			d.index++
			b, err := d.peek()
			if err != nil {
				return docItem{}, unexpectedEOF(err)
			}
			d.br.ReadByte()
			d.off++
			switch b {
			case ',':
			case ']':
				if d.top {
					d.state = 3
				} else {
					d.state = 1
					if err := d.afterMember(); err != nil {
						return docItem{}, err
					}
				}
			default:
				return docItem{}, fmt.Errorf("offset %d: expected ',' or ']' after an element, found %q", d.off-1, b)
			}
			return docItem{key: d.key, elem: true, data: v, rec: rec}, nil
		case 3:
			if _, err := d.peek(); err == nil {
				return docItem{}, fmt.Errorf("offset %d: data after the document", d.off)
			}
			return docItem{}, io.EOF
		}
	}
}

// arrayStart moves past an empty array, or to its first element.
func (d *docReader) arrayStart() error {
	b, err := d.peek()
	if err != nil {
		return unexpectedEOF(err)
	}
	if b != ']' {
		return nil
	}
	d.br.ReadByte()
	d.off++
	if d.top {
		d.state = 3
		return nil
	}
	d.state = 1
	return d.afterMember()
}

// afterMember reads the ',' or '}' after an object member.
func (d *docReader) afterMember() error {
	b, err := d.peek()
	if err != nil {
		return unexpectedEOF(err)
	}
	d.br.ReadByte()
	d.off++
	switch b {
	case ',':
		return nil
	case '}':
		d.state = 3
		return nil
	}
	return fmt.Errorf("offset %d: expected ',' or '}' after a member, found %q", d.off-1, b)
}

// unquote returns the text of a JSON string literal.
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	if err := jsonUnmarshalString(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// nextRecord returns the next line of a JSON Lines file that holds JSON:
// blank lines are counted and passed over, a line that is not JSON is
// kept as unreadable (the agents skip such lines). io.EOF ends the file.
func (s *Session) nextRecord(lr *lineReader) ([]byte, record, error) {
	for {
		data, rec, err := lr.next()
		if err != nil {
			return nil, rec, err
		}
		s.Records++
		if len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		if !validJSON(data) {
			s.bad = append(s.bad, &block{loc: s.loc(rec, ""), bad: explainJSON(data)})
			continue
		}
		return data, rec, nil
	}
}

// nextElement returns the next element of a document's conversation
// array (the member key of the top-level object, or the document itself),
// calling member with each other top-level member on the way. An element
// that is not JSON makes the document unreadable. io.EOF ends it.
func (s *Session) nextElement(dr *docReader, key string, member func(key string, data []byte)) ([]byte, record, error) {
	for {
		it, err := dr.next(key)
		if err != nil {
			return nil, record{}, err
		}
		if !it.elem {
			if member != nil {
				member(it.key, it.data)
			}
			continue
		}
		s.Records++
		s.spans = append(s.spans, span{it.rec.off, it.rec.end})
		if !validJSON(it.data) {
			return nil, it.rec, &errAt{rec: it.rec, msg: explainJSON(it.data)}
		}
		return it.data, it.rec, nil
	}
}
