package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	cohereapi "github.com/cohere-ai/cohere-go/v2"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/codecs/bedrock"
	"github.com/reasonreplay/replay/codecs/cohere"
	"github.com/reasonreplay/replay/codecs/gemini"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/stream"
)

// gcbPeer is an SDK decoding the same bytes; it returns the events it read.
type gcbPeer struct {
	name string
	run  func(tb testing.TB, data []byte) int
}

// gcbCase is one stream of the Gemini, Cohere and Bedrock codecs.
type gcbCase struct {
	name   string
	data   []byte
	events int
	opts   stream.Options
	newFD  func() codecs.FrameDecoder
	blocks int
	signed int // replayable reasoning items of the turn
	peers  []gcbPeer
}

// sdkEvents is what a peer must read: the stream's events less a [DONE].
func sdkEvents(data []byte, events int) int {
	if bytes.Contains(data, []byte("data: [DONE]")) {
		return events - 1
	}
	return events
}

var geminiPeers = []gcbPeer{
	{"genai", func(tb testing.TB, data []byte) int { return len(decodeGenAI(tb, data)) }},
	{"genai-path", func(tb testing.TB, data []byte) int { return len(decodeGenAIPath(tb, data)) }},
}

var coherePeers = []gcbPeer{{"cohere-go", cohereSDK}}

// cohereSDK decodes data into cohere-go's typed events (as
// BenchmarkCohereStreamSDK does) and builds the thinking and text.
func cohereSDK(tb testing.TB, data []byte) int {
	r := bufio.NewReader(bytes.NewReader(data))
	var thinking, text strings.Builder
	n := 0
	for {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			tb.Fatal(err)
		}
		payload, ok := bytes.CutPrefix(bytes.TrimRight(line, "\n"), []byte("data: "))
		if !ok {
			continue
		}
		if string(payload) == "[DONE]" {
			break
		}
		var ev cohereapi.V2ChatStreamResponse
		if err := json.Unmarshal(payload, &ev); err != nil {
			tb.Fatal(err)
		}
		n++
		if d := ev.ContentDelta; d != nil && d.Delta != nil && d.Delta.Message != nil && d.Delta.Message.Content != nil {
			if t := d.Delta.Message.Content.Thinking; t != nil {
				thinking.WriteString(*t)
			}
			if t := d.Delta.Message.Content.Text; t != nil {
				text.WriteString(*t)
			}
		}
	}
	if thinking.Len() == 0 || text.Len() == 0 {
		tb.Fatal("cohere-go read no thinking or text")
	}
	return n
}

func gcbCases() []gcbCase {
	bedrockC := bedrock.Codec{Model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0"}
	jsonl := stream.Options{Framing: stream.FramingJSONL}
	gl, gle := GeminiToolLoop(200, 200)
	cl, cle := CohereStream(2000)
	ct, cte := CohereToolLoop(200, 200)
	bl, ble := BedrockStream(2000)
	bt, bte := bedrockToolLoop(200, 200)
	return []gcbCase{
		{"Gemini/long", geminiData, bytes.Count(geminiData, []byte("\n\n")), stream.Options{}, gemini.Codec{}.NewFrameDecoder, 8, 2, geminiPeers},
		{"Gemini/toolloop", gl, gle, stream.Options{}, gemini.Codec{}.NewFrameDecoder, 603, 201, geminiPeers},
		{"Cohere/long", cl, cle, stream.Options{}, cohere.Codec{}.NewFrameDecoder, 2, 1, coherePeers},
		{"Cohere/toolloop", ct, cte, stream.Options{}, cohere.Codec{}.NewFrameDecoder, 401, 200, coherePeers},
		{"Bedrock/long", bl, ble, jsonl, bedrockC.NewFrameDecoder, 3, 1, nil},
		{"Bedrock/toolloop", bt, bte, jsonl, bedrockC.NewFrameDecoder, 401, 200, nil},
	}
}

// BenchmarkGCB decodes each Gemini, Cohere and Bedrock Converse stream
// into a finished turn ("decode"), frames the same bytes alone
// ("framing"), both in 4 KiB writes, and decodes them with each SDK peer.
// decode/framing is the share of framing speed the codec keeps; the
// allocs/event metric is decode's allocations per event.
func BenchmarkGCB(b *testing.B) {
	for _, c := range gcbCases() {
		b.Run(c.name+"/decode", func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			b.ReportAllocs()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			m0 := ms.Mallocs
			for i := 0; i < b.N; i++ {
				turn := decodeAll(b, c.newFD(), c.opts, c.data)
				if len(turn.Blocks) != c.blocks || !turn.Complete {
					b.Fatalf("%d blocks, complete %v", len(turn.Blocks), turn.Complete)
				}
			}
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.Mallocs-m0)/float64(b.N)/float64(c.events), "allocs/event")
			b.ReportMetric(float64(c.events), "events/op")
		})
		b.Run(c.name+"/framing", func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				f := &framesOnly{}
				decodeAll(b, f, c.opts, c.data)
				if f.n != c.events {
					b.Fatalf("%d frames, want %d", f.n, c.events)
				}
			}
		})
		for _, p := range c.peers {
			b.Run(c.name+"/"+p.name, func(b *testing.B) {
				b.SetBytes(int64(len(c.data)))
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if n := p.run(b, c.data); n != sdkEvents(c.data, c.events) {
						b.Fatalf("%s read %d events, want %d", p.name, n, sdkEvents(c.data, c.events))
					}
				}
			})
		}
	}
}

// TestGCBStreamsDecode checks the streams of BenchmarkGCB: each decodes
// into a complete turn of the expected blocks, every reasoning item of a
// signing API replayable, and each peer reads every event.
func TestGCBStreamsDecode(t *testing.T) {
	for _, c := range gcbCases() {
		turn, err := stream.Decode(bytes.NewReader(c.data), kit.Decoding(c.newFD()), c.opts)
		if err != nil || !turn.Complete || len(turn.Blocks) != c.blocks {
			t.Fatalf("%s: %v, %d blocks", c.name, err, len(turn.Blocks))
		}
		replayable := 0
		for _, it := range turn.Items() {
			if it.Replayable() {
				replayable++
			}
		}
		if replayable != c.signed {
			t.Fatalf("%s: %d replayable items, want %d", c.name, replayable, c.signed)
		}
		for _, p := range c.peers {
			if n := p.run(t, c.data); n != sdkEvents(c.data, c.events) {
				t.Fatalf("%s: %s read %d events, want %d", c.name, p.name, n, sdkEvents(c.data, c.events))
			}
		}
	}
}
