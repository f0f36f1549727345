package chatstream_test

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/codecs/chatcompat"
	"github.com/reasonreplay/replay/codecs/mistral"
	"github.com/reasonreplay/replay/codecs/openrouter"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/require"
)

// chatCodec is what the tests need of the three chat-completions codecs.
type chatCodec interface {
	codecs.Codec
	DecodeRequest(body []byte) (replay.History, replay.Target, error)
}

func chatCodecs() []chatCodec {
	return []chatCodec{openrouter.Codec{}, chatcompat.New(chatcompat.APIDeepSeek, "", ""), mistral.Codec{}}
}

func nest(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// TestRefusedJSONSaysWhy: a body, a request, a message to patch and a
// stream chunk that are not valid JSON are refused with the reason: empty
// input, invalid UTF-8, nesting past the limit (also 6,000,000 deep, once
// a fatal stack overflow in Patch), a repeated member name.
func TestRefusedJSONSaysWhy(t *testing.T) {
	huge := nest(6_000_000)
	for _, c := range chatCodecs() {
		api := c.API()
		for _, tc := range []struct{ in, why string }{
			{"", "empty input"},
			{" \n", "empty input"},
			{`{"choices":"` + "\xff" + `"}`, "invalid UTF-8 at byte 12"},
			{nest(10001), "JSON nested 10001 deep, deeper than the limit of 512"},
			{huge, "JSON nested 6000000 deep, deeper than the limit of 512"},
			{`{"choices":[{"message":{"content":"a","content":"b"}}]}`, "the member name at /choices/0/message/content repeats an earlier member of the same object"},
		} {
			label := fmt.Sprintf("%s %.40q", api, tc.in)
			_, err := c.Decode([]byte(tc.in))
			require.ErrorIs(t, err, replay.ErrMalformed, label)
			require.Equal(t, "replay: "+api+": malformed input: expected a JSON chat completion body: "+tc.why, err.Error(), label)
			_, _, err = c.DecodeRequest([]byte(tc.in))
			require.Equal(t, "replay: "+api+": malformed input: expected a JSON request body: "+tc.why, err.Error(), label)
			_, err = c.Patch([]byte(tc.in), &replay.Turn{})
			require.ErrorIs(t, err, replay.ErrMalformed, label)
			require.True(t, strings.HasSuffix(err.Error(), ": "+tc.why), "%s: %v", label, err)
			if strings.TrimSpace(tc.in) == "" || len(tc.in) > 1<<20 {
				continue
			}
			res := codectest.FeedPush(c.NewFrameDecoder(), stream.Options{Framing: stream.FramingJSONL}, [][]byte{[]byte(tc.in + "\n")})
			require.Equal(t, "replay: "+api+": event 0: malformed input: expected a JSON chat completion chunk: "+tc.why, res.Err.Error(), label)
		}
	}
}

// TestDeepArgumentsStayText: tool call arguments assembled from fragments
// into JSON nested past the limit are kept as text: no reader here parses
// them, so they cost no stack; the turn encodes and its document reads
// back.
func TestDeepArgumentsStayText(t *testing.T) {
	const n = 2_000_000
	frag := func(s string) string {
		return `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"` + s + `"}}]}}]}` + "\n\n"
	}
	events := frag(strings.Repeat("[", n)) + frag(strings.Repeat("]", n)) +
		`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n"
	for _, c := range chatCodecs() {
		tu, err := stream.Decode(strings.NewReader(events), c, stream.Options{})
		require.NoError(t, err, c.API())
		require.Equal(t, nest(n), tu.ToolCalls()[0].Arguments, c.API())
		msg, err := c.Encode(tu)
		require.NoError(t, err, c.API())
		require.Contains(t, string(msg), `"arguments":"[[[`)
		back, err := replay.UnmarshalTurn(tu.AppendJSON(nil))
		require.NoError(t, err, c.API())
		require.Equal(t, tu.ToolCalls()[0].Arguments, back.ToolCalls()[0].Arguments)
	}
}

// hostile builds a stream of size n of one hostile shape.
type hostile struct {
	name  string
	sizes []int
	gen   func(n int) string
}

var (
	depths  = []int{1000, 9000, 100_000, 2_000_000}
	counts  = []int{1000, 10_000, 100_000}
	lengths = []int{10_000, 1_000_000, 4_000_000}
)

func chunk(delta string) string {
	return `data: {"choices":[{"index":0,"delta":` + delta + `}]}` + "\n\n"
}

var shapes = []hostile{
	{"nesting depth (in one chunk)", depths, func(n int) string {
		return chunk(`{"content":"x","extra":` + nest(n) + `}`)
	}},
	{"event count (content deltas)", counts, func(n int) string {
		return strings.Repeat(chunk(`{"content":"tok "}`), n)
	}},
	{"event count (reasoning deltas)", counts, func(n int) string {
		return strings.Repeat(chunk(`{"reasoning":"r ","reasoning_content":"r "}`), n)
	}},
	{"event count (tool calls)", counts, func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":"c%d","type":"function","function":{"name":"f","arguments":"{}"}}]}`, i, i)))
		}
		return b.String()
	}},
	{"string length (one content delta)", lengths, func(n int) string {
		return chunk(`{"content":"` + strings.Repeat("a\\n", n/2) + `"}`)
	}},
	{"string length (think tags in content)", lengths, func(n int) string {
		return chunk(`{"content":"<think>` + strings.Repeat("<thi", n/4) + `"}`)
	}},
}

// TestHostileGrowth feeds streams of each hostile shape at growing sizes to
// every chat decoder, under limits, and requires a typed result (a turn,
// or a *replay.LimitError / replay.ErrMalformed / io.ErrUnexpectedEOF),
// peak heap growth within a bound set by the limits, and time about linear
// in the input (the table is in the log).
func TestHostileGrowth(t *testing.T) {
	if testing.Short() {
		t.Skip("sizes up to megabytes")
	}
	lim := replay.Limits{MaxEvent: 8 << 20, MaxItem: 1 << 20, MaxBlocks: 5000, MaxTurn: 4 << 20}
	t.Logf("%-8s %-40s %10s %10s %12s %10s  %s", "codec", "shape", "n", "bytes", "ns/byte", "heap MB", "result")
	for _, c := range chatCodecs() {
		for _, sh := range shapes {
			var perByte []float64
			for _, n := range sh.sizes {
				in := sh.gen(n)
				runtime.GC()
				var before runtime.MemStats
				runtime.ReadMemStats(&before)
				stop := sampleHeap()
				start := time.Now()
				tu, err := stream.Decode(strings.NewReader(in), c, stream.Options{Limits: lim})
				el := time.Since(start)
				// The fastest of three runs: one decode on a machine doing
				// other work can take several times its own time.
				for i := 0; i < 2 && !raceEnabled; i++ {
					start = time.Now()
					_, _ = stream.Decode(strings.NewReader(in), c, stream.Options{Limits: lim})
					el = min(el, time.Since(start))
				}
				peak := stop()
				grew := float64(peak-before.HeapAlloc) / (1 << 20)
				if peak < before.HeapAlloc {
					grew = 0
				}
				result := "ok"
				var le *replay.LimitError
				switch {
				case err == nil:
				case errors.As(err, &le):
					result = "limit: " + le.What
				case errors.Is(err, replay.ErrMalformed):
					result = "malformed"
				case errors.Is(err, io.ErrUnexpectedEOF):
					result = "ended early"
				default:
					t.Fatalf("%s %s n=%d: untyped error %v", c.API(), sh.name, n, err)
				}
				require.NotNil(t, tu)
				pb := float64(el.Nanoseconds()) / float64(len(in))
				perByte = append(perByte, pb)
				t.Logf("%-8s %-40s %10d %10d %12.1f %10.1f  %s", c.API(), sh.name, n, len(in), pb, grew, result)
				// What is kept is bounded by MaxTurn; the frame by
				// MaxEvent; the decoder's own state by a small multiple.
				require.Less(t, grew, float64(4*lim.MaxTurn+2*lim.MaxEvent)/(1<<20)+64, "%s %s n=%d", c.API(), sh.name, n)
			}
			// Linear: the cost per byte at the largest size is within 8x of
			// the smallest (quadratic growth would be 100x over this range).
			// Not under the race detector, whose cost per byte grows with
			// the memory touched.
			if raceEnabled {
				continue
			}
			require.Less(t, perByte[len(perByte)-1], 8*perByte[0]+50, "%s %s: cost per byte grows %v", c.API(), sh.name, perByte)
		}
	}
}

// sampleHeap samples HeapAlloc until the returned func is called, which
// returns the largest value seen.
func sampleHeap() func() uint64 {
	done := make(chan struct{})
	res := make(chan uint64)
	go func() {
		var peak uint64
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
			select {
			case <-done:
				runtime.ReadMemStats(&m)
				res <- max(peak, m.HeapAlloc)
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	return func() uint64 { close(done); return <-res }
}
