package sessions

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// largeClaude writes a Claude Code transcript of about size bytes: steps of
// a prompt, a thinking block (1.5 kB of text, a 1.2 kB signature), a text
// block and a tool call, and a tool result of 8 kB (kept twice, as Claude
// Code keeps it: in the message and in toolUseResult), a compaction every
// compactEvery steps (0: none).
func largeClaude(t testing.TB, size int64, compactEvery int) string {
	path := filepath.Join(t.TempDir(), "large.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewSource(1))
	sig := make([]byte, 900)
	words := strings.Fields("the user wants the cart total fixed so check how prices are summed and whether float rounding drifts by a cent on large orders then edit the code and run the tests")
	text := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(words[rng.Intn(len(words))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	out := text(8000)
	parent, n := "null", 0
	line := func(typ, body string) {
		n++
		uuid := fmt.Sprintf("%08x-0000-4000-8000-%012x", n, n)
		fmt.Fprintf(w, `{"parentUuid":%s,"isSidechain":false,"userType":"external","cwd":"/home/dev/shop","sessionId":"big","version":"2.1.30","gitBranch":"main",%s,"type":%q,"uuid":%q,"timestamp":"2026-09-14T10:00:00.000Z"}`+"\n",
			parent, body, typ, uuid)
		parent = `"` + uuid + `"`
	}
	var written int64
	for step := 0; written < size; step++ {
		if compactEvery > 0 && step > 0 && step%compactEvery == 0 {
			parent = "null"
			line("system", `"subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"auto","preTokens":170000}`)
			line("user", `"message":{"role":"user","content":"This session is being continued from a previous conversation. Summary: `+text(600)+`"},"isCompactSummary":true`)
		}
		line("user", `"message":{"role":"user","content":"`+text(300)+`"}`)
		rng.Read(sig)
		mid := fmt.Sprintf("msg_%d", step)
		asst := func(block, stop string) {
			line("assistant", `"message":{"id":"`+mid+`","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[`+block+`],"stop_reason":`+stop+`,"stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":240}},"requestId":"req_1"`)
		}
		asst(`{"type":"thinking","thinking":"`+text(1500)+`","signature":"`+base64.StdEncoding.EncodeToString(sig)+`"}`, "null")
		asst(`{"type":"text","text":"`+text(200)+`"}`, "null")
		id := fmt.Sprintf("toolu_%022d", step)
		asst(`{"type":"tool_use","id":"`+id+`","name":"Read","input":{"file_path":"/home/dev/shop/cart/total.go"}}`, `"tool_use"`)
		line("user", `"message":{"role":"user","content":[{"tool_use_id":"`+id+`","type":"tool_result","content":"`+out+`","is_error":false}]},"toolUseResult":{"stdout":"`+out+`"}`)
		w.Flush()
		fi, _ := f.Stat()
		written = fi.Size()
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

// peakHeap samples the live heap every 5 ms while fn runs and returns its
// peak, in bytes.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	fn()
	close(stop)
	wg.Wait()
	return peak.Load()
}

func auditFile(t testing.TB, path string) *Report {
	s, err := Read(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return Audit(s, s.Target("", "", ""))
}

// BenchmarkAuditClaudeCode audits a generated 100 MB Claude Code transcript
// (a compaction every 100 steps, as a long session has): MB/s of the
// file, and the peak live heap while it runs.
//
//	go test ./sessions/ -run XXX -bench AuditClaudeCode -benchtime 3x
func BenchmarkAuditClaudeCode(b *testing.B) {
	for _, bc := range []struct {
		name    string
		compact int
	}{{"compacted", 100}, {"uncompacted", 0}} {
		b.Run(bc.name, func(b *testing.B) {
			path := largeClaude(b, 100<<20, bc.compact)
			fi, _ := os.Stat(path)
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			b.ResetTimer()
			var peak uint64
			for i := 0; i < b.N; i++ {
				if p := peakHeap(func() { auditFile(b, path) }); p > peak {
					peak = p
				}
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		})
	}
}

// A 100 MB Claude Code transcript with compactions is audited in memory
// bounded by the conversation after its last compaction, not by the file:
// the live heap stays under 32 MiB (it peaks under 10 MiB).
func TestAuditBoundedMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("writes and reads 100 MB")
	}
	path := largeClaude(t, 100<<20, 100)
	var rep *Report
	peak := peakHeap(func() { rep = auditFile(t, path) })
	t.Logf("peak live heap %.1f MiB for a %d MiB transcript", float64(peak)/(1<<20), 100)
	if peak > 32<<20 {
		t.Fatalf("peak heap %d MiB", peak>>20)
	}
	if rep.Verdict() != "clean" || rep.Turns == 0 || rep.Turns > 100 || rep.Records < 20000 {
		t.Fatalf("verdict %s, %d turns of %d records: want clean, the turns since the last compaction (at most 100)", rep.Verdict(), rep.Turns, rep.Records)
	}
}
