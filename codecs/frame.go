package codecs

import (
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/stream"
)

// Codec is what a codec package implements: the user's [replay.ReasoningCodec]
// and the stream decoder package stream reads its responses with. Every
// codec registered in [replay.Default] is one; codectest.Run checks it.
type Codec interface {
	replay.ReasoningCodec
	// NewFrameDecoder returns a fresh stream decoder for the API's
	// streamed responses, bound by the codec's limits.
	NewFrameDecoder() FrameDecoder
}

// FrameDecoder is a codec's stream state machine: it decodes one framed
// event at a time. Package stream cuts the bytes into frames (Server-Sent
// Events, JSON Lines, the AWS event stream) and hands each to Decode:
// typ is the event type (the SSE event field, the event stream's
// :event-type; empty when the stream has none, and for JSON Lines) and
// data the event's data. Both are valid only during the call, and are
// overwritten after it: a decoder copies what it keeps.
//
// Implementations have a ready zero value, route deltas by the provider's
// block index (never by arrival order), append signature pieces to their
// own block, and count a re-sent event (same id or sequence number) once.
// Decode appends the events the frame yields to dst and returns it. After
// Decode returns an error, the decoder is done: later calls return the
// same error.
//
// Finish ends the stream and returns the turn. If the stream was not
// complete (no terminal event, a provider error, an earlier Decode error),
// Finish returns the partial turn, with Complete false and the unfinished
// items marked, together with the error: the first Decode error, or an
// error wrapping io.ErrUnexpectedEOF. Finish may be called once.
//
// SetLimits bounds what the decoder keeps. Package stream calls it with
// its Options.Limits before the first frame; its non-zero fields replace
// the decoder's own (its codec's Limits), its zero fields keep them.
//
// The type is an interface literal, so that package stream, which defines
// the same one unexported, reads any decoder without naming this package.
type FrameDecoder = interface {
	Decode(typ, data []byte, dst []stream.Event) ([]stream.Event, error)
	Finish() (*replay.Turn, error)
	SetLimits(replay.Limits)
}
