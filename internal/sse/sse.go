// Package sse frames byte streams into events: Server-Sent Events to the
// WHATWG specification, JSON Lines (one event's data per line, the way
// many logs and test suites store streams), and the AWS binary event stream
// (Bedrock's streaming bodies, each message one typed event, its checksums
// verified).
//
// The framers come in a push form ([Parser.Write] with a callback, then
// [Parser.Close]) and a pull form ([Reader] over an io.Reader with Next, Event
// and a sticky Err), built on one state machine, so that any split of the
// input gives the same events.
//
// Buffers handed out in an [Event] are valid only until the next call into
// the framer; a caller that keeps anything must copy it.
package sse

import (
	"bytes"
	"errors"
	"io"
	"strconv"
)

// Mode selects the framing.
type Mode uint8

const (
	// SSE frames per the WHATWG Server-Sent Events specification.
	SSE Mode = iota
	// JSONL treats each non-blank line as the data of one event.
	JSONL
	// EventStream reads the AWS binary event-stream encoding: each message
	// is one event, its type the `:event-type` header (see eventstream.go).
	EventStream
)

// DefaultMaxEvent is the default limit on one event's data and on one line.
const DefaultMaxEvent = 16 << 20

// An Event is one framed event. Its slices are valid until the next call.
type Event struct {
	// Type is the SSE event type (the `event` field), empty when none.
	Type []byte
	// Data is the event's data: the `data` lines joined with LF, or one JSONL
	// line (without its line end).
	Data []byte
	// ID is the last event ID set by an `id` field, empty when none.
	ID []byte
	// Retry is the last reconnection time set by a `retry` field, in
	// milliseconds, or 0.
	Retry int
}

// A Sink receives the events a parser frames. The event and its slices
// are valid only during the call; an error it returns stops the parser
// and is returned from Write and Close.
type Sink interface {
	Event(ev *Event) error
}

// SinkFunc is a function as a [Sink].
type SinkFunc func(ev *Event) error

// Event calls f.
func (f SinkFunc) Event(ev *Event) error { return f(ev) }

// LimitError reports an event or line larger than the configured limit.
type LimitError struct{ Limit int }

func (e *LimitError) Error() string {
	return "sse: event exceeds the limit of " + strconv.Itoa(e.Limit) + " bytes"
}

var bom = []byte("\xEF\xBB\xBF")

// Parser is the framing state machine. Create it with [NewParser].
type Parser struct {
	mode    Mode
	max     int
	sink    Sink
	line    []byte // a line carried over between writes
	sawCR   bool   // the last line ended with CR: skip one LF
	started bool   // the first line was seen (BOM handled)
	data    []byte
	hasData bool
	typ     []byte
	id      []byte
	retry   int
	ev      Event
	err     error
	closed  bool
	bin     binState
	// crFree is how many of the stream's next unread bytes are known to
	// hold no CR (a search for one went that far): feed is always handed
	// the stream from its first unread byte, so what one call found holds
	// for the next.
	crFree int
	// view: the bytes fed stay as they are until the next feed (a
	// Reader's own buffer), so an event's data, when it is one line, is
	// handed out as a view of the line (dataView, when hasView) instead
	// of a copy. Whatever is still a view when feed returns without an
	// event is copied into data first (keep).
	view, hasView bool
	dataView      []byte
}

// NewParser returns a parser of the given mode. max bounds one event's data
// and one line (<= 0 means [DefaultMaxEvent]). sink, which is nil for the
// pull form, receives each event.
func NewParser(mode Mode, max int, sink Sink) *Parser {
	if max <= 0 {
		max = DefaultMaxEvent
	}
	return &Parser{mode: mode, max: max, sink: sink}
}

// Write frames b, handing each complete event to the sink. It never retains b.
// After an error, every call returns it.
func (p *Parser) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 && p.err == nil {
		used, ok := p.feed(b)
		b = b[used:]
		if ok && p.sink != nil {
			if err := p.sink.Event(&p.ev); err != nil {
				p.err = err
			}
		}
	}
	if p.err != nil {
		return n - len(b), p.err
	}
	return n, nil
}

// Close ends the stream. A pending line is handled as if it were ended
// (JSONL), or discarded as the specification says (SSE); pending SSE data
// from complete lines is dispatched, so that a stream whose final blank line
// was lost still delivers its last event.
func (p *Parser) Close() error {
	if p.err != nil {
		return p.err
	}
	if ok := p.finish(); ok && p.sink != nil {
		if err := p.sink.Event(&p.ev); err != nil {
			p.err = err
		}
	}
	return p.err
}

func (p *Parser) finish() bool {
	if p.closed {
		return false
	}
	p.closed = true
	if p.mode == EventStream {
		p.finishBinary()
		return false
	}
	if p.mode == JSONL {
		line := p.line
		p.line = p.line[:0]
		return p.jsonlLine(line)
	}
	p.line = p.line[:0]
	return p.dispatch()
}

// feed consumes bytes of b until one event is ready (in p.ev) or b is used
// up. It returns the bytes consumed and whether an event is ready.
func (p *Parser) feed(b []byte) (int, bool) {
	if p.mode == EventStream {
		return p.feedBinary(b)
	}
	used := 0
	// b[used:crFree] holds no CR. A line ends at its first LF or CR: the
	// LF is found line by line, and the CR by one search that runs to the
	// next CR or the end of b, so that a stream with no CR in it is
	// searched for one once per read, not once per line.
	crFree := min(p.crFree, len(b))
	for used < len(b) {
		if p.sawCR {
			p.sawCR = false
			if b[used] == '\n' {
				used++
				continue
			}
		}
		rest := b[used:]
		i := bytes.IndexByte(rest, '\n')
		j := i
		if j < 0 {
			j = len(rest)
		}
		if crFree-used < j {
			crFree = max(crFree, used)
			if k := bytes.IndexByte(b[crFree:], '\r'); k >= 0 {
				crFree += k
			} else {
				crFree = len(b)
			}
			if crFree-used < j {
				i = crFree - used
			}
		}
		if i < 0 {
			p.crFree = 0
			p.keep()
			if len(p.line)+len(rest) > p.maxLine() {
				p.err = &LimitError{Limit: p.max}
				return len(b), false
			}
			p.line = append(p.line, rest...)
			return len(b), false
		}
		line := rest[:i]
		// The bound holds for a line written whole as for one that arrives
		// in pieces, so that where the bytes were split never decides it.
		if len(p.line)+len(line) > p.maxLine() {
			p.err = &LimitError{Limit: p.max}
			return len(b), false
		}
		if len(p.line) > 0 {
			p.line = append(p.line, line...)
			line = p.line
		}
		if rest[i] == '\r' {
			p.sawCR = true
		}
		used += i + 1
		ok := p.processLine(line)
		p.line = p.line[:0]
		if p.err != nil {
			return len(b), false
		}
		if ok {
			p.crFree = max(crFree-used, 0)
			return used, true
		}
	}
	p.crFree = 0
	p.keep()
	return used, false
}

// keep copies the data held as a view of the bytes fed into data, before
// feed returns without an event (the bytes may change once it returns).
func (p *Parser) keep() {
	if p.hasView {
		p.data = append(append(p.data[:0], p.dataView...), '\n')
		p.dataView, p.hasView = nil, false
	}
}

// lineSlack is how far an SSE line may exceed the limit: the field name,
// its colon and space ("event: "), so that the limit bounds the value.
const lineSlack = 8

// maxLine is the longest line kept: the limit itself in JSON Lines, where a
// line is the event, and the limit plus lineSlack in SSE, where the data
// value is then bounded by the limit on its own.
func (p *Parser) maxLine() int {
	if p.mode == JSONL {
		return p.max
	}
	return p.max + lineSlack
}

// processLine handles one complete line and reports whether it completed an
// event.
func (p *Parser) processLine(line []byte) bool {
	if !p.started {
		p.started = true
		line = bytes.TrimPrefix(line, bom)
	}
	if p.mode == JSONL {
		return p.jsonlLine(line)
	}
	if len(line) == 0 {
		return p.dispatch()
	}
	if line[0] == ':' {
		return false
	}
	var field, value []byte
	if c := bytes.IndexByte(line, ':'); c >= 0 {
		field, value = line[:c], line[c+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	} else {
		field = line
	}
	switch string(field) {
	case "data":
		p.keep()
		if len(p.data)+len(value)+1 > p.max+1 {
			p.err = &LimitError{Limit: p.max}
			return false
		}
		if p.view && !p.hasData {
			p.dataView, p.hasView = value, true
		} else {
			p.data = append(p.data, value...)
			p.data = append(p.data, '\n')
		}
		p.hasData = true
	case "event":
		p.typ = append(p.typ[:0], value...)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			p.id = append(p.id[:0], value...)
		}
	case "retry":
		if n, ok := digits(value); ok {
			p.retry = n
		}
	}
	return false
}

func digits(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func (p *Parser) dispatch() bool {
	if !p.hasData {
		p.typ = p.typ[:0]
		return false
	}
	if p.hasView {
		p.ev = Event{Type: p.typ, Data: p.dataView, ID: p.id, Retry: p.retry}
		p.dataView, p.hasView = nil, false
	} else {
		p.ev = Event{Type: p.typ, Data: p.data[:len(p.data)-1], ID: p.id, Retry: p.retry}
	}
	// The buffers are reset lazily: the event aliases them until the next
	// call, and the next append starts from length zero.
	p.data = p.data[:0]
	p.typ = p.typ[:0]
	p.hasData = false
	return true
}

func (p *Parser) jsonlLine(line []byte) bool {
	line = bytes.TrimRight(line, " \t")
	if len(bytes.TrimLeft(line, " \t")) == 0 {
		return false
	}
	p.data = append(p.data[:0], line...)
	p.ev = Event{Data: p.data}
	return true
}

// Reader is the pull form: it reads from an io.Reader and hands out one
// event at a time.
type Reader struct {
	r       io.Reader
	p       *Parser
	buf     []byte
	off     int // start of unread bytes in buf
	end     int
	ev      Event
	err     error // sticky; io.EOF at a clean end
	readErr error // the error the last Read returned, acted on once buf is used up
}

// NewReader returns a Reader of the given mode over r; max as in NewParser.
func NewReader(r io.Reader, mode Mode, max int) *Reader {
	p := NewParser(mode, max, nil)
	p.view = true
	return &Reader{r: r, p: p, buf: make([]byte, 32<<10)}
}

// Next advances to the next event and reports whether there is one. At the
// end of the stream or on an error it returns false; Err tells which.
func (r *Reader) Next() bool {
	for r.err == nil {
		if r.off < r.end {
			used, ok := r.p.feed(r.buf[r.off:r.end])
			r.off += used
			if r.p.err != nil {
				r.err = r.p.err
				return false
			}
			if ok {
				r.ev = r.p.ev
				return true
			}
			continue
		}
		if r.readErr != nil {
			if r.readErr == io.EOF {
				if r.p.finish() {
					r.ev = r.p.ev
					return true
				}
				if r.p.err != nil {
					r.err = r.p.err
					return false
				}
			}
			r.err = r.readErr
			return false
		}
		n, err := r.r.Read(r.buf)
		r.off, r.end = 0, n
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.EOF
			}
			r.readErr = err
		}
	}
	return false
}

// Event returns the current event; valid until the next call to Next.
func (r *Reader) Event() Event { return r.ev }

// Err returns the first error met, or nil at a clean end of the stream.
func (r *Reader) Err() error {
	if r.err == io.EOF {
		return nil
	}
	return r.err
}
