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
	rmetrics "runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
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
// internal/benchreq) of four sizes, each sent after the conversation up to
// it went through the proxy (so that the store holds a capture of every
// turn the request carries, as it does for an agent that runs through the
// proxy).
//
//	go test ./replayproxy -run TestProxyCPU -proxycpu 5 -v
//
// For every size it sends the request through, in turn: the upstream
// directly (the client's and the upstream's own cost), a plain
// httputil.ReverseProxy, and the replay proxy in modes off, report and
// enforce (a memory store); a round sends each of them the same number of
// requests, one after the other, and rounds repeat. CPU per request is the
// process's user and system time (getrusage) per request less the direct
// run's, so what is left is the proxy's; its median over the rounds is
// printed with the spread (lowest to highest) and the ratio to the plain
// proxy's median. Allocated per request is what the process allocated
// beyond the direct run (runtime/metrics), an upper bound of the heap a
// request needs at its peak, given as a multiple of the body.

var proxyRounds = flag.Int("proxycpu", 0, "rounds of TestProxyCPU (0 skips it)")

// proxySizes are the request sizes measured, and the requests sent per
// round at each.
var proxySizes = []struct {
	name  string
	bytes int
	reqs  int
}{{"52 KB", 52 << 10, 40}, {"139 KB", 139 << 10, 24}, {"540 KB", 540 << 10, 12}, {"2 MB", 2 << 20, 6}}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var allocSample = []rmetrics.Sample{{Name: "/gc/heap/allocs:bytes"}}

func allocated() uint64 {
	rmetrics.Read(allocSample)
	return allocSample[0].Value.Uint64()
}

// cpuUpstream streams, to a request whose X-Turn header says n, the
// answer of turn n, one flushed write per event, after reading the body.
func cpuUpstream() *httptest.Server {
	var events sync.Map // turn -> [][]byte
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
type cpuTarget struct {
	name string
	base string
}

func send(tb testing.TB, client *http.Client, url string, body []byte, turn int) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	require.NoError(tb, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", "sk-ant-bench-tenant")
	req.Header.Set("Anthropic-Version", "2023-06-01")
	req.Header.Set("X-Turn", strconv.Itoa(turn))
	resp, err := client.Do(req)
	require.NoError(tb, err)
	n, err := io.Copy(io.Discard, resp.Body)
	require.NoError(tb, err)
	require.NoError(tb, resp.Body.Close())
	if resp.StatusCode != http.StatusOK || n == 0 {
		tb.Fatalf("%s: status %d, %d bytes", url, resp.StatusCode, n)
	}
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
	plain := httptest.NewServer(httputil.NewSingleHostReverseProxy(upURL))
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
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true}}
	shape := benchreq.Anthropic()
	turns := make([]int, len(proxySizes))
	bodies := make([][]byte, len(proxySizes))
	for i, s := range proxySizes {
		turns[i] = shape.Turns(s.bytes)
		bodies[i] = shape.Request(turns[i])
	}
	// The conversation up to the largest request, through every proxy:
	// each turn is captured as the agent's next request carries it back.
	for _, tg := range targets[2:] {
		for k := 0; k <= turns[len(turns)-1]; k++ {
			send(t, client, tg.base+"/v1/messages", shape.Request(k), k)
		}
	}
	type cell struct{ cpu, alloc []float64 }
	cells := make([][]cell, len(proxySizes))
	for i := range cells {
		cells[i] = make([]cell, len(targets))
	}
	for r := 0; r < *proxyRounds; r++ {
		for i, s := range proxySizes {
			for j, tg := range targets {
				send(t, client, tg.base+"/v1/messages", bodies[i], turns[i]) // warm the connection
				runtime.GC()
				a0, c0 := allocated(), cpuNow()
				for k := 0; k < s.reqs; k++ {
					send(t, client, tg.base+"/v1/messages", bodies[i], turns[i])
				}
				c1, a1 := cpuNow(), allocated()
				cells[i][j].cpu = append(cells[i][j].cpu, float64(c1-c0)/float64(s.reqs)/1e6)
				cells[i][j].alloc = append(cells[i][j].alloc, float64(a1-a0)/float64(s.reqs))
			}
		}
	}
	med := func(v []float64) float64 {
		v = slices.Clone(v)
		slices.Sort(v)
		return v[len(v)/2]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n| body | direct (client and upstream) | plain ReverseProxy | replay off | replay report | replay enforce | allocated, report |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for i, s := range proxySizes {
		direct := cells[i][0]
		dcpu, dalloc := med(direct.cpu), med(direct.alloc)
		fmt.Fprintf(&b, "| %s (%d B, %d turns) | %.2f ms |", s.name, len(bodies[i]), turns[i], dcpu)
		plainCPU := med(cells[i][1].cpu) - dcpu
		for j := 1; j < len(targets); j++ {
			c := cells[i][j]
			lo, hi := slices.Min(c.cpu)-dcpu, slices.Max(c.cpu)-dcpu
			m := med(c.cpu) - dcpu
			if j == 1 {
				fmt.Fprintf(&b, " %.2f ms (%.2f–%.2f) |", m, lo, hi)
				continue
			}
			fmt.Fprintf(&b, " %.2f ms (%.2f–%.2f), %.1fx |", m, lo, hi, m/plainCPU)
		}
		rep := med(cells[i][3].alloc) - dalloc
		fmt.Fprintf(&b, " %.2f MB, %.2fx the body |\n", rep/1e6, rep/float64(len(bodies[i])))
	}
	t.Log(b.String())
	t.Logf("load average at the end: %s", load())
}
