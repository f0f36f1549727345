package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/ssestream"
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/reasonreplay/replay/stream"
)

// longThinkingStream writes an Anthropic Messages SSE stream with one long
// thinking block (n thinking_delta events of realistic size, with newlines,
// quotes and non-ASCII text), its signature, a text block of n/4 deltas and
// a tool call. It returns the bytes and the number of SSE events.
func longThinkingStream(n int) ([]byte, int) {
	var b bytes.Buffer
	events := 0
	ev := func(typ string, v any) {
		data, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", typ, data)
		events++
	}
	type m = map[string]any
	ev("message_start", m{"type": "message_start", "message": m{"id": "msg_01BenchStream000000000001", "type": "message", "role": "assistant",
		"model": "claude-sonnet-4-5-20250929", "content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": m{"input_tokens": 1200, "output_tokens": 1}}})
	ev("content_block_start", m{"type": "content_block_start", "index": 0, "content_block": m{"type": "thinking", "thinking": "", "signature": ""}})
	phrases := []string{
		"Let me work through the constraints one at a time. ",
		"The \"budget\" field must stay under the limit, so ",
		"step %d gives a partial sum of %d;\n",
		"checking the edge case where the list is empty → nothing to do. ",
		"Größe und Gewicht passen, also weiter. ",
	}
	for i := 0; i < n; i++ {
		p := phrases[i%len(phrases)]
		if strings.Contains(p, "%d") {
			p = fmt.Sprintf(p, i, i*7)
		}
		ev("content_block_delta", m{"type": "content_block_delta", "index": 0, "delta": m{"type": "thinking_delta", "thinking": p}})
		if i%100 == 99 {
			ev("ping", m{"type": "ping"})
		}
	}
	sig := strings.Repeat("EqQBCkYIBxgCKkA8AZ4noDfV5VcOJe/p3JTRB6Xz5297mrWhl3MbHSXDKTMf", 12)
	ev("content_block_delta", m{"type": "content_block_delta", "index": 0, "delta": m{"type": "signature_delta", "signature": sig}})
	ev("content_block_stop", m{"type": "content_block_stop", "index": 0})
	ev("content_block_start", m{"type": "content_block_start", "index": 1, "content_block": m{"type": "text", "text": ""}})
	for i := 0; i < n/4; i++ {
		ev("content_block_delta", m{"type": "content_block_delta", "index": 1, "delta": m{"type": "text_delta", "text": "The answer, step by step: "}})
	}
	ev("content_block_stop", m{"type": "content_block_stop", "index": 1})
	ev("content_block_start", m{"type": "content_block_start", "index": 2, "content_block": m{"type": "tool_use", "id": "toolu_01BenchToolCall00000001", "name": "record", "input": m{}}})
	ev("content_block_delta", m{"type": "content_block_delta", "index": 2, "delta": m{"type": "input_json_delta", "partial_json": `{"result": 42, `}})
	ev("content_block_delta", m{"type": "content_block_delta", "index": 2, "delta": m{"type": "input_json_delta", "partial_json": `"ok": true}`}})
	ev("content_block_stop", m{"type": "content_block_stop", "index": 2})
	ev("message_delta", m{"type": "message_delta", "delta": m{"stop_reason": "tool_use", "stop_sequence": nil}, "usage": m{"output_tokens": 9000}})
	ev("message_stop", m{"type": "message_stop"})
	return b.Bytes(), events
}

func decodeOurs(data []byte) (*replay.Turn, error) {
	return stream.Decode(bytes.NewReader(data), anthropic.Codec{}, stream.Options{})
}

func decodeSDK(data []byte) (*sdk.Message, error) {
	res := &http.Response{Header: http.Header{"Content-Type": []string{"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(data))}
	s := ssestream.NewStream[sdk.MessageStreamEventUnion](ssestream.NewDecoder(res), nil)
	msg := &sdk.Message{}
	for s.Next() {
		if err := msg.Accumulate(s.Current()); err != nil {
			return nil, err
		}
	}
	return msg, s.Err()
}

// TestAnthropicSameResult checks both decoders read the same turn from the
// benchmark bytes, and that ours stays under 2 allocations per SSE event.
func TestAnthropicSameResult(t *testing.T) {
	data, events := longThinkingStream(2000)
	ours, err := decodeOurs(data)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := decodeSDK(data)
	if err != nil {
		t.Fatal(err)
	}
	th := ours.Blocks[0].(*replay.ReasoningText)
	if th.Text != theirs.Content[0].Thinking || th.Signature.Value() != theirs.Content[0].Signature {
		t.Fatal("thinking text or signature differ from the SDK's")
	}
	if !th.Replayable() {
		t.Fatal("not replayable")
	}
	if ours.Blocks[1].(*replay.Text).Text != theirs.Content[1].Text {
		t.Fatal("text differs")
	}
	if ours.Blocks[2].(*replay.ToolCall).Arguments != string(theirs.Content[2].Input) {
		t.Fatalf("arguments differ: %s vs %s", ours.Blocks[2].(*replay.ToolCall).Arguments, theirs.Content[2].Input)
	}
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := decodeOurs(data); err != nil {
			t.Fatal(err)
		}
	})
	if per := allocs / float64(events); per >= 2 {
		t.Fatalf("%.3f allocations per SSE event (%v for %d events), want < 2", per, allocs, events)
	} else {
		t.Logf("%.0f allocations for %d SSE events: %.4f per event", allocs, events, per)
	}
}

func BenchmarkAnthropicReplay(b *testing.B) {
	data, events := longThinkingStream(2000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeOurs(data); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(events), "events/op")
}

func BenchmarkAnthropicSDK(b *testing.B) {
	data, events := longThinkingStream(2000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeSDK(data); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(events), "events/op")
}
