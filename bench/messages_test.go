package bench

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	anthssestream "github.com/anthropics/anthropic-sdk-go/packages/ssestream"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/reasonreplay/replay/codecs/openai"
	"github.com/reasonreplay/replay/stream"
)

// anthropicToolLoop writes the multi-block tool-loop shape of issue 16 for
// the Messages API: blocks thinking blocks of deltas thinking_delta events
// each, every one signed and followed by a tool_use (its input in two
// input_json_delta pieces), then a text block of deltas text_delta events.
// Text, ids and signatures are invented. It returns the stream and its
// number of SSE events.
func anthropicToolLoop(blocks, deltas int) ([]byte, int) {
	var b bytes.Buffer
	n := 0
	ev := func(typ, data string) {
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", typ, data)
		n++
	}
	ev("message_start", `{"type":"message_start","message":{"id":"msg_01BenchLoop0000000000001","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1200,"output_tokens":1}}}`)
	sig := strings.Repeat("EqQBCkYIBxgCKkA8AZ4noDfV5VcOJe/p3JTRB6Xz5297mrWhl3MbHSXDKTMf", 8)
	ix := 0
	for k := 0; k < blocks; k++ {
		ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"thinking","thinking":"","signature":""}}`, ix))
		for d := 0; d < deltas; d++ {
			ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"thinking_delta","thinking":"step %d: the \"value\" doubles →\n"}}`, ix, d%97))
		}
		ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"signature_delta","signature":"%s"}}`, ix, sig))
		ev("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, ix))
		ix++
		ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":"toolu_01Loop%08d","name":"read_file","input":{}}}`, ix, k))
		ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":"{\"path\": "}}`, ix))
		ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":"\"src/f%d.go\"}"}}`, ix, k))
		ev("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, ix))
		ix++
	}
	ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, ix))
	for d := 0; d < deltas; d++ {
		ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":"word %d, "}}`, ix, d))
	}
	ev("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, ix))
	ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":9000}}`)
	ev("message_stop", `{"type":"message_stop"}`)
	return b.Bytes(), n
}

// msgCase is one stream of a Messages or Responses codec, the decoder and
// the SDK peer that read it.
type msgCase struct {
	name   string
	data   []byte
	events int
	newFD  func() codecs.FrameDecoder
	blocks int
	peer   string
	sdk    func(data []byte) error
}

func anthropicPeer(data []byte) error {
	res := &http.Response{Header: http.Header{"Content-Type": []string{"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(data))}
	s := anthssestream.NewStream[sdk.MessageStreamEventUnion](anthssestream.NewDecoder(res), nil)
	msg := &sdk.Message{}
	for s.Next() {
		if err := msg.Accumulate(s.Current()); err != nil {
			return err
		}
	}
	return s.Err()
}

func responsesPeer(data []byte) error {
	res := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": []string{"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(data))}
	s := ssestream.NewStream[responses.ResponseStreamEventUnion](ssestream.NewDecoder(res), nil)
	for s.Next() {
		if s.Current().Type == "" {
			return fmt.Errorf("an event without a type")
		}
	}
	return s.Err()
}

var msgCases = func() []msgCase {
	long, longN := longThinkingStream(2000)
	loop, loopN := anthropicToolLoop(200, 200)
	rloop, rloopN := responsesToolLoop(200, 200)
	return []msgCase{
		{"Anthropic/long", long, longN, anthropic.Codec{}.NewFrameDecoder, 3, "anthropic-sdk-go", anthropicPeer},
		{"Anthropic/toolloop", loop, loopN, anthropic.Codec{}.NewFrameDecoder, 401, "anthropic-sdk-go", anthropicPeer},
		{"Responses/long", benchStream, countEvents(benchStream), openai.Codec{}.NewFrameDecoder, 10, "openai-go", responsesPeer},
		{"Responses/toolloop", rloop, rloopN, openai.Codec{}.NewFrameDecoder, 601, "openai-go", responsesPeer},
	}
}()

func (c msgCase) decode(b *testing.B) {
	b.SetBytes(int64(len(c.data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		turn := decodeAll(b, c.newFD(), stream.Options{}, c.data)
		if len(turn.Blocks) != c.blocks || !turn.Complete || !turn.Items()[0].Replayable() {
			b.Fatalf("%d blocks, complete %v", len(turn.Blocks), turn.Complete)
		}
	}
	b.ReportMetric(float64(c.events), "events/op")
}

func (c msgCase) framing(b *testing.B) {
	b.SetBytes(int64(len(c.data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		f := &framesOnly{}
		decodeAll(b, f, stream.Options{}, c.data)
		if f.n != c.events {
			b.Fatalf("%d frames, want %d", f.n, c.events)
		}
	}
}

func (c msgCase) peerBench(b *testing.B) {
	b.SetBytes(int64(len(c.data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := c.sdk(c.data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMessages decodes each Anthropic Messages and OpenAI Responses
// stream into a finished turn ("decode"), frames the same bytes alone
// ("framing"), both in 4 KiB writes, and decodes them with the SDK peer
// ("sdk"). TestMessagesRatios prints the ratios of one run.
func BenchmarkMessages(b *testing.B) {
	for _, c := range msgCases {
		b.Run(c.name+"/decode", c.decode)
		b.Run(c.name+"/framing", c.framing)
		b.Run(c.name+"/sdk", c.peerBench)
	}
}

var msgRatios = flag.Int("messages.ratios", 0, "TestMessagesRatios: measure each stream this many rounds and print the medians and ratios")

// TestMessagesRatios (with -messages.ratios N) measures decode, framing and
// the SDK peer on each stream in N alternating rounds and prints, per
// stream, the medians in MB/s, decode's share of framing speed, its
// allocations per event and its ratio to the SDK.
func TestMessagesRatios(t *testing.T) {
	if *msgRatios == 0 {
		t.Skip("run with -messages.ratios 3")
	}
	type res struct{ dec, frm, sdk []float64 }
	all := make([]res, len(msgCases))
	allocs := make([]float64, len(msgCases))
	for r := 0; r < *msgRatios; r++ {
		for i, c := range msgCases {
			d := testing.Benchmark(c.decode)
			f := testing.Benchmark(c.framing)
			s := testing.Benchmark(c.peerBench)
			all[i].dec = append(all[i].dec, float64(d.NsPerOp()))
			all[i].frm = append(all[i].frm, float64(f.NsPerOp()))
			all[i].sdk = append(all[i].sdk, float64(s.NsPerOp()))
			allocs[i] = float64(d.AllocsPerOp())
		}
	}
	med := func(x []float64) float64 { x = slices.Clone(x); slices.Sort(x); return x[len(x)/2] }
	mbs := func(n int, ns float64) float64 { return float64(n) / ns * 1e3 }
	t.Logf("| stream | bytes, events | decode MB/s | framing MB/s | share of framing | allocs/event | peer | peer MB/s | ratio to peer |")
	for i, c := range msgCases {
		d, f, s := med(all[i].dec), med(all[i].frm), med(all[i].sdk)
		t.Logf("| %s | %d, %d | %.0f | %.0f | %.0f%% | %.3f | %s | %.1f | %.1fx |", c.name, len(c.data), c.events,
			mbs(len(c.data), d), mbs(len(c.data), f), 100*f/d, allocs[i]/float64(c.events), c.peer, mbs(len(c.data), s), s/d)
	}
}
