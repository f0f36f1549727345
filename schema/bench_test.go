package schema_test

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/schema"
)

// largeTurnDoc returns the document of a large tool-loop turn: blocks
// signed reasoning blocks of size bytes of text (quotes, newlines and
// non-ASCII escaped in the document), each followed by a tool call, then
// a text block.
func largeTurnDoc(blocks, size int) []byte {
	t := &replay.Turn{Provenance: replay.Provenance{API: "anthropic", Provider: "anthropic", Model: "claude-sonnet-4-5"}, Complete: true, FinishReason: "tool_use"}
	piece := "weigh the \"edge\" case — then pick one;\n"
	for k := 0; k < blocks; k++ {
		it := &replay.ReasoningText{Text: strings.Repeat(piece, size/len(piece)), Signature: replay.Some(strings.Repeat("RXFv", 100))}
		it.Format = "anthropic-claude-v1"
		t.Blocks = append(t.Blocks, it, &replay.ToolCall{ID: fmt.Sprintf("toolu_%04d", k), Name: "read_file", Arguments: `{"path":"src/f.go"}`})
	}
	t.Blocks = append(t.Blocks, &replay.Text{Text: strings.Repeat("answer ", 1000)})
	return t.AppendJSON(nil)
}

// BenchmarkValidateTurn validates a large turn document (400 signed
// reasoning blocks of 64 KB, each followed by a tool call: about 28 MB)
// and reports MB/s, B/op (the bytes Validate allocates per call; the
// document is made before the timer starts) and, from one call watched
// before the timed ones, the peak heap above what was live before it
// (peak-heap-B). Both are also given per byte of document (alloc/doc,
// peak/doc).
func BenchmarkValidateTurn(b *testing.B) {
	doc := largeTurnDoc(400, 64<<10)
	peak := peakHeap(func() {
		if err := schema.Validate(schema.Turn, doc); err != nil {
			b.Fatal(err)
		}
	})
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := schema.Validate(schema.Turn, doc); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(len(doc)), "doc-B")
	b.ReportMetric(float64(peak), "peak-heap-B")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(len(doc)), "alloc/doc")
	b.ReportMetric(float64(peak)/float64(len(doc)), "peak/doc")
}

// peakHeap runs f and returns the most heap it saw in use above what was
// live before (after a collection), sampled every 200µs.
func peakHeap(f func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	base := read()
	var peak atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			if v := read(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-time.After(200 * time.Microsecond):
			}
		}
	}()
	f()
	if v := read(); v > peak.Load() {
		peak.Store(v)
	}
	close(done)
	<-stopped
	if p := peak.Load(); p > base {
		return p - base
	}
	return 0
}

// TestValidateTurnMemory: Validate allocates at most 3 bytes per byte of
// a large turn document (so its peak heap, which cannot exceed what it
// allocates, is within 3x too).
func TestValidateTurnMemory(t *testing.T) {
	doc := largeTurnDoc(40, 64<<10)
	if err := schema.Validate(schema.Turn, doc); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := schema.Validate(schema.Turn, doc); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	ratio := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(doc))
	t.Logf("%d-byte document: %.2f bytes allocated per byte", len(doc), ratio)
	if ratio > 3 {
		t.Fatalf("Validate allocated %.2fx the document (want <= 3x)", ratio)
	}
}

func TestLargeTurnDocValidates(t *testing.T) {
	doc := largeTurnDoc(4, 1<<10)
	if err := schema.Validate(schema.Turn, doc); err != nil {
		t.Fatal(err)
	}
	if err := schema.ValidateSchema(schema.Turn, doc); err != nil {
		t.Fatal(err)
	}
}
