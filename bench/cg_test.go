package bench

import (
	"flag"
	"testing"
)

var (
	cgName = flag.String("cg", "", "TestCG: the summary stream to decode (for callgrind)")
	cgN    = flag.Int("cgn", 1, "TestCG: measured decodes after one warm decode")
)

// TestCG decodes one summary stream once to warm up, then cgN times inside
// cgMeasure, the function callgrind's --toggle-collect names.
func TestCG(t *testing.T) {
	if *cgName == "" {
		t.Skip("run with -cg NAME")
	}
	for _, c := range summaryStreams() {
		if c.name != *cgName {
			continue
		}
		turn := decodeAll(nil, c.newFD(), c.opts, c.data)
		if len(turn.Blocks) != c.blocks || !turn.Complete {
			t.Fatalf("%s: %d blocks", c.name, len(turn.Blocks))
		}
		cgMeasure(c, *cgN)
		cgEnd()
		return
	}
	t.Fatalf("no stream %q", *cgName)
}

// cgEnd marks the end of the measured decodes (callgrind's --dump-before).
//
//go:noinline
func cgEnd() { cgSink++ }

var cgSink int

//go:noinline
func cgMeasure(c summaryStream, n int) {
	for i := 0; i < n; i++ {
		turn := decodeAll(nil, c.newFD(), c.opts, c.data)
		if len(turn.Blocks) != c.blocks || !turn.Complete {
			panic(c.name)
		}
	}
}

// BenchmarkCG decodes the summary stream -cg names.
func BenchmarkCG(b *testing.B) {
	for _, c := range summaryStreams() {
		if c.name == *cgName {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.data)))
			for i := 0; i < b.N; i++ {
				decodeAll(b, c.newFD(), c.opts, c.data)
			}
			return
		}
	}
	b.Skip("run with -cg NAME")
}
