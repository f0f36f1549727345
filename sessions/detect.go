package sessions

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

// Detect tells which agent wrote the session file at path, from its path
// and its first record.
func Detect(path string) (Agent, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return detectFile(path, f)
}

// detectFile reads the first record (at most 1 MiB of it) of r.
func detectFile(path string, r io.Reader) (Agent, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(64 << 10)
	first := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xEF\xBB\xBF")), " \t\r\n")
	if len(first) == 0 {
		return "", fmt.Errorf("%s: empty: %w", path, ErrUnknownFormat)
	}
	slash := filepath.ToSlash(path)
	if first[0] == '[' {
		switch {
		case strings.Contains(slash, "rooveterinaryinc.roo-cline"):
			return RooCode, nil
		case strings.Contains(slash, "saoudrizwan.claude-dev"):
			return Cline, nil
		case bytes.Contains(head, []byte(`"modelInfo"`)):
			return Cline, nil
		case bytes.Contains(head, []byte(`"condenseParent"`)), bytes.Contains(head, []byte(`"condenseId"`)),
			bytes.Contains(head, []byte(`"truncationParent"`)), bytes.Contains(head, []byte(`"isSummary"`)),
			bytes.Contains(head, []byte(`"encrypted_content"`)), bytes.Contains(head, []byte(`"reasoning_content"`)):
			return RooCode, nil
		case bytes.Contains(head, []byte(`"role"`)):
			return Cline, nil
		}
		return "", fmt.Errorf("%s: a JSON array, not of messages: %w", path, ErrUnknownFormat)
	}
	if first[0] != '{' {
		return "", fmt.Errorf("%s: does not start with a JSON object or array: %w", path, ErrUnknownFormat)
	}
	// The first line, when the file is JSON lines; else the document's
	// start.
	line := first
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		line = first[:i]
	}
	whole := gjson.ValidBytes(line)
	get := func(k string) gjson.Result {
		if !whole {
			return gjson.Result{}
		}
		return gjson.GetBytes(line, k)
	}
	typ := get("type").Str
	switch {
	case whole && typ == "session" && (get("version").Exists() || get("cwd").Exists() || get("id").Exists()):
		if strings.Contains(slash, "/.openclaw/") || bytes.Contains(head, []byte(`"model-snapshot"`)) {
			return OpenClaw, nil
		}
		return Pi, nil
	case whole && get("payload").Exists() && (typ == "session_meta" || typ == "response_item" || typ == "turn_context" || typ == "event_msg" || typ == "compacted"):
		return Codex, nil
	case whole && (get("projectHash").Exists() || get("$set").Exists() || get("$rewindTo").Exists()):
		return GeminiCLI, nil
	case whole && get("id").Exists() && (typ == "gemini" || typ == "user" || typ == "info") && !get("uuid").Exists() && !get("message").Exists():
		return GeminiCLI, nil
	case whole && (get("uuid").Exists() || get("parentUuid").Exists() || get("leafUuid").Exists() || typ == "summary" || typ == "file-history-snapshot"):
		return ClaudeCode, nil
	}
	// A JSON document.
	switch {
	case bytes.Contains(head, []byte(`"projectHash"`)) && bytes.Contains(head, []byte(`"messages"`)):
		return GeminiCLI, nil
	case bytes.Contains(head, []byte(`"history"`)) && (bytes.Contains(head, []byte(`"workspaceDirectory"`)) || strings.Contains(slash, "/.continue/")):
		return Continue, nil
	case bytes.Contains(head, []byte(`"messages"`)) && bytes.Contains(head, []byte(`"version"`)):
		return RooCode, nil
	}
	return "", fmt.Errorf("%s: %w", path, ErrUnknownFormat)
}

// Dirs returns the directories where agent keeps its sessions on this
// machine, existing or not: the defaults under the home directory, or
// where CLAUDE_CONFIG_DIR and CODEX_HOME say.
func Dirs(agent Agent) []string {
	home, _ := os.UserHomeDir()
	j := filepath.Join
	vscode := func(ext string) []string {
		var bases []string
		switch runtime.GOOS {
		case "darwin":
			bases = []string{j(home, "Library", "Application Support")}
		case "windows":
			bases = []string{os.Getenv("APPDATA")}
		default:
			bases = []string{j(home, ".config")}
		}
		var out []string
		for _, b := range bases {
			for _, ed := range []string{"Code", "Code - Insiders", "Cursor", "VSCodium"} {
				out = append(out, j(b, ed, "User", "globalStorage", ext, "tasks"))
			}
		}
		return out
	}
	switch agent {
	case ClaudeCode:
		if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
			return []string{j(d, "projects")}
		}
		return []string{j(home, ".claude", "projects")}
	case Codex:
		if d := os.Getenv("CODEX_HOME"); d != "" {
			return []string{j(d, "sessions")}
		}
		return []string{j(home, ".codex", "sessions")}
	case Pi:
		return []string{j(home, ".pi", "agent", "sessions")}
	case OpenClaw:
		return []string{j(home, ".openclaw", "agents")}
	case GeminiCLI:
		return []string{j(home, ".gemini", "tmp")}
	case Cline:
		return vscode("saoudrizwan.claude-dev")
	case RooCode:
		return vscode("rooveterinaryinc.roo-cline")
	case Continue:
		return []string{j(home, ".continue", "sessions")}
	}
	return nil
}

// candidate reports whether a file name may be a session file (indexes,
// UI logs, metadata and backups are not).
func candidate(path string) bool {
	base := filepath.Base(path)
	switch base {
	case "sessions.json", "taskHistory.json", "ui_messages.json", "task_metadata.json", "settings.json", "projects.json":
		return false
	}
	if strings.HasSuffix(base, backupSuffix) || strings.HasSuffix(base, ".meta.json") || strings.HasPrefix(base, ".") {
		return false
	}
	return strings.HasSuffix(base, ".jsonl") || strings.HasSuffix(base, ".json")
}

// Discover lists the session files under dir, recursively, in lexical
// order, with the agent that wrote each: files that are no agent's
// session (indexes, settings) are left out. When agent is not empty, only
// its sessions are listed.
func Discover(dir string, agent Agent) ([]Found, error) {
	var out []Found
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			out = append(out, Found{Path: p, Err: err})
			return nil
		}
		if d.IsDir() || !candidate(p) {
			return nil
		}
		a, err := Detect(p)
		if err != nil {
			return nil // not a session file
		}
		if agent == "" || a == agent {
			out = append(out, Found{Path: p, Agent: a})
		}
		return nil
	})
	return out, err
}

// Found is a session file Discover or Find found.
type Found struct {
	Path  string
	Agent Agent
	// Err is the error met reading the directory entry, if any.
	Err error
}

// Find returns the session file of the session id: a file under the
// agent's directories (every agent's when agent is empty) whose name, or
// task directory, carries the id. Ambiguous ids are an error naming the
// candidates.
func Find(id string, agent Agent) (Found, error) {
	agents := Agents()
	if agent != "" {
		agents = []Agent{agent}
	}
	var hits []Found
	for _, a := range agents {
		for _, dir := range Dirs(a) {
			filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || !candidate(p) {
					return nil
				}
				name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(p), ".jsonl"), ".json")
				parent := filepath.Base(filepath.Dir(p))
				if !(strings.Contains(name, id) || parent == id || a == GeminiCLI && len(id) >= 8 && strings.HasSuffix(name, id[:8])) {
					return nil
				}
				if got, err := Detect(p); err == nil && got == a {
					hits = append(hits, Found{Path: p, Agent: a})
				}
				return nil
			})
		}
	}
	switch len(hits) {
	case 0:
		where := "any agent's directories"
		if agent != "" {
			where = strings.Join(Dirs(agent), ", ")
		}
		return Found{}, fmt.Errorf("no session %q under %s", id, where)
	case 1:
		return hits[0], nil
	}
	var names []string
	for _, h := range hits {
		names = append(names, h.Path)
	}
	sort.Strings(names)
	return Found{}, fmt.Errorf("session id %q is ambiguous: %s", id, strings.Join(names, ", "))
}
