package bench

import (
	"bytes"
	"flag"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"testing"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/stream"
)

// summaryStream is one benchmark stream of the summary: the bytes, the
// decoder that reads them into a finished turn, and the SDK peers.
type summaryStream struct {
	name   string
	data   []byte
	events int
	opts   stream.Options
	newFD  func() codecs.FrameDecoder
	blocks int
	peers  []gcbPeer
}

// chatSDK reads a chat-completions stream as a Go program talking to
// those endpoints does: openai-go/v3's ssestream of ChatCompletionChunk
// into its ChatCompletionAccumulator (which keeps no reasoning: those
// members stay unparsed extra fields). It returns the chunks read.
func chatSDK(tb testing.TB, data []byte) int {
	res := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": []string{"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(data))}
	s := ssestream.NewStream[oai.ChatCompletionChunk](ssestream.NewDecoder(res), nil)
	var acc oai.ChatCompletionAccumulator
	n := 0
	for s.Next() {
		acc.AddChunk(s.Current())
		n++
	}
	if s.Err() != nil || len(acc.Choices) != 1 {
		tb.Fatalf("openai-go: err %v, %d choices", s.Err(), len(acc.Choices))
	}
	return n
}

// summaryStreams lists every stream of issue 16's table: the Messages
// and Responses streams, Gemini, Cohere and Bedrock, and the chat codecs,
// each in its long-block and its tool-loop shape.
func summaryStreams() []summaryStream {
	var out []summaryStream
	for _, c := range msgCases {
		sdk := c.sdk
		out = append(out, summaryStream{c.name, c.data, c.events, stream.Options{}, c.newFD, c.blocks,
			[]gcbPeer{{c.peer, func(tb testing.TB, data []byte) int {
				if err := sdk(data); err != nil {
					tb.Fatal(err)
				}
				return -1
			}}}})
	}
	for _, c := range gcbCases() {
		out = append(out, summaryStream{c.name, c.data, c.events, c.opts, c.newFD, c.blocks, c.peers})
	}
	for _, c := range chatCases {
		data, events := c.stream()
		out = append(out, summaryStream{c.name, data, events, stream.Options{}, c.newFD, c.blocks,
			[]gcbPeer{{"openai-go", chatSDK}}})
	}
	return out
}

func (c summaryStream) decode(b *testing.B) {
	b.SetBytes(int64(len(c.data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		turn := decodeAll(b, c.newFD(), c.opts, c.data)
		if len(turn.Blocks) != c.blocks || !turn.Complete {
			b.Fatalf("%s: %d blocks, complete %v", c.name, len(turn.Blocks), turn.Complete)
		}
	}
}

func (c summaryStream) framing(b *testing.B) {
	b.SetBytes(int64(len(c.data)))
	for i := 0; i < b.N; i++ {
		f := &framesOnly{}
		decodeAll(b, f, c.opts, c.data)
		if f.n != c.events {
			b.Fatalf("%s: %d frames, want %d", c.name, f.n, c.events)
		}
	}
}

func (c summaryStream) peer(p gcbPeer) func(b *testing.B) {
	return func(b *testing.B) {
		b.SetBytes(int64(len(c.data)))
		for i := 0; i < b.N; i++ {
			if n := p.run(b, c.data); n == 0 {
				b.Fatalf("%s read nothing", p.name)
			}
		}
	}
}

var summaryRounds = flag.Int("summary", 0, "TestSummary: measure every stream this many rounds and print the table of medians")

// TestSummary (with -summary N) measures, for every stream, the decoder,
// the framing alone and each SDK peer on the same bytes, in N rounds that
// alternate them so that all see the same load, and prints issue 16's
// table of medians: MB/s, the decoder's share of framing speed (goal: at
// least a third), its allocations per event (goal: under 0.1) and its
// ratio to each peer (goal: at least 30x).
func TestSummary(t *testing.T) {
	if *summaryRounds == 0 {
		t.Skip("run with -summary 3")
	}
	streams := summaryStreams()
	type res struct {
		dec, frm []float64
		peers    [][]float64
		allocs   float64
	}
	all := make([]res, len(streams))
	for r := 0; r < *summaryRounds; r++ {
		for i, c := range streams {
			runtime.GC()
			d := testing.Benchmark(c.decode)
			f := testing.Benchmark(c.framing)
			all[i].dec = append(all[i].dec, float64(d.NsPerOp()))
			all[i].frm = append(all[i].frm, float64(f.NsPerOp()))
			all[i].allocs = float64(d.AllocsPerOp()) / float64(c.events)
			if all[i].peers == nil {
				all[i].peers = make([][]float64, len(c.peers))
			}
			for k, p := range c.peers {
				all[i].peers[k] = append(all[i].peers[k], float64(testing.Benchmark(c.peer(p)).NsPerOp()))
			}
		}
	}
	med := func(x []float64) float64 { x = slices.Clone(x); slices.Sort(x); return x[len(x)/2] }
	mbs := func(n int, ns float64) float64 { return float64(n) / ns * 1e3 }
	mark := func(ok bool) string {
		if ok {
			return ""
		}
		return " (short)"
	}
	t.Logf("| stream | bytes, events | ours MB/s | framing MB/s | share of framing | allocs/event | peer | peer MB/s | ratio |")
	t.Logf("| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |")
	for i, c := range streams {
		d, f := med(all[i].dec), med(all[i].frm)
		share := f / d
		row := func(peer string, pns float64) {
			p, ratio := "-", "-"
			if pns > 0 {
				p = formatMBs(mbs(len(c.data), pns))
				ratio = formatRatio(pns/d) + mark(pns/d >= 30)
			}
			t.Logf("| %s | %d, %d | %.0f | %.0f | %.0f%%%s | %.3f%s | %s | %s | %s |", c.name, len(c.data), c.events,
				mbs(len(c.data), d), mbs(len(c.data), f), 100*share, mark(share >= 1.0/3), all[i].allocs, mark(all[i].allocs < 0.1),
				peer, p, ratio)
		}
		if len(c.peers) == 0 {
			row("(none)", 0)
		}
		for k, p := range c.peers {
			row(p.name, med(all[i].peers[k]))
		}
	}
}

func formatMBs(v float64) string {
	if v < 10 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

func formatRatio(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + "x" }
