package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// fleet writes a directory of stored conversations: clean ones (the Claude
// turn alone), broken ones (the Claude turn then a cut-off turn), some of
// both as JSON lines in one file, in subdirectories.
func fleet(t testing.TB, clean, broken, lines int) string {
	_, doc, _ := runCLI("", "decode", "--compact", claudeLoop)
	_, cut, _ := runCLI("", "decode", "--compact", td+"cut-before-signature.sse")
	doc, cut = strings.TrimSpace(doc), strings.TrimSpace(cut)
	require.NotEmpty(t, doc)
	require.NotEmpty(t, cut)
	dir := t.TempDir()
	for i := range clean + broken {
		sub := filepath.Join(dir, fmt.Sprintf("shard-%02d", i%16))
		require.NoError(t, os.MkdirAll(sub, 0o755))
		body := doc
		if i >= clean {
			body = "[" + doc + "," + cut + "]"
		}
		require.NoError(t, os.WriteFile(filepath.Join(sub, fmt.Sprintf("conv-%05d.json", i)), []byte(body), 0o644))
	}
	var jl strings.Builder
	for i := range lines {
		if i%2 == 0 {
			jl.WriteString(doc + "\n")
		} else {
			jl.WriteString("[" + doc + "," + cut + "]\n\n")
		}
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "more.jsonl"), []byte(jl.String()), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a conversation"), 0o644))
	return dir
}

var auditTarget = []string{"audit", "--api", "openrouter", "--model", "anthropic/claude-sonnet-4.5"}

func TestBatchAuditDirectory(t *testing.T) {
	dir := fleet(t, 2000, 1000, 400)
	code, out, errOut := runCLI("", append(auditTarget, dir)...)
	assert.Equal(t, 1, code, errOut)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 3400+1, "one verdict per conversation and the summary")
	// In input order: the JSON lines file first (lexical order), then the
	// shards.
	assert.Equal(t, `{"source":"`+dir+`/more.jsonl:1","verdict":"clean","violations":0,"rules":[]}`, lines[0])
	assert.Equal(t, `{"source":"`+dir+`/more.jsonl:2","verdict":"reject","violations":2,"rules":["replay/incomplete-turn","replay/unfinished-item"]}`, lines[1])
	assert.True(t, strings.HasPrefix(lines[2], `{"source":"`+dir+`/more.jsonl:4",`), "line 3 is blank and skipped: %s", lines[2])
	assert.Equal(t, `{"source":"`+dir+`/shard-00/conv-00000.json","verdict":"clean","violations":0,"rules":[]}`, lines[400])
	assert.Equal(t, `{"summary":{"conversations":3400,"clean":2200,"risk":0,"degrade":0,"reject":1200,"unreadable":0,`+
		`"rules":[{"rule":"replay/incomplete-turn","severity":"degrade","conversations":1200},{"rule":"replay/unfinished-item","severity":"reject","conversations":1200}]}}`, lines[3400])
	assert.Equal(t, "replay audit: 3400 conversations for openrouter anthropic/claude-sonnet-4.5: 2200 clean, 1200 would be rejected, 0 degraded, 0 at risk, 0 unreadable\n"+
		"  replay/incomplete-turn                       [degrade] breaks 1200 conversations\n"+
		"  replay/unfinished-item                       [reject] breaks 1200 conversations\n"+
		"replay audit: the provider would reject 1200 conversations of 3400\n", errOut)
	for _, l := range lines {
		require.True(t, gjson.Valid(l), l)
	}

	// The same verdicts with one worker: order does not depend on timing.
	_, serial, _ := runCLI("", append(auditTarget, "--jobs", "1", dir)...)
	assert.Equal(t, out, serial)
}

func TestBatchAuditManyFilesAndStdin(t *testing.T) {
	_, doc, _ := runCLI("", "decode", "--compact", claudeLoop)
	good := writeFile(t, "good.json", doc)
	bad := writeFile(t, "bad.json", "{not json")
	code, out, errOut := runCLI("", append(auditTarget, good, bad, "/no/such/file.json")...)
	assert.Equal(t, 2, code, "an unreadable conversation: could not judge them all")
	assert.Equal(t, `{"source":"`+good+`","verdict":"clean","violations":0,"rules":[]}`+"\n"+
		`{"source":"`+bad+`","verdict":"unreadable","error":"not JSON: expected a turn document or a JSON array of them"}`+"\n"+
		`{"source":"/no/such/file.json","verdict":"unreadable","error":"open /no/such/file.json: no such file or directory"}`+"\n"+
		`{"summary":{"conversations":3,"clean":1,"risk":0,"degrade":0,"reject":0,"unreadable":2,"rules":[]}}`+"\n", out)
	assert.Equal(t, "replay audit: 3 conversations for openrouter anthropic/claude-sonnet-4.5: 1 clean, 0 would be rejected, 0 degraded, 0 at risk, 2 unreadable\n"+
		"replay audit: 2 conversations could not be read; the others were judged\n", errOut)

	// JSON lines of histories on standard input.
	code, out, errOut = runCLI(strings.Repeat(strings.TrimSpace(doc)+"\n", 3), append(auditTarget, "--progress", "-")...)
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, 4, strings.Count(out, "\n"))
	assert.Contains(t, out, `{"source":"standard input:3","verdict":"clean"`)
	assert.Contains(t, errOut, "\rreplay audit: 3 conversations in ")
	assert.True(t, strings.HasSuffix(errOut, "replay audit: 1 conversation for openrouter anthropic/claude-sonnet-4.5: 1 clean, 0 would be rejected, 0 degraded, 0 at risk, 0 unreadable\n") ||
		strings.Contains(errOut, "3 conversations for openrouter"), errOut)

	code, _, errOut = runCLI("", append(auditTarget, "--request", good, good, good)...)
	assert.Equal(t, 2, code)
	assert.Equal(t, "replay audit: --request goes with one HISTORY, not with many conversations\n", errOut)
	code, _, errOut = runCLI("", append(auditTarget, t.TempDir())...)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "replay audit: no conversation found")
}

// BenchmarkBatchAudit audits a directory of 2,000 conversations (two
// thirds clean, one third broken) and reports conversations per second.
func BenchmarkBatchAudit(b *testing.B) {
	dir := fleet(b, 1334, 666, 0)
	args := append(append([]string{}, auditTarget...), dir)
	b.ResetTimer()
	for range b.N {
		if code := run(&env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}, args); code != 1 {
			b.Fatalf("exit %d", code)
		}
	}
	b.ReportMetric(float64(2000*b.N)/b.Elapsed().Seconds(), "conv/s")
}
