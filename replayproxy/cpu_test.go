package replayproxy_test

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"runtime"
	"runtime/debug"
	rmetrics "runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/reasonreplay/replay/internal/benchreq"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/reasonreplay/replay/replayproxy"
	"github.com/stretchr/testify/require"
)

// What the proxy costs per request against a plain reverse proxy, both in
// this process, in front of one loopback upstream that streams an
// Anthropic answer: Claude-Code-shaped requests (a system prompt, 20
// tools, a tool loop of signed thinking, text, tool_use and tool_result;
// internal/benchreq) of four sizes, one conversation each, walked turn by
// turn through every proxy up to its size first, so that the store holds a
// capture of every turn the measured request carries back (as it does for
// an agent that runs through the proxy). The measured request is sent
// again and again; its answer, the conversation's next turn, is captured
// each time (the same bytes: refreshed, not doubled).
//
//	cd replayproxy && go test . -run TestProxyCPU -proxycpu 5 -v
//
// For every size a round sends the request, reqs times each, in turn (the
// order rotated from round to round): to the upstream directly (the
// client's and the upstream's own cost), through a plain
// httputil.ReverseProxy, and through the replay proxy in modes off,
// report and enforce (a memory store). CPU per request is the
// process's user and system time (getrusage) per request less the direct
// run's of the same round, so what is left is the proxy's; the table gives
// the median over the rounds, the spread (lowest to highest), and the
// median of the rounds' ratios to the plain proxy. Allocated per request
// is what the process allocated beyond the direct run (runtime/metrics),
// also given as a multiple of the body. Peak heap is measured after the
// rounds, in a pass of its own with the collector running all but
// continuously (GOGC=1): the largest live heap a collection found while
// the requests ran, less the live heap before them (the store, the
// clients' bodies), for the report mode and the plain proxy; the report
// mode's is also given as a multiple of the body. That figure counts the
// garbage of a collection's cycle as live (what is allocated while a
// collection marks is taken as live by it), so the same pass also gives
// what the report mode holds: the live heap, less the same base, found by
// a collection the upstream runs as each request reaches it (when the
// proxy holds the request's body and all it read, repaired and audited
// of it, and nothing of the answer yet), for both proxies: the plain
// proxy's is what the client, the upstream and the HTTP machinery hold
// then, which the report mode's includes.
//
// The requests carry the model first; with -proxymodellast, after the
// messages, as anthropic-sdk-go and openai-go write them (finding it then
// steps over the whole conversation unless the body before is at hand).
//
// With -proxyprof FILE, after the rounds, the 540 KB request (or the size
// -proxyprofsize names) is sent through the report mode (or the mode
// -proxyprofmode names) -proxyprofreqs times under the CPU profiler (go tool pprof -top FILE). With
// -proxymemprof FILE, what those requests allocate is profiled (go tool
// pprof -sample_index=alloc_space -base FILE.base FILE).

var (
	proxyRounds    = flag.Int("proxycpu", 0, "rounds of TestProxyCPU (0 skips it)")
	proxyProf      = flag.String("proxyprof", "", "TestProxyCPU: write a CPU profile of the report mode at 540 KB to this file")
	proxyProfReqs  = flag.Int("proxyprofreqs", 200, "TestProxyCPU: requests sent under the profiler")
	proxyProfSize  = flag.String("proxyprofsize", "540 KB", "TestProxyCPU: the body size profiled (52 KB, 139 KB, 540 KB or 2 MB)")
	proxyProfMode  = flag.String("proxyprofmode", "report", "TestProxyCPU: the mode profiled (off, report or enforce)")
	proxyModelLast = flag.Bool("proxymodellast", false, "TestProxyCPU, BenchmarkServe: requests written with the model after the messages, as anthropic-sdk-go writes them")
	proxyMemProf   = flag.String("proxymemprof", "", "TestProxyCPU: write a profile of what the profiled requests allocated to this file (go tool pprof -sample_index=alloc_space)")
)

// proxySizes are the request sizes measured, and the requests sent per
// round at each.
var proxySizes = []struct {
	name  string
	bytes int
	reqs  int
}{{"52 KB", 52 << 10, 100}, {"139 KB", 139 << 10, 60}, {"540 KB", 540 << 10, 24}, {"2 MB", 2 << 20, 8}}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// minorFaults is the process's count of minor page faults.
func minorFaults() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Minflt
}

var allocSample = []rmetrics.Sample{{Name: "/gc/heap/allocs:bytes"}}

func allocated() uint64 {
	rmetrics.Read(allocSample)
	return allocSample[0].Value.Uint64()
}

var liveSample = []rmetrics.Sample{{Name: "/gc/heap/live:bytes"}}

// live is the heap the latest collection found live.
func live() uint64 {
	rmetrics.Read(liveSample)
	return liveSample[0].Value.Uint64()
}

// peakHeap sends body n times and returns the largest live heap a
// collection found meanwhile, less the live heap before, with the
// collector running all but continuously; and held, the largest live heap
// while the upstream had the request (a collection run by the upstream
// as it receives it: what the proxy holds of the request, without the
// garbage the first figure counts), less the same base.
func peakHeap(tb testing.TB, client *http.Client, url string, body []byte, turn, n int) (peak, held float64) {
	old := debug.SetGCPercent(1)
	defer debug.SetGCPercent(old)
	runtime.GC()
	base := live()
	top := base
	for k := 0; k < n; k++ {
		send(tb, client, url, body, turn)
		top = max(top, live())
	}
	heapProbe.Store(0)
	heapProbing.Store(true)
	for k := 0; k < n; k++ {
		send(tb, client, url, body, turn)
	}
	heapProbing.Store(false)
	return float64(top) - float64(base), max(float64(heapProbe.Load())-float64(base), 0)
}

// heapProbing makes the upstream record, in heapProbe, the live heap as it
// receives each request.
var (
	heapProbing atomic.Bool
	heapProbe   atomic.Uint64
)

// cpuUpstream streams, to a request whose X-Turn header says n, the
// answer of turn n, one flushed write per event, after reading the body.
func cpuUpstream() *httptest.Server {
	var events sync.Map // turn -> [][]byte
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if heapProbing.Load() {
			// The proxy holds all it made of the request now: its body,
			// what it read, repaired and audited.
			runtime.GC()
			heapProbe.Store(max(heapProbe.Load(), live()))
		}
		_, _ = io.Copy(io.Discard, r.Body)
		n, _ := strconv.Atoi(r.Header.Get("X-Turn"))
		v, ok := events.Load(n)
		if !ok {
			v, _ = events.LoadOrStore(n, benchreq.StreamEvents(n))
		}
		evs := v.([][]byte)
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range evs {
			_, _ = w.Write(e)
			w.(http.Flusher).Flush()
		}
	}))
}

// cpuTarget is one way a request can go: its base URL.
// benchShape is the conversation the proxy's benchmarks send: Anthropic's
// shape, with the model first or, with -proxymodellast, last.
func benchShape() *benchreq.Shape {
	if *proxyModelLast {
		return benchreq.Anthropic().ModelLast()
	}
	return benchreq.Anthropic()
}

type cpuTarget struct {
	name string
	base string
}

// send posts body for turn and reads the answer to its end; a request
// the loopback dropped (it happens on a loaded machine) is sent again once.
func send(tb testing.TB, client *http.Client, url string, body []byte, turn int) {
	tb.Helper()
	for attempt := 0; ; attempt++ {
		err := sendOnce(client, url, body, turn)
		if err == nil {
			return
		}
		if attempt == 1 {
			tb.Fatalf("%s: %v", url, err)
		}
		tb.Logf("%s: %v; sent again", url, err)
	}
}

func sendOnce(client *http.Client, url string, body []byte, turn int) error {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", "sk-ant-bench-tenant")
	req.Header.Set("Anthropic-Version", "2023-06-01")
	req.Header.Set("X-Turn", strconv.Itoa(turn))
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	n, err := io.Copy(io.Discard, resp.Body)
	if cerr := resp.Body.Close(); err == nil {
		err = cerr
	}
	if err == nil && (resp.StatusCode != http.StatusOK || n == 0) {
		err = fmt.Errorf("status %d, %d bytes", resp.StatusCode, n)
	}
	return err
}

func TestProxyCPU(t *testing.T) {
	if *proxyRounds == 0 {
		t.Skip("-proxycpu N runs it")
	}
	load := func() string {
		b, _ := os.ReadFile("/proc/loadavg")
		return strings.Join(strings.Fields(string(b))[:3], " ")
	}
	t.Logf("load average at the start: %s", load())
	up := cpuUpstream()
	defer up.Close()
	upURL, _ := url.Parse(up.URL)
	rp := httputil.NewSingleHostReverseProxy(upURL)
	rp.Transport = &http.Transport{MaxIdleConnsPerHost: 16, DisableCompression: true}
	plain := httptest.NewServer(rp)
	defer plain.Close()
	targets := []cpuTarget{{"direct", up.URL}, {"plain", plain.URL}}
	for _, m := range []replayproxy.Mode{replayproxy.ModeOff, replayproxy.ModeReport, replayproxy.ModeEnforce} {
		srv, err := replayproxy.New(replayproxy.Config{Mode: m, Store: &replayhttp.MemoryStore{},
			Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
		require.NoError(t, err)
		hs := httptest.NewServer(srv)
		defer hs.Close()
		targets = append(targets, cpuTarget{m.String(), hs.URL + "/anthropic"})
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16, DisableCompression: true}}
	rounds := *proxyRounds
	// One conversation per size, walked through every proxy up to it.
	type conv struct {
		shape *benchreq.Shape
		turn  int // the turn the measured request asks for
		body  []byte
	}
	convs := make([]conv, len(proxySizes))
	for i, s := range proxySizes {
		sh := benchShape()
		sh.Base = (i + 1) * 100000
		c := conv{shape: sh, turn: sh.Turns(s.bytes)}
		c.body = sh.Request(c.turn)
		convs[i] = c
		for _, tg := range targets[2:] {
			for k := 0; k <= c.turn; k++ {
				send(t, client, tg.base+"/v1/messages", sh.Request(k), sh.Base+k)
			}
		}
	}
	// net[i][j] holds, per round, the CPU per request of target j less the
	// direct run's; alloc[i][j] likewise the bytes allocated.
	net := make([][][]float64, len(proxySizes))
	alloc := make([][][]float64, len(proxySizes))
	faults := make([][][]float64, len(proxySizes))
	for i := range net {
		net[i], alloc[i], faults[i] = make([][]float64, len(targets)), make([][]float64, len(targets)), make([][]float64, len(targets))
	}
	for r := 0; r < rounds; r++ {
		for i, s := range proxySizes {
			c := convs[i]
			cpu, al, flt := make([]float64, len(targets)), make([]float64, len(targets)), make([]float64, len(targets))
			// The targets take turns at going first: the first after another
			// pays for what that one left (its garbage, cold caches).
			for k := range targets {
				j := (k + r) % len(targets)
				tg := targets[j]
				// An untimed batch first: the connection, and the heap. The
				// runtime hands the pages a batch leaves free back to the
				// kernel while the next target runs (the plain proxy
				// allocates next to nothing), and the batch that follows
				// it would otherwise pay the page faults that take them
				// back (up to 300 a request at 2 MB).
				for k := 0; k < s.reqs; k++ {
					send(t, client, tg.base+"/v1/messages", c.body, c.shape.Base+c.turn)
				}
				runtime.GC()
				f0 := minorFaults()
				a0, c0 := allocated(), cpuNow()
				for k := 0; k < s.reqs; k++ {
					send(t, client, tg.base+"/v1/messages", c.body, c.shape.Base+c.turn)
				}
				c1, a1 := cpuNow(), allocated()
				cpu[j] = float64(c1-c0) / float64(s.reqs) / 1e6
				al[j] = float64(a1-a0) / float64(s.reqs)
				flt[j] = float64(minorFaults()-f0) / float64(s.reqs)
			}
			for j := range targets {
				if j == 0 {
					net[i][j] = append(net[i][j], cpu[0]) // the direct run itself
					continue
				}
				net[i][j] = append(net[i][j], cpu[j]-cpu[0])
				alloc[i][j] = append(alloc[i][j], al[j]-al[0])
				faults[i][j] = append(faults[i][j], flt[j]-flt[0])
			}
		}
	}
	// The peak heap pass: the plain proxy's and the report mode's; and
	// what the report mode holds while the upstream has the request.
	peaks := make([][2]float64, len(proxySizes))
	helds := make([][2]float64, len(proxySizes))
	for i, s := range proxySizes {
		c := convs[i]
		for j, tg := range []cpuTarget{targets[1], targets[3]} {
			var v, h []float64
			for r := 0; r < 3; r++ {
				p, hd := peakHeap(t, client, tg.base+"/v1/messages", c.body, c.shape.Base+c.turn, max(2, s.reqs/8))
				v, h = append(v, p), append(h, hd)
			}
			peaks[i][j], helds[i][j] = slices.Max(v), slices.Max(h)
		}
	}
	if *proxyProf != "" || *proxyMemProf != "" {
		pi := slices.IndexFunc(proxySizes, func(s struct {
			name  string
			bytes int
			reqs  int
		}) bool {
			return s.name == *proxyProfSize
		})
		require.GreaterOrEqual(t, pi, 0, "-proxyprofsize names none of the sizes")
		c := convs[pi]
		mi := slices.IndexFunc(targets, func(tg cpuTarget) bool { return tg.name == *proxyProfMode })
		require.GreaterOrEqual(t, mi, 2, "-proxyprofmode names none of the modes")
		var f *os.File
		if *proxyProf != "" {
			var err error
			f, err = os.Create(*proxyProf)
			require.NoError(t, err)
			require.NoError(t, pprof.StartCPUProfile(f))
		}
		if *proxyMemProf != "" {
			// What was allocated before is in FILE.base: go tool pprof
			// -base FILE.base FILE shows the profiled requests alone.
			runtime.MemProfileRate = 512
			runtime.GC()
			bf, err := os.Create(*proxyMemProf + ".base")
			require.NoError(t, err)
			require.NoError(t, pprof.Lookup("allocs").WriteTo(bf, 0))
			require.NoError(t, bf.Close())
		}
		c0 := cpuNow()
		for k := 0; k < *proxyProfReqs; k++ {
			send(t, client, targets[mi].base+"/v1/messages", c.body, c.shape.Base+c.turn)
		}
		if f != nil {
			pprof.StopCPUProfile()
			require.NoError(t, f.Close())
		}
		if *proxyMemProf != "" {
			runtime.GC()
			mf, err := os.Create(*proxyMemProf)
			require.NoError(t, err)
			require.NoError(t, pprof.Lookup("allocs").WriteTo(mf, 0))
			require.NoError(t, mf.Close())
			runtime.MemProfileRate = 512 << 10
		}
		t.Logf("profiled: %d requests of %d bytes through the %s mode, %.2f ms CPU per request (the client and upstream included)",
			*proxyProfReqs, len(c.body), *proxyProfMode, float64(cpuNow()-c0)/float64(*proxyProfReqs)/1e6)
	}
	med := func(v []float64) float64 {
		v = slices.Clone(v)
		slices.Sort(v)
		return v[len(v)/2]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n| body | direct (client and upstream) | plain ReverseProxy | replay off | replay report | replay enforce | peak heap, plain | peak heap, report | held, plain | held, report | allocated, report | page faults, off / report |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for i, s := range proxySizes {
		fmt.Fprintf(&b, "| %s (%d B, %d turns) | %.2f ms |", s.name, len(convs[i].body), convs[i].turn, med(net[i][0]))
		for j := 1; j < len(targets); j++ {
			v := net[i][j]
			if j == 1 {
				fmt.Fprintf(&b, " %.2f ms (%.2f–%.2f) |", med(v), slices.Min(v), slices.Max(v))
				continue
			}
			ratios := make([]float64, len(v))
			for r := range v {
				ratios[r] = v[r] / net[i][1][r]
			}
			fmt.Fprintf(&b, " %.2f ms (%.2f–%.2f), %.1fx (%.1f–%.1f) |", med(v), slices.Min(v), slices.Max(v), med(ratios), slices.Min(ratios), slices.Max(ratios))
		}
		fmt.Fprintf(&b, " %.2f MB | %.2f MB, %.2fx the body |", peaks[i][0]/1e6, peaks[i][1]/1e6, peaks[i][1]/float64(len(convs[i].body)))
		fmt.Fprintf(&b, " %.2f MB | %.2f MB, %.2fx the body |", helds[i][0]/1e6, helds[i][1]/1e6, helds[i][1]/float64(len(convs[i].body)))
		rep := med(alloc[i][3])
		fmt.Fprintf(&b, " %.2f MB, %.2fx the body |", rep/1e6, rep/float64(len(convs[i].body)))
		fmt.Fprintf(&b, " %.0f / %.0f |\n", med(faults[i][2]), med(faults[i][3]))
	}
	t.Log(b.String())
	t.Logf("load average at the end: %s", load())
}
