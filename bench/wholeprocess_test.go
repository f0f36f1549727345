package bench

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

var (
	wholeRounds = flag.Int("whole", 0, "TestWholeProcess: rounds of replay decode --stream against the anthropic-sdk-go peer, as whole processes (0 skips)")
	wholeKeep   = flag.String("whole.keep", "", "TestWholeProcess: keep the stream and both binaries in this directory")
)

// TestWholeProcess times `replay decode --stream --api anthropic` of the
// Anthropic tool loop of 400 signed thinking blocks of 400 deltas (26 MB)
// against anthropic-sdk-go reading the same file (cmd/anthropic-sdk-decode:
// its ssestream and Message.Accumulate, the message printed as JSON), each
// as a whole process, and a process that does nothing (`replay
// --version`) against a Go program that prints one line (cmd/hello) and
// the same linking net/http (cmd/hello-http), all built alike. Rounds
// alternate the commands so that all see the same load. It logs, for each,
// the median and spread of the wall time and of the CPU time (user and
// system, which a loaded machine inflates less than wall time), and the
// median of the per-round ratios. Issue 27 asks for 30x; the test fails on
// a regression below 10x of the CPU-time ratio. Run it with -whole 9.
func TestWholeProcess(t *testing.T) {
	if *wholeRounds == 0 {
		t.Skip("run with -whole N")
	}
	dir := *wholeKeep
	if dir == "" {
		dir = t.TempDir()
	}
	replayBin, peerBin := filepath.Join(dir, "replay"), filepath.Join(dir, "anthropic-sdk-decode")
	helloBin, helloHTTPBin := filepath.Join(dir, "hello"), filepath.Join(dir, "hello-http")
	for _, b := range [][]string{{replayBin, "github.com/reasonreplay/replay/cmd/replay"}, {peerBin, "./cmd/anthropic-sdk-decode"},
		{helloBin, "./cmd/hello"}, {helloHTTPBin, "./cmd/hello-http"}} {
		build := exec.Command("go", "build", "-o", b[0], b[1])
		build.Stderr = os.Stderr
		require.NoError(t, build.Run())
	}
	data, _ := anthropicToolLoop(400, 400)
	in := filepath.Join(dir, "anthropic-toolloop-400x400.sse")
	require.NoError(t, os.WriteFile(in, data, 0o600))

	type timing struct{ wall, cpu time.Duration }
	run := func(name string, args ...string) (timing, []byte) {
		var out bytes.Buffer
		cmd := exec.Command(name, args...)
		cmd.Stdout, cmd.Stderr = &out, os.Stderr
		start := time.Now()
		require.NoError(t, cmd.Run())
		wall := time.Since(start)
		return timing{wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}, out.Bytes()
	}
	var ours, peers, idles, hellos, hellosHTTP []timing
	var wallRatios, cpuRatios, startRatios []float64
	for r := 0; r < *wholeRounds; r++ {
		o, doc := run(replayBin, "decode", "--stream", "--api", "anthropic", in)
		p, msg := run(peerBin, in)
		i, _ := run(replayBin, "--version")
		h, _ := run(helloBin)
		hh, _ := run(helloHTTPBin)
		if r == 0 {
			// Both read the same turn.
			require.True(t, gjson.GetBytes(doc, "complete").Bool())
			require.Equal(t, int64(801), gjson.GetBytes(doc, "blocks.#").Int())
			require.Equal(t, int64(801), gjson.GetBytes(msg, "content.#").Int())
			require.Equal(t, gjson.GetBytes(msg, "content.0.signature").Str, gjson.GetBytes(doc, "blocks.0.signature").Str)
			require.True(t, strings.HasPrefix(gjson.GetBytes(doc, "blocks.0.text").Str, "step 0: the \"value\" doubles"))
		}
		ours, peers, idles = append(ours, o), append(peers, p), append(idles, i)
		hellos, hellosHTTP = append(hellos, h), append(hellosHTTP, hh)
		startRatios = append(startRatios, float64(i.cpu)/float64(h.cpu))
		wallRatios = append(wallRatios, float64(p.wall)/float64(o.wall))
		cpuRatios = append(cpuRatios, float64(p.cpu)/float64(o.cpu))
	}
	spread := func(ts []timing, cpu bool) string {
		xs := make([]time.Duration, len(ts))
		for i, x := range ts {
			xs[i] = x.wall
			if cpu {
				xs[i] = x.cpu
			}
		}
		slices.Sort(xs)
		return fmt.Sprintf("%v (%v to %v)", xs[len(xs)/2].Round(time.Millisecond), xs[0].Round(time.Millisecond), xs[len(xs)-1].Round(time.Millisecond))
	}
	ratio := func(xs []float64) (float64, string) {
		s := slices.Clone(xs)
		slices.Sort(s)
		return s[len(s)/2], fmt.Sprintf("%.1fx (%.1fx to %.1fx)", s[len(s)/2], s[0], s[len(s)-1])
	}
	_, wr := ratio(wallRatios)
	cr, crs := ratio(cpuRatios)
	_, sr := ratio(startRatios)
	t.Logf("%d bytes, %d rounds, medians (min to max):\n"+
		"  replay decode --stream: wall %s, cpu %s\n  anthropic-sdk-go:       wall %s, cpu %s\n  replay --version:       wall %s, cpu %s\n"+
		"  hello:                  wall %s, cpu %s\n  hello, net/http linked: wall %s, cpu %s\n"+
		"  ratio (SDK / replay): wall %s, cpu %s\n  start (replay --version / hello): cpu %s",
		len(data), len(cpuRatios), spread(ours, false), spread(ours, true), spread(peers, false), spread(peers, true),
		spread(idles, false), spread(idles, true), spread(hellos, false), spread(hellos, true),
		spread(hellosHTTP, false), spread(hellosHTTP, true), wr, crs, sr)
	require.GreaterOrEqual(t, cr, 10.0, "a regression: the command's process below 10x the SDK's on the same bytes")
}
