package chatcompat

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/require"
)

// longStream returns a DeepSeek-shaped stream: n reasoning_content deltas,
// a tool call in four argument fragments, n/4 content deltas. It returns
// the stream and its number of SSE events.
func longStream(n int) ([]byte, int) {
	var b bytes.Buffer
	events := 0
	pre := `data: {"id":"9c1e","object":"chat.completion.chunk","created":1790000000,"model":"deepseek-v4-flash","system_fingerprint":"fp_1","choices":[{"index":0,"delta":`
	write := func(delta, finish string) {
		fmt.Fprintf(&b, "%s%s,\"logprobs\":null,\"finish_reason\":%s}]}\n\n", pre, delta, finish)
		events++
	}
	for i := 0; i < n; i++ {
		write(fmt.Sprintf(`{"content":null,"reasoning_content":"step %d: check the \"edge\" case, "}`, i), "null")
	}
	write(`{"content":null,"tool_calls":[{"index":0,"id":"call_00_k2P9","type":"function","function":{"name":"lookup","arguments":""}}]}`, "null")
	for _, a := range []string{`{\"q\":`, `\"edge`, ` cases\"`, `}`} {
		write(`{"tool_calls":[{"index":0,"function":{"arguments":"`+a+`"}}]}`, "null")
	}
	for i := 0; i < n/4; i++ {
		write(fmt.Sprintf(`{"content":"word%d "}`, i), "null")
	}
	write(`{"content":""}`, `"tool_calls"`)
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes(), events + 1
}

func BenchmarkStreamDecode(b *testing.B) {
	data, events := longStream(2000)
	c := New(APIDeepSeek, "", "deepseek-v4-flash")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := stream.Decode(bytes.NewReader(data), c, stream.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(events), "events/op")
}

// BenchmarkStreamFraming is BenchmarkStreamDecode's framing alone.
func BenchmarkStreamFraming(b *testing.B) {
	data, events := longStream(2000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		f := &codectest.FramesOnly{}
		if _, err := stream.Decode(bytes.NewReader(data), kit.Decoding(f), stream.Options{}); err != nil || f.N != events {
			b.Fatalf("%d frames, %v", f.N, err)
		}
	}
}

// TestStreamAllocsPerEvent guards the hot path: decoding allocates for the
// blocks and the text it builds, not per event.
func TestStreamAllocsPerEvent(t *testing.T) {
	data, events := longStream(2000)
	c := New(APIDeepSeek, "", "deepseek-v4-flash")
	var tu *replay.Turn
	allocs := testing.AllocsPerRun(5, func() {
		var err error
		tu, err = stream.Decode(bytes.NewReader(data), c, stream.Options{})
		require.NoError(t, err)
	})
	require.Len(t, tu.Blocks, 3)
	require.Equal(t, `{"q":"edge cases"}`, tu.ToolCalls()[0].Arguments)
	perEvent := allocs / float64(events)
	t.Logf("%.0f allocs for %d events: %.3f per event", allocs, events, perEvent)
	require.Less(t, perEvent, 0.1)
}
