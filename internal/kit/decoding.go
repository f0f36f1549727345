package kit

import (
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
)

// Decoding hands fd to package stream, which takes a codec: it returns a
// codec whose stream decoder is fd, for a caller that composes stream
// decoders (the CLI's detecting decoder, tests' fakes). Only its API and
// NewFrameDecoder may be called; NewFrameDecoder returns fd itself, so the
// codec serves one stream.
func Decoding(fd codecs.FrameDecoder) replay.ReasoningCodec { return decoding{fd: fd} }

type decoding struct {
	replay.ReasoningCodec // nil: a decoding is only a stream decoder
	fd                    codecs.FrameDecoder
}

func (d decoding) API() string                          { return "" }
func (d decoding) NewFrameDecoder() codecs.FrameDecoder { return d.fd }

// FrameDecoderOf returns a fresh stream decoder of c, or false when c
// decodes no streams (it is not a [codecs.Codec]).
func FrameDecoderOf(c replay.ReasoningCodec) (codecs.FrameDecoder, bool) {
	s, ok := c.(codecs.Codec)
	if !ok || s == nil {
		return nil, false
	}
	fd := s.NewFrameDecoder()
	return fd, fd != nil
}
