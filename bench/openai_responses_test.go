package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/openai"
	"github.com/reasonreplay/replay/stream"
)

// longResponsesStream writes a synthetic Responses SSE stream shaped like a
// long reasoning turn: one reasoning item with `parts` summary parts of
// `deltas` deltas each (with obfuscation padding) and a 16 KiB encrypted
// blob, then a message of `deltas` deltas, then response.completed with the
// full output. Text and ids are invented.
func longResponsesStream(parts, deltas int) []byte {
	var b bytes.Buffer
	seq := 0
	ev := func(v map[string]any) {
		v["sequence_number"] = seq
		seq++
		data, _ := json.Marshal(v)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", v["type"], data)
	}
	const rs, msg = "rs_68b0c0ffee0000000000000000000001", "msg_68b0c0ffee0000000000000000000002"
	enc := "gAAAAAB" + strings.Repeat("q1w2e3r4t5y6u7i8o9p0", 16<<10/20)
	resp := map[string]any{"id": "resp_bench", "object": "response", "status": "in_progress", "model": "gpt-5.5", "output": []any{}}
	ev(map[string]any{"type": "response.created", "response": resp})
	ev(map[string]any{"type": "response.in_progress", "response": resp})
	ev(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": map[string]any{"id": rs, "type": "reasoning", "summary": []any{}, "encrypted_content": enc[:4096]}})
	var sums []any
	for p := 0; p < parts; p++ {
		ev(map[string]any{"type": "response.reasoning_summary_part.added", "item_id": rs, "output_index": 0, "summary_index": p, "part": map[string]any{"type": "summary_text", "text": ""}})
		var sb strings.Builder
		for d := 0; d < deltas; d++ {
			tok := fmt.Sprintf(" step%d", d%97)
			sb.WriteString(tok)
			ev(map[string]any{"type": "response.reasoning_summary_text.delta", "item_id": rs, "output_index": 0, "summary_index": p, "delta": tok, "obfuscation": "k3Jd9x"})
		}
		ev(map[string]any{"type": "response.reasoning_summary_text.done", "item_id": rs, "output_index": 0, "summary_index": p, "text": sb.String()})
		ev(map[string]any{"type": "response.reasoning_summary_part.done", "item_id": rs, "output_index": 0, "summary_index": p, "part": map[string]any{"type": "summary_text", "text": sb.String()}})
		sums = append(sums, map[string]any{"type": "summary_text", "text": sb.String()})
	}
	ritem := map[string]any{"id": rs, "type": "reasoning", "summary": sums, "encrypted_content": enc}
	ev(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": ritem})
	ev(map[string]any{"type": "response.output_item.added", "output_index": 1, "item": map[string]any{"id": msg, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}})
	ev(map[string]any{"type": "response.content_part.added", "item_id": msg, "output_index": 1, "content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
	var tb strings.Builder
	for d := 0; d < deltas; d++ {
		tok := fmt.Sprintf(" word%d", d%89)
		tb.WriteString(tok)
		ev(map[string]any{"type": "response.output_text.delta", "item_id": msg, "output_index": 1, "content_index": 0, "delta": tok, "logprobs": []any{}, "obfuscation": "a9"})
	}
	ev(map[string]any{"type": "response.output_text.done", "item_id": msg, "output_index": 1, "content_index": 0, "text": tb.String(), "logprobs": []any{}})
	mitem := map[string]any{"id": msg, "type": "message", "status": "completed", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": tb.String(), "annotations": []any{}}}}
	ev(map[string]any{"type": "response.output_item.done", "output_index": 1, "item": mitem})
	resp = map[string]any{"id": "resp_bench", "object": "response", "status": "completed", "model": "gpt-5.5", "output": []any{ritem, mitem},
		"usage": map[string]any{"input_tokens": 100, "output_tokens": 5000}}
	ev(map[string]any{"type": "response.completed", "response": resp})
	return b.Bytes()
}

var benchStream = longResponsesStream(8, 500)

func countEvents(data []byte) int { return bytes.Count(data, []byte("\ndata: ")) }

func BenchmarkResponsesStream(b *testing.B) {
	data := benchStream
	b.Run("replay", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		c := openai.Codec{}
		r := bytes.NewReader(data)
		for i := 0; i < b.N; i++ {
			r.Reset(data)
			t, err := stream.Decode(r, c, stream.Options{})
			if err != nil || !t.Complete || len(t.Blocks) != 10 || !t.Blocks[8].(replay.ReasoningItem).Replayable() {
				b.Fatalf("bad turn: %v", err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(countEvents(data)), "ns/event")
	})
	b.Run("openai-go", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			res := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": []string{"text/event-stream"}},
				Body: io.NopCloser(bytes.NewReader(data))}
			s := ssestream.NewStream[responses.ResponseStreamEventUnion](ssestream.NewDecoder(res), nil)
			n := 0
			for s.Next() {
				ev := s.Current()
				if ev.Type == "" {
					b.Fatal("no type")
				}
				n++
			}
			if s.Err() != nil || n != countEvents(data) {
				b.Fatalf("err %v, %d events", s.Err(), n)
			}
		}
	})
}

func TestLongStreamDecodes(t *testing.T) {
	tu, err := stream.Decode(bytes.NewReader(benchStream), openai.Codec{}, stream.Options{})
	if err != nil || !tu.Complete || len(tu.Blocks) != 10 {
		t.Fatalf("err %v, %d blocks", err, len(tu.Blocks))
	}
	if d := tu.Blocks[8].(*replay.Encrypted).Data; len(d) != 7+16<<10/20*20 {
		t.Fatalf("encrypted content of %d bytes", len(d))
	}
}
