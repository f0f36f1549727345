package sessions

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// copyFixture copies a fixture into a temporary directory and returns the
// copy's path.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), filepath.Base(name))
	require.NoError(t, os.WriteFile(path, data, 0o640))
	return path
}

func repairOf(t *testing.T, path string) *Plan {
	t.Helper()
	s, err := Read(path, Options{})
	require.NoError(t, err)
	p, err := Repair(s, s.Target("", "", ""))
	require.NoError(t, err)
	require.False(t, p.Empty())
	return p
}

// Write keeps a backup named for the repaired content beside the file,
// replaces the file with what the plan writes, keeps its mode; Undo puts
// the original back and removes the backup.
func TestWriteAndUndo(t *testing.T) {
	path := copyFixture(t, "claude-code/hollow-latest.jsonl")
	orig, err := os.ReadFile(path)
	require.NoError(t, err)
	p := repairOf(t, path)
	var want bytes.Buffer
	_, err = p.WriteTo(&want)
	require.NoError(t, err)

	backup, err := Write(p)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(backup, path+"."), backup)
	assert.True(t, strings.HasSuffix(backup, backupSuffix), backup)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, want.String(), string(got))
	saved, err := os.ReadFile(backup)
	require.NoError(t, err)
	assert.Equal(t, orig, saved, "the backup is the original")
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm())
	list, err := Backups(path)
	require.NoError(t, err)
	assert.Equal(t, []string{backup}, list)
	// No temporary file is left behind.
	ents, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	assert.Len(t, ents, 2)

	// The repaired file audits clean; undoing restores the original.
	s, err := Read(path, Options{})
	require.NoError(t, err)
	assert.False(t, Audit(s, s.Target("", "", "")).Rejects())
	restored, err := Undo(path)
	require.NoError(t, err)
	assert.Equal(t, backup, restored)
	got, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, orig, got)
	_, err = os.Stat(backup)
	assert.True(t, os.IsNotExist(err), "the backup is removed")

	// Nothing left to undo.
	_, err = Undo(path)
	assert.True(t, errors.Is(err, ErrNoBackup), "%v", err)
}

// A file the agent appended to after it was read is not replaced; a file
// changed after the repair is not undone.
func TestWriteRefusesAChangedFile(t *testing.T) {
	path := copyFixture(t, "claude-code/hollow-latest.jsonl")
	p := repairOf(t, path)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"type":"summary","summary":"x","leafUuid":"y"}` + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	_, err = Write(p)
	assert.True(t, errors.Is(err, ErrChanged), "%v", err)
	list, _ := Backups(path)
	assert.Empty(t, list, "no backup is left by a refused write")

	path = copyFixture(t, "claude-code/hollow-latest.jsonl")
	p = repairOf(t, path)
	backup, err := Write(p)
	require.NoError(t, err)
	time.Sleep(10 * time.Millisecond)
	f, err = os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"type":"summary","summary":"x","leafUuid":"y"}` + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	_, err = Undo(path)
	require.True(t, errors.Is(err, ErrNoBackup), "%v", err)
	assert.Contains(t, err.Error(), backup, "the error names the backups there are")
}

// Deleting elements of a JSON document keeps it valid, whichever elements
// go: the first, a run in the middle, the last, all.
func TestDocumentDeletions(t *testing.T) {
	doc := "[\n  {\"i\":0},\n  {\"i\":1},\n  {\"i\":2},\n  {\"i\":3},\n  {\"i\":4}\n]\n"
	path := filepath.Join(t.TempDir(), "api_conversation_history.json")
	require.NoError(t, os.WriteFile(path, []byte(doc), 0o644))
	s := &Session{Path: path, recIdx: map[int]int{}}
	dr := newDocReader(strings.NewReader(doc), 1000)
	for {
		it, err := dr.next("")
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		s.spans = append(s.spans, span{it.rec.off, it.rec.end})
		s.addRecord(it.rec)
	}
	for _, tc := range []struct {
		gone []int
		want string
	}{
		{[]int{0}, "[\n  {\"i\":1},\n  {\"i\":2},\n  {\"i\":3},\n  {\"i\":4}\n]\n"},
		{[]int{1, 2}, "[\n  {\"i\":0},\n  {\"i\":3},\n  {\"i\":4}\n]\n"},
		{[]int{4}, "[\n  {\"i\":0},\n  {\"i\":1},\n  {\"i\":2},\n  {\"i\":3}\n]\n"},
		{[]int{0, 1, 3, 4}, "[\n  {\"i\":2}\n]\n"},
		{[]int{0, 1, 2, 3, 4}, "[\n  \n]\n"},
	} {
		var es []edit
		for _, g := range tc.gone {
			es = append(es, edit{rec: g, del: true})
		}
		cs, err := s.compile(es)
		require.NoError(t, err)
		var out bytes.Buffer
		_, err = (&Plan{Session: s, changes: cs}).WriteTo(&out)
		require.NoError(t, err)
		assert.Equal(t, tc.want, out.String(), "%v", tc.gone)
		assert.True(t, validJSON(out.Bytes()))
	}
}

func TestDetect(t *testing.T) {
	for name, want := range map[string]Agent{
		"claude-code/healthy.jsonl":         ClaudeCode,
		"claude-code/unreadable-line.jsonl": ClaudeCode,
		"continue/sessions/truncated.json":  Continue,
	} {
		got, err := Detect(filepath.Join("testdata", name))
		require.NoError(t, err)
		assert.Equal(t, want, got, name)
	}
	dir := t.TempDir()
	for name, data := range map[string]string{
		"empty.jsonl":   "",
		"text.json":     "hello",
		"numbers.json":  "[1,2,3]",
		"other.jsonl":   `{"kind":"log","msg":"x"}` + "\n",
		"settings.json": `{"theme":"dark"}`,
	} {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
		_, err := Detect(p)
		assert.True(t, errors.Is(err, ErrUnknownFormat), "%s: %v", name, err)
		_, err = Read(p, Options{})
		assert.Error(t, err, name)
	}
	// Discover leaves out what is no session, and the backups.
	found, err := Discover(dir, "")
	require.NoError(t, err)
	assert.Empty(t, found)
}

// A session id is found under the agent's directory, wherever the agent
// keeps it; an ambiguous id is an error that names the candidates.
func TestFind(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	put := func(dst, src string) {
		data, err := os.ReadFile(filepath.Join("testdata", src))
		require.NoError(t, err)
		p := filepath.Join(home, dst)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, data, 0o644))
	}
	put(".claude/projects/-home-dev-shop/1b7c0f5e-2f47-4a53-9c6e-3d2b8f1a9e01.jsonl", "claude-code/healthy.jsonl")
	put(".claude/projects/-home-dev-shop/1b7c0f5e-2f47-4a53-9c6e-3d2b8f1a9e02.jsonl", "claude-code/hollow-latest.jsonl")
	put(".continue/sessions/3c1d7a52.json", "continue/sessions/truncated.json")

	f, err := Find("1b7c0f5e-2f47-4a53-9c6e-3d2b8f1a9e01", "")
	require.NoError(t, err)
	assert.Equal(t, ClaudeCode, f.Agent)
	assert.Equal(t, filepath.Join(home, ".claude/projects/-home-dev-shop/1b7c0f5e-2f47-4a53-9c6e-3d2b8f1a9e01.jsonl"), f.Path)
	f, err = Find("3c1d7a52", Continue)
	require.NoError(t, err)
	assert.Equal(t, Continue, f.Agent)
	_, err = Find("1b7c0f5e", "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ambiguous")
	_, err = Find("nope", ClaudeCode)
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(home, ".claude", "projects"))
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(home, "elsewhere"))
	assert.Equal(t, []string{filepath.Join(home, "elsewhere", "projects")}, Dirs(ClaudeCode))
}

func TestParseAgent(t *testing.T) {
	for in, want := range map[string]Agent{"claude": ClaudeCode, "Claude-Code": ClaudeCode, "gemini": GeminiCLI, "roo": RooCode, "codex": Codex} {
		got, err := ParseAgent(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err := ParseAgent("aider")
	assert.ErrorContains(t, err, "claude-code, codex, pi")
}

// Dropping a pi entry moves the links to it: its children's parentId, and a
// compaction's firstKeptEntryId, which goes to the entry that follows it.
func TestPiRelink(t *testing.T) {
	sig := strings.Repeat("EqQBCkYIBRgCKkBz", 20)
	lines := []string{
		`{"type":"session","version":3,"id":"s1","timestamp":"2026-09-03T11:00:00.000Z","cwd":"/w"}`,
		`{"type":"message","id":"u1","parentId":null,"message":{"role":"user","content":[{"type":"text","text":"a"}]}}`,
		`{"type":"message","id":"a1","parentId":"u1","message":{"role":"assistant","api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","content":[{"type":"thinking","thinking":"cut here","thinkingSignature":"` + sig + `"}],"stopReason":"stop"}}`,
		`{"type":"message","id":"u2","parentId":"a1","message":{"role":"user","content":[{"type":"text","text":"b"}]}}`,
		`{"type":"compaction","id":"c1","parentId":"u2","summary":"s","firstKeptEntryId":"a1","tokensBefore":9}`,
		`{"type":"message","id":"u3","parentId":"c1","message":{"role":"user","content":[{"type":"text","text":"c"}]}}`,
		`{"type":"message","id":"a3","parentId":"u3","message":{"role":"assistant","api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","content":[{"type":"thinking","thinking":"ok","thinkingSignature":"` + sig + `"},{"type":"text","text":"done"}],"stopReason":"stop"}}`,
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	p := repairOf(t, path)
	var out bytes.Buffer
	_, err := p.WriteTo(&out)
	require.NoError(t, err)
	got := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, got, len(lines)-1, "the thinking-only entry a1 goes")
	assert.Equal(t, strings.Replace(lines[3], `"parentId":"a1"`, `"parentId":"u1"`, 1), got[2])
	assert.Equal(t, strings.Replace(lines[4], `"firstKeptEntryId":"a1"`, `"firstKeptEntryId":"u2"`, 1), got[3])
	after, err := p.Verify()
	require.NoError(t, err)
	assert.Equal(t, "clean", after.Verdict())
}
