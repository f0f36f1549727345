package replay_test

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/codecs/chatcompat"
	"github.com/reasonreplay/replay/codecs/mistral"
	"github.com/reasonreplay/replay/codecs/openrouter"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/stream"
)

// loopTurn decodes an OpenRouter tool loop of blocks signed reasoning
// blocks (deltas fragments each), each followed by a tool call, then text:
// the large turn the whole-body benchmarks read and write.
func loopTurn(tb testing.TB, blocks, deltas int) *replay.Turn {
	tb.Helper()
	turn, err := stream.Decode(bytes.NewReader(orLoop(blocks, deltas)), openrouter.Codec{}, stream.Options{})
	if err != nil || len(turn.Blocks) != 2*blocks+1 {
		tb.Fatalf("the tool loop decodes to %d blocks: %v", len(turn.Blocks), err)
	}
	return turn
}

// orLoop is an OpenRouter stream (Anthropic upstream) of that shape.
func orLoop(blocks, deltas int) []byte {
	var b bytes.Buffer
	ev := func(delta, finish string) {
		fmt.Fprintf(&b, `data: {"id":"gen-2","provider":"Anthropic","model":"anthropic/claude-sonnet-4.5","object":"chat.completion.chunk","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`+"\n\n", delta, finish)
	}
	for k := 0; k < blocks; k++ {
		for i := 0; i < deltas; i++ {
			tok := fmt.Sprintf(`token %d of step %d, the \"edge\" case;\n `, i, k)
			ev(fmt.Sprintf(`{"role":"assistant","content":"","reasoning":"%s","reasoning_details":[{"type":"reasoning.text","text":"%s","format":"anthropic-claude-v1","index":%d}]}`, tok, tok, k), "null")
		}
		ev(fmt.Sprintf(`{"role":"assistant","content":"","reasoning_details":[{"type":"reasoning.text","text":"","signature":"%s","format":"anthropic-claude-v1","index":%d}]}`, strings.Repeat("RXFv", 80), k), "null")
		ev(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":"call_%04d","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"src/f%d.go\"}"}}]}`, k, k, k), "null")
	}
	for i := 0; i < deltas; i++ {
		ev(fmt.Sprintf(`{"role":"assistant","content":"answer %d "}`, i), "null")
	}
	ev(`{}`, `"tool_calls"`)
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// BenchmarkWholeBody measures the whole-body paths on one large turn (an
// OpenRouter tool loop of 100 signed reasoning blocks of 100 fragments,
// each followed by a tool call, then text), in MB/s of the bytes each
// reads: Decode (the response body), Encode (the turn's assistant
// message; bytes written), Carry (to Anthropic; the turn document's
// bytes), AuditRequest (a request body replaying the turn).
func BenchmarkWholeBody(b *testing.B) {
	turn := loopTurn(b, 100, 100)
	c := openrouter.Codec{}
	msg, err := c.Encode(turn)
	if err != nil {
		b.Fatal(err)
	}
	body := []byte(`{"id":"gen-1","provider":"Anthropic","model":"anthropic/claude-sonnet-4.5","object":"chat.completion","choices":[{"index":0,"message":` + string(msg) + `,"finish_reason":"tool_calls"}]}`)
	var req bytes.Buffer
	req.WriteString(`{"model":"anthropic/claude-sonnet-4.5","messages":[{"role":"user","content":"fix the bug"},`)
	req.Write(msg)
	for _, bl := range turn.Blocks {
		if tc, ok := bl.(*replay.ToolCall); ok {
			fmt.Fprintf(&req, `,{"role":"tool","tool_call_id":%q,"content":"ok"}`, tc.ID)
		}
	}
	req.WriteString(`],"tools":[{"type":"function","function":{"name":"read_file","parameters":{"type":"object"}}}]}`)
	doc := turn.AppendJSON(nil)

	b.Run("Decode", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if t, err := c.Decode(body); err != nil || len(t.Blocks) != len(turn.Blocks) {
				b.Fatalf("%v", err)
			}
		}
	})
	b.Run("Encode", func(b *testing.B) {
		b.SetBytes(int64(len(msg)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if out, err := c.Encode(turn); err != nil || len(out) != len(msg) {
				b.Fatalf("%v", err)
			}
		}
	})
	b.Run("Carry", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		b.ReportAllocs()
		h := replay.History{Turns: []*replay.Turn{turn}}
		tg := replay.Target{API: "anthropic", Provider: "anthropic", Model: "claude-sonnet-4-5", Tools: true}
		for i := 0; i < b.N; i++ {
			if out, _ := replay.Carry(h, tg, nil); len(out.Turns) != 1 {
				b.Fatal("no turn carried")
			}
		}
	})
	b.Run("AuditRequest", func(b *testing.B) {
		b.SetBytes(int64(req.Len()))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := replay.AuditRequest("openrouter", req.Bytes()); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// inflight is one codec's stream for the in-flight memory benchmark.
type inflight struct {
	name   string
	stream []byte
	newFD  func() codecs.FrameDecoder
}

func inflightCases() []inflight {
	ds := func(n int) []byte {
		var b bytes.Buffer
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, `data: {"id":"9c1e","object":"chat.completion.chunk","created":1790000000,"model":"deepseek-v4-flash","choices":[{"index":0,"delta":{"content":null,"reasoning_content":"step %d: check the \"edge\" case,\n "},"finish_reason":null}]}`+"\n\n", i)
		}
		return b.Bytes()
	}
	ms := func(n int) []byte {
		var b bytes.Buffer
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, `data: {"id":"0f3d","object":"chat.completion.chunk","created":1790000000,"model":"magistral-medium-2609","choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"token %d, the \"edge\" case;\n "}],"closed":true}]},"finish_reason":null}]}`+"\n\n", i)
		}
		return b.Bytes()
	}
	or := orLoop(1, 400)
	return []inflight{
		{"openrouter", or[:4096], openrouter.Codec{}.NewFrameDecoder},
		{"deepseek", ds(20), chatcompat.New(chatcompat.APIDeepSeek, "", "deepseek-v4-flash").NewFrameDecoder},
		{"mistral", ms(20), mistral.Codec{}.NewFrameDecoder},
	}
}

// BenchmarkInFlight holds 10,000 decoders mid-stream, each having been
// written a few KB of its codec's stream (CaptureOnly, as a gateway runs
// them), and reports the live heap per decoder, the text each keeps, and
// the heap beyond that text.
func BenchmarkInFlight(b *testing.B) {
	const n = 10000
	for _, c := range inflightCases() {
		b.Run(c.name, func(b *testing.B) {
			// The text one decoder keeps: what its events delivered.
			probe := stream.NewDecoder(kit.Decoding(c.newFD()), stream.Options{})
			if _, err := probe.Write(c.stream); err != nil {
				b.Fatal(err)
			}
			kept := 0
			for ev, ok := probe.Next(); ok; ev, ok = probe.Next() {
				kept += len(ev.Delta)
			}
			var perDec float64
			for i := 0; i < b.N; i++ {
				decs := make([]*stream.Decoder, n)
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				for k := range decs {
					decs[k] = stream.NewDecoder(kit.Decoding(c.newFD()), stream.Options{CaptureOnly: true})
					if _, err := decs[k].Write(c.stream); err != nil {
						b.Fatal(err)
					}
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				perDec = float64(after.HeapAlloc-before.HeapAlloc) / n
				runtime.KeepAlive(decs)
			}
			b.ReportMetric(float64(len(c.stream)), "seen-B/decoder")
			b.ReportMetric(perDec, "heap-B/decoder")
			b.ReportMetric(float64(kept), "text-B/decoder")
			b.ReportMetric(perDec-float64(kept), "beyond-text-B/decoder")
		})
	}
}
