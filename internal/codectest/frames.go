package codectest

import (
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/stream"
)

// FramesOnly is a frame decoder that counts frames and decodes nothing:
// decoding a stream with it measures the framing alone, on the same bytes
// and the same path as a codec's decoder (the framing-only benchmarks).
type FramesOnly struct{ N int }

// Decode implements [codecs.FrameDecoder].
func (f *FramesOnly) Decode(typ, data []byte, dst []stream.Event) ([]stream.Event, error) {
	f.N++
	return dst, nil
}

// Finish implements [codecs.FrameDecoder].
func (f *FramesOnly) Finish() (*replay.Turn, error) { return &replay.Turn{Complete: true}, nil }

// SetLimits implements [codecs.FrameDecoder]; it keeps nothing to bound.
func (f *FramesOnly) SetLimits(replay.Limits) {}
