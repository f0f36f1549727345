package sse

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"strconv"

	"github.com/reasonreplay/replay/internal/jsonw"
)

// The AWS binary event-stream encoding (`application/vnd.amazon.eventstream`,
// Bedrock's ConverseStream and InvokeModelWithResponseStream bodies): each
// message is a 12-byte prelude (total length, headers length, prelude
// CRC32), the headers, the payload, and the message CRC32, all big-endian.
//
// An `event` message becomes an Event whose Type is its `:event-type`
// header and whose Data is its payload; an `exception` message one whose
// Type is its `:exception-type` header; an `error` message one of Type
// "error" whose Data is `{"code":<:error-code>,"message":<:error-message>}`.
// Other message types yield nothing.

// preludeLen is the size of a message's prelude; a message is at least the
// prelude and its trailing CRC.
const preludeLen = 12

// maxHeaders bounds a message's headers (the service allows 128 KiB).
const maxHeaders = 128 << 10

// FormatError reports bytes that are not a well-formed event-stream message,
// or a stream that ends inside one (EOF true). Message is the 0-based
// number of the message concerned.
type FormatError struct {
	Message int
	Msg     string
	EOF     bool
}

func (e *FormatError) Error() string {
	return "event stream: message " + strconv.Itoa(e.Message) + ": " + e.Msg
}

// Unwrap returns io.ErrUnexpectedEOF for a stream cut inside a message.
func (e *FormatError) Unwrap() error {
	if e.EOF {
		return io.ErrUnexpectedEOF
	}
	return nil
}

// binState is the event-stream framer's state: the message being
// gathered in Parser.line, and its length once its prelude is read.
type binState struct {
	total int // the message length, 0 until the prelude is read
	n     int // messages read
}

func (p *Parser) binFail(msg string) {
	p.err = &FormatError{Message: p.bin.n, Msg: msg}
}

// feedBinary gathers the bytes of one message and reports, like feed, the
// bytes consumed and whether an event is ready.
func (p *Parser) feedBinary(b []byte) (int, bool) {
	used := 0
	for used < len(b) {
		want := preludeLen
		if p.bin.total > 0 {
			want = p.bin.total
		}
		k := min(want-len(p.line), len(b)-used)
		p.line = append(p.line, b[used:used+k]...)
		used += k
		if len(p.line) < want {
			return used, false
		}
		if p.bin.total == 0 {
			if !p.prelude() {
				return len(b), false
			}
			continue
		}
		ok := p.message()
		p.line, p.bin.total = p.line[:0], 0
		p.bin.n++
		if p.err != nil {
			return len(b), false
		}
		if ok {
			return used, true
		}
	}
	return used, false
}

// prelude checks the prelude gathered in p.line and sets the message
// length.
func (p *Parser) prelude() bool {
	pre := p.line[:preludeLen]
	total := binary.BigEndian.Uint32(pre[0:4])
	hlen := binary.BigEndian.Uint32(pre[4:8])
	if crc32.ChecksumIEEE(pre[:8]) != binary.BigEndian.Uint32(pre[8:12]) {
		p.binFail("prelude checksum mismatch")
		return false
	}
	if total < preludeLen+4 || uint64(hlen) > uint64(total)-preludeLen-4 || hlen > maxHeaders {
		p.binFail("bad message length " + strconv.FormatUint(uint64(total), 10) + " (headers " + strconv.FormatUint(uint64(hlen), 10) + ")")
		return false
	}
	if int(total)-preludeLen-4-int(hlen) > p.max {
		p.err = &LimitError{Limit: p.max}
		return false
	}
	p.bin.total = int(total)
	return true
}

// headers are the string headers of one message that the framer reads.
type headers struct {
	msgType, eventType, excType, errCode, errMsg []byte
}

// message checks the whole message in p.line and sets p.ev; it reports
// whether the message yields an event.
func (p *Parser) message() bool {
	msg := p.line
	total := len(msg)
	if crc32.ChecksumIEEE(msg[:total-4]) != binary.BigEndian.Uint32(msg[total-4:]) {
		p.binFail("message checksum mismatch")
		return false
	}
	hlen := int(binary.BigEndian.Uint32(msg[4:8]))
	var h headers
	if !p.readHeaders(msg[preludeLen:preludeLen+hlen], &h) {
		return false
	}
	payload := msg[preludeLen+hlen : total-4]
	switch string(h.msgType) {
	case "event", "":
		if len(h.eventType) == 0 {
			p.binFail("event without an :event-type header")
			return false
		}
		p.ev = Event{Type: h.eventType, Data: payload}
	case "exception":
		if len(h.excType) == 0 {
			h.excType = append(p.typ[:0], "exception"...)
		}
		p.ev = Event{Type: h.excType, Data: payload}
	case "error":
		p.typ = append(p.typ[:0], "error"...)
		p.data = jsonw.String(append(p.data[:0], `{"code":`...), string(h.errCode))
		p.data = jsonw.String(append(p.data, `,"message":`...), string(h.errMsg))
		p.data = append(p.data, '}')
		p.ev = Event{Type: p.typ, Data: p.data}
	default:
		return false // another message type: nothing to decode
	}
	return true
}

// readHeaders reads the string headers the framer needs; values of other
// types are skipped.
func (p *Parser) readHeaders(hs []byte, h *headers) bool {
	for len(hs) > 0 {
		nl := int(hs[0])
		if 1+nl+1 > len(hs) {
			p.binFail("truncated header")
			return false
		}
		name, typ := hs[1:1+nl], hs[1+nl]
		hs = hs[2+nl:]
		size, ok := headerSize(typ, hs)
		if !ok {
			p.binFail("unknown header value type " + strconv.Itoa(int(typ)))
			return false
		}
		if size < 0 || size > len(hs) {
			p.binFail("truncated header " + strconv.Quote(string(name)))
			return false
		}
		if typ == 7 {
			v := hs[2:size]
			switch string(name) {
			case ":message-type":
				h.msgType = v
			case ":event-type":
				h.eventType = v
			case ":exception-type":
				h.excType = v
			case ":error-code":
				h.errCode = v
			case ":error-message":
				h.errMsg = v
			}
		}
		hs = hs[size:]
	}
	return true
}

// headerSize returns the size of a header value of type typ at the start
// of hs (-1 when its length prefix is cut), and false for an unknown type.
func headerSize(typ byte, hs []byte) (int, bool) {
	switch typ {
	case 0, 1:
		return 0, true
	case 2:
		return 1, true
	case 3:
		return 2, true
	case 4:
		return 4, true
	case 5, 8:
		return 8, true
	case 9:
		return 16, true
	case 6, 7:
		if len(hs) < 2 {
			return -1, true
		}
		return 2 + int(binary.BigEndian.Uint16(hs)), true
	}
	return 0, false
}

// finishBinary ends an event stream: bytes of an unfinished message are an
// error wrapping io.ErrUnexpectedEOF.
func (p *Parser) finishBinary() {
	if len(p.line) > 0 && p.err == nil {
		p.err = &FormatError{Message: p.bin.n, Msg: "the stream ended inside a message", EOF: true}
	}
	p.line = p.line[:0]
}
