package cohere_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/reasonreplay/replay/codecs/cohere"
	"github.com/reasonreplay/replay/stream"
)

// longStream returns a synthetic v2 chat SSE stream of n thinking deltas
// and n text deltas.
func longStream(n int) []byte {
	var b bytes.Buffer
	b.WriteString("event: message-start\ndata: {\"id\":\"x\",\"type\":\"message-start\",\"delta\":{\"message\":{\"role\":\"assistant\"}}}\n\n")
	b.WriteString("event: content-start\ndata: {\"type\":\"content-start\",\"index\":0,\"delta\":{\"message\":{\"content\":{\"type\":\"thinking\",\"thinking\":\"\"}}}}\n\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "event: content-delta\ndata: {\"type\":\"content-delta\",\"index\":0,\"delta\":{\"message\":{\"content\":{\"thinking\":\"step %d: \\\"double\\\" it, \"}}}}\n\n", i)
	}
	b.WriteString("event: content-end\ndata: {\"type\":\"content-end\",\"index\":0}\n\n")
	b.WriteString("event: content-start\ndata: {\"type\":\"content-start\",\"index\":1,\"delta\":{\"message\":{\"content\":{\"type\":\"text\",\"text\":\"\"}}}}\n\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "event: content-delta\ndata: {\"type\":\"content-delta\",\"index\":1,\"delta\":{\"message\":{\"content\":{\"text\":\"word%d \"}}}}\n\n", i)
	}
	b.WriteString("event: content-end\ndata: {\"type\":\"content-end\",\"index\":1}\n\n")
	b.WriteString("event: message-end\ndata: {\"type\":\"message-end\",\"delta\":{\"finish_reason\":\"COMPLETE\"}}\n\n")
	return b.Bytes()
}

func BenchmarkStream(b *testing.B) {
	data := longStream(2000)
	c := cohere.Codec{}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if _, err := stream.Decode(bytes.NewReader(data), c, stream.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(4007, "events/op")
}

func BenchmarkDecode(b *testing.B) {
	data := read(b, "thinking.json")
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if _, err := (cohere.Codec{}).Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}
