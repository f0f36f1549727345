package bench

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/codecs/bedrock"
	"github.com/reasonreplay/replay/codecs/openai"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/stream"
)

// The multi-block tool-loop shape of issue 16: items reasoning items of
// deltas summary deltas, each with its encrypted content and followed by a
// function call, then a message. Text and ids are invented.
func responsesToolLoop(items, deltas int) ([]byte, int) {
	var b bytes.Buffer
	seq, n := 0, 0
	ev := func(typ, rest string) {
		fmt.Fprintf(&b, "event: %s\ndata: {\"type\":\"%s\",%s,\"sequence_number\":%d}\n\n", typ, typ, rest, seq)
		seq++
		n++
	}
	enc := "gAAAAAB" + strings.Repeat("q1w2e3r4t5y6u7i8o9p0", 60)
	ev("response.created", `"response":{"id":"resp_loop","object":"response","status":"in_progress","model":"gpt-5.5","output":[]}`)
	out := 0
	for i := 0; i < items; i++ {
		rs := fmt.Sprintf("rs_loop%06d", i)
		ev("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":{"id":"%s","type":"reasoning","summary":[]}`, out, rs))
		ev("response.reasoning_summary_part.added", fmt.Sprintf(`"item_id":"%s","output_index":%d,"summary_index":0,"part":{"type":"summary_text","text":""}`, rs, out))
		var sb strings.Builder
		for d := 0; d < deltas; d++ {
			tok := fmt.Sprintf(" step%d", d%97)
			sb.WriteString(tok)
			ev("response.reasoning_summary_text.delta", fmt.Sprintf(`"item_id":"%s","output_index":%d,"summary_index":0,"delta":"%s","obfuscation":"k3Jd9x"`, rs, out, tok))
		}
		ev("response.reasoning_summary_part.done", fmt.Sprintf(`"item_id":"%s","output_index":%d,"summary_index":0,"part":{"type":"summary_text","text":"%s"}`, rs, out, sb.String()))
		ev("response.output_item.done", fmt.Sprintf(`"output_index":%d,"item":{"id":"%s","type":"reasoning","summary":[{"type":"summary_text","text":"%s"}],"encrypted_content":"%s"}`, out, rs, sb.String(), enc))
		out++
		fc := fmt.Sprintf("fc_loop%06d", i)
		ev("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":{"id":"%s","type":"function_call","status":"in_progress","arguments":"","call_id":"call_%d","name":"read_file"}`, out, fc, i))
		ev("response.function_call_arguments.delta", fmt.Sprintf(`"item_id":"%s","output_index":%d,"delta":"{\"path\":\"src/f%d.go\"}"`, fc, out, i))
		ev("response.function_call_arguments.done", fmt.Sprintf(`"item_id":"%s","output_index":%d,"arguments":"{\"path\":\"src/f%d.go\"}"`, fc, out, i))
		ev("response.output_item.done", fmt.Sprintf(`"output_index":%d,"item":{"id":"%s","type":"function_call","status":"completed","arguments":"{\"path\":\"src/f%d.go\"}","call_id":"call_%d","name":"read_file"}`, out, fc, i, i))
		out++
	}
	ev("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":{"id":"msg_loop","type":"message","status":"in_progress","role":"assistant","content":[]}`, out))
	ev("response.content_part.added", fmt.Sprintf(`"item_id":"msg_loop","output_index":%d,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}`, out))
	ev("response.output_text.delta", fmt.Sprintf(`"item_id":"msg_loop","output_index":%d,"content_index":0,"delta":"All files read."`, out))
	ev("response.output_item.done", fmt.Sprintf(`"output_index":%d,"item":{"id":"msg_loop","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"All files read.","annotations":[]}]}`, out))
	ev("response.completed", `"response":{"id":"resp_loop","object":"response","status":"completed","model":"gpt-5.5","output":[],"usage":{"input_tokens":1,"output_tokens":2}}`)
	return b.Bytes(), n
}

// bedrockToolLoop is the same shape for ConverseStream (JSON Lines of
// decoded events): items signed reasoning blocks of deltas deltas, each
// followed by a toolUse, then a text block.
func bedrockToolLoop(items, deltas int) ([]byte, int) {
	var b bytes.Buffer
	n := 0
	line := func(s string) { b.WriteString(s); b.WriteByte('\n'); n++ }
	sig := strings.Repeat("EqQB", 100)
	line(`{"messageStart":{"role":"assistant"}}`)
	cbi := 0
	for i := 0; i < items; i++ {
		for d := 0; d < deltas; d++ {
			line(fmt.Sprintf(`{"contentBlockDelta":{"contentBlockIndex":%d,"delta":{"reasoningContent":{"text":"step %d: the value \"doubles\","}}}}`, cbi, d%97))
		}
		line(fmt.Sprintf(`{"contentBlockDelta":{"contentBlockIndex":%d,"delta":{"reasoningContent":{"signature":"%s"}}}}`, cbi, sig))
		line(fmt.Sprintf(`{"contentBlockStop":{"contentBlockIndex":%d}}`, cbi))
		cbi++
		line(fmt.Sprintf(`{"contentBlockStart":{"contentBlockIndex":%d,"start":{"toolUse":{"toolUseId":"tooluse_%d","name":"read_file"}}}}`, cbi, i))
		line(fmt.Sprintf(`{"contentBlockDelta":{"contentBlockIndex":%d,"delta":{"toolUse":{"input":"{\"path\":\"src/f%d.go\"}"}}}}`, cbi, i))
		line(fmt.Sprintf(`{"contentBlockStop":{"contentBlockIndex":%d}}`, cbi))
		cbi++
	}
	line(fmt.Sprintf(`{"contentBlockDelta":{"contentBlockIndex":%d,"delta":{"text":"All files read."}}}`, cbi))
	line(fmt.Sprintf(`{"contentBlockStop":{"contentBlockIndex":%d}}`, cbi))
	line(`{"messageStop":{"stopReason":"end_turn"}}`)
	line(`{"metadata":{"usage":{"inputTokens":1,"outputTokens":2,"totalTokens":3}}}`)
	return b.Bytes(), n
}

// nopFrames consumes frames and keeps nothing: stream.Decode with it
// measures the framing (and the core's event loop) alone, on the same bytes.
type nopFrames struct{ n int }

func (d *nopFrames) Decode(typ, data []byte, dst []stream.Event) ([]stream.Event, error) {
	d.n += len(data)
	return dst, nil
}
func (d *nopFrames) Finish() (*replay.Turn, error) { return &replay.Turn{Complete: true}, nil }
func (d *nopFrames) SetLimits(replay.Limits)       {}

var (
	loopResponses, loopResponsesEvents = responsesToolLoop(400, 400)
	loopBedrock, loopBedrockEvents     = bedrockToolLoop(400, 400)
)

func benchDecode(b *testing.B, data []byte, events int, opts stream.Options, newFD func() codecs.FrameDecoder, check func(*replay.Turn)) {
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	r := bytes.NewReader(data)
	for i := 0; i < b.N; i++ {
		r.Reset(data)
		t, err := stream.Decode(r, kit.Decoding(newFD()), opts)
		if err != nil {
			b.Fatal(err)
		}
		check(t)
	}
	b.ReportMetric(float64(events), "events/op")
}

func BenchmarkResponsesToolLoop(b *testing.B) {
	opts := stream.Options{}
	b.Run("replay", func(b *testing.B) {
		benchDecode(b, loopResponses, loopResponsesEvents, opts, openai.Codec{}.NewFrameDecoder, func(t *replay.Turn) {
			if !t.Complete || len(t.Blocks) != 1201 {
				b.Fatalf("bad turn: %d blocks", len(t.Blocks))
			}
		})
	})
	b.Run("framing", func(b *testing.B) {
		benchDecode(b, loopResponses, loopResponsesEvents, opts, func() codecs.FrameDecoder { return &nopFrames{} }, func(*replay.Turn) {})
	})
	b.Run("openai-go", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(loopResponses)))
		for i := 0; i < b.N; i++ {
			res := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": []string{"text/event-stream"}},
				Body: io.NopCloser(bytes.NewReader(loopResponses))}
			s := ssestream.NewStream[responses.ResponseStreamEventUnion](ssestream.NewDecoder(res), nil)
			n := 0
			for s.Next() {
				if s.Current().Type == "" {
					b.Fatal("no type")
				}
				n++
			}
			if s.Err() != nil || n != loopResponsesEvents {
				b.Fatalf("err %v, %d events", s.Err(), n)
			}
		}
	})
}

func BenchmarkBedrockToolLoop(b *testing.B) {
	opts := stream.Options{Framing: stream.FramingJSONL}
	c := bedrock.Codec{Model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0"}
	b.Run("replay", func(b *testing.B) {
		benchDecode(b, loopBedrock, loopBedrockEvents, opts, c.NewFrameDecoder, func(t *replay.Turn) {
			if !t.Complete || len(t.Blocks) != 801 {
				b.Fatalf("bad turn: %d blocks", len(t.Blocks))
			}
		})
	})
	b.Run("framing", func(b *testing.B) {
		benchDecode(b, loopBedrock, loopBedrockEvents, opts, func() codecs.FrameDecoder { return &nopFrames{} }, func(*replay.Turn) {})
	})
}

func TestToolLoopStreamsDecode(t *testing.T) {
	tu, err := stream.Decode(bytes.NewReader(loopResponses), openai.Codec{}, stream.Options{})
	if err != nil || len(tu.Blocks) != 1201 || tu.Blocks[2].(*replay.ToolCall).ItemID != "fc_loop000000" {
		t.Fatalf("responses: %v, %d blocks", err, len(tu.Blocks))
	}
	tu, err = stream.Decode(bytes.NewReader(loopBedrock), bedrock.Codec{Model: "anthropic.claude-sonnet-4-5"}, stream.Options{Framing: stream.FramingJSONL})
	if err != nil || len(tu.Blocks) != 801 || !tu.Items()[399].Replayable() {
		t.Fatalf("bedrock: %v, %d blocks", err, len(tu.Blocks))
	}
}
