package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/sessions"
)

const sessionAuditSummary = "Audit coding-agent session files (Claude Code, Codex CLI, pi, OpenClaw, Gemini CLI, Cline, Roo Code, Continue) for the target they resume on: " +
	"the session's last model and provider, or --to-model/--to-provider/--to-account for a switch. PATH is a session file, a session id, or a directory " +
	"(every session under it, audited in parallel, one verdict line each and a summary, progress on stderr). One session prints its report JSON, " +
	"each finding with its file, line, JSON pointer, predicted provider error and fix. " +
	"Exit status: 0 when nothing would be rejected, 1 when a finding would be, 2 when a session could not be read"

const sessionRepairSummary = "Repair a session file minimally for the target it resumes on: only what the provider would reject changes, every other line keeps its bytes; " +
	"no signature is ever invented. Prints the diff (a dry run) unless --write, which keeps a backup beside the file and replaces it atomically; --undo restores the backup. " +
	"Exit status: 0 when the repaired session would not be rejected, 1 when something no edit can fix remains, 2 when the file could not be read or written"

// sessionFlags are the flags both session commands share.
type sessionFlags struct {
	agent                    string
	model, provider, account string
	jobs                     int
	compact, progress        bool
	write, undo              bool
}

func (f *sessionFlags) common(fs *flag.FlagSet) {
	fs.StringVar(&f.agent, "agent", "", "the agent that wrote the sessions (`A`: claude-code, codex, pi, openclaw, gemini-cli, cline, roo-code, continue); default: told from each file")
	fs.StringVar(&f.model, "to-model", "", "resume on this model (`M`) instead of the session's last")
	fs.StringVar(&f.provider, "to-provider", "", "resume on this provider (`P`: anthropic, bedrock, vertex, openai, azure, ...) instead of the session's last")
	fs.StringVar(&f.account, "to-account", "", "resume as this account or login (`A`; for Codex rollouts: chatgpt or api-key)")
}

func defineSessionAudit(fs *flag.FlagSet) func(*env, []string) error {
	var f sessionFlags
	f.common(fs)
	fs.IntVar(&f.jobs, "jobs", runtime.GOMAXPROCS(0), "sessions audited at once (`N`)")
	fs.BoolVar(&f.compact, "compact", false, "print the report on one line")
	fs.BoolVar(&f.progress, "progress", false, "print a progress line on stderr for many sessions even when stderr is not a terminal")
	return func(e *env, pos []string) error {
		err := f.audit(e, pos)
		var ee *exitError
		if err != nil && !errors.As(err, &ee) {
			return &exitError{code: 2, err: err}
		}
		return err
	}
}

func defineSessionRepair(fs *flag.FlagSet) func(*env, []string) error {
	var f sessionFlags
	f.common(fs)
	fs.BoolVar(&f.write, "write", false, "write the repair (a backup of the file is kept beside it)")
	fs.BoolVar(&f.undo, "undo", false, "restore the file from the backup its last repair made")
	return func(e *env, pos []string) error {
		err := f.repair(e, pos)
		var ee *exitError
		if err != nil && !errors.As(err, &ee) {
			return &exitError{code: 2, err: err}
		}
		return err
	}
}

func (f *sessionFlags) agentName() (sessions.Agent, error) {
	if f.agent == "" {
		return "", nil
	}
	a, err := sessions.ParseAgent(f.agent)
	if err != nil {
		return "", usageError("--agent: %v", err)
	}
	return a, nil
}

// sessionJob is one session file to audit.
type sessionJob struct {
	seq   int
	path  string
	agent sessions.Agent
	err   error
}

// expand turns operands into session files: a directory into the
// sessions under it, a path that is no file into a session id. It reports
// whether the operands name exactly one session file.
func expand(pos []string, agent sessions.Agent) ([]sessionJob, bool, error) {
	var jobs []sessionJob
	single := len(pos) == 1
	for _, op := range pos {
		fi, err := os.Stat(op)
		switch {
		case err == nil && fi.IsDir():
			single = false
			found, err := sessions.Discover(op, agent)
			if err != nil {
				return nil, false, err
			}
			for _, fd := range found {
				jobs = append(jobs, sessionJob{path: fd.Path, agent: fd.Agent, err: fd.Err})
			}
		case err == nil:
			jobs = append(jobs, sessionJob{path: op, agent: agent})
		case os.IsNotExist(err) && !strings.ContainsAny(op, `/\`):
			fd, ferr := sessions.Find(op, agent)
			if ferr != nil {
				jobs = append(jobs, sessionJob{path: op, err: ferr})
				continue
			}
			jobs = append(jobs, sessionJob{path: fd.Path, agent: fd.Agent})
		default:
			jobs = append(jobs, sessionJob{path: op, err: err})
		}
	}
	for i := range jobs {
		jobs[i].seq = i
	}
	return jobs, single && len(jobs) == 1, nil
}

// judge reads and audits one session.
func (f *sessionFlags) judge(j sessionJob) (*sessions.Session, *sessions.Report, error) {
	if j.err != nil {
		return nil, nil, j.err
	}
	s, err := sessions.Read(j.path, sessions.Options{Agent: j.agent})
	if err != nil {
		return nil, nil, err
	}
	t := s.Target(f.model, f.provider, f.account)
	if t.API == "" {
		return s, nil, fmt.Errorf("%s: no target: the session names no model; give --to-model and --to-provider", j.path)
	}
	return s, sessions.Audit(s, t), nil
}

func (f *sessionFlags) audit(e *env, pos []string) error {
	agent, err := f.agentName()
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageError("want a session file, a session id or a directory")
	}
	if f.jobs < 1 {
		return usageError("--jobs %d: want at least 1", f.jobs)
	}
	jobs, single, err := expand(pos, agent)
	if err != nil {
		return err
	}
	if single {
		_, rep, err := f.judge(jobs[0])
		if err != nil {
			return err
		}
		writeJSON(e.stdout, rep.AppendJSON(nil), f.compact)
		for _, x := range rep.Findings {
			fmt.Fprintf(e.stderr, "[%s] %s %s: %s\n", x.Severity, x.Location, x.Rule, x.Message)
		}
		if rep.Rejects() {
			return &exitError{code: 1, err: fmt.Errorf("the provider would reject this session on %s", describeTarget(rep.Target))}
		}
		return nil
	}
	return f.batch(e, jobs)
}

// verdictLine is one session's verdict in a batch.
type verdictLine struct {
	seq      int
	path     string
	agent    sessions.Agent
	verdict  string
	findings int
	rules    []string
	target   replay.Target
	err      error
}

func (f *sessionFlags) batch(e *env, jobs []sessionJob) error {
	in := make(chan sessionJob)
	out := make(chan verdictLine, f.jobs)
	var wg sync.WaitGroup
	for range f.jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range in {
				v := verdictLine{seq: j.seq, path: j.path, agent: j.agent}
				s, rep, err := f.judge(j)
				if s != nil {
					v.agent = s.Agent
				}
				if err != nil {
					v.verdict, v.err = "unreadable", err
				} else {
					v.verdict, v.findings, v.target = rep.Verdict(), len(rep.Findings), rep.Target
					for _, x := range rep.Findings {
						if !contains(v.rules, x.Rule) {
							v.rules = append(v.rules, x.Rule)
						}
					}
				}
				out <- v
			}
		}()
	}
	go func() {
		for _, j := range jobs {
			in <- j
		}
		close(in)
		wg.Wait()
		close(out)
	}()
	progress := f.progress || e.stderrTerminal
	start, tick := time.Now(), time.Now()
	counts := map[string]int{}
	byRule := map[string]int{}
	pending := map[int]verdictLine{}
	next := 0
	w := bufio.NewWriter(e.stdout)
	for v := range out {
		pending[v.seq] = v
		for {
			v, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			counts[v.verdict]++
			for _, r := range v.rules {
				byRule[r]++
			}
			w.Write(v.line())
		}
		if progress && time.Since(tick) > 100*time.Millisecond {
			tick = time.Now()
			fmt.Fprintf(e.stderr, "\rreplay session audit: %d of %d sessions", next, len(jobs))
		}
	}
	b := []byte(`{"summary":{"sessions":`)
	b = jsonw.Int(b, len(jobs))
	for _, v := range verdicts {
		b = jsonw.Key(b, v)
		b = jsonw.Int(b, counts[v])
	}
	rules := make([]string, 0, len(byRule))
	for r := range byRule {
		rules = append(rules, r)
	}
	sort.Slice(rules, func(i, j int) bool {
		if byRule[rules[i]] != byRule[rules[j]] {
			return byRule[rules[i]] > byRule[rules[j]]
		}
		return rules[i] < rules[j]
	})
	b = append(b, `,"rules":[`...)
	for i, r := range rules {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"rule":`...)
		b = jsonw.String(b, r)
		b = append(b, `,"sessions":`...)
		b = jsonw.Int(b, byRule[r])
		b = append(b, '}')
	}
	w.Write(append(b, "]}}\n"...))
	w.Flush()
	if progress {
		fmt.Fprintf(e.stderr, "\rreplay session audit: %d sessions in %s\n", len(jobs), time.Since(start).Round(time.Millisecond))
	}
	fmt.Fprintf(e.stderr, "replay session audit: %s: %d clean, %d would be rejected, %d degraded, %d at risk, %d unreadable\n",
		plural(len(jobs), "session", "sessions"), counts["clean"], counts["reject"], counts["degrade"], counts["risk"], counts["unreadable"])
	switch {
	case len(jobs) == 0:
		return &exitError{code: 2, err: errors.New("no session found")}
	case counts["unreadable"] > 0:
		return &exitError{code: 2, err: fmt.Errorf("%s could not be read; the others were judged", plural(counts["unreadable"], "session", "sessions"))}
	case counts["reject"] > 0:
		return &exitError{code: 1, err: fmt.Errorf("the provider would reject %s of %d", plural(counts["reject"], "session", "sessions"), len(jobs))}
	}
	return nil
}

func (v verdictLine) line() []byte {
	b := []byte(`{"file":`)
	b = jsonw.String(b, v.path)
	if v.agent != "" {
		b = jsonw.Key(b, "agent")
		b = jsonw.String(b, string(v.agent))
	}
	b = jsonw.Key(b, "verdict")
	b = jsonw.String(b, v.verdict)
	if v.err != nil {
		b = jsonw.Key(b, "error")
		b = jsonw.String(b, message(v.err))
		return append(b, "}\n"...)
	}
	b = jsonw.Key(b, "target")
	b = jsonw.String(b, describeTarget(v.target))
	b = jsonw.Key(b, "findings")
	b = jsonw.Int(b, v.findings)
	b = jsonw.Key(b, "rules")
	b = append(b, '[')
	for i, r := range v.rules {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.String(b, r)
	}
	return append(b, "]}\n"...)
}

func (f *sessionFlags) repair(e *env, pos []string) error {
	agent, err := f.agentName()
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError("want one session file or session id")
	}
	if f.write && f.undo {
		return usageError("--write and --undo go alone")
	}
	jobs, single, err := expand(pos, agent)
	if err != nil {
		return err
	}
	if !single {
		return usageError("%s: want one session file, not a directory", pos[0])
	}
	if jobs[0].err != nil {
		return jobs[0].err
	}
	if f.undo {
		backup, err := sessions.Undo(jobs[0].path)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "replay session repair: restored %s from %s\n", jobs[0].path, backup)
		return nil
	}
	s, rep, err := f.judge(jobs[0])
	if err != nil {
		return err
	}
	p, err := sessions.Repair(s, rep.Target)
	if err != nil {
		return err
	}
	after, err := p.Verify()
	if err != nil {
		return err
	}
	if err := p.Diff(e.stdout); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "replay session repair: %s for %s: %s, %s; after the repair: %s\n", s.Path, describeTarget(rep.Target),
		rep.Verdict(), plural(len(p.Fixes), "change", "changes"), after.Verdict())
	for _, x := range after.Findings {
		if x.Severity == replay.SeverityReject {
			fmt.Fprintf(e.stderr, "  left: [%s] %s %s: %s\n", x.Severity, x.Location, x.Rule, x.Message)
		}
	}
	if f.write && !p.Empty() {
		backup, err := sessions.Write(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "replay session repair: wrote %s; the original is %s (undo: replay session repair --undo %s)\n", s.Path, backup, s.Path)
	} else if !p.Empty() {
		fmt.Fprintf(e.stderr, "replay session repair: a dry run; write it with --write\n")
	}
	if after.Rejects() {
		return &exitError{code: 1, err: fmt.Errorf("what is left would still be rejected: no edit of the file fixes it without inventing a signature")}
	}
	return nil
}

// describeTarget names a target for people: "anthropic anthropic
// claude-opus-4-1 as A".
func describeTarget(t replay.Target) string {
	s := strings.Join(strings.Fields(t.API+" "+t.Provider+" "+t.Model), " ")
	if t.Account != "" {
		s += " as " + t.Account
	}
	return s
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
