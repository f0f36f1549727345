package codectest

import (
	"bytes"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/stretchr/testify/require"
)

// Reshape returns a copy of data, an SSE or JSON Lines stream, with a
// space after the opening brace of every other JSON event (an SSE data
// line or a JSON line that starts with '{'): the same events, but no two
// in a row of one shape, so that a decoder that reads an event like the
// last one by matching its shape (jsonw.Shape) reads every event in full.
func Reshape(data []byte) []byte {
	out := make([]byte, 0, len(data)+len(data)/64)
	n := 0
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line = data[:i+1]
		}
		data = data[len(line):]
		at := -1
		switch {
		case bytes.HasPrefix(line, []byte("data: {")):
			at = len("data: {")
		case bytes.HasPrefix(line, []byte("data:{")):
			at = len("data:{")
		case bytes.HasPrefix(line, []byte("{")):
			at = 1
		}
		if at < 0 {
			out = append(out, line...)
			continue
		}
		if n%2 == 1 {
			out = append(out, line[:at]...)
			out = append(out, ' ')
			out = append(out, line[at:]...)
		} else {
			out = append(out, line...)
		}
		n++
	}
	return out
}

// SameAsReshaped decodes data and [Reshape](data), each whole with a fresh
// decoder from newFD, and requires the same turn document, the same error
// text and the same events: what a decoder reads by matching shapes is
// what it reads in full. It returns the result for data.
func SameAsReshaped(t testing.TB, newFD func() replay.FrameDecoder, opts replay.StreamOptions, data []byte) Result {
	t.Helper()
	got := FeedPush(newFD(), opts, [][]byte{data})
	want := FeedPush(newFD(), opts, [][]byte{Reshape(data)})
	require.Equal(t, string(want.Document()), string(got.Document()), "the turn differs from the one read in full")
	require.Equal(t, errText(want.Err), errText(got.Err), "the error differs from the one read in full")
	require.Equal(t, EventSummary(want.Events), EventSummary(got.Events), "the events differ from those read in full")
	return got
}
