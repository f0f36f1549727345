package openrouter_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/reasonreplay/replay/codecs/openrouter"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/require"
)

// LongStream returns a long Anthropic-upstream OpenRouter stream: n
// reasoning fragments (mirrored in `reasoning`), a signature, and n/4
// content fragments. It returns the stream and its number of SSE events.
func longStream(n int) ([]byte, int) {
	var b bytes.Buffer
	events := 0
	write := func(s string) { b.WriteString("data: "); b.WriteString(s); b.WriteString("\n\n"); events++ }
	head := `{"id":"gen-1","provider":"Anthropic","model":"anthropic/claude-sonnet-4.5","object":"chat.completion.chunk","created":1,"choices":[{"index":0,"delta":`
	for i := 0; i < n; i++ {
		tok := fmt.Sprintf("step %d of the plan, considering the \\\"edge\\\" cases; ", i)
		write(head + `{"role":"assistant","content":"","reasoning":"` + tok + `","reasoning_details":[{"type":"reasoning.text","text":"` + tok + `","format":"anthropic-claude-v1","index":0}]},"finish_reason":null}]}`)
		if i%16 == 0 {
			b.WriteString(": OPENROUTER PROCESSING\n\n")
		}
	}
	write(head + `{"role":"assistant","content":"","reasoning_details":[{"type":"reasoning.text","text":"","signature":"` + strings.Repeat("QUJD", 100) + `","format":"anthropic-claude-v1","index":0}]},"finish_reason":null}]}`)
	for i := 0; i < n/4; i++ {
		write(head + `{"role":"assistant","content":"answer token ` + fmt.Sprint(i) + ` "},"finish_reason":null}]}`)
	}
	write(head + `{"role":"assistant","content":""},"finish_reason":"stop"}]}`)
	b.WriteString("data: [DONE]\n\n")
	events++
	return b.Bytes(), events
}

func BenchmarkStreamDecode(b *testing.B) {
	data, events := longStream(2000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		d := stream.NewDecoder(openrouter.Codec{}, stream.Options{})
		for off := 0; off < len(data); off += 4096 {
			end := min(off+4096, len(data))
			if _, err := d.Write(data[off:end]); err != nil {
				b.Fatal(err)
			}
			for _, ok := d.Next(); ok; _, ok = d.Next() {
			}
		}
		if _, err := d.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(events), "events/op")
}

// TestStreamAllocsPerEvent guards the hot path: decoding allocates for the
// items and the text it builds, not per event.
func TestStreamAllocsPerEvent(t *testing.T) {
	data, events := longStream(2000)
	allocs := testing.AllocsPerRun(5, func() {
		_, err := stream.Decode(bytes.NewReader(data), openrouter.Codec{}, stream.Options{})
		if err != nil {
			t.Fatal(err)
		}
	})
	perEvent := allocs / float64(events)
	t.Logf("%.0f allocs for %d events: %.3f per event", allocs, events, perEvent)
	require.Less(t, perEvent, 0.1)
}

// BenchmarkStreamFraming is BenchmarkStreamDecode's framing alone: the
// ratio of the two is the share of framing speed the codec keeps.
func BenchmarkStreamFraming(b *testing.B) {
	data, events := longStream(2000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		f := &codectest.FramesOnly{}
		d := stream.NewDecoder(kit.Decoding(f), stream.Options{})
		for off := 0; off < len(data); off += 4096 {
			if _, err := d.Write(data[off:min(off+4096, len(data))]); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := d.Close(); err != nil || f.N != events {
			b.Fatalf("%d frames, %v", f.N, err)
		}
	}
}
