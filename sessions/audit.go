package sessions

import (
	"sort"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
)

// Report is the audit of one session for the target it resumes on.
type Report struct {
	// Path, Agent, Format, Session and Subagent say which session.
	Path     string
	Agent    Agent
	Format   string
	Session  string
	Subagent bool
	// Source is what the session's last turn was sent to (see
	// Session.Source); Target what it was audited for.
	Source, Target replay.Target
	// Records counts the file's records; Turns, Items and Signed the
	// turns, reasoning items and signed items the agent sends.
	Records, Turns, Items, Signed int
	// Findings lists every problem, one per stored block (or message), in
	// file order.
	Findings []Finding
	// Handled lists the blocks the agent itself drops or converts on
	// resume, which the audit does not judge.
	Handled []Handled
}

// Finding is one problem of a stored block, message or record.
type Finding struct {
	// Rule is the rule that describes it best; Rules lists every rule
	// that reported the same spot, Rule first. Rules of the library's
	// contracts keep their ids ("anthropic/missing-signature"); the
	// session's own checks are "session/...".
	Rule  string
	Rules []string
	// Severity is the gravest of the rules' severities.
	Severity replay.Severity
	// Location is where the problem is stored.
	Location Location
	// Turn and Block locate it in the session's History for the target,
	// or are -1.
	Turn, Block int
	// Message says what is wrong; Predicted is the provider's error text
	// when it is known; Fix says how to repair it.
	Message, Predicted, Fix string

	blk *block
	msg *message
}

// Verdict returns the report's verdict: "reject" when a finding would
// make the provider reject the request, else "degrade", "risk" or "clean".
func (r *Report) Verdict() string {
	v := "clean"
	for _, f := range r.Findings {
		switch f.Severity {
		case replay.SeverityReject:
			return "reject"
		case replay.SeverityDegrade:
			v = "degrade"
		case replay.SeverityRisk:
			if v == "clean" {
				v = "risk"
			}
		}
	}
	return v
}

// Rejects reports whether a finding would make the provider reject the
// request.
func (r *Report) Rejects() bool { return r.Verdict() == "reject" }

// Audit audits the session for target t (see Session.Target): the turns
// the agent sends, with the library's rules for t (replay.AuditReplay with
// the contract of t's codec, on the request the agent builds when it sends
// its stored blocks as they are), and the session's own checks. Every
// finding is located in the file.
func Audit(s *Session, t replay.Target) *Report {
	return s.audit(t, nil)
}

func (s *Session) audit(t replay.Target, dropped map[*block]bool) *Report {
	h, tm := s.history(t, dropped, true)
	lib := replay.AuditReplay(h, t)
	r := &Report{Path: s.Path, Agent: s.Agent, Format: s.Format, Session: s.ID, Subagent: s.Subagent,
		Source: s.source, Target: t, Records: s.Records, Turns: lib.Turns, Items: lib.Items, Signed: lib.Signed}
	var fs []Finding
	for _, v := range lib.Violations {
		fs = append(fs, s.locate(v, tm))
	}
	fs = append(fs, s.check(t, tm)...)
	r.Findings = merge(fs, t.API)
	for _, m := range s.msgs {
		for _, b := range m.blocks {
			if why, ok := tm.skip[b]; ok && !dropped[b] {
				r.Handled = append(r.Handled, Handled{Location: b.loc, Reason: why.reason})
			}
		}
	}
	return r
}

// locate turns a violation of the library's audit into a finding at the
// stored block (or message) it is about.
func (s *Session) locate(v replay.Violation, tm *turnMap) Finding {
	f := Finding{Rule: v.Rule, Severity: v.Severity, Turn: v.Turn, Block: v.Block,
		Message: v.Message, Predicted: v.Predicted, Fix: v.Fix, Location: Location{File: s.Path}}
	if b := tm.block(v.Turn, v.Block); b != nil {
		f.blk, f.Location = b, b.loc
		return f
	}
	if v.Pointer != "" && tm.req != nil {
		toks := pointerTokens(v.Pointer)
		for n := len(toks); n > 0; n-- {
			p := pointer(toks[:n]...)
			suffix := v.Pointer[len(p):]
			if b, ok := tm.req[p]; ok {
				f.blk, f.Location = b, b.loc
				f.Location.Pointer += suffix
				f.Location.inner += suffix
				if pos, ok := tm.pos[b]; ok {
					f.Turn, f.Block = pos[0], pos[1]
				}
				return f
			}
			if m, ok := tm.reqMsg[p]; ok {
				f.msg, f.Location = m, m.first
				return f
			}
		}
	}
	if v.Turn >= 0 && v.Turn < len(tm.msgs) {
		f.msg = tm.msgs[v.Turn]
		f.Location = f.msg.first
	}
	return f
}

// merge joins the findings about one stored block (or message) into one,
// its rule the most precise: the target codec's own, then the session's,
// then the library's cross-provider ones.
func merge(fs []Finding, api string) []Finding {
	rank := func(rule string) int {
		switch {
		case api != "" && strings.HasPrefix(rule, api+"/"):
			return 0
		case strings.HasPrefix(rule, "session/"):
			return 1
		case strings.HasPrefix(rule, "replay/"):
			return 3
		}
		return 2
	}
	type key struct {
		b   *block
		m   *message
		loc string
	}
	idx := map[key]int{}
	var out []Finding
	for _, f := range fs {
		k := key{b: f.blk, m: f.msg}
		if f.blk != nil {
			k.m = nil
		} else if f.msg == nil {
			k.loc = f.Rule + f.Location.String()
		}
		i, ok := idx[k]
		if !ok {
			f.Rules = []string{f.Rule}
			idx[k] = len(out)
			out = append(out, f)
			continue
		}
		g := &out[i]
		if !contains(g.Rules, f.Rule) {
			g.Rules = append(g.Rules, f.Rule)
		}
		if grave(f.Severity) > grave(g.Severity) || grave(f.Severity) == grave(g.Severity) && rank(f.Rule) < rank(g.Rule) {
			pred := g.Predicted
			rules := g.Rules
			*g = f
			g.Rules = append([]string{f.Rule}, without(rules, f.Rule)...)
			if g.Predicted == "" {
				g.Predicted = pred
			}
		} else if g.Predicted == "" {
			g.Predicted = f.Predicted
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return less(out[i], out[j]) })
	return out
}

func less(a, b Finding) bool {
	if a.Location.Record != b.Location.Record {
		return a.Location.Record < b.Location.Record
	}
	return ordinal(a) < ordinal(b)
}

// ordinal orders findings within one record: by block, message-level
// ones first.
func ordinal(f Finding) int {
	if f.blk == nil || f.blk.msg == nil {
		return -1
	}
	for i, b := range f.blk.msg.blocks {
		if b == f.blk {
			return i
		}
	}
	return -1
}

func grave(s replay.Severity) int {
	switch s {
	case replay.SeverityReject:
		return 3
	case replay.SeverityDegrade:
		return 2
	case replay.SeverityRisk:
		return 1
	}
	return 0
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func without(ss []string, s string) []string {
	var out []string
	for _, x := range ss {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// AppendJSON appends the report document to dst: the session, the source
// and target, the counts, the verdict, and every finding with its file,
// line, record and pointer.
func (r *Report) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst = jsonw.Key(dst, "version")
	dst = jsonw.Int(dst, 1)
	dst = jsonw.Key(dst, "file")
	dst = jsonw.String(dst, r.Path)
	dst = jsonw.Key(dst, "agent")
	dst = jsonw.String(dst, string(r.Agent))
	dst = jsonw.Key(dst, "format")
	dst = jsonw.String(dst, r.Format)
	if r.Session != "" {
		dst = jsonw.Key(dst, "session")
		dst = jsonw.String(dst, r.Session)
	}
	if r.Subagent {
		dst = jsonw.Key(dst, "subagent")
		dst = jsonw.Bool(dst, true)
	}
	dst = jsonw.Key(dst, "source")
	dst = appendTarget(dst, r.Source)
	dst = jsonw.Key(dst, "target")
	dst = appendTarget(dst, r.Target)
	dst = jsonw.Key(dst, "verdict")
	dst = jsonw.String(dst, r.Verdict())
	for _, kv := range [...]struct {
		k string
		v int
	}{{"records", r.Records}, {"turns", r.Turns}, {"items", r.Items}, {"signed", r.Signed}} {
		dst = jsonw.Key(dst, kv.k)
		dst = jsonw.Int(dst, kv.v)
	}
	dst = jsonw.Key(dst, "findings")
	dst = append(dst, '[')
	for _, f := range r.Findings {
		dst = jsonw.Comma(dst)
		dst = f.appendJSON(dst)
	}
	dst = append(dst, ']')
	if len(r.Handled) > 0 {
		dst = jsonw.Key(dst, "handled")
		dst = append(dst, '[')
		for _, h := range r.Handled {
			dst = jsonw.Comma(dst)
			dst = append(dst, '{')
			dst = appendLocation(dst, h.Location)
			dst = jsonw.Key(dst, "reason")
			dst = jsonw.String(dst, h.Reason)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// MarshalJSON returns the report document.
func (r *Report) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil), nil }

func (f Finding) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst = jsonw.Key(dst, "rule")
	dst = jsonw.String(dst, f.Rule)
	if len(f.Rules) > 1 {
		dst = jsonw.Key(dst, "rules")
		dst = append(dst, '[')
		for _, r := range f.Rules {
			dst = jsonw.Comma(dst)
			dst = jsonw.String(dst, r)
		}
		dst = append(dst, ']')
	}
	dst = jsonw.Key(dst, "severity")
	dst = jsonw.String(dst, string(f.Severity))
	dst = appendLocation(dst, f.Location)
	dst = jsonw.Key(dst, "turn")
	dst = jsonw.Int(dst, f.Turn)
	dst = jsonw.Key(dst, "block")
	dst = jsonw.Int(dst, f.Block)
	for _, kv := range [...]struct{ k, v string }{{"message", f.Message}, {"predicted", f.Predicted}, {"fix", f.Fix}} {
		if kv.v != "" || kv.k == "message" {
			dst = jsonw.Key(dst, kv.k)
			dst = jsonw.String(dst, kv.v)
		}
	}
	return append(dst, '}')
}

func appendLocation(dst []byte, l Location) []byte {
	dst = jsonw.Key(dst, "file")
	dst = jsonw.String(dst, l.File)
	dst = jsonw.Key(dst, "line")
	dst = jsonw.Int(dst, l.Line)
	dst = jsonw.Key(dst, "record")
	dst = jsonw.Int(dst, l.Record)
	dst = jsonw.Key(dst, "pointer")
	return jsonw.String(dst, l.Pointer)
}

func appendTarget(dst []byte, t replay.Target) []byte {
	dst = append(dst, '{')
	for _, kv := range [...]struct{ k, v string }{{"api", t.API}, {"provider", t.Provider}, {"model", t.Model}, {"account", t.Account}} {
		if kv.v != "" {
			dst = jsonw.Key(dst, kv.k)
			dst = jsonw.String(dst, kv.v)
		}
	}
	return append(dst, '}')
}
