package replayproxy_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The load test's shape: N concurrent conversations of T tool-loop turns,
// each turn a stream of 12 events paced 20ms apart (50 events a second,
// the pace of a model streaming tokens). The client drops the
// thinking block of every other assistant message it sends back.
const (
	loadConversations = 200
	loadTurns         = 4
	loadPause         = 20 * time.Millisecond
	barrierTurn       = 2 // every conversation holds its stream open here once, for the RSS sample
)

func loadSig(c, k int) string  { return sigFor(fmt.Sprintf("c%03dk%d", c, k)) }
func loadTool(c, k int) string { return fmt.Sprintf("toolu_c%03dk%d", c, k) }

// loadAssistant is the assistant message of turn k as the provider wants
// it back; stripped, as an agent that dropped the thinking sends it.
func loadAssistant(c, k int, stripped bool) string {
	if stripped {
		return `{"role":"assistant","content":[` + toolUse(loadTool(c, k)) + `]}`
	}
	return `{"role":"assistant","content":[` + thinkingBlock(loadSig(c, k)) + `,` + toolUse(loadTool(c, k)) + `]}`
}

func loadRequest(c, k int, strip bool) string {
	msgs := []string{firstUser}
	for j := 0; j < k; j++ {
		msgs = append(msgs, loadAssistant(c, j, strip && j%2 == 1),
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+loadTool(c, j)+`","content":"18°C"}]}`)
	}
	return anthropicRequest(msgs...)
}

var convHeader = regexp.MustCompile(`^c(\d+)k(\d+)$`)

// loadUpstream is the fake provider: it checks every request byte for
// byte against what the conversation must carry, and streams each event
// with its send time in an SSE comment.
type loadUpstream struct {
	bad      atomic.Int64 // requests that lost or altered a handle
	checked  atomic.Int64 // assistant messages checked
	barrier  bool
	waiting  atomic.Int64
	release  chan struct{}
	problems sync.Map
}

func (u *loadUpstream) serve(w http.ResponseWriter, r *http.Request, body []byte) {
	m := convHeader.FindStringSubmatch(r.Header.Get("X-Conv"))
	if m == nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	c, _ := strconv.Atoi(m[1])
	k, _ := strconv.Atoi(m[2])
	if want := loadRequest(c, k, false); string(body) != want {
		u.bad.Add(1)
		u.problems.Store(r.Header.Get("X-Conv"), string(body))
	} else {
		u.checked.Add(int64(k))
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for i, e := range anthropicEvents(loadSig(c, k), loadTool(c, k)) {
		if u.barrier && k == barrierTurn && i == 6 {
			u.waiting.Add(1)
			select {
			case <-u.release:
			case <-time.After(30 * time.Second):
			}
		}
		_, _ = io.WriteString(w, ": t="+strconv.FormatInt(time.Now().UnixNano(), 10)+"\n"+e)
		w.(http.Flusher).Flush()
		time.Sleep(loadPause)
	}
}

// loadFigures are what one run measured.
type loadFigures struct {
	ttfb, event []time.Duration
	stripped    int64
	failures    []string
}

// runLoad drives the conversations against base, each turn after the
// previous one, the conversations at once.
func runLoad(t *testing.T, client *http.Client, base string, strip bool) *loadFigures {
	var mu sync.Mutex
	f := &loadFigures{}
	var wg sync.WaitGroup
	var stripped atomic.Int64
	for c := range loadConversations {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ttfb, events []time.Duration
			fail := func(format string, a ...any) {
				mu.Lock()
				f.failures = append(f.failures, fmt.Sprintf("conversation %d: ", c)+fmt.Sprintf(format, a...))
				mu.Unlock()
			}
			for k := range loadTurns {
				if strip {
					stripped.Add(int64(k / 2)) // assistants 1, 3, ... go back stripped
				}
				req, _ := http.NewRequest(http.MethodPost, base+"/v1/messages", strings.NewReader(loadRequest(c, k, strip)))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-Api-Key", "sk-load")
				req.Header.Set("X-Conv", fmt.Sprintf("c%03dk%d", c, k))
				start := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					fail("turn %d: %v", k, err)
					return
				}
				br := bufio.NewReader(resp.Body)
				var got strings.Builder
				var sent int64
				first := true
				for {
					line, err := br.ReadString('\n')
					if first && len(line) > 0 {
						ttfb, first = append(ttfb, time.Since(start)), false
					}
					if ts, ok := strings.CutPrefix(line, ": t="); ok {
						sent, _ = strconv.ParseInt(strings.TrimSpace(ts), 10, 64)
					} else {
						got.WriteString(line)
						if line == "\n" && sent > 0 {
							events = append(events, time.Duration(time.Now().UnixNano()-sent))
						}
					}
					if err != nil {
						if err != io.EOF {
							fail("turn %d: %v", k, err)
						}
						break
					}
				}
				resp.Body.Close()
				if want := anthropicSSE(loadSig(c, k), loadTool(c, k)); resp.StatusCode != http.StatusOK || got.String() != want {
					fail("turn %d: status %d, the stream differs from the provider's", k, resp.StatusCode)
					return
				}
			}
			mu.Lock()
			f.ttfb = append(f.ttfb, ttfb...)
			f.event = append(f.event, events...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	f.stripped = stripped.Load()
	return f
}

func pct(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 2, 64) + "ms"
}

// buildProxy builds the replay-proxy command into a temporary directory.
func buildProxy(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "replay-proxy")
	out, err := exec.Command("go", "build", "-o", bin, "./cmd/replay-proxy").CombinedOutput()
	require.NoError(t, err, string(out))
	return bin
}

// startProxy runs replay-proxy as its own process (so that its memory
// is its own), its log going to a file, and returns its address, the
// process and a function that reads the log.
func startProxy(t *testing.T, bin string, args ...string) (string, *exec.Cmd, func() string) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "proxy.log")
	logf, err := os.Create(logPath)
	require.NoError(t, err)
	defer logf.Close()
	cmd := exec.Command(bin, append([]string{"--listen", "127.0.0.1:0"}, args...)...)
	cmd.Stderr = logf
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	logs := func() string { b, _ := os.ReadFile(logPath); return string(b) }
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, line := range strings.Split(logs(), "\n") {
			var l struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "listening" {
				resp, err := http.Get("http://" + l.Addr + "/healthz")
				require.NoError(t, err)
				require.Equal(t, http.StatusOK, resp.StatusCode, "healthz answers as soon as the proxy listens")
				resp.Body.Close()
				return l.Addr, cmd, logs
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("the proxy did not start: %s", logs())
	return "", nil, nil
}

func metricsOf(t *testing.T, addr string) string {
	resp, err := http.Get("http://" + addr + "/metrics")
	require.NoError(t, err)
	return readAll(t, resp)
}

// TestLoad runs the conversations directly against the fake provider (the
// baseline) and then through replay-proxy (a process of its own), and
// prints the figures: added time to first byte and per-event latency
// (p50, p99), and the proxy's resident memory per concurrent stream. The
// provider checks every request: no handle is lost or altered, every
// stripped message is repaired.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("builds replay-proxy and runs 200 concurrent conversations")
	}
	if raceEnabled {
		t.Skip("the figures mean nothing under the race detector; .ci/run runs it without")
	}
	bin := buildProxy(t)
	lu := &loadUpstream{release: make(chan struct{})}
	up := newUpstream(t, lu.serve)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * loadConversations, DisableCompression: true}}
	defer client.CloseIdleConnections()

	// Both runs hold every conversation at the barrier once, so that they
	// do the same work; the direct run's barrier only waits.
	lu.barrier = true
	go func() {
		defer close(lu.release)
		deadline := time.Now().Add(30 * time.Second)
		for lu.waiting.Load() < loadConversations && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}()
	start := time.Now()
	direct := runLoad(t, client, up.URL, false)
	require.Empty(t, direct.failures)
	require.Zero(t, lu.bad.Load())
	directTook := time.Since(start)
	lu.waiting.Store(0)
	lu.release = make(chan struct{})

	addr, cmd, logs := startProxy(t, bin, "--upstream", "anthropic="+up.URL, "--mode", "report")
	idle, ok := vmRSS(cmd.Process.Pid)
	require.True(t, ok)
	lu.checked.Store(0)
	var peak, inFlight int
	sampled := make(chan struct{})
	go func() { // the RSS sample, with every conversation's stream open
		defer close(sampled)
		defer close(lu.release)
		deadline := time.Now().Add(30 * time.Second)
		for lu.waiting.Load() < loadConversations && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		peak, _ = vmRSS(cmd.Process.Pid)
		m := regexp.MustCompile(`\nreplay_proxy_streams_in_flight (\d+)\n`).FindStringSubmatch(metricsOf(t, addr))
		if m != nil {
			inFlight, _ = strconv.Atoi(m[1])
		}
	}()
	start = time.Now()
	cpu0 := cpuTime(cmd.Process.Pid)
	proxied := runLoad(t, client, "http://"+addr+"/anthropic", true)
	proxiedTook := time.Since(start)
	proxyCPU := cpuTime(cmd.Process.Pid) - cpu0
	<-sampled

	assert.Empty(t, proxied.failures)
	assert.Zero(t, lu.bad.Load(), "requests that lost or altered a handle")
	lu.problems.Range(func(k, v any) bool { t.Logf("%s: %s", k, v); return false })
	assert.Equal(t, int64(loadConversations*loadTurns*(loadTurns-1)/2), lu.checked.Load(), "every assistant message checked")
	assert.Equal(t, loadConversations, inFlight, "every stream open at the sample")
	m := metricsOf(t, addr)
	assert.Contains(t, m, fmt.Sprintf(`replay_proxy_repairs_total{kind="restored"} %d`+"\n", proxied.stripped), "every stripped message repaired")
	assert.Contains(t, m, fmt.Sprintf(`replay_proxy_turns_captured_total{api="anthropic",complete="true",upstream="anthropic"} %d`+"\n", loadConversations*loadTurns))
	assert.Contains(t, m, fmt.Sprintf(`replay_proxy_audits_total{verdict="clean"} %d`+"\n", loadConversations*loadTurns))
	assert.NotContains(t, logs(), "sk-load")
	assert.Equal(t, loadConversations*loadTurns, strings.Count(logs(), `"msg":"request"`), "a log line per request")
	after, _ := vmRSS(cmd.Process.Pid)

	perStream := float64(peak-idle) / loadConversations
	fmt.Printf("load: %d conversations x %d tool-loop turns (12 events each, paced %v), the client dropping every other thinking block\n",
		loadConversations, loadTurns, loadPause)
	fmt.Printf("load: direct %v, through the proxy %v; %d requests checked by the provider, %d handles lost or altered, %d stripped messages, %d restored\n",
		directTook.Round(time.Millisecond), proxiedTook.Round(time.Millisecond), loadConversations*loadTurns, lu.bad.Load(), proxied.stripped, proxied.stripped)
	fmt.Printf("load: time to first byte  p50 %s -> %s (added %s), p99 %s -> %s (added %s)\n",
		ms(pct(direct.ttfb, .5)), ms(pct(proxied.ttfb, .5)), ms(pct(proxied.ttfb, .5)-pct(direct.ttfb, .5)),
		ms(pct(direct.ttfb, .99)), ms(pct(proxied.ttfb, .99)), ms(pct(proxied.ttfb, .99)-pct(direct.ttfb, .99)))
	fmt.Printf("load: per-event latency   p50 %s -> %s (added %s), p99 %s -> %s (added %s)\n",
		ms(pct(direct.event, .5)), ms(pct(proxied.event, .5)), ms(pct(proxied.event, .5)-pct(direct.event, .5)),
		ms(pct(direct.event, .99)), ms(pct(proxied.event, .99)), ms(pct(proxied.event, .99)-pct(direct.event, .99)))
	fmt.Printf("load: proxy CPU %v over %v: %v per request (read, repair, audit, forward, capture, store; %d events each)\n",
		proxyCPU, proxiedTook.Round(time.Millisecond), proxyCPU/(loadConversations*loadTurns), 12)
	fmt.Printf("load: proxy RSS idle %d kB, with %d streams open %d kB (%.1f kB per stream, store included), after %d kB\n",
		idle, inFlight, peak, perStream, after)
}

// vmRSS reads a process's resident set size in kB from /proc.
func vmRSS(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n, err == nil
		}
	}
	return 0, false
}

// cpuTime reads a process's user and system CPU time from /proc.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	ut, _ := strconv.Atoi(f[11])
	st, _ := strconv.Atoi(f[12])
	return time.Duration(ut+st) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}

// TestBodyMemory runs replay-proxy as its own process and sends it 8
// request bodies of 30 MiB at once (--max-body 32 MiB, the default), then
// 8 more with a budget that holds only some of them; it samples the
// process's resident memory the whole time. Each body is held once (not
// eight times): the peak stays under the budget, and the requests that do
// not fit are answered 503 with Retry-After.
func TestBodyMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds replay-proxy and sends 480 MiB through it")
	}
	if raceEnabled {
		t.Skip("the figures mean nothing under the race detector; .ci/run runs it without")
	}
	bin := buildProxy(t)
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request, body []byte) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"m","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"`+strconv.Itoa(len(body))+`"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`)
	})
	body := anthropicRequest(`{"role":"user","content":"` + strings.Repeat("word ", 6<<20) + `"}`) // 30 MiB
	for _, c := range []struct {
		budget int64
		admit  int // bodies that fit at once: the budget counts each four times
	}{{1 << 30, 8}, {320 << 20, 2}} {
		addr, cmd, _ := startProxy(t, bin, "--upstream", "anthropic="+up.URL, "--max-inflight-bytes", strconv.FormatInt(c.budget, 10))
		idle, _ := vmRSS(cmd.Process.Pid)
		var peak atomic.Int64
		stop := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			for {
				if rss, ok := vmRSS(cmd.Process.Pid); ok && int64(rss) > peak.Load() {
					peak.Store(int64(rss))
				}
				select {
				case <-stop:
					return
				case <-time.After(2 * time.Millisecond):
				}
			}
		}()
		var wg sync.WaitGroup
		var ok, refused atomic.Int64
		gate := make(chan struct{})
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-gate
				// Each body arrives over 1.5 s, so that all are in flight at once.
				pr, pw := io.Pipe()
				go func() {
					step := len(body) / 30
					for k := 0; k < len(body); k += step {
						if _, err := io.WriteString(pw, body[k:min(k+step, len(body))]); err != nil {
							return
						}
						time.Sleep(50 * time.Millisecond)
					}
					pw.Close()
				}()
				req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/anthropic/v1/messages", pr)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-Api-Key", fmt.Sprintf("sk-mem-%d", i))
				req.ContentLength = int64(len(body))
				resp, err := http.DefaultClient.Do(req)
				pr.CloseWithError(io.ErrClosedPipe)
				if err != nil {
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				switch resp.StatusCode {
				case http.StatusOK:
					if strings.Contains(string(b), strconv.Itoa(len(body))) {
						ok.Add(1)
					}
				case http.StatusServiceUnavailable:
					if resp.Header.Get("Retry-After") != "" {
						refused.Add(1)
					}
				}
			}()
		}
		close(gate)
		wg.Wait()
		close(stop)
		<-sampled
		peakMiB := float64(peak.Load()-int64(idle)) / 1024
		fmt.Printf("memory: 8 concurrent 30 MiB bodies, --max-inflight-bytes %d MiB: %d sent whole, %d refused 503; RSS idle %d kB, peak %d kB (%.0f MiB over idle)\n",
			c.budget>>20, ok.Load(), refused.Load(), idle, peak.Load(), peakMiB)
		assert.Equal(t, int64(8), ok.Load()+refused.Load(), "each body sent whole or refused")
		assert.GreaterOrEqual(t, ok.Load(), int64(c.admit))
		assert.Less(t, (peak.Load()-int64(idle))*1024, c.budget, "the peak stays under the budget")
		_ = cmd.Process.Signal(os.Interrupt)
	}
}
