package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// thpMode returns the system's transparent huge page mode ("always",
// "madvise" or "never"), or "" when the system does not say.
func thpMode() string {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		return ""
	}
	s := string(b)
	i, j := strings.IndexByte(s, '['), strings.IndexByte(s, ']')
	if i < 0 || j < i {
		return ""
	}
	return s[i+1 : j]
}

// TestStreamDecodeHugePages runs the built binary on a stream whose turn
// keeps 6 MB, as it is and with GODEBUG=disablethp=1 (which turns
// prepareHeap off, and the runtime's own huge pages), and compares the
// pages each process faulted in (minor faults, from wait4): with huge
// pages the kept text faults in 2 MB at a time, so the process faults at
// least half the kept text's 4 KB pages fewer. The documents are the same
// bytes. Where the system has no huge pages on offer, only the documents
// are compared.
func TestStreamDecodeHugePages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and decodes a 22 MB stream")
	}
	dir, bin := buildReplay(t)
	in := filepath.Join(dir, "loop.sse")
	kept := 200 * writeThinkingLoop(t, in, 200, 1000)
	run := func(env ...string) (string, int64) {
		cmd := exec.Command(bin, "decode", "--stream", in)
		cmd.Env = append(os.Environ(), env...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		require.NoError(t, cmd.Run(), errb.String())
		return out.String(), cmd.ProcessState.SysUsage().(*syscall.Rusage).Minflt
	}
	huge, hugeFaults := run()
	small, smallFaults := run("GODEBUG=disablethp=1")
	require.Equal(t, small, huge, "the same document with huge pages and without")
	mode := thpMode()
	t.Logf("huge pages %q; %d bytes kept; minor faults %d with prepareHeap, %d with GODEBUG=disablethp=1", mode, kept, hugeFaults, smallFaults)
	if mode != "always" && mode != "madvise" {
		t.Skipf("transparent huge pages are %q here: prepareHeap's advice does nothing", mode)
	}
	assert.Less(t, hugeFaults, smallFaults-int64(kept/4096/2), "huge pages fault the kept text in 2 MB at a time")
}

// hugePagesAvailable follows GODEBUG's disablethp, the last setting
// winning.
func TestHugePagesAvailable(t *testing.T) {
	for godebug, want := range map[string]bool{
		"":                            true,
		"gctrace=1":                   true,
		"disablethp=1":                false,
		"gctrace=1, disablethp=1":     false,
		"disablethp=1,disablethp=0":   true,
		"disablethp=0":                true,
		"madvdontneed=1,disablethp=1": false,
	} {
		t.Setenv("GODEBUG", godebug)
		assert.Equal(t, want, hugePagesAvailable(), "GODEBUG=%q", godebug)
	}
}
