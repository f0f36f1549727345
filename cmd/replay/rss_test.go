package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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

// TestStreamRSSFlat pipes a generated Anthropic stream of a bounded but
// large number of keep-alive events (the shape of a stream that never
// ends) through the built binary and samples its RSS: it must stay flat
// while the input grows, because the stream is decoded as it arrives.
func TestStreamRSSFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and streams 68 MB through it")
	}
	if _, ok := vmRSS(os.Getpid()); !ok {
		t.Skip("no /proc/PID/status here")
	}
	_, bin := buildReplay(t)

	const pings = 2_000_000
	cmd := exec.Command(bin, "decode", "--compact", "-")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Start())

	w := bufio.NewWriterSize(stdin, 64<<10)
	w.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[]}}\n\n")
	ping := "event: ping\ndata: {\"type\": \"ping\"}\n\n"
	var samples []int // kB, one per tenth of the input
	written := 0
	for i := range pings {
		w.WriteString(ping)
		written += len(ping)
		if (i+1)%(pings/10) == 0 {
			w.Flush()
			time.Sleep(20 * time.Millisecond)
			if rss, ok := vmRSS(cmd.Process.Pid); ok {
				samples = append(samples, rss)
			}
		}
	}
	w.WriteString("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	w.Flush()
	stdin.Close()
	require.NoError(t, cmd.Wait(), errb.String())
	assert.Equal(t, `{"version":2,"provenance":{"api":"anthropic","model":"claude-sonnet-4-5"},"complete":true,"blocks":[]}`+"\n", out.String())

	require.Len(t, samples, 10)
	lo, hi := samples[0], samples[0]
	for _, s := range samples {
		lo, hi = min(lo, s), max(hi, s)
	}
	t.Logf("streamed %d MB (%d events) through replay decode: VmRSS per tenth of the input (kB): %v; growth from the first tenth %d kB",
		written>>20, pings+2, samples, samples[len(samples)-1]-samples[0])
	assert.Less(t, hi, 64<<10, "RSS stays far below the input size")
	assert.Less(t, samples[len(samples)-1]-samples[0], 8<<10, "RSS does not grow with the input")
}
