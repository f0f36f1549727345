package replayhttp

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/stream"
)

// teeBody passes the response body to the caller untouched and feeds each
// piece the caller reads to the turn's decoder: nothing is read ahead of
// the caller. A stream goes through the codec's push decoder (which keeps
// only the turn and the event being framed); a JSON body is kept up to
// Limits.MaxEvent and decoded at EOF.
type teeBody struct {
	rc io.ReadCloser

	mu       sync.Mutex
	dec      streamSink // a stream: SSE, the AWS event stream, a JSON array
	codec    replay.ReasoningCodec
	buf      []byte // JSON
	max      int
	status   int
	err      error     // first capture error; the caller's bytes still flow
	inf      *inflater // a compressed body: what feeds dec or buf
	finished bool
	finish   func(*replay.Turn, error)
}

// newTeeBody tees rc to the decoder its Content-Type calls for: a framing
// the codec declares for it (codecs.HTTP.Streams), SSE, the AWS binary
// event stream (Bedrock ConverseStream and InvokeModel streams), or, when
// array is set (Gemini's streamGenerateContent without
// alt=sse), a JSON body that is an array of chunks; any other body is
// decoded whole. A body with a gzip or deflate Content-Encoding is decoded
// for the decoder; the caller reads it as it came.
func newTeeBody(rc io.ReadCloser, c replay.ReasoningCodec, h http.Header, array bool, status int, lim replay.Limits, finish func(*replay.Turn, error)) *teeBody {
	b := &teeBody{rc: rc, codec: c, status: status, finish: finish, max: lim.WithDefaults().MaxEvent}
	if status >= 300 {
		return b
	}
	coding, ok := contentCoding(h)
	if !ok {
		b.err = fmt.Errorf("replayhttp: the response's content coding %q is not one the middleware reads (gzip, deflate)", coding)
		return b
	}
	if coding != "" {
		b.inf = newInflater(coding, b.feedPlain)
	}
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	if hc, ok := c.(codecs.HTTPCodec); ok {
		if fr, ok := hc.HTTP().Streams[mt]; ok {
			b.dec = stream.NewDecoder(c, stream.Options{Limits: lim, CaptureOnly: true, Framing: fr})
			return b
		}
	}
	switch {
	case mt == "text/event-stream":
		b.dec = stream.NewDecoder(c, stream.Options{Limits: lim, CaptureOnly: true})
	case mt == "application/vnd.amazon.eventstream":
		b.dec = stream.NewDecoder(c, stream.Options{Limits: lim, CaptureOnly: true, Framing: stream.FramingEventStream})
	case array && (mt == "application/json" || mt == ""):
		if fd, ok := kit.FrameDecoderOf(c); ok {
			b.dec = newArrayDecoder(fd, lim)
		}
	}
	return b
}

// Read reads from the response body and feeds what it read to the decoder.
func (b *teeBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.mu.Lock()
	if b.finished {
		b.mu.Unlock()
		return n, err
	}
	if n > 0 {
		b.feed(p[:n])
	}
	var t *replay.Turn
	var terr error
	done := err != nil
	if done {
		if err == io.EOF {
			t, terr = b.end(nil)
		} else {
			t, terr = b.end(fmt.Errorf("replayhttp: reading the response: %w", err))
		}
	}
	b.mu.Unlock()
	if done {
		b.finish(t, terr)
	}
	return n, err
}

func (b *teeBody) feed(p []byte) {
	if b.inf != nil {
		// Only the inflater's goroutine touches the decoder and b.err
		// until it is closed.
		b.inf.write(p)
		return
	}
	b.feedPlain(p)
}

// feedPlain feeds decoded bytes to the decoder (or the JSON buffer).
func (b *teeBody) feedPlain(p []byte) {
	if b.err != nil {
		return
	}
	if b.dec != nil {
		if _, err := b.dec.Write(p); err != nil {
			b.err = err
		}
		return
	}
	if len(b.buf)+len(p) > b.max {
		b.err = &replay.LimitError{What: "event size", Limit: b.max, API: b.codec.API(), Event: -1, Block: -1}
		b.buf = nil
		return
	}
	b.buf = append(b.buf, p...)
}

// end finishes the turn; early is the reason when the body ended before
// EOF. It is called with b.mu held, once.
func (b *teeBody) end(early error) (*replay.Turn, error) {
	b.finished = true
	if b.inf != nil {
		if err := b.inf.close(early); err != nil && b.err == nil && early == nil {
			b.err = err
		}
		b.inf = nil
	}
	var t *replay.Turn
	var err error
	switch {
	case b.dec != nil:
		t, err = b.dec.Close()
		if b.err != nil && err == nil {
			err = b.err
		}
	case b.err != nil:
		t, err = &replay.Turn{}, b.err
	case early != nil && !jsonw.ValidBytes(b.buf):
		// A JSON reader stops after the value, and may close the body
		// before its EOF: the body is whole when the bytes read are.
		t, err = &replay.Turn{}, io.ErrUnexpectedEOF
	default:
		t, err = b.codec.Decode(b.buf)
		var pe *replay.ProviderError
		if errors.As(err, &pe) && pe.Status == 0 {
			pe.Status = b.status
		}
		if t == nil {
			t = &replay.Turn{}
		}
	}
	b.buf = nil
	if early != nil && (err != nil || !t.Complete) {
		t.MarkUnfinished()
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		err = fmt.Errorf("%w: %w", early, err)
	}
	if err == nil && b.status >= 300 {
		err = &replay.ProviderError{API: b.codec.API(), Status: b.status}
	}
	return t, err
}

// Close closes the response body. A body closed before EOF ends the turn
// there: unless the decoder had already seen the end of the stream, the
// turn is incomplete and the error wraps [ErrClosedEarly].
func (b *teeBody) Close() error {
	b.mu.Lock()
	var t *replay.Turn
	var terr error
	first := !b.finished
	if first {
		t, terr = b.end(ErrClosedEarly)
	}
	b.mu.Unlock()
	if first {
		b.finish(t, terr)
	}
	return b.rc.Close()
}

// ErrClosedEarly is wrapped by the error delivered with a turn whose
// response body was closed before its end. The turn is marked incomplete.
var ErrClosedEarly = errors.New("replayhttp: response body closed before its end")
