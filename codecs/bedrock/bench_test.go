package bedrock_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/reasonreplay/replay/codecs/bedrock"
	"github.com/reasonreplay/replay/stream"
)

// longStream returns a synthetic ConverseStream of n reasoning deltas, n
// text deltas and a tool call, as JSONL.
func longStream(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"messageStart":{"role":"assistant"}}` + "\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"step %d: the value \"doubles\" again, "}}}}`+"\n", i)
	}
	fmt.Fprintf(&b, `{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"reasoningContent":{"signature":"%s"}}}}`+"\n", strings.Repeat("EqQB", 100))
	b.WriteString(`{"contentBlockStop":{"contentBlockIndex":0}}` + "\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"contentBlockDelta":{"contentBlockIndex":1,"delta":{"text":"word%d "}}}`+"\n", i)
	}
	b.WriteString(`{"contentBlockStop":{"contentBlockIndex":1}}` + "\n")
	b.WriteString(`{"contentBlockStart":{"contentBlockIndex":2,"start":{"toolUse":{"toolUseId":"tooluse_1","name":"f"}}}}` + "\n")
	b.WriteString(`{"contentBlockDelta":{"contentBlockIndex":2,"delta":{"toolUse":{"input":"{\"a\":1}"}}}}` + "\n")
	b.WriteString(`{"contentBlockStop":{"contentBlockIndex":2}}` + "\n")
	b.WriteString(`{"messageStop":{"stopReason":"tool_use"}}` + "\n")
	b.WriteString(`{"metadata":{"usage":{"inputTokens":1,"outputTokens":2,"totalTokens":3}}}` + "\n")
	return b.Bytes()
}

func BenchmarkStream(b *testing.B) {
	data := longStream(2000)
	events := bytes.Count(data, []byte("\n"))
	c := bedrock.Codec{Model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0"}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := stream.New(bytes.NewReader(data), c, stream.Options{Framing: stream.FramingJSONL})
		for s.Next() {
		}
		if _, err := s.Turn(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(events), "events/op")
}

func BenchmarkDecode(b *testing.B) {
	data := read(b, "claude-thinking.json")
	c := bedrock.Codec{Model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0"}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if _, err := c.Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEventStream decodes the same stream from the binary AWS event
// stream encoding.
func BenchmarkEventStream(b *testing.B) {
	bin := toEventStream(b, longStream(2000))
	c := bedrock.Codec{Model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0"}
	b.ReportAllocs()
	b.SetBytes(int64(len(bin)))
	for i := 0; i < b.N; i++ {
		if _, err := stream.Decode(bytes.NewReader(bin), c, stream.Options{Framing: stream.FramingEventStream}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStreamThinkTags decodes the same stream for a Kimi model, whose
// text goes through the <think> splitter.
func BenchmarkStreamThinkTags(b *testing.B) {
	data := longStream(2000)
	c := bedrock.Codec{Model: "moonshot.kimi-k2-thinking"}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if _, err := stream.Decode(bytes.NewReader(data), c, stream.Options{Framing: stream.FramingJSONL}); err != nil {
			b.Fatal(err)
		}
	}
}
