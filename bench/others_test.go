package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	cohereapi "github.com/cohere-ai/cohere-go/v2"
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/codecs/bedrock"
	"github.com/reasonreplay/replay/codecs/cohere"
	"github.com/reasonreplay/replay/codecs/mistral"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/stream"
)

// decodeAll pushes data in 4 KiB writes through fd and returns the turn.
func decodeAll(b *testing.B, fd codecs.FrameDecoder, opts stream.Options, data []byte) *replay.Turn {
	d := stream.NewDecoder(kit.Decoding(fd), opts)
	for off := 0; off < len(data); off += 4096 {
		if _, err := d.Write(data[off:min(off+4096, len(data))]); err != nil {
			b.Fatal(err)
		}
		for _, ok := d.Next(); ok; _, ok = d.Next() {
		}
	}
	turn, err := d.Close()
	if err != nil {
		b.Fatal(err)
	}
	return turn
}

func BenchmarkBedrockConverseStream(b *testing.B) {
	data, events := BedrockStream(2000)
	c := bedrock.Codec{Model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0"}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		turn := decodeAll(b, c.NewFrameDecoder(), stream.Options{Framing: stream.FramingJSONL}, data)
		if !turn.Items()[0].Replayable() {
			b.Fatal("not replayable")
		}
	}
	b.ReportMetric(float64(events), "events/op")
}

func BenchmarkMistralStream(b *testing.B) {
	data, events := MistralStream(2000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		turn := decodeAll(b, mistral.Codec{}.NewFrameDecoder(), stream.Options{}, data)
		if len(turn.Items()) != 1 {
			b.Fatal("expected one item")
		}
	}
	b.ReportMetric(float64(events), "events/op")
}

func BenchmarkCohereStream(b *testing.B) {
	data, events := CohereStream(2000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		turn := decodeAll(b, cohere.Codec{}.NewFrameDecoder(), stream.Options{}, data)
		if len(turn.Items()) != 1 {
			b.Fatal("expected one item")
		}
	}
	b.ReportMetric(float64(events), "events/op")
}

// BenchmarkCohereStreamSDK decodes the same bytes into cohere-go's typed
// events (V2ChatStreamResponse, the type its ChatStream yields) and builds
// the thinking and text from them. The SSE lines are cut with a
// bufio.Reader: cohere-go's own core.Stream returns a partial line as a
// token when a line straddles its read buffer, and fails on this stream
// with "unexpected end of JSON input".
func BenchmarkCohereStreamSDK(b *testing.B) {
	data, events := CohereStream(2000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r := bufio.NewReader(bytes.NewReader(data))
		var thinking, text strings.Builder
		n := 0
		for {
			line, err := r.ReadBytes('\n')
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
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
				b.Fatal(err)
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
		if thinking.Len() == 0 || text.Len() == 0 || n+1 != events { // events counts the [DONE] frame
			b.Fatalf("SDK read %d events (want %d), %d thinking bytes", n, events, thinking.Len())
		}
	}
	b.ReportMetric(float64(events), "events/op")
}
