package sse

import (
	"io"
	"strconv"
)

// ArrayError reports bytes that are not a JSON array of values where an
// [ArrayParser] reads one, or an array that ends before its closing
// bracket (EOF true). Offset is the byte offset in the stream.
type ArrayError struct {
	Offset int64
	Msg    string
	EOF    bool
}

func (e *ArrayError) Error() string {
	return "json array stream: byte " + strconv.FormatInt(e.Offset, 10) + ": " + e.Msg
}

// Unwrap returns io.ErrUnexpectedEOF for an array cut before its end.
func (e *ArrayError) Unwrap() error {
	if e.EOF {
		return io.ErrUnexpectedEOF
	}
	return nil
}

// array parser states.
const (
	arrBefore = iota // before '[' (a BOM and white space allowed)
	arrFirst         // after '[': a value or ']'
	arrValue         // inside a value
	arrAfter         // after a value: ',' or ']'
	arrNext          // after ',': a value
	arrDone          // after ']': white space only
)

// ArrayParser frames a stream that is one JSON array (Gemini's
// streamGenerateContent without alt=sse answers `[{...},\r\n{...}]`): each
// top-level element is one [Event] whose Data is the element's bytes, as
// they came. It tracks only strings and nesting, so a value's own syntax
// is its decoder's to check; it is a byte state machine, so any split of
// the input gives the same events. An element larger than max is a
// *[LimitError]; bytes outside the array's syntax are an *[ArrayError].
type ArrayParser struct {
	max   int
	sink  Sink
	ev    Event
	state uint8
	depth int
	str   bool // inside a string
	esc   bool // after a backslash in a string
	bom   int  // BOM bytes seen at the start
	off   int64
	buf   []byte
	err   error
}

// NewArrayParser returns a parser that hands each element to sink; max
// <= 0 means [DefaultMaxEvent]. The event's Data is valid only during the
// call.
func NewArrayParser(max int, sink Sink) *ArrayParser {
	if max <= 0 {
		max = DefaultMaxEvent
	}
	return &ArrayParser{max: max, sink: sink}
}

func (p *ArrayParser) fail(msg string) error {
	p.err = &ArrayError{Offset: p.off, Msg: msg}
	return p.err
}

// Write feeds stream bytes; it never retains b. After an error every call
// returns it.
func (p *ArrayParser) Write(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch p.state {
		case arrBefore:
			switch {
			case p.off == int64(p.bom) && p.bom < 3 && c == bom[p.bom]:
				p.bom++
			case p.bom > 0 && p.bom < 3:
				return i, p.fail("a broken byte order mark")
			case isSpace(c):
			case c == '[':
				p.state = arrFirst
			default:
				return i, p.fail("expected '[', found " + strconv.QuoteRune(rune(c)))
			}
		case arrFirst, arrNext:
			switch {
			case isSpace(c):
			case c == ']' && p.state == arrFirst:
				p.state = arrDone
			case c == ']' || c == ',':
				return i, p.fail("expected a value, found " + strconv.QuoteRune(rune(c)))
			default:
				p.state = arrValue
				if err := p.value(c); err != nil {
					return i, err
				}
			}
		case arrValue:
			if !p.str && p.depth == 0 && (isSpace(c) || c == ',' || c == ']') {
				if err := p.end(); err != nil { // a scalar ends at its delimiter
					return i, err
				}
				i-- // read the delimiter again, after the value
				p.off--
				break
			}
			if err := p.value(c); err != nil {
				return i, err
			}
		case arrAfter:
			switch {
			case isSpace(c):
			case c == ',':
				p.state = arrNext
			case c == ']':
				p.state = arrDone
			default:
				return i, p.fail("expected ',' or ']', found " + strconv.QuoteRune(rune(c)))
			}
		case arrDone:
			if !isSpace(c) {
				return i, p.fail("data after the array's end")
			}
		}
		p.off++
	}
	return len(b), nil
}

// value adds c to the element being read, and emits the element when c
// closes it.
func (p *ArrayParser) value(c byte) error {
	if len(p.buf) >= p.max {
		p.err = &LimitError{Limit: p.max}
		return p.err
	}
	p.buf = append(p.buf, c)
	switch {
	case p.str:
		switch {
		case p.esc:
			p.esc = false
		case c == '\\':
			p.esc = true
		case c == '"':
			p.str = false
			if p.depth == 0 {
				return p.end()
			}
		}
	case c == '"':
		p.str = true
	case c == '{' || c == '[':
		p.depth++
	case c == '}' || c == ']':
		p.depth--
		if p.depth < 0 {
			return p.fail("unbalanced " + strconv.QuoteRune(rune(c)))
		}
		if p.depth == 0 {
			return p.end()
		}
	}
	return nil
}

// end emits the element read.
func (p *ArrayParser) end() error {
	p.state = arrAfter
	p.ev.Data = p.buf
	err := p.sink.Event(&p.ev)
	p.ev.Data = nil
	p.buf = p.buf[:0]
	if err != nil {
		p.err = err
	}
	return err
}

// Close ends the stream: an array not closed by ']' is an *[ArrayError]
// wrapping io.ErrUnexpectedEOF (an empty stream too).
func (p *ArrayParser) Close() error {
	if p.err != nil {
		return p.err
	}
	if p.state != arrDone {
		p.err = &ArrayError{Offset: p.off, Msg: "the stream ended inside the array", EOF: true}
	}
	return p.err
}
