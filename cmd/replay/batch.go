package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/stream"
)

// conversation is one history to audit: where it came from and its bytes
// (or the error met reading it).
type conversation struct {
	seq    int
	source string
	data   []byte
	err    error
	// stream, when set, is the framing of a provider's stream that data
	// holds whole: decoded first, then audited.
	stream *stream.Framing
}

// verdict is the audit of one conversation.
type verdict struct {
	seq        int
	source     string
	verdict    string // clean, risk, degrade, reject, unreadable
	violations int
	rules      []string // distinct rule ids, in report order
	severity   map[string]replay.Severity
	err        error
}

// tally is the summary of a batch.
type tally struct {
	conversations int
	byVerdict     map[string]int
	byRule        map[string]int
	severity      map[string]replay.Severity
}

func isDir(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.IsDir()
}

// batch audits every conversation of the operands: files (a history, or
// JSON lines of histories), directories (their .json and .jsonl files,
// recursively, in lexical order) and "-" (standard input).
func (a *auditFlags) batch(e *env, operands []string) error {
	convs := make(chan conversation, 4*a.jobs)
	var readErr error
	go func() {
		defer close(convs)
		seq := 0
		emit := func(c conversation) {
			c.seq = seq
			seq++
			convs <- c
		}
		for _, op := range operands {
			if op == "-" {
				readLines(e.stdin, "standard input", emit)
				continue
			}
			if !isDir(op) {
				readConversations(op, emit)
				continue
			}
			err := filepath.WalkDir(op, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					emit(conversation{source: p, err: err})
					return nil
				}
				if !d.IsDir() && (strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".sse")) {
					readConversations(p, emit)
				}
				return nil
			})
			if err != nil {
				readErr = err
			}
		}
	}()
	return a.audit(e, convs, &readErr)
}

// batchReader audits JSON lines of histories from an opened source.
func (a *auditFlags) batchReader(e *env, src *source) error {
	convs := make(chan conversation, 4*a.jobs)
	go func() {
		defer close(convs)
		seq := 0
		readLines(src.r, src.name, func(c conversation) {
			c.seq = seq
			seq++
			convs <- c
		})
	}()
	var none error
	return a.audit(e, convs, &none)
}

// readConversations reads one file: a history, JSON lines of them, or a
// provider's stream (an .sse file, or JSON lines of stream events).
func readConversations(name string, emit func(conversation)) {
	f, err := os.Open(name)
	if err != nil {
		emit(conversation{source: name, err: err})
		return
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var framing *stream.Framing
	switch {
	case strings.HasSuffix(name, ".sse"):
		fr := stream.FramingSSE
		framing = &fr
	case strings.HasSuffix(name, ".jsonl"):
		head, _ := br.Peek(64 << 10)
		if !streamEvent(firstJSONLine(head)) {
			readLines(br, name, emit)
			return
		}
		fr := stream.FramingJSONL
		framing = &fr
	}
	data, err := io.ReadAll(io.LimitReader(br, maxBody+1))
	if err == nil && len(data) > maxBody {
		err = fmt.Errorf("larger than %d bytes", maxBody)
	}
	emit(conversation{source: name, data: data, err: err, stream: framing})
}

// readLines reads one history per line; blank lines are skipped. A line
// is at most maxBody bytes.
func readLines(r io.Reader, name string, emit func(conversation)) {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := readLine(br)
		if len(bytes.TrimSpace(line)) > 0 || err != nil && err != io.EOF {
			emit(conversation{source: name + ":" + strconv.Itoa(n), data: line, err: ignoreEOF(err)})
		}
		if err != nil {
			return
		}
	}
}

func ignoreEOF(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}

// readLine returns the next line without its end, at most maxBody bytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxBody {
			// Skip the rest of the line.
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
			return nil, fmt.Errorf("a line larger than %d bytes", maxBody)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), err
	}
}

// audit runs the workers and prints the verdicts in input order, then
// the summary; it returns the batch's exit status as an error.
func (a *auditFlags) audit(e *env, convs <-chan conversation, readErr *error) error {
	results := make(chan verdict, 4*a.jobs)
	var wg sync.WaitGroup
	for range a.jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range convs {
				results <- a.judge(c)
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()

	progress := a.progress || e.stderrTerminal
	start := time.Now()
	lastTick := start
	sum := tally{byVerdict: map[string]int{}, byRule: map[string]int{}, severity: map[string]replay.Severity{}}
	pending := map[int]verdict{}
	next := 0
	out := bufio.NewWriter(e.stdout)
	for v := range results {
		pending[v.seq] = v
		for {
			v, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			sum.add(v)
			out.Write(v.line())
		}
		if progress && time.Since(lastTick) > 100*time.Millisecond {
			lastTick = time.Now()
			fmt.Fprintf(e.stderr, "\rreplay audit: %d conversations, %.0f/s", sum.conversations, float64(sum.conversations)/time.Since(start).Seconds())
		}
	}
	out.Write(sum.line())
	out.Flush()
	if progress {
		fmt.Fprintf(e.stderr, "\rreplay audit: %d conversations in %s\n", sum.conversations, time.Since(start).Round(time.Millisecond))
	}
	sum.print(e.stderr, a.t)
	switch {
	case *readErr != nil:
		return *readErr
	case sum.byVerdict["unreadable"] > 0:
		return &exitError{code: 2, err: fmt.Errorf("%s could not be read; the others were judged", plural(sum.byVerdict["unreadable"], "conversation", "conversations"))}
	case sum.byVerdict["reject"] > 0:
		return &exitError{code: 1, err: fmt.Errorf("the provider would reject %s of %d", plural(sum.byVerdict["reject"], "conversation", "conversations"), sum.conversations)}
	case sum.conversations == 0:
		return &exitError{code: 2, err: fmt.Errorf("no conversation found (a directory is searched for .json and .jsonl files)")}
	}
	return nil
}

// judge audits one conversation.
func (a *auditFlags) judge(c conversation) verdict {
	v := verdict{seq: c.seq, source: c.source}
	if c.err != nil {
		v.verdict, v.err = "unreadable", c.err
		return v
	}
	var turns []*replay.Turn
	var err error
	if c.stream != nil {
		var t *replay.Turn
		// A stream that failed is judged by what it gave: the audit
		// flags an incomplete turn.
		t, err = stream.Decode(bytes.NewReader(c.data), kit.Decoding(&sniffer{}), stream.Options{Framing: *c.stream})
		if t != nil {
			turns, err = []*replay.Turn{t}, nil
		}
	} else {
		turns, _, err = readHistory(c.data)
	}
	if err != nil {
		v.verdict, v.err = "unreadable", err
		return v
	}
	rep := replay.AuditReplay(replay.History{Turns: turns}, a.t)
	v.verdict = "clean"
	v.violations = len(rep.Violations)
	for _, x := range rep.Violations {
		if severityRank(x.Severity) > severityRank(replay.Severity(v.verdict)) {
			v.verdict = string(x.Severity)
		}
		if v.severity == nil {
			v.severity = map[string]replay.Severity{}
		}
		if _, seen := v.severity[x.Rule]; !seen {
			v.rules = append(v.rules, x.Rule)
		}
		if severityRank(x.Severity) > severityRank(v.severity[x.Rule]) {
			v.severity[x.Rule] = x.Severity
		}
	}
	return v
}

// line is the verdict as one JSON line.
func (v verdict) line() []byte {
	b := []byte(`{"source":`)
	b = jsonw.String(b, v.source)
	b = append(b, `,"verdict":`...)
	b = jsonw.String(b, v.verdict)
	if v.err != nil {
		b = append(b, `,"error":`...)
		b = jsonw.String(b, message(v.err))
	} else {
		b = append(b, `,"violations":`...)
		b = jsonw.Int(b, v.violations)
		b = append(b, `,"rules":[`...)
		for i, r := range v.rules {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonw.String(b, r)
		}
		b = append(b, ']')
	}
	return append(b, "}\n"...)
}

func (s *tally) add(v verdict) {
	s.conversations++
	s.byVerdict[v.verdict]++
	for _, r := range v.rules {
		s.byRule[r]++
		if sev := v.severity[r]; severityRank(sev) > severityRank(s.severity[r]) {
			s.severity[r] = sev
		}
	}
}

// severityRank orders severities (and the verdict "clean") by harm.
func severityRank(s replay.Severity) int {
	return slices.Index([]replay.Severity{replay.SeverityRisk, replay.SeverityDegrade, replay.SeverityReject}, s) + 1
}

var verdicts = []string{"clean", "risk", "degrade", "reject", "unreadable"}

// rulesByCount orders the rules by how many conversations they break,
// then by id.
func (s *tally) rulesByCount() []string {
	rules := make([]string, 0, len(s.byRule))
	for r := range s.byRule {
		rules = append(rules, r)
	}
	sort.Slice(rules, func(i, j int) bool {
		if s.byRule[rules[i]] != s.byRule[rules[j]] {
			return s.byRule[rules[i]] > s.byRule[rules[j]]
		}
		return rules[i] < rules[j]
	})
	return rules
}

// line is the summary as the last JSON line.
func (s *tally) line() []byte {
	b := []byte(`{"summary":{"conversations":`)
	b = jsonw.Int(b, s.conversations)
	for _, v := range verdicts {
		b = append(b, ',')
		b = jsonw.String(b, v)
		b = append(b, ':')
		b = jsonw.Int(b, s.byVerdict[v])
	}
	b = append(b, `,"rules":[`...)
	for i, r := range s.rulesByCount() {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"rule":`...)
		b = jsonw.String(b, r)
		b = append(b, `,"severity":`...)
		b = jsonw.String(b, string(s.severity[r]))
		b = append(b, `,"conversations":`...)
		b = jsonw.Int(b, s.byRule[r])
		b = append(b, '}')
	}
	return append(b, "]}}\n"...)
}

// print writes the summary for people on stderr.
func (s *tally) print(w io.Writer, t replay.Target) {
	target := t.API
	if t.Model != "" {
		target += " " + t.Model
	}
	fmt.Fprintf(w, "replay audit: %s for %s: %d clean, %d would be rejected, %d degraded, %d at risk, %d unreadable\n",
		plural(s.conversations, "conversation", "conversations"), target,
		s.byVerdict["clean"], s.byVerdict["reject"], s.byVerdict["degrade"], s.byVerdict["risk"], s.byVerdict["unreadable"])
	for _, r := range s.rulesByCount() {
		fmt.Fprintf(w, "  %-44s [%s] breaks %s\n", r, s.severity[r], plural(s.byRule[r], "conversation", "conversations"))
	}
}
