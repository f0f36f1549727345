package codectest

import "github.com/reasonreplay/replay"

// FramesOnly is a frame decoder that counts frames and decodes nothing:
// decoding a stream with it measures the framing alone, on the same bytes
// and the same path as a codec's decoder (the framing-only benchmarks).
type FramesOnly struct{ N int }

// Decode implements [replay.FrameDecoder].
func (f *FramesOnly) Decode(_ replay.Frame, dst []replay.Event) ([]replay.Event, error) {
	f.N++
	return dst, nil
}

// Finish implements [replay.FrameDecoder].
func (f *FramesOnly) Finish() (*replay.Turn, error) { return &replay.Turn{Complete: true}, nil }

// SetLimits implements [replay.FrameDecoder]; it keeps nothing to bound.
func (f *FramesOnly) SetLimits(replay.Limits) {}
