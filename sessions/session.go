package sessions

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/reasonreplay/replay"
)

// Agent names a coding agent whose session files this package reads.
type Agent string

// The agents whose session files this package reads, writes and repairs.
const (
	// ClaudeCode: ~/.claude/projects/<cwd>/<session>.jsonl, one line per
	// content block, and <session>/subagents/agent-<id>.jsonl.
	ClaudeCode Agent = "claude-code"
	// Codex: ~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl.
	Codex Agent = "codex"
	// Pi: ~/.pi/agent/sessions/--<cwd>--/<ts>_<id>.jsonl (version 3 trees).
	Pi Agent = "pi"
	// OpenClaw: ~/.openclaw/agents/<agent>/sessions/<id>.jsonl, in pi's format.
	OpenClaw Agent = "openclaw"
	// GeminiCLI: ~/.gemini/tmp/<project>/chats/session-<ts>-<id>.json or .jsonl.
	GeminiCLI Agent = "gemini-cli"
	// Cline: <VS Code globalStorage>/saoudrizwan.claude-dev/tasks/<id>/api_conversation_history.json.
	Cline Agent = "cline"
	// RooCode: <VS Code globalStorage>/rooveterinaryinc.roo-cline/tasks/<id>/api_conversation_history.json
	// (a legacy array or a version 2 envelope).
	RooCode Agent = "roo-code"
	// Continue: ~/.continue/sessions/<id>.json.
	Continue Agent = "continue"
)

// Agents returns the agents this package reads, in a fixed order.
func Agents() []Agent {
	return []Agent{ClaudeCode, Codex, Pi, OpenClaw, GeminiCLI, Cline, RooCode, Continue}
}

// ParseAgent returns the agent a name designates: its own name, or a
// common short name ("claude", "gemini", "roo").
func ParseAgent(name string) (Agent, error) {
	switch strings.ToLower(name) {
	case "claude-code", "claude", "claudecode", "cc":
		return ClaudeCode, nil
	case "codex", "codex-cli":
		return Codex, nil
	case "pi":
		return Pi, nil
	case "openclaw":
		return OpenClaw, nil
	case "gemini-cli", "gemini":
		return GeminiCLI, nil
	case "cline":
		return Cline, nil
	case "roo-code", "roo", "roocode", "roo-cline":
		return RooCode, nil
	case "continue":
		return Continue, nil
	}
	names := make([]string, 0, 8)
	for _, a := range Agents() {
		names = append(names, string(a))
	}
	return "", fmt.Errorf("unknown agent %q (want %s)", name, strings.Join(names, ", "))
}

// Location says where a record, or a value inside it, is in a session
// file. For a JSON Lines file, Line is the record's line and Pointer
// points into that line's object; for a JSON document, Line is the line
// the record starts on and Pointer points into the whole document.
type Location struct {
	// File is the session file's path as it was given.
	File string
	// Line is the 1-based line the record starts on.
	Line int
	// Record is the 0-based index of the record: its line's in a JSON
	// Lines file, its element's in a document's conversation array.
	Record int
	// Pointer is a JSON Pointer (RFC 6901) to the value.
	Pointer string

	rec   int    // index in Session.recs
	inner string // the pointer inside the record
}

// String renders the location as "file:line pointer".
func (l Location) String() string {
	s := fmt.Sprintf("%s:%d", l.File, l.Line)
	if l.Pointer != "" {
		s += " " + l.Pointer
	}
	return s
}

// Limits bound what a reader keeps of untrusted session files.
type Limits struct {
	// MaxRecord is the largest record (one line, or one element of a
	// document's conversation array), in bytes. Default 64 MiB.
	MaxRecord int
	// MaxContext is the largest total of bytes of stored blocks a reader
	// keeps for the conversation the agent sends on resume (what a
	// compaction discards is not kept). Default 512 MiB.
	MaxContext int
}

// withDefaults returns l with every zero field set to its default.
func (l Limits) withDefaults() Limits {
	if l.MaxRecord <= 0 {
		l.MaxRecord = 64 << 20
	}
	if l.MaxContext <= 0 {
		l.MaxContext = 512 << 20
	}
	return l
}

// Options configure Read.
type Options struct {
	// Agent is the agent that wrote the file; empty tells it from the path
	// and the first record.
	Agent Agent
	// Limits bound what is kept; zero fields take the defaults.
	Limits Limits
}

// ErrUnknownFormat means a file is not a session file of an agent this
// package reads (or not of the agent named).
var ErrUnknownFormat = errors.New("not a session file of a known agent")

// Session is one agent session as the agent will send it on resume: the
// conversation after its last compaction, on the branch the agent resumes,
// with every stored block remembered with its location.
type Session struct {
	// Path is the file, as given to Read.
	Path string
	// Agent wrote it.
	Agent Agent
	// Format names the file's shape: "claude-code-jsonl", "codex-rollout",
	// "pi-v3", "gemini-json", "gemini-jsonl", "cline-array", "roo-array",
	// "roo-v2", "continue-json".
	Format string
	// ID is the session id the file records, when it records one.
	ID string
	// Subagent reports a subagent's (or a fork's) own session.
	Subagent bool
	// Records is the number of records read.
	Records int

	lim    Limits
	msgs   []*message
	recs   []record
	recIdx map[int]int // record index in the file -> index in recs
	spans  []span      // a document's conversation array, every element
	jsonl  bool
	size   int64
	mod    time.Time
	source replay.Target
	bad    []*block // records that could not be read
	ed     editor
	// transform marks the blocks the agent itself drops or converts
	// before it sends the conversation to target t (nil: none).
	transform func(s *Session, t replay.Target) map[*block]handling
	// api returns the wire API the agent speaks to a provider and model.
	api func(provider, model string) string
	// reqAPI is the wire of the stored assistant blocks when the agent
	// sends them as stored (so that the request it sends can be audited),
	// else "".
	reqAPI string
	// synthesizes reports that the agent itself answers a tool call that
	// has no result before it sends (so that an orphaned call is no
	// finding).
	synthesizes bool
	kept        int // bytes of stored blocks kept
}

// span is the byte range of one element of a document's array.
type span struct{ off, end int64 }

// Read reads the session file at path. It reads the file once, a record
// at a time, keeping only the conversation the agent will send on resume.
func Read(path string, opt Options) (*Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s: a directory, not a session file", path)
	}
	agent := opt.Agent
	if agent == "" {
		if agent, err = detectFile(path, f); err != nil {
			return nil, err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
	}
	s := &Session{Path: path, Agent: agent, lim: opt.Limits.withDefaults(), size: fi.Size(), mod: fi.ModTime(), recIdx: map[int]int{}}
	r := readerOf(agent)
	if r == nil {
		return nil, fmt.Errorf("%s: %w (agent %q)", path, ErrUnknownFormat, agent)
	}
	if err := r(s, f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.finish()
	return s, nil
}

// readerOf returns the agent's reader, which fills s from the file, or
// nil for an agent without one. (A switch, not a table filled when the
// program starts.)
func readerOf(agent Agent) func(s *Session, f *os.File) error {
	switch agent {
	case ClaudeCode:
		return readClaude
	case Codex:
		return readCodex
	case Pi, OpenClaw:
		return readPi
	case GeminiCLI:
		return readGemini
	case Cline, RooCode:
		return readCline
	case Continue:
		return readContinue
	}
	return nil
}

// Source returns what the session's last assistant turn says of its
// target: the API the agent spoke, the provider and the model (and the
// account, where the file records one).
func (s *Session) Source() replay.Target { return s.source }

// Target returns the target the session will resume on: the session's
// last model and provider, each replaced by the argument when it is not
// empty, and the account when one is given.
func (s *Session) Target(model, provider, account string) replay.Target {
	t := s.source
	if model != "" {
		t.Model = model
	}
	if provider != "" {
		t.Provider = provider
	}
	if account != "" {
		t.Account = account
	}
	if s.api != nil {
		t.API = s.api(t.Provider, t.Model)
	}
	t.Tools = t.Tools || s.hasTools()
	return t
}

func (s *Session) hasTools() bool {
	for _, m := range s.msgs {
		for _, b := range m.blocks {
			if b.kind == kToolUse || b.kind == kToolResult {
				return true
			}
		}
	}
	return false
}

// History returns the assistant turns the agent sends on resume, in order,
// each with its provenance. Blocks the agent itself drops or converts
// before sending (see Handled) are left out.
// The target decides what the agent drops (the session's own target when
// t is zero).
func (s *Session) History(t replay.Target) replay.History {
	if t.API == "" && t.Provider == "" && t.Model == "" {
		t = s.source
	}
	h, _ := s.history(t, nil, false)
	return h
}

// Locate returns where block bi of turn ti of History(t) is stored.
func (s *Session) Locate(t replay.Target, ti, bi int) (Location, bool) {
	if t.API == "" && t.Provider == "" && t.Model == "" {
		t = s.source
	}
	h, ms := s.history(t, nil, false)
	if ti < 0 || ti >= len(h.Turns) || bi < 0 || bi >= len(h.Turns[ti].Blocks) {
		return Location{}, false
	}
	b := ms.block(ti, bi)
	if b == nil {
		return Location{}, false
	}
	return b.loc, true
}

// finish sets the source target from the last assistant message.
func (s *Session) finish() {
	for i := len(s.msgs) - 1; i >= 0; i-- {
		m := s.msgs[i]
		if m.role != roleAssistant || m.turn == nil {
			continue
		}
		s.source = replay.Target{API: m.turn.Provenance.API, Provider: m.turn.Provenance.Provider,
			Model: m.turn.Provenance.Model, Account: m.turn.Provenance.Account}
		break
	}
	if s.api != nil {
		s.source.API = s.api(s.source.Provider, s.source.Model)
	}
	s.source.Tools = s.hasTools()
}

// addRecord remembers where a record is, for locations and edits, and
// returns its index in s.recs.
func (s *Session) addRecord(r record) int {
	if i, ok := s.recIdx[r.index]; ok {
		return i
	}
	s.recs = append(s.recs, r)
	s.recIdx[r.index] = len(s.recs) - 1
	return len(s.recs) - 1
}

// loc returns the location of the value at inner pointer ptr of record r.
func (s *Session) loc(r record, ptr string) Location {
	i := s.addRecord(r)
	return Location{File: s.Path, Line: r.line, Record: r.index, Pointer: r.base + ptr, rec: i, inner: ptr}
}

// keep counts n bytes of stored blocks against the context limit.
func (s *Session) keep(n int) error {
	s.kept += n
	if s.kept > s.lim.MaxContext {
		return &replay.LimitError{What: "context size", Limit: s.lim.MaxContext, Event: -1, Block: -1}
	}
	return nil
}

// Handled lists the stored blocks the agent itself drops or converts when
// it resumes on target t (pi turns another model's thinking into text,
// Cline drops unsigned thinking, ...), in file order: the audit does not
// judge them.
func (s *Session) Handled(t replay.Target) []Handled {
	hs := s.handledFor(t)
	var out []Handled
	for _, m := range s.msgs {
		for _, b := range m.blocks {
			if why, ok := hs[b]; ok {
				out = append(out, Handled{Location: b.loc, Reason: why.reason})
			}
		}
	}
	return out
}

func (s *Session) handledFor(t replay.Target) map[*block]handling {
	if s.transform == nil {
		return nil
	}
	return s.transform(s, t)
}

// Handled is a stored block the agent itself drops or converts on resume.
type Handled struct {
	Location Location
	// Reason says what the agent does with it and why.
	Reason string
}
