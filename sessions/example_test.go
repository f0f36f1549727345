package sessions_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	_ "github.com/reasonreplay/replay/codecs/all" // the codecs whose contracts the audit applies
	"github.com/reasonreplay/replay/sessions"
)

// Audit a Claude Code session for the model it resumes on, and plan the
// repair: the block whose signature was cut short goes, nothing else.
func Example() {
	s, err := sessions.Read("testdata/claude-code/truncated-signature.jsonl", sessions.Options{})
	if err != nil {
		panic(err)
	}
	t := s.Target("", "", "") // the session's last model and provider
	rep := sessions.Audit(s, t)
	fmt.Println(s.Agent, "resumes on", t.Model, "->", rep.Verdict())
	for _, f := range rep.Findings {
		fmt.Printf("%s line %d %s: %s\n  predicted: %s\n", f.Severity, f.Location.Line, f.Location.Pointer, f.Rule, f.Predicted)
	}
	p, err := sessions.Repair(s, t)
	if err != nil {
		panic(err)
	}
	for _, fx := range p.Fixes {
		fmt.Printf("repair: %s at line %d\n", fx.Action, fx.Location.Line)
	}
	after, err := p.Verify()
	if err != nil {
		panic(err)
	}
	fmt.Println("after the repair:", after.Verdict())
	// Output:
	// claude-code resumes on claude-opus-4-1-20250805 -> reject
	// reject line 2 /message/content/0: session/truncated-signature
	//   predicted: messages.1.content.0: Invalid `signature` in `thinking` block
	// repair: drop the thinking block at line 2
	// after the repair: clean
}

// Audit a Codex rollout for a login switch: the reasoning minted under the
// ChatGPT login cannot be read with an API key.
func ExampleSession_Target() {
	s, err := sessions.Read("testdata/codex/sessions/2026/09/21/rollout-login-switch.jsonl", sessions.Options{})
	if err != nil {
		panic(err)
	}
	for _, account := range []string{"chatgpt", "api-key"} {
		rep := sessions.Audit(s, s.Target("", "", account))
		fmt.Printf("as %s: %s", account, rep.Verdict())
		for _, f := range rep.Findings {
			fmt.Printf(" (line %d: %s)", f.Location.Line, strings.Join(f.Rules, ", "))
		}
		fmt.Println()
	}
	// Output:
	// as chatgpt: reject (line 9: openai/encrypted-altered-or-foreign, replay/identity-mismatch)
	// as api-key: reject (line 4: openai/encrypted-altered-or-foreign, replay/identity-mismatch)
}

// Write a repair (the original is kept beside the file) and undo it.
func ExampleWrite() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	data, err := os.ReadFile("testdata/pi/sessions/--home-dev-shop--/final-thinking.jsonl")
	if err != nil {
		panic(err)
	}
	path := filepath.Join(dir, "session.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		panic(err)
	}
	s, err := sessions.Read(path, sessions.Options{})
	if err != nil {
		panic(err)
	}
	p, err := sessions.Repair(s, s.Target("", "", ""))
	if err != nil {
		panic(err)
	}
	backup, err := sessions.Write(p)
	if err != nil {
		panic(err)
	}
	fmt.Println("backup:", strings.HasSuffix(backup, ".replay-backup"))
	repaired, _ := os.ReadFile(path)
	fmt.Println("changed:", string(repaired) != string(data))
	if _, err := sessions.Undo(path); err != nil {
		panic(err)
	}
	restored, _ := os.ReadFile(path)
	fmt.Println("restored:", string(restored) == string(data))
	// Output:
	// backup: true
	// changed: true
	// restored: true
}
