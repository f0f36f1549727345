package replayhttp

import (
	"errors"
	"fmt"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/sse"
	"github.com/reasonreplay/replay/stream"
)

// streamSink is what a teeBody feeds a streamed response to: a
// [stream.Decoder] (SSE, the AWS event stream), or an arrayDecoder.
type streamSink interface {
	Write(p []byte) (int, error)
	Close() (*replay.Turn, error)
}

// arrayDecoder decodes a stream that is one JSON array of chunks (Gemini's
// streamGenerateContent without alt=sse): each element is one frame of the
// codec's stream decoder. Like a [stream.Decoder] with CaptureOnly, it
// keeps no events, only the turn.
type arrayDecoder struct {
	fd     codecs.FrameDecoder
	p      *sse.ArrayParser
	events []stream.Event
	err    error
}

func newArrayDecoder(fd codecs.FrameDecoder, lim replay.Limits) *arrayDecoder {
	if lim != (replay.Limits{}) {
		fd.SetLimits(lim)
	}
	a := &arrayDecoder{fd: fd}
	a.p = sse.NewArrayParser(lim.WithDefaults().MaxEvent, a)
	return a
}

// Event decodes one element as a frame (the parser's [sse.Sink]).
func (a *arrayDecoder) Event(ev *sse.Event) error {
	var err error
	a.events, err = a.fd.Decode(nil, ev.Data, a.events[:0])
	clear(a.events)
	a.events = a.events[:0]
	return err
}

// Write feeds stream bytes; after an error every call returns it.
func (a *arrayDecoder) Write(p []byte) (int, error) {
	if a.err != nil {
		return 0, a.err
	}
	n, err := a.p.Write(p)
	if err != nil {
		a.err = arrayErr(err)
	}
	return n, a.err
}

// Close ends the stream and returns the turn; on error the partial turn,
// marked incomplete.
func (a *arrayDecoder) Close() (*replay.Turn, error) {
	if a.err == nil {
		if err := a.p.Close(); err != nil {
			a.err = arrayErr(err)
		}
	}
	t, err := a.fd.Finish()
	if t == nil {
		t = &replay.Turn{}
	}
	if a.err != nil {
		t.MarkUnfinished()
		return t, a.err
	}
	return t, err
}

// arrayErr maps the array framer's errors to the root's: a limit to a
// *replay.LimitError, bad framing to a *replay.Error wrapping
// replay.ErrMalformed (or io.ErrUnexpectedEOF for a cut array); a codec's
// error stays as it is.
func arrayErr(err error) error {
	var le *sse.LimitError
	if errors.As(err, &le) {
		return &replay.LimitError{What: "event size", Limit: le.Limit, Event: -1, Block: -1}
	}
	var ae *sse.ArrayError
	if errors.As(err, &ae) {
		if ae.EOF {
			return &replay.Error{Event: -1, Err: fmt.Errorf("%s: %w", ae.Error(), errors.Unwrap(ae))}
		}
		return &replay.Error{Event: -1, Err: fmt.Errorf("%w: %s", replay.ErrMalformed, ae.Error())}
	}
	return err
}
