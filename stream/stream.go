package stream

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/sse"
)

// EventKind says what a stream [Event] reports.
type EventKind uint8

// The provider-agnostic stream events. A reasoning item, text run or tool
// call opens with a Start (or its first Delta, for text), grows by Deltas,
// and closes with an End; Done or Error ends the stream.
const (
	// EventInvalid is the zero EventKind; no decoder emits it.
	EventInvalid EventKind = iota
	// EventReasoningStart opens a reasoning item: Block is its position in
	// the turn and Item the item being built.
	EventReasoningStart
	// EventReasoningDelta appends Delta to the reasoning text or summary of
	// the item at Block. Signature and data pieces are not deltas: they are
	// in the item at EventReasoningEnd.
	EventReasoningDelta
	// EventReasoningEnd closes the item at Block; Item is final.
	EventReasoningEnd
	// EventTextDelta appends Delta to the visible text block at Block.
	EventTextDelta
	// EventToolCallStart opens the tool call at Block; ID and Name are set.
	EventToolCallStart
	// EventToolCallDelta appends Delta to the arguments of the call at
	// Block.
	EventToolCallDelta
	// EventToolCallEnd closes the call at Block.
	EventToolCallEnd
	// EventDone ends a complete stream.
	EventDone
	// EventError reports a provider error (Err is a *ProviderError); the
	// stream is over.
	EventError
)

var eventKindNames = [...]string{
	EventInvalid:        "invalid",
	EventReasoningStart: "reasoning_start",
	EventReasoningDelta: "reasoning_delta",
	EventReasoningEnd:   "reasoning_end",
	EventTextDelta:      "text_delta",
	EventToolCallStart:  "tool_call_start",
	EventToolCallDelta:  "tool_call_delta",
	EventToolCallEnd:    "tool_call_end",
	EventDone:           "done",
	EventError:          "error",
}

// String returns the kind's snake_case name.
func (k EventKind) String() string {
	if int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return "<invalid EventKind>"
}

// Event is one provider-agnostic stream event.
//
// Delta is an immutable string (it is safe to keep). Item points at the
// decoder's item: read it, do not change it; it is final at
// EventReasoningEnd.
type Event struct {
	Kind EventKind
	// Block is the position in the turn's Blocks of the block concerned.
	Block int
	// Delta is the text appended by a delta event.
	Delta string
	// Item is the reasoning item, for reasoning events.
	Item replay.ReasoningItem
	// ID and Name identify a tool call at EventToolCallStart.
	ID, Name string
	// Err is the provider error at EventError.
	Err error
}

// frameDecoder is a codec's stream state machine, as package codecs
// documents it (codecs.FrameDecoder, the same type): it decodes one framed
// event at a time and ends the stream with Finish.
type frameDecoder = interface {
	Decode(typ, data []byte, dst []Event) ([]Event, error)
	Finish() (*replay.Turn, error)
	SetLimits(replay.Limits)
}

// source is a codec that decodes streams (codecs.Codec): every codec
// registered with package codecs is one.
type source interface {
	NewFrameDecoder() frameDecoder
}

// decoderOf returns c's stream decoder, or the error a Decoder or Stream
// of a codec that decodes no streams reports.
func decoderOf(c replay.ReasoningCodec) (frameDecoder, error) {
	s, ok := c.(source)
	if !ok || s == nil {
		api := "<nil>"
		if c != nil {
			api = fmt.Sprintf("%q", c.API())
		}
		return nil, fmt.Errorf("replay: the codec %s decodes no streams (it has no NewFrameDecoder): %w", api, errors.ErrUnsupported)
	}
	fd := s.NewFrameDecoder()
	if fd == nil {
		return nil, fmt.Errorf("replay: the codec %q returned no stream decoder: %w", c.API(), errors.ErrUnsupported)
	}
	return fd, nil
}

// Framing selects how a byte stream is cut into frames.
type Framing uint8

const (
	// FramingSSE reads Server-Sent Events (the WHATWG specification).
	FramingSSE Framing = iota
	// FramingJSONL reads one event's data per line.
	FramingJSONL
	// FramingEventStream reads the AWS binary event stream
	// (`application/vnd.amazon.eventstream`, Bedrock's streaming bodies):
	// each message is one frame whose Type is its `:event-type` header (an
	// exception's `:exception-type`, "error" for an error message) and
	// whose Data is its payload. Both checksums of every message are
	// verified; a corrupt message is an error wrapping [replay.ErrMalformed], a
	// body cut inside a message one wrapping io.ErrUnexpectedEOF, and a
	// payload larger than Limits.MaxEvent a *[replay.LimitError].
	FramingEventStream
	// FramingAuto tells the framing from the first bytes of the stream: a
	// comment or an SSE field ("data:", "event:", "id:", "retry:") is SSE,
	// a first line that is a whole JSON value followed by another line is
	// JSON Lines. A binary AWS event stream and a single JSON value (a
	// response body, not a stream) are reported as errors wrapping
	// [ErrFraming] that say what was seen. The decoder holds at most
	// Limits.MaxEvent bytes while it decides; [Decoder.Framing] and
	// [Stream.Framing] say what it decided.
	FramingAuto
)

// ErrFraming means a stream's bytes are not in the framing asked for, or,
// with [FramingAuto], in none of the framings a [Decoder] reads.
var ErrFraming = errors.New("unrecognised stream framing")

var framingNames = [...]string{FramingSSE: "sse", FramingJSONL: "jsonl", FramingEventStream: "eventstream", FramingAuto: "auto"}

// String returns "sse", "jsonl", "eventstream" or "auto".
func (f Framing) String() string {
	if int(f) < len(framingNames) {
		return framingNames[f]
	}
	return "<invalid Framing>"
}

// ParseFraming maps "sse", "jsonl", "eventstream" and "auto" to a Framing.
func ParseFraming(s string) (Framing, error) {
	switch s {
	case "sse", "":
		return FramingSSE, nil
	case "jsonl":
		return FramingJSONL, nil
	case "eventstream":
		return FramingEventStream, nil
	case "auto":
		return FramingAuto, nil
	}
	return 0, fmt.Errorf("replay: unknown framing %q (want sse, jsonl, eventstream or auto)", s)
}

// detectFraming maps what [sse.Detect] saw to a framing, or to an error
// that says what the bytes were.
func detectFraming(d sse.Detected, prefix []byte) (Framing, error) {
	switch d {
	case sse.DetectSSE:
		return FramingSSE, nil
	case sse.DetectJSONL:
		return FramingJSONL, nil
	case sse.DetectJSON:
		return 0, fmt.Errorf("replay: %w: the input is one JSON value (a response body), not a stream; decode it with the codec's Decode", ErrFraming)
	case sse.DetectEventStream:
		return FramingEventStream, nil
	}
	if len(prefix) == 0 {
		return 0, fmt.Errorf("replay: %w: the stream is empty: %w", ErrFraming, io.ErrUnexpectedEOF)
	}
	return 0, fmt.Errorf("replay: %w: the input starts with %q, neither an SSE field nor a JSON line", ErrFraming, clipBytes(prefix, 24))
}

// clipBytes returns at most n bytes of b, for a message.
func clipBytes(b []byte, n int) []byte {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) > n {
		return b[:n]
	}
	return b
}

func (f Framing) mode() sse.Mode {
	switch f {
	case FramingJSONL:
		return sse.JSONL
	case FramingEventStream:
		return sse.EventStream
	}
	return sse.SSE
}

// Options configure a [Decoder] or [Stream]. The zero value reads SSE
// with the default limits.
type Options struct {
	Framing Framing
	Limits  replay.Limits
	// CaptureOnly makes a [Decoder] keep no events: Next always returns
	// false and only the turn is built, so a Decoder that nobody drains
	// holds no more than the turn however long the stream. A [Stream]
	// ignores it (its events are handed out as they are read).
	CaptureOnly bool
}

// Decoder is the push form of a stream decoder: write raw stream bytes to it
// as they arrive (split anywhere), drain the events with Next, and Close it
// to get the turn. Events not drained are kept until Close, unless
// Options.CaptureOnly is set.
type Decoder struct {
	fd      frameDecoder
	parser  *sse.Parser
	events  []Event
	head    int
	err     error
	capture bool
	framing Framing
	max     int
	prefix  []byte // FramingAuto: bytes held until the framing is known
}

// NewDecoder returns a push decoder that frames bytes per opts and decodes
// the frames with c's stream decoder. A codec that decodes no streams
// gives a Decoder whose Write and Close return an error wrapping
// [errors.ErrUnsupported].
func NewDecoder(c replay.ReasoningCodec, opts Options) *Decoder {
	d := &Decoder{capture: opts.CaptureOnly, framing: opts.Framing}
	d.fd, d.err = decoderOf(c)
	if d.err != nil {
		return d
	}
	setLimits(d.fd, opts.Limits)
	d.max = opts.Limits.WithDefaults().MaxEvent
	if opts.Framing != FramingAuto {
		d.parser = sse.NewParser(opts.Framing.mode(), d.max, (*sink)(d))
	}
	return d
}

// Framing returns the decoder's framing: the one asked for, or, with
// [FramingAuto], the one detected (FramingAuto until it is known).
func (d *Decoder) Framing() Framing { return d.framing }

// sink is the Decoder as its parser's [sse.Sink].
type sink Decoder

// Event decodes one frame.
func (s *sink) Event(ev *sse.Event) error {
	d := (*Decoder)(s)
	if d.capture || d.head == len(d.events) {
		d.events, d.head = d.events[:0], 0
	}
	var err error
	d.events, err = d.fd.Decode(ev.Type, ev.Data, d.events)
	if d.capture {
		clear(d.events)
		d.events = d.events[:0]
	}
	clobber(ev.Type, ev.Data)
	return err
}

// detect holds p until the framing is known (FramingAuto), then creates
// the parser and feeds it what was held. It returns whether the parser
// exists.
func (d *Decoder) detect(p []byte, atEOF bool) (bool, error) {
	d.prefix = append(d.prefix, p...)
	det, ok := sse.Detect(d.prefix, atEOF)
	if !ok {
		if len(d.prefix) < d.max {
			return false, nil
		}
		det = sse.DetectAtLimit(d.prefix)
	}
	fr, err := detectFraming(det, d.prefix)
	if err != nil {
		return false, err
	}
	d.framing = fr
	d.parser = sse.NewParser(fr.mode(), d.max, (*sink)(d))
	held := d.prefix
	d.prefix = nil
	if _, err := d.parser.Write(held); err != nil {
		return true, framingErr(err)
	}
	return true, nil
}

// setLimits hands the caller's limits to fd.
func setLimits(fd frameDecoder, l replay.Limits) {
	if l != (replay.Limits{}) {
		fd.SetLimits(l)
	}
}

// clobber zeroes a frame's bytes once its decoder has returned. A frame is
// valid only during the call; a decoder that kept a view into it (a string
// made without copying) then reads NUL bytes at once, in every test, instead
// of reading the right bytes by luck until the buffer is reused. clear is a
// memclr, a small fraction of the cost of decoding the frame.
func clobber(typ, data []byte) {
	clear(typ)
	clear(data)
}

// Write feeds stream bytes. It never retains p. After an error every call
// returns it; the events decoded before the error can still be drained.
func (d *Decoder) Write(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	if d.parser == nil {
		if _, err := d.detect(p, false); err != nil {
			d.err = err
			return 0, err
		}
		return len(p), nil
	}
	n, err := d.parser.Write(p)
	if err != nil {
		d.err = framingErr(err)
	}
	return n, d.err
}

// Next returns the next decoded event, and false when none is queued.
func (d *Decoder) Next() (Event, bool) {
	if d.head < len(d.events) {
		ev := d.events[d.head]
		d.events[d.head] = Event{}
		d.head++
		return ev, true
	}
	return Event{}, false
}

// Close ends the stream and returns the turn. On error the turn is the
// partial turn (never nil), marked incomplete. Events still queued can be
// drained with Next after Close.
func (d *Decoder) Close() (*replay.Turn, error) {
	if d.fd == nil {
		return &replay.Turn{}, d.err
	}
	if d.err == nil && d.parser == nil {
		if _, err := d.detect(nil, true); err != nil {
			d.err = err
		}
	}
	if d.err == nil {
		if err := d.parser.Close(); err != nil {
			d.err = framingErr(err)
		}
	}
	t, err := d.fd.Finish()
	if t == nil {
		t = &replay.Turn{}
	}
	if d.err != nil {
		t.MarkUnfinished()
		return t, d.err
	}
	return t, err
}

// isFraming reports whether err is the framer's own (a limit or a
// malformed event stream), not the reader's.
func isFraming(err error) bool {
	return errors.As(err, new(*sse.LimitError)) || errors.As(err, new(*sse.FormatError))
}

func framingErr(err error) error {
	var le *sse.LimitError
	if errors.As(err, &le) {
		return &replay.LimitError{What: "event size", Limit: le.Limit, Event: -1, Block: -1}
	}
	var fe *sse.FormatError
	if errors.As(err, &fe) {
		if fe.EOF {
			return &replay.Error{Event: fe.Message, Err: fmt.Errorf("event stream: %s: %w", fe.Msg, io.ErrUnexpectedEOF)}
		}
		return &replay.Error{Event: fe.Message, Err: fmt.Errorf("%w: event stream: %s", replay.ErrMalformed, fe.Msg)}
	}
	return err
}

// Stream is the pull form of a stream decoder over an io.Reader:
//
//	s := stream.New(resp.Body, codec, stream.Options{})
//	for s.Next() {
//		ev := s.Event()
//		...
//	}
//	turn, err := s.Turn() // partial turn and error when the stream failed
//
// Errors are sticky. An error from the reader (a canceled request, a reset
// connection) ends the stream and is returned wrapped by Turn, so
// errors.Is(err, context.Canceled) still holds.
type Stream struct {
	fd      frameDecoder
	r       *sse.Reader
	src     io.Reader // FramingAuto: the reader, until the framing is known
	max     int
	framing Framing
	events  []Event
	head    int
	ev      Event
	err     error
	turn    *replay.Turn
	done    bool
}

// New returns a pull decoder reading r with c's stream decoder. With
// [FramingAuto] it reads nothing until the first call to Next. A codec
// that decodes no streams gives a Stream whose Turn returns an error
// wrapping [errors.ErrUnsupported].
func New(r io.Reader, c replay.ReasoningCodec, opts Options) *Stream {
	fd, err := decoderOf(c)
	if err != nil {
		return &Stream{err: err}
	}
	setLimits(fd, opts.Limits)
	lim := opts.Limits.WithDefaults()
	s := &Stream{fd: fd, max: lim.MaxEvent, framing: opts.Framing}
	if opts.Framing == FramingAuto {
		s.src = r
	} else {
		s.r = sse.NewReader(r, opts.Framing.mode(), lim.MaxEvent)
	}
	return s
}

// Framing returns the stream's framing: the one asked for, or, with
// [FramingAuto], the one detected (FramingAuto until it is known).
func (s *Stream) Framing() Framing { return s.framing }

// detect reads the first bytes of s.src until the framing is known, then
// sets up the reader over them and the rest.
func (s *Stream) detect() error {
	prefix, det, err := sse.DetectReader(s.src, s.max)
	if err != nil {
		return fmt.Errorf("replay: reading stream: %w", err)
	}
	fr, err := detectFraming(det, prefix)
	if err != nil {
		return err
	}
	s.framing = fr
	s.r = sse.NewReader(io.MultiReader(bytes.NewReader(prefix), s.src), fr.mode(), s.max)
	s.src = nil
	return nil
}

// Next advances to the next event and reports whether there is one.
func (s *Stream) Next() bool {
	for {
		if s.head < len(s.events) {
			s.ev = s.events[s.head]
			s.events[s.head] = Event{}
			s.head++
			return true
		}
		if s.done || s.err != nil {
			return false
		}
		if s.r == nil {
			if err := s.detect(); err != nil {
				s.err = err
				return false
			}
		}
		s.events, s.head = s.events[:0], 0
		if !s.r.Next() {
			if err := s.r.Err(); err != nil {
				s.err = framingErr(err)
				if !isFraming(err) {
					s.err = fmt.Errorf("replay: reading stream: %w", err)
				}
			}
			s.done = true
			continue
		}
		ev := s.r.Event()
		var err error
		s.events, err = s.fd.Decode(ev.Type, ev.Data, s.events)
		clobber(ev.Type, ev.Data)
		if err != nil {
			s.err = err
		}
	}
}

// Event returns the current event.
func (s *Stream) Event() Event { return s.ev }

// Err returns the first error, or nil while the stream is healthy.
func (s *Stream) Err() error { return s.err }

// Turn drains the stream if needed and returns the turn. On error the turn
// is the partial turn (never nil), marked incomplete, and err the first
// error.
func (s *Stream) Turn() (*replay.Turn, error) {
	if s.turn != nil {
		return s.turn, s.err
	}
	if s.fd == nil {
		s.turn = &replay.Turn{}
		return s.turn, s.err
	}
	for s.Next() {
	}
	t, err := s.fd.Finish()
	if t == nil {
		t = &replay.Turn{}
	}
	if s.err != nil {
		t.MarkUnfinished()
	} else {
		s.err = err
	}
	s.turn = t
	return t, s.err
}

// Decode reads a whole stream from r with c's stream decoder and returns
// the turn (see [Stream.Turn]).
func Decode(r io.Reader, c replay.ReasoningCodec, opts Options) (*replay.Turn, error) {
	return New(r, c, opts).Turn()
}
