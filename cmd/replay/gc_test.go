package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// writeThinkingLoop writes an Anthropic stream of blocks signed thinking
// blocks of deltas deltas each (about 30 bytes of text per delta), and
// returns the length of the thinking text one block keeps.
func writeThinkingLoop(t *testing.T, path string, blocks, deltas int) int {
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriterSize(f, 64<<10)
	ev := func(typ, data string) { fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, data) }
	ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[]}}`)
	kept := 0
	for k := 0; k < blocks; k++ {
		ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"thinking","thinking":"","signature":""}}`, k))
		kept = 0
		for d := 0; d < deltas; d++ {
			ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"thinking_delta","thinking":"step %03d: the \"value\" doubles\n"}}`, k, d%997))
			kept += len("step 000: the \"value\" doubles\n")
		}
		ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"signature_delta","signature":"c2lnLXRoaW5raW5n"}}`, k))
		ev("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, k))
	}
	ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":9000}}`)
	ev("message_stop", `{"type":"message_stop"}`)
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	return kept
}

var gcLine = regexp.MustCompile(`(?m)^gc \d+ @.*$`)

// collections counts the collections a gctrace log shows: those the
// pacer started, and those the program forced (runtime.GC).
func collections(log string) (paced, forced int) {
	for _, l := range gcLine.FindAllString(log, -1) {
		if strings.HasSuffix(l, "(forced)") {
			forced++
		} else {
			paced++
		}
	}
	return paced, forced
}

// TestStreamDecodeCollectsLate runs the built binary under
// GODEBUG=gctrace=1 on a stream whose turn keeps 6 MB: decoding it, the
// process starts no collection (relaxGC; the one collection it forces,
// prepareHeap's, comes before the decode, on a heap that holds next to
// nothing), where the default GOGC, set in the environment, collects at
// least once; the document is the same.
func TestStreamDecodeCollectsLate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and decodes a 22 MB stream")
	}
	dir, bin := buildReplay(t)
	in := filepath.Join(dir, "loop.sse")
	perBlock := writeThinkingLoop(t, in, 200, 1000)
	run := func(env ...string) (string, int, int) {
		cmd := exec.Command(bin, "decode", "--compact", in)
		cmd.Env = append(os.Environ(), append([]string{"GODEBUG=gctrace=1"}, env...)...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		require.NoError(t, cmd.Run(), errb.String())
		paced, forced := collections(errb.String())
		return out.String(), paced, forced
	}
	relaxed, n, forced := run()
	assert.Zero(t, n, "collections while a stream is decoded")
	assert.LessOrEqual(t, forced, 1, "prepareHeap forces one collection at most")
	require.Equal(t, int64(200), gjson.Get(relaxed, "blocks.#").Int())
	require.Len(t, gjson.Get(relaxed, "blocks.199.text").Str, perBlock)
	paced, n, _ := run("GOGC=100")
	assert.NotZero(t, n, "GOGC=100 in the environment is the user's: the stream is large enough to be collected then")
	assert.Equal(t, relaxed, paced)
}

// relaxGC leaves the collector alone when GOGC is set in the
// environment, and otherwise sets streamGCPercent.
func TestRelaxGC(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	t.Setenv("GOGC", "100")
	relaxGC()
	assert.Equal(t, 100, debug.SetGCPercent(100), "GOGC in the environment wins")
	os.Unsetenv("GOGC") // t.Setenv restores it
	relaxGC()
	assert.Equal(t, streamGCPercent, debug.SetGCPercent(100))
}
