package bench

import (
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/openrouter"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/reasonreplay/replay/stream"
)

// measure runs fn in b.Loop and reports the process CPU time per MB of
// body (user+system, from getrusage: on a shared machine it does not count
// the time other processes hold the CPU, as wall time does), and the bytes
// allocated per call divided by the turn document's size.
func measure(b *testing.B, size int, turnSize func() int, fn func()) {
	b.SetBytes(int64(size))
	b.ReportAllocs()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	alloc := ms.TotalAlloc
	start := cpuTime()
	n := 0
	for b.Loop() {
		fn()
		n++
	}
	cpu := cpuTime() - start
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(cpu)/float64(n)/(float64(size)/1e6)/float64(time.Microsecond), "cpu-µs/MB")
	if turnSize != nil {
		if ts := turnSize(); ts > 0 {
			b.ReportMetric(float64(ms.TotalAlloc-alloc)/float64(n)/float64(ts), "alloc/turn")
		}
	}
}

// BenchmarkMiddlewareCPU splits the middleware's cost: reading the body
// through a plain transport, the codec's push decoder alone on the same
// 32 KiB pieces io.Copy reads, and the middleware (the tee and the
// decoder); from memory and from a loopback server. The tee's own cost is
// middleware minus plain minus decoder.
func BenchmarkMiddlewareCPU(b *testing.B) {
	body, _ := OpenRouterStream(2000)
	var turn *replay.Turn
	turnSize := func() int {
		if turn == nil {
			return 0
		}
		return len(turn.AppendJSON(nil))
	}
	b.Run("memory/plain", func(b *testing.B) {
		rt := fixedTransport{body}
		measure(b, len(body), nil, func() { readThrough(b, rt, false) })
	})
	b.Run("memory/decoder", func(b *testing.B) {
		measure(b, len(body), turnSize, func() {
			d := stream.NewDecoder(openrouter.Codec{}, stream.Options{CaptureOnly: true})
			for p := body; len(p) > 0; {
				n := min(32<<10, len(p))
				if _, err := d.Write(p[:n]); err != nil {
					b.Fatal(err)
				}
				p = p[n:]
			}
			t, err := d.Close()
			if err != nil {
				b.Fatal(err)
			}
			turn = t
		})
	})
	b.Run("memory/middleware", func(b *testing.B) {
		rt := &replayhttp.Transport{Base: fixedTransport{body}}
		measure(b, len(body), turnSize, func() { turn = readThrough(b, rt, true) })
	})
	url := loopback(b, body)
	b.Run("loopback/plain", func(b *testing.B) {
		client := &http.Client{Transport: http.DefaultTransport}
		measure(b, len(body), nil, func() { readURL(b, client, url, false) })
	})
	b.Run("loopback/middleware", func(b *testing.B) {
		client := &http.Client{Transport: &replayhttp.Transport{Provider: "openrouter"}}
		measure(b, len(body), turnSize, func() { readURL(b, client, url, true) })
	})
}
