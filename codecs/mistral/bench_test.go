package mistral_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/reasonreplay/replay/codecs/mistral"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/stream"
)

// longStream returns a synthetic SSE stream of n thinking chunks (with
// `closed` and padding, as Mistral Small sends them) and n string text
// deltas.
func longStream(n int) []byte {
	var b bytes.Buffer
	pre := `data: {"id":"0f3c","object":"chat.completion.chunk","created":1790000000,"model":"mistral-small-2603","choices":[{"index":0,"delta":`
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%s{\"content\":[{\"type\":\"thinking\",\"thinking\":[{\"type\":\"text\",\"text\":\"step %d: \\\"double\\\" it,\\n \"}],\"closed\":true}]},\"finish_reason\":null}],\"p\":\"abcdefgh\"}\n\n", pre, i)
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%s{\"content\":\"word%d \"},\"finish_reason\":null}]}\n\n", pre, i)
	}
	fmt.Fprintf(&b, "%s{\"content\":\"\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":1,\"total_tokens\":2,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n", pre)
	return b.Bytes()
}

func BenchmarkStream(b *testing.B) {
	data := longStream(2000)
	c := mistral.Codec{}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if _, err := stream.Decode(bytes.NewReader(data), c, stream.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(4002, "events/op")
}

func BenchmarkDecode(b *testing.B) {
	data := read(b, "magistral-thinking.json")
	c := mistral.Codec{}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if _, err := c.Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStreamFraming is BenchmarkStream's framing alone.
func BenchmarkStreamFraming(b *testing.B) {
	data := longStream(2000)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		f := &codectest.FramesOnly{}
		if _, err := stream.Decode(bytes.NewReader(data), kit.Decoding(f), stream.Options{}); err != nil || f.N != 4002 {
			b.Fatalf("%d frames, %v", f.N, err)
		}
	}
}

// TestStreamAllocsPerEvent guards the hot path: decoding allocates for the
// blocks and the text it builds, not per event.
func TestStreamAllocsPerEvent(t *testing.T) {
	data := longStream(2000)
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := stream.Decode(bytes.NewReader(data), mistral.Codec{}, stream.Options{}); err != nil {
			t.Fatal(err)
		}
	})
	perEvent := allocs / 4002
	t.Logf("%.0f allocs for 4002 events: %.3f per event", allocs, perEvent)
	if perEvent >= 0.1 {
		t.Fatalf("%.3f allocs per event, want < 0.1", perEvent)
	}
}
