package sse

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"io"
)

// Detected is the framing of a byte stream as told by [Detect] from its
// first bytes.
type Detected uint8

const (
	// DetectUnknown means the bytes look like none of the framings.
	DetectUnknown Detected = iota
	// DetectJSON means one JSON value: a whole response body, not a stream.
	DetectJSON
	// DetectSSE means Server-Sent Events: the first line is a comment or a
	// data, event, id or retry field.
	DetectSSE
	// DetectJSONL means JSON Lines: the first line is a whole JSON value and
	// another line follows.
	DetectJSONL
	// DetectEventStream means the AWS binary event-stream encoding
	// (application/vnd.amazon.eventstream): the first 12 bytes are a message
	// prelude whose CRC32 checks.
	DetectEventStream
)

var detectedNames = [...]string{"unknown", "json", "sse", "jsonl", "eventstream"}

// String returns "unknown", "json", "sse", "jsonl" or "eventstream".
func (d Detected) String() string {
	if int(d) < len(detectedNames) {
		return detectedNames[d]
	}
	return "<invalid Detected>"
}

// Detect tells the framing of a stream from its first bytes b. atEOF
// reports that b is the whole input. ok is false when Detect needs more
// bytes to decide (never when atEOF is true); the caller then reads more
// and calls again with the longer prefix, and decides for itself when the
// prefix grows past its limit (see [DetectAtLimit]).
//
// The rules, in order: a first byte 0x00 is a binary event-stream prelude
// when its checksum holds (text never starts with NUL); after an optional
// BOM and white space, ':' or a "data", "event", "id" or "retry" field
// name is SSE; a first line that is a whole JSON value followed by another
// non-blank line is JSON Lines; any other JSON start is one JSON value.
func Detect(b []byte, atEOF bool) (d Detected, ok bool) {
	if len(b) > 0 && b[0] == 0 {
		if len(b) < 12 {
			return DetectUnknown, atEOF
		}
		total := binary.BigEndian.Uint32(b[0:4])
		headers := binary.BigEndian.Uint32(b[4:8])
		if crc32.ChecksumIEEE(b[:8]) == binary.BigEndian.Uint32(b[8:12]) && total >= 16 && headers <= total-16 {
			return DetectEventStream, true
		}
		return DetectUnknown, true
	}
	if len(b) < len(bom) && bytes.HasPrefix(bom, b) && !atEOF {
		return DetectUnknown, false
	}
	b = bytes.TrimPrefix(b, bom)
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	if i == len(b) {
		return DetectUnknown, atEOF
	}
	rest := b[i:]
	switch c := rest[0]; {
	case c == ':':
		return DetectSSE, true
	case c == '{' || c == '[':
		return detectJSON(rest, atEOF)
	case c >= 'a' && c <= 'z':
		end := bytes.IndexAny(rest, ":\r\n")
		if end < 0 {
			if !atEOF && len(rest) < len("retry") {
				return DetectUnknown, false
			}
			end = len(rest)
		}
		switch string(rest[:end]) {
		case "data", "event", "id", "retry":
			return DetectSSE, true
		}
	}
	return DetectUnknown, true
}

// DetectAtLimit is the decision for a prefix that grew to the caller's
// limit without [Detect] deciding: a JSON start is one JSON value (a body
// too large to be a single line of JSON Lines), anything else unknown.
func DetectAtLimit(b []byte) Detected {
	b = bytes.TrimLeft(bytes.TrimPrefix(b, bom), " \t\r\n")
	if len(b) > 0 && (b[0] == '{' || b[0] == '[') {
		return DetectJSON
	}
	return DetectUnknown
}

// detectJSON tells one JSON value from JSON Lines; b starts with '{' or '['.
func detectJSON(b []byte, atEOF bool) (Detected, bool) {
	nl := bytes.IndexAny(b, "\r\n")
	if nl < 0 {
		if atEOF {
			return DetectJSON, true
		}
		return DetectUnknown, false
	}
	if !json.Valid(b[:nl]) {
		// A value spread over several lines: a (pretty-printed) body.
		return DetectJSON, true
	}
	for _, c := range b[nl:] {
		if !isSpace(c) {
			return DetectJSONL, true
		}
	}
	if atEOF {
		return DetectJSON, true
	}
	return DetectUnknown, false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// DetectReader reads the first bytes of r, at most max (<= 0 means
// [DefaultMaxEvent]), until their framing is known, and returns them with
// what [Detect] (or [DetectAtLimit]) says they are. The caller reads the input as
// io.MultiReader(bytes.NewReader(prefix), r). err is a read error other
// than io.EOF.
func DetectReader(r io.Reader, max int) (prefix []byte, what Detected, err error) {
	return DetectReaderSize(r, max, 0)
}

// DetectReaderSize is DetectReader for an input of size bytes when size
// is more than 0 (a regular file's): it reads the first bytes as
// DetectReader does, and when they do not tell the framing (a body, whose
// end tells it from a stream of JSON lines), it grows its buffer once, to
// the input's size and one byte more (at most max), not by doubling.
func DetectReaderSize(r io.Reader, max int, size int64) (prefix []byte, what Detected, err error) {
	if max <= 0 {
		max = DefaultMaxEvent
	}
	buf := make([]byte, 0, min(max, 4096))
	for {
		if len(buf) == cap(buf) {
			if want := min(int64(max), size+1); size > 0 && want > int64(cap(buf)) {
				buf = append(make([]byte, 0, want), buf...)
			} else {
				buf = append(buf, 0)[:len(buf)]
			}
		}
		n, rerr := r.Read(buf[len(buf):min(cap(buf), max)])
		buf = buf[:len(buf)+n]
		atEOF := rerr == io.EOF
		if rerr != nil && !atEOF {
			return buf, DetectUnknown, rerr
		}
		if d, ok := Detect(buf, atEOF); ok {
			return buf, d, nil
		}
		if len(buf) >= max {
			return buf, DetectAtLimit(buf), nil
		}
	}
}
