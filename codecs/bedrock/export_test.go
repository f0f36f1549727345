package bedrock

import "github.com/reasonreplay/replay/codecs"

// Matched returns how many frames the stream decoder fd read by matching
// the shape of the last one read in full.
func Matched(fd codecs.FrameDecoder) int { return fd.(*StreamDecoder).run.Matched() }
