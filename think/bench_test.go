package think

import (
	"math/rand"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+system CPU time. The benchmarks report
// MB/s of CPU time (cpu-MB/s) next to the wall-clock MB/s, because the
// machine they run on is shared and wall time overstates the cost.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// prose is tag-free answer text: words, punctuation, newlines, the odd
// smart quote and bracket.
func prose(n int) []byte {
	r := rand.New(rand.NewSource(1))
	words := []string{"the", "reasoning", "model", "answers", "with", "a", "short", "list", "of", "steps",
		"and", "then", "“quotes”", "values", "(see", "below)", "x", "=", "42;", "it’s", "fine.", "\n", "\n\n- item"}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[r.Intn(len(words))])
		b.WriteByte(' ')
	}
	return []byte(b.String()[:n])
}

// dense is text with a tag, a code span or an angle bracket every few
// bytes.
func dense(n int) []byte {
	r := rand.New(rand.NewSource(2))
	parts := []string{"<think>", "plan it", "</think>", "answer ", "`<think>`", " a<b ", "[THINK]", "x", "[/THINK]",
		"◁think▷", "y", "◁/think▷", "\n```\n<think>\n```\n", "<thinking>", "z", "</thinking>", "é ", "</think>"}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(parts[r.Intn(len(parts))])
	}
	return []byte(b.String())
}

// cuts cuts data into pieces of 1..2*avg-1 bytes (random, so that tags are
// split at every byte), or of exactly avg bytes when fixed.
func cuts(data []byte, avg int, fixed bool) [][]byte {
	r := rand.New(rand.NewSource(3))
	var out [][]byte
	for len(data) > 0 {
		n := avg
		if !fixed {
			n = 1 + r.Intn(2*avg-1)
		}
		if n > len(data) {
			n = len(data)
		}
		out = append(out, data[:n])
		data = data[n:]
	}
	return out
}

func benchSplit(b *testing.B, o Options, data []byte, chunks [][]byte) {
	s, err := New(o)
	if err != nil {
		b.Fatal(err)
	}
	segs := make([]Segment, 0, 64)
	var out int
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuTime()
	for i := 0; i < b.N; i++ {
		for _, c := range chunks {
			segs = s.Write(segs[:0], c)
			for _, sg := range segs {
				out += len(sg.Text)
			}
		}
		segs = s.Close(segs[:0])
		for _, sg := range segs {
			out += len(sg.Text)
		}
	}
	if cpu := cpuTime() - c0; cpu > 0 {
		b.ReportMetric(float64(len(data))*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
	}
	if out == 0 {
		b.Fatal("no output")
	}
}

func BenchmarkTagFree(b *testing.B) {
	data := prose(1 << 20)
	for _, c := range []struct {
		name string
		size int
	}{{"chunk64K", 64 << 10}, {"chunk4K", 4 << 10}, {"chunk256", 256}, {"chunk16", 16}} {
		b.Run(c.name, func(b *testing.B) {
			benchSplit(b, Options{Start: StartVisible}, data, cuts(data, c.size, true))
		})
	}
}

func BenchmarkDense(b *testing.B) {
	data := dense(1 << 20)
	for _, c := range []struct {
		name string
		avg  int
	}{{"chunk4K", 4 << 10}, {"chunk256", 256}, {"chunk16", 16}} {
		b.Run(c.name, func(b *testing.B) {
			benchSplit(b, Options{}, data, cuts(data, c.avg, false))
		})
	}
}
