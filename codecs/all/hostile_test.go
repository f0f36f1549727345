package all_test

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/reasonreplay/replay/schema"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/require"
)

// hostileInput makes one hostile input of about n bytes.
type hostileInput struct {
	name string
	make func(n int) []byte
}

// hostileInputs: nesting as deep as the input is long, in the places a
// decoder reads (a bare value, a message's content, a tool call's
// arguments), and one string as long as the input.
var hostileInputs = []hostileInput{
	{"deep array", func(n int) []byte { return []byte(strings.Repeat("[", n/2) + strings.Repeat("]", n/2)) }},
	{"deep object in content", func(n int) []byte {
		d := n / 6
		return []byte(`{"messages":[{"role":"assistant","content":` + strings.Repeat(`{"a":`, d) + "1" + strings.Repeat("}", d) + `}],"contents":[],"input":[]}`)
	}},
	{"deep tool arguments", func(n int) []byte {
		d := n / 6
		return []byte(`{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":` +
			strings.Repeat(`{"a":`, d) + "1" + strings.Repeat("}", d) + `}],"stop_reason":"tool_use"}`)
	}},
	{"long string", func(n int) []byte {
		return []byte(`{"choices":[{"message":{"role":"assistant","content":"` + strings.Repeat("a", n) + `"}}]}`)
	}},
}

// entryPoints are the readers of untrusted bytes, for one API's codec.
func entryPoints(c replay.ReasoningCodec) map[string]func([]byte) error {
	return map[string]func([]byte) error{
		"Decode": func(b []byte) error { _, err := c.Decode(b); return err },
		"DecodeRequest": func(b []byte) error {
			_, _, err := c.DecodeRequest(b)
			return err
		},
		"Patch": func(b []byte) error {
			_, err := c.Patch(b, &replay.Turn{Complete: true})
			return err
		},
		"stream": func(b []byte) error {
			sse := append(append([]byte("data: "), b...), "\n\n"...)
			_, err := stream.Decode(bytes.NewReader(sse), c, stream.Options{Limits: replay.Limits{MaxEvent: 64 << 20}})
			return err
		},
	}
}

// measure runs fn on in and returns the CPU time it took (user and
// system, all threads: wall time on a shared machine measures the other
// processes) and the bytes it allocated.
func measure(fn func([]byte) error, in []byte) (time.Duration, uint64, error) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := cpuTime()
	err := fn(in)
	d := cpuTime() - start
	runtime.ReadMemStats(&after)
	return d, after.TotalAlloc - before.TotalAlloc, err
}

// cpuTime returns the process's user CPU time so far: the work the
// readers do. The kernel's time is left out: first touches of freshly
// mapped pages (the heap is scavenged between runs) cost it up to ten
// times more from one run to the next on a shared machine, whatever the
// readers do.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano())
}

// TestHostileInputsGrowing feeds every API's every reader, and the root's
// readers, hostile inputs of growing size (up to 4 MB: nesting millions
// deep, strings of millions of bytes) and requires a typed error or
// success, never a crash; allocation within a small multiple of the input;
// and time growing linearly (a 10x larger input may take at most 40x the CPU time (cache sizes aside; quadratic work would take 100x)
// long, with slack for small inputs). A stack overflow would kill the test
// process: reaching the end is part of the assertion.
func TestHostileInputsGrowing(t *testing.T) {
	if testing.Short() {
		t.Skip("hostile inputs of up to 4 MB")
	}
	sizes := []int{40 << 10, 400 << 10, 4 << 20}
	runs := 2
	if raceEnabled {
		// The race detector slows every reader alike and unevenly: keep the
		// inputs (a crash is still a crash) and drop the timing.
		runs = 1
	}
	readers := map[string]func([]byte) error{
		"UnmarshalTurn":   func(b []byte) error { _, err := replay.UnmarshalTurn(b); return err },
		"PrefixHash":      func(b []byte) error { _, err := anthropic.PrefixHash(b); return err },
		"schema.Validate": func(b []byte) error { return schema.Validate(schema.Turn, b) },
		"schema.Detect": func(b []byte) error {
			if _, ok := schema.Detect(b); !ok {
				return replay.ErrMalformed
			}
			return nil
		},
	}
	for _, api := range replay.Default().APIs() {
		c, err := replay.Lookup(api, "", "")
		require.NoError(t, err)
		for name, fn := range entryPoints(c) {
			readers[api+" "+name] = fn
		}
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-34s %-24s %s\n", "reader", "input", "CPU time per size (40K 400K 4M)")
	for _, in := range hostileInputs {
		for name, fn := range readers {
			var times []time.Duration
			for _, n := range sizes {
				b := in.make(n)
				d, alloc, err := measure(fn, b)
				// The least of two runs: the machine may be shared.
				for range runs - 1 {
					if d2, _, _ := measure(fn, b); d2 < d {
						d = d2
					}
				}
				if err != nil {
					var e *replay.Error
					var le *replay.LimitError
					var pe *replay.ProviderError
					typed := errors.As(err, &e) || errors.As(err, &le) || errors.As(err, &pe) ||
						errors.Is(err, replay.ErrMalformed) || errors.As(err, new(*schema.Error))
					require.True(t, typed, "%s %s %d: an untyped error: %v", name, in.name, n, err)
				}
				require.LessOrEqual(t, alloc, uint64(16*len(b)+(4<<20)), "%s %s %d: allocated %d for %d bytes", name, in.name, n, alloc, len(b))
				times = append(times, d)
			}
			for i := 1; i < len(times) && !raceEnabled; i++ {
				limit := 40*times[i-1] + 150*time.Millisecond
				require.LessOrEqual(t, times[i], limit, "%s %s: %v for %d bytes after %v for %d", name, in.name, times[i], sizes[i], times[i-1], sizes[i-1])
			}
			fmt.Fprintf(&table, "%-34s %-24s %v\n", name, in.name, times)
		}
	}
	t.Log("\n" + table.String())
}
