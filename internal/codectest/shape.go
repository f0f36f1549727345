package codectest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/stream"
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
func SameAsReshaped(t testing.TB, newFD func() codecs.FrameDecoder, opts stream.Options, data []byte) Result {
	t.Helper()
	got := FeedPush(newFD(), opts, [][]byte{data})
	want := FeedPush(newFD(), opts, [][]byte{Reshape(data)})
	require.Equal(t, string(want.Document()), string(got.Document()), "the turn differs from the one read in full")
	require.Equal(t, errText(want.Err), errText(got.Err), "the error differs from the one read in full")
	require.Equal(t, EventSummary(want.Events), EventSummary(got.Events), "the events differ from those read in full")
	return got
}

// SSE returns the payloads as one SSE stream, a `data:` event each.
func SSE(payloads []string) []byte {
	var b strings.Builder
	for _, p := range payloads {
		b.WriteString("data: " + p + "\n\n")
	}
	return []byte(b.String())
}

// ShapedAsFull decodes the payloads (an SSE stream) with a decoder from
// newFD, and again [Reshape]d (every chunk read in full), and requires
// the same events, turn document and error. shaped reports how many
// chunks a decoder read by their shape: none unshaped, want as given. It
// sweeps the given stream (see [SweepStream]) and returns its result.
func ShapedAsFull(t testing.TB, newFD func() codecs.FrameDecoder, shaped func(codecs.FrameDecoder) int, want int, payloads []string) Result {
	t.Helper()
	fd, full := newFD(), newFD()
	got := FeedPush(fd, stream.Options{}, [][]byte{SSE(payloads)})
	ref := FeedPush(full, stream.Options{}, [][]byte{Reshape(SSE(payloads))})
	require.Equal(t, 0, shaped(full), "unshaped chunks read by their shape")
	require.Equal(t, want, shaped(fd), "chunks read by their shape")
	require.Equal(t, errText(ref.Err), errText(got.Err), "error")
	require.Equal(t, EventSummary(ref.Events), EventSummary(got.Events), "events")
	require.Equal(t, string(ref.Document()), string(got.Document()), "turn")
	SweepStream(t, newFD, stream.Options{}, SSE(payloads))
	return got
}
