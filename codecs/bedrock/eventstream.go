package bedrock

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"unsafe"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
)

// MaxEventStreamMessage is the largest AWS event-stream message
// [NewEventStreamReader] accepts, in bytes (the service limit is 16 MiB of
// payload plus headers).
const MaxEventStreamMessage = 24 << 20

// NewEventStreamReader reads a ConverseStream HTTP body in the AWS binary
// event-stream encoding (`application/vnd.amazon.eventstream`) and returns
// its events as JSON Lines, one `{"<eventType>":<payload>}` object per
// line, the form the [Stream] decoder reads with [replay.FramingJSONL]:
//
//	lines := bedrock.NewEventStreamReader(resp.Body)
//	s := replay.NewStream(lines, codec.NewStream(), replay.StreamOptions{Framing: replay.FramingJSONL})
//
// Each message's prelude and message CRC32 checksums are verified. An
// `event` message is keyed by its `:event-type` header, an `exception`
// message by its `:exception-type` header; an `error` message becomes
// `{"error":{"code":"<:error-code>","message":"<:error-message>"}}`. A corrupt or
// truncated message is an error wrapping [replay.ErrMalformed] (or
// [io.ErrUnexpectedEOF] when the body ends inside a message); the events
// before it have already been returned.
func NewEventStreamReader(r io.Reader) io.Reader { return &eventStreamReader{r: r} }

type eventStreamReader struct {
	r       io.Reader
	prelude [12]byte
	msg     []byte // the message being read
	out     []byte // pending output
	off     int
	n       int // messages read
	err     error
}

func (e *eventStreamReader) Read(p []byte) (int, error) {
	for e.off == len(e.out) {
		if e.err != nil {
			return 0, e.err
		}
		e.out, e.off = e.out[:0], 0
		if err := e.next(); err != nil {
			e.err = err
		}
	}
	n := copy(p, e.out[e.off:])
	e.off += n
	return n, nil
}

func (e *eventStreamReader) fail(format string, args ...any) error {
	return &replay.Error{API: API, Event: e.n, Err: fmt.Errorf("%w: event stream: %s", replay.ErrMalformed, fmt.Sprintf(format, args...))}
}

// next reads one message and appends its line to e.out.
func (e *eventStreamReader) next() error {
	prelude := e.prelude[:]
	if _, err := io.ReadFull(e.r, prelude); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return &replay.Error{API: API, Event: e.n, Err: fmt.Errorf("event stream: truncated prelude: %w", io.ErrUnexpectedEOF)}
		}
		return err // io.EOF at a message boundary, or the reader's error
	}
	total := binary.BigEndian.Uint32(prelude[0:4])
	hlen := binary.BigEndian.Uint32(prelude[4:8])
	if crc32.ChecksumIEEE(prelude[:8]) != binary.BigEndian.Uint32(prelude[8:12]) {
		return e.fail("prelude checksum mismatch")
	}
	if total < 16 || total > MaxEventStreamMessage || uint64(hlen) > uint64(total)-16 {
		return e.fail("bad message length %d (headers %d)", total, hlen)
	}
	if cap(e.msg) < int(total) {
		e.msg = make([]byte, total)
	}
	msg := e.msg[:total]
	copy(msg, prelude)
	if _, err := io.ReadFull(e.r, msg[12:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return &replay.Error{API: API, Event: e.n, Err: fmt.Errorf("event stream: truncated message: %w", io.ErrUnexpectedEOF)}
		}
		return err
	}
	if crc32.ChecksumIEEE(msg[:total-4]) != binary.BigEndian.Uint32(msg[total-4:]) {
		return e.fail("message checksum mismatch")
	}
	headers := msg[12 : 12+hlen]
	payload := msg[12+hlen : total-4]
	// Header values are read in place: they are copied into the output
	// line before the buffer is reused.
	var msgType, eventType, excType, errCode, errMsg string
	for len(headers) > 0 {
		nl := int(headers[0])
		if 1+nl+1 > len(headers) {
			return e.fail("truncated header")
		}
		name := headers[1 : 1+nl]
		typ := headers[1+nl]
		headers = headers[2+nl:]
		var size int
		switch typ {
		case 0, 1:
			size = 0
		case 2:
			size = 1
		case 3:
			size = 2
		case 4:
			size = 4
		case 5, 8:
			size = 8
		case 9:
			size = 16
		case 6, 7:
			if len(headers) < 2 {
				return e.fail("truncated header %q", string(name))
			}
			size = 2 + int(binary.BigEndian.Uint16(headers))
		default:
			return e.fail("unknown header value type %d", typ)
		}
		if size > len(headers) {
			return e.fail("truncated header %q", string(name))
		}
		if typ == 7 {
			v := unsafe.String(unsafe.SliceData(headers[2:size]), size-2)
			switch string(name) {
			case ":message-type":
				msgType = v
			case ":event-type":
				eventType = v
			case ":exception-type":
				excType = v
			case ":error-code":
				errCode = v
			case ":error-message":
				errMsg = v
			}
		}
		headers = headers[size:]
	}
	e.n++
	switch msgType {
	case "event", "":
		if eventType == "" {
			return e.fail("event without an :event-type header")
		}
		return e.line(eventType, payload)
	case "exception":
		if excType == "" {
			excType = "exception"
		}
		return e.line(excType, payload)
	case "error":
		body := jsonw.String([]byte(`{"code":`), errCode)
		body = jsonw.String(append(body, `,"message":`...), errMsg)
		return e.line("error", append(body, '}'))
	}
	return nil // another message type: nothing for the decoder
}

func (e *eventStreamReader) line(key string, payload []byte) error {
	if len(payload) == 0 {
		payload = []byte("{}")
	}
	if !jsonw.ValidBytes(payload) {
		return e.fail("the %s payload is not JSON", key)
	}
	e.out = append(e.out, '{')
	e.out = jsonw.String(e.out, key)
	e.out = append(e.out, ':')
	for _, c := range payload {
		// JSON Lines: a payload's own line ends are white space.
		if c == '\n' || c == '\r' {
			c = ' '
		}
		e.out = append(e.out, c)
	}
	e.out = append(e.out, '}', '\n')
	return nil
}
