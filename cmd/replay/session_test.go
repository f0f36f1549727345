package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

const sd = "../../sessions/testdata/"

func sessionCopy(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(sd + name)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), filepath.Base(name))
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

// One session prints its report; the exit status says whether the
// provider would reject it.
func TestSessionAuditOne(t *testing.T) {
	code, out, errOut := runCLI("", "session", "audit", "--compact", sd+"claude-code/truncated-signature.jsonl")
	assert.Equal(t, 1, code, errOut)
	assert.Equal(t, "reject", gjson.Get(out, "verdict").Str)
	assert.Equal(t, "session/truncated-signature", gjson.Get(out, "findings.0.rule").Str)
	assert.Equal(t, int64(2), gjson.Get(out, "findings.0.line").Int())
	assert.Equal(t, "/message/content/0", gjson.Get(out, "findings.0.pointer").Str)
	assert.Contains(t, errOut, "claude-code/truncated-signature.jsonl:2 /message/content/0 session/truncated-signature")
	assert.Contains(t, errOut, "replay session audit: the provider would reject this session on anthropic anthropic claude-opus-4-1-20250805\n")

	code, out, errOut = runCLI("", "session", "audit", sd+"claude-code/healthy.jsonl")
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, "clean", gjson.Get(out, "verdict").Str)

	// A switch: the session resumes on another model.
	code, out, _ = runCLI("", "session", "audit", "--compact", "--to-model", "gpt-5.1", "--to-provider", "openai", sd+"pi/sessions/--home-dev-shop--/switch.jsonl")
	assert.Equal(t, 0, code)
	assert.Equal(t, "openai-responses", gjson.Get(out, "target.api").Str)
	assert.Equal(t, int64(3), gjson.Get(out, "handled.#").Int(), "pi converts the old thinking itself")

	code, _, errOut = runCLI("", "session", "audit", "--agent", "aider", sd+"claude-code/healthy.jsonl")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `unknown agent "aider"`)
	code, _, errOut = runCLI("", "session", "audit", sd+"no/such/file.jsonl")
	assert.Equal(t, 2, code, errOut)
	code, _, _ = runCLI("", "session", "audit")
	assert.Equal(t, 2, code)
}

// A directory: every session under it, one verdict line each in order,
// and a summary; a session that cannot be read wins the exit status.
func TestSessionAuditDirectory(t *testing.T) {
	code, out, errOut := runCLI("", "session", "audit", "--jobs", "3", sd+"claude-code")
	assert.Equal(t, 1, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 13, out) // 12 sessions and the summary
	var files []string
	for _, l := range lines[:12] {
		files = append(files, gjson.Get(l, "file").Str)
		assert.Equal(t, "claude-code", gjson.Get(l, "agent").Str)
	}
	assert.True(t, strings.HasSuffix(files[0], "subagents/agent-a3f9c21.jsonl"), files[0])
	assert.True(t, strings.HasSuffix(files[1], "empty-signature.jsonl"), "in lexical order: %v", files)
	sum := gjson.Get(lines[12], "summary")
	assert.Equal(t, int64(12), sum.Get("sessions").Int())
	assert.Equal(t, int64(2), sum.Get("clean").Int())
	assert.Equal(t, int64(2), sum.Get("risk").Int())
	assert.Equal(t, int64(8), sum.Get("reject").Int())
	assert.Contains(t, errOut, "12 sessions: 2 clean, 8 would be rejected, 0 degraded, 2 at risk, 0 unreadable")

	dir := t.TempDir()
	data, err := os.ReadFile(sd + "claude-code/healthy.jsonl")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.jsonl"), data, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.jsonl"), []byte(`{"type":"assistant","uuid":"x","message":{"role":"assistant","content":[]}}`+"\n"+strings.Repeat("x", 10)), 0o644))
	code, out, errOut = runCLI("", "session", "audit", "--progress", dir)
	assert.Equal(t, 0, code, "an unreadable line is a risk, not a read error: %s", errOut)
	assert.Contains(t, out, `"verdict":"risk"`)
	assert.Contains(t, errOut, "replay session audit: 2 sessions in ")
}

// A repair is a dry run (the diff) unless --write; --undo restores the file.
func TestSessionRepair(t *testing.T) {
	path := sessionCopy(t, "claude-code/hollow-latest.jsonl")
	orig, err := os.ReadFile(path)
	require.NoError(t, err)

	code, out, errOut := runCLI("", "session", "repair", path)
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "@@ line 6 (record 5) @@\n# rewind the in-progress tool step")
	assert.Contains(t, errOut, "reject, 3 changes; after the repair: clean")
	assert.Contains(t, errOut, "a dry run; write it with --write")
	now, _ := os.ReadFile(path)
	assert.Equal(t, orig, now, "a dry run changes nothing")

	code, _, errOut = runCLI("", "session", "repair", "--write", path)
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "undo: replay session repair --undo "+path)
	now, _ = os.ReadFile(path)
	assert.NotEqual(t, orig, now)
	code, _, errOut = runCLI("", "session", "audit", path)
	assert.Equal(t, 0, code, errOut)

	code, _, errOut = runCLI("", "session", "repair", "--undo", path)
	assert.Equal(t, 0, code, errOut)
	now, _ = os.ReadFile(path)
	assert.Equal(t, orig, now)

	code, _, errOut = runCLI("", "session", "repair", "--undo", path)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "no backup of this content")

	code, out, errOut = runCLI("", "session", "repair", sd+"claude-code/healthy.jsonl")
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "nothing to change")

	code, _, errOut = runCLI("", "session", "repair", "--write", "--undo", path)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--write and --undo go alone")
	code, _, _ = runCLI("", "session", "repair", sd+"claude-code")
	assert.Equal(t, 2, code)
}
