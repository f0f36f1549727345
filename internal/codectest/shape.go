package codectest

import (
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/stretchr/testify/require"
)

// SSE returns the payloads as one SSE stream, a `data:` event each.
func SSE(payloads []string) []byte {
	var b strings.Builder
	for _, p := range payloads {
		b.WriteString("data: " + p + "\n\n")
	}
	return []byte(b.String())
}

// Unshaped returns the payloads with a space after the first comma of
// every other one: no two neighbours then have the same shape, so a
// decoder that reads a chunk like the last one by its shape reads every
// chunk in full.
func Unshaped(payloads []string) []string {
	out := make([]string, len(payloads))
	for i, p := range payloads {
		if k := strings.IndexByte(p, ','); i%2 == 1 && k >= 0 {
			p = p[:k+1] + " " + p[k+1:]
		}
		out[i] = p
	}
	return out
}

// ShapedAsFull decodes the payloads (an SSE stream) with a decoder from
// newFD, and again as [Unshaped] (every chunk read in full), and requires
// the same events, turn document and error. shaped reports how many
// chunks a decoder read by their shape: none unshaped, want as given. It
// sweeps the given stream (see [SweepStream]) and returns its result.
func ShapedAsFull(t testing.TB, newFD func() replay.FrameDecoder, shaped func(replay.FrameDecoder) int, want int, payloads []string) Result {
	t.Helper()
	fd, full := newFD(), newFD()
	got := FeedPush(fd, replay.StreamOptions{}, [][]byte{SSE(payloads)})
	ref := FeedPush(full, replay.StreamOptions{}, [][]byte{SSE(Unshaped(payloads))})
	require.Equal(t, 0, shaped(full), "unshaped chunks read by their shape")
	require.Equal(t, want, shaped(fd), "chunks read by their shape")
	require.Equal(t, errText(ref.Err), errText(got.Err), "error")
	require.Equal(t, EventSummary(ref.Events), EventSummary(got.Events), "events")
	require.Equal(t, string(ref.Document()), string(got.Document()), "turn")
	SweepStream(t, newFD, replay.StreamOptions{}, SSE(payloads))
	return got
}
