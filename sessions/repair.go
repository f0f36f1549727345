package sessions

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/tidwall/sjson"
)

// Plan is a repair of one session for its target: the smallest set of
// edits that leaves no finding the provider would reject, where one
// exists. Only the records it names change; every other byte of the file
// stays as it is.
type Plan struct {
	// Session is the session repaired; Target the target it resumes on.
	Session *Session
	Target  replay.Target
	// Before is the audit of the session as it is.
	Before *Report
	// Fixes lists the changes, in file order.
	Fixes []Fix
	// Remaining lists the findings the provider would still reject, that
	// no edit of the file fixes (it never invents a signature).
	Remaining []Finding

	changes []change
}

// Fix is one change a Plan makes.
type Fix struct {
	// Action says what changes ("drop the thinking block").
	Action string
	// Location is the block or record changed.
	Location Location
	// Rules are the findings' rules it answers.
	Rules []string
	// After, when set, is the fix this one follows from: the finding it
	// answers appeared only once that fix was made (a message left ending
	// with its thinking once its tool call went, say).
	After *Location
}

// edit is one change of one record: delete the record, delete the value
// at an inner pointer, or set it (value not nil).
type edit struct {
	rec   int
	del   bool
	ptr   string
	value []byte
}

// change replaces the bytes [off, end) of the file with with.
type change struct {
	off, end int64
	with     []byte
	line     int   // the line the replaced bytes start on
	recs     []int // the records it touches (indexes in Session.recs)
}

// editor is what an agent's files need for a repair.
type editor interface {
	// dropRecord returns the edits that take a whole record out.
	dropRecord(s *Session, rec int) []edit
	// relink returns the edits that keep the file's links whole once the
	// records in gone are taken out (a parent pointer to a deleted record
	// moves to that record's parent).
	relink(s *Session, gone map[int]bool) []edit
}

// plainEditor deletes records and needs no relinking.
type plainEditor struct{}

func (plainEditor) dropRecord(_ *Session, rec int) []edit { return []edit{{rec: rec, del: true}} }
func (plainEditor) relink(*Session, map[int]bool) []edit  { return nil }

// link is what a linkEditor keeps of a record: its id and the ids it
// points at.
type link struct {
	rec        record
	id, parent string
	// logical is a Claude Code compaction's logicalParentUuid, tail its
	// preserved segment's last record; firstKept a pi compaction's first
	// kept entry.
	logical, tail, firstKept string
}

// linkEditor edits files whose records are linked by id (Claude Code's
// parentUuid chains, pi's parentId trees): a deleted record's children
// get its parent, and the other links that named it move on.
type linkEditor struct {
	links     []link
	parentPtr string // the parent member: "/parentUuid", "/parentId"
}

func (*linkEditor) dropRecord(_ *Session, rec int) []edit { return []edit{{rec: rec, del: true}} }

func (e *linkEditor) relink(s *Session, gone map[int]bool) []edit {
	if len(gone) == 0 {
		return nil
	}
	isGone := func(l link) bool {
		i, ok := s.recIdx[l.rec.index]
		return ok && gone[i]
	}
	parent := map[string]string{} // a deleted record's id -> its parent
	for _, l := range e.links {
		if isGone(l) && l.id != "" && !strings.HasPrefix(l.id, "#") {
			parent[l.id] = l.parent
		}
	}
	ref := func(id string) []byte {
		if id == "" {
			return []byte("null")
		}
		return quote(id)
	}
	// The record that takes a deleted one's place as a compaction's first
	// kept: its first child that stays.
	successor := func(id string) string {
		for n := 0; n <= len(parent); n++ {
			next := ""
			for _, l := range e.links {
				if l.parent == id {
					next = l.id
					break
				}
			}
			if _, deleted := parent[next]; !deleted {
				return next
			}
			id = next
		}
		return ""
	}
	var out []edit
	for _, l := range e.links {
		if isGone(l) {
			continue
		}
		for _, x := range [...]struct{ v, ptr string }{{l.parent, e.parentPtr}, {l.logical, "/logicalParentUuid"},
			{l.tail, "/compactMetadata/preservedSegment/tailUuid"}} {
			if _, deleted := parent[x.v]; deleted && x.v != "" {
				out = append(out, edit{rec: s.addRecord(l.rec), ptr: x.ptr, value: ref(ancestor(parent, x.v))})
			}
		}
		if _, deleted := parent[l.firstKept]; deleted && l.firstKept != "" {
			if k := successor(l.firstKept); k != "" {
				out = append(out, edit{rec: s.addRecord(l.rec), ptr: "/firstKeptEntryId", value: quote(k)})
			}
		}
	}
	return out
}

// The placeholder Gemini documents for a function call whose signature is
// lost (it passes validation; the model is told nothing of its earlier
// reasoning).
const geminiSentinel = "skip_thought_signature_validator"

// Repair plans the repair of s for target t. It never invents a signature;
// what it cannot fix is left in Plan.Remaining.
func Repair(s *Session, t replay.Target) (*Plan, error) {
	p := &Plan{Session: s, Target: t}
	dropped := map[*block]bool{}
	type setOp struct {
		b     *block
		ptr   string
		value []byte // nil deletes
	}
	var sets []setOp
	setAt := map[string]bool{}
	fixed := map[*block]int{} // block -> index in p.Fixes
	type fkey struct {
		b    *block
		m    *message
		rule string
	}
	reported := map[fkey]bool{}
	var cause *Location // the fix a finding of a later round follows from
	note := func(b *block, action string, rules []string) {
		if i, ok := fixed[b]; ok {
			for _, r := range rules {
				if !contains(p.Fixes[i].Rules, r) {
					p.Fixes[i].Rules = append(p.Fixes[i].Rules, r)
				}
			}
			return
		}
		fixed[b] = len(p.Fixes)
		p.Fixes = append(p.Fixes, Fix{Action: action, Location: b.loc, Rules: rules, After: cause})
	}
	anth := strings.EqualFold(t.API, apiAnthropic)
	for round := 0; round < 32; round++ {
		rep := s.audit(t, dropped)
		if round == 0 {
			p.Before = rep
			for _, f := range rep.Findings {
				for _, r := range f.Rules {
					reported[fkey{f.blk, f.msg, r}] = true
				}
			}
		}
		prevFixes := len(p.Fixes)
		_, tm := s.history(t, dropped, false)
		conv := tm.conversation(s)
		loop := inProgress(conv)
		progress := false
		p.Remaining = p.Remaining[:0]
		for _, f := range rep.Findings {
			if f.Severity != replay.SeverityReject {
				continue
			}
			b := f.blk
			if b == nil || dropped[b] {
				if b == nil {
					p.Remaining = append(p.Remaining, f)
				}
				continue
			}
			cause = nil
			if !reported[fkey{f.blk, f.msg, f.Rule}] && prevFixes > 0 {
				// A consequence of an earlier fix: the last one made in
				// the same message, else the last one made.
				at := p.Fixes[prevFixes-1].Location
				for i := prevFixes - 1; i >= 0; i-- {
					if l := p.Fixes[i].Location; l.rec >= 0 && b.msg != nil && sameMessage(s, l, b.msg) {
						at = l
						break
					}
				}
				cause = &at
			}
			if ptr, value, ok := memberFix(f.Rule, b); ok {
				// The contract names the member that must not be sent:
				// remove it (or write what must be there), and keep the
				// item.
				key := fmt.Sprint(b.loc.rec, b.loc.inner+ptr)
				if setAt[key] {
					p.Remaining = append(p.Remaining, f)
					continue
				}
				setAt[key] = true
				sets = append(sets, setOp{b, b.loc.inner + ptr, value})
				note(b, memberAction(ptr, value), f.Rules)
				progress = true
				continue
			}
			switch {
			case strings.HasPrefix(f.Rule, "gemini/") && b.kind == kToolUse && b.sentinel != "":
				key := fmt.Sprint(b.loc.rec, b.sentinel)
				if setAt[key] {
					p.Remaining = append(p.Remaining, f)
					continue
				}
				setAt[key] = true
				sets = append(sets, setOp{b, b.sentinel, quote(geminiSentinel)})
				note(b, "write Gemini's documented placeholder signature "+geminiSentinel+" on the call (the real signature is lost)", f.Rules)
			case f.Rule == "openai/follower-without-reasoning" && b.itemID != "":
				key := fmt.Sprint(b.loc.rec, b.itemID)
				if setAt[key] {
					p.Remaining = append(p.Remaining, f)
					continue
				}
				setAt[key] = true
				sets = append(sets, setOp{b, b.itemID, nil})
				note(b, "remove the item's id, which pairs it with a reasoning item that is not sent", f.Rules)
			case b.kind == kToolUse && f.Rule != RuleOrphanToolUse:
				p.Remaining = append(p.Remaining, f)
				continue
			case b.kind == kText && !b.empty && b.bad == "":
				p.Remaining = append(p.Remaining, f)
				continue
			case anth && loop >= 0 && b.msg == conv[loop].m && (b.kind.reasoning() || b.bad != ""):
				// The in-progress tool turn must send all its thinking,
				// unmodified: no block of it may go alone. Rewind the
				// step: the call and its results go with it.
				step := conv[loop].m
				uses := ids(step.blocks, kToolUse)
				for _, sb := range step.blocks {
					dropped[sb] = true
					note(sb, "rewind the in-progress tool step: drop its assistant message (its thinking cannot be sent unmodified, and a tool turn cannot go without it)", f.Rules)
				}
				for _, cm := range conv[loop+1:] {
					for _, rb := range cm.blocks {
						if rb.kind == kToolResult && uses[rb.id] {
							dropped[rb] = true
							note(rb, "rewind the in-progress tool step: drop the result of its call", f.Rules)
						}
					}
				}
			default:
				dropped[b] = true
				note(b, "drop the "+b.kind.String(), f.Rules)
				// A reasoning item that paired its follower takes the
				// follower's item id with it (as replay.Carry does).
				if b.kind == kReasoning {
					if nb := nextBlock(b); nb != nil && nb.itemID != "" && !dropped[nb] {
						key := fmt.Sprint(nb.loc.rec, nb.itemID)
						if !setAt[key] {
							setAt[key] = true
							sets = append(sets, setOp{nb, nb.itemID, nil})
							note(nb, "remove the item's id, which paired it with the dropped reasoning item", f.Rules)
						}
					}
				}
			}
			progress = true
		}
		if !progress {
			break
		}
	}
	// The edits: the dropped blocks (a record left without any of its
	// blocks goes whole), the links the deleted records held, the values
	// set.
	perRec := map[int]int{}
	for _, m := range s.msgs {
		for _, b := range m.blocks {
			perRec[b.loc.rec]++
		}
	}
	gone := map[int]bool{}
	droppedIn := map[int]int{}
	for b := range dropped {
		droppedIn[b.loc.rec]++
	}
	var edits []edit
	for b := range dropped {
		switch {
		case gone[b.loc.rec]:
		case b.whole || droppedIn[b.loc.rec] == perRec[b.loc.rec]:
			es := s.ed.dropRecord(s, b.loc.rec)
			for _, e := range es {
				if e.del {
					gone[e.rec] = true
				}
			}
			edits = append(edits, es...)
		default:
			edits = append(edits, edit{rec: b.loc.rec, ptr: b.loc.inner})
		}
	}
	edits = append(edits, s.ed.relink(s, gone)...)
	for _, op := range sets {
		if !dropped[op.b] {
			edits = append(edits, edit{rec: op.b.loc.rec, ptr: op.ptr, value: op.value})
		}
	}
	sort.SliceStable(p.Fixes, func(i, j int) bool {
		a, b := p.Fixes[i].Location, p.Fixes[j].Location
		if a.Record != b.Record {
			return a.Record < b.Record
		}
		return a.Pointer < b.Pointer
	})
	var err error
	p.changes, err = s.compile(edits)
	return p, err
}

// memberFix returns the member of a stored Responses item that a rule of
// the OpenAI contract names (the inner pointer below the block), and the
// value it must have (nil: the member goes).
func memberFix(rule string, b *block) (string, []byte, bool) {
	if b.kind != kReasoning {
		return "", nil, false
	}
	switch rule {
	case "openai/reasoning-content":
		return "/content", nil, true
	case "openai/reasoning-status":
		return "/status", nil, true
	case "openai/reasoning-summary":
		return "/summary", []byte("[]"), true
	}
	return "", nil, false
}

func memberAction(ptr string, value []byte) string {
	name := strings.TrimPrefix(ptr, "/")
	if value == nil {
		return "remove the reasoning item's " + name + " member, which the API does not take back"
	}
	return "write the reasoning item's " + name + " member as " + string(value)
}

// sameMessage reports whether location l is one of m's blocks.
func sameMessage(s *Session, l Location, m *message) bool {
	for _, b := range m.blocks {
		if b.loc.rec == l.rec && b.loc.inner == l.inner {
			return true
		}
	}
	return false
}

// nextBlock returns the stored block after b in its message, or nil.
func nextBlock(b *block) *block {
	for i, x := range b.msg.blocks {
		if x == b && i+1 < len(b.msg.blocks) {
			return b.msg.blocks[i+1]
		}
	}
	return nil
}

// Empty reports whether the plan changes nothing.
func (p *Plan) Empty() bool { return len(p.changes) == 0 }

// compile turns edits into byte changes of the file, in order.
func (s *Session) compile(edits []edit) ([]change, error) {
	byRec := map[int][]edit{}
	var order []int
	for _, e := range edits {
		if _, ok := byRec[e.rec]; !ok {
			order = append(order, e.rec)
		}
		byRec[e.rec] = append(byRec[e.rec], e)
	}
	f, err := os.Open(s.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []change
	var goneElems []int // document elements deleted (their index in the array)
	elemRec := map[int]int{}
	for _, ri := range order {
		es := byRec[ri]
		r := s.recs[ri]
		del := false
		for _, e := range es {
			del = del || e.del
		}
		if del {
			if s.jsonl {
				out = append(out, change{off: r.off, end: r.next, line: r.line, recs: []int{ri}})
			} else {
				goneElems = append(goneElems, r.index)
				elemRec[r.index] = ri
			}
			continue
		}
		data := make([]byte, r.end-r.off)
		if _, err := f.ReadAt(data, r.off); err != nil {
			return nil, fmt.Errorf("reading line %d: %w", r.line, err)
		}
		nd, err := applyEdits(data, es)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", r.line, err)
		}
		out = append(out, change{off: r.off, end: r.end, with: nd, line: r.line, recs: []int{ri}})
	}
	if len(goneElems) > 0 {
		sort.Ints(goneElems)
		for i := 0; i < len(goneElems); {
			j := i
			for j+1 < len(goneElems) && goneElems[j+1] == goneElems[j]+1 {
				j++
			}
			a, b := goneElems[i], goneElems[j]
			c := change{line: s.recs[elemRec[a]].line}
			for k := a; k <= b; k++ {
				c.recs = append(c.recs, elemRec[k])
			}
			switch {
			case a > 0: // from the end of the element before the run
				c.off, c.end = s.spans[a-1].end, s.spans[b].end
			case b+1 < len(s.spans): // to the start of the element after it
				c.off, c.end = s.spans[a].off, s.spans[b+1].off
			default:
				c.off, c.end = s.spans[a].off, s.spans[b].end
			}
			out = append(out, c)
			i = j + 1
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].off < out[j].off })
	// A record both deleted (in a run) and edited: the deletion wins.
	merged := out[:0]
	for _, c := range out {
		if n := len(merged); n > 0 && c.off < merged[n-1].end {
			if c.end > merged[n-1].end {
				merged[n-1].end = c.end
			}
			continue
		}
		merged = append(merged, c)
	}
	return merged, nil
}

// applyEdits applies value edits to one record: sets first, then
// deletions, the later array elements before the earlier ones so that
// indexes stay right.
func applyEdits(data []byte, es []edit) ([]byte, error) {
	var dels []string
	seen := map[string]bool{}
	var err error
	for _, e := range es {
		if e.value != nil {
			if data, err = sjson.SetRawBytes(data, gjsonPath(e.ptr), e.value); err != nil {
				return nil, err
			}
			continue
		}
		if !seen[e.ptr] {
			seen[e.ptr] = true
			dels = append(dels, e.ptr)
		}
	}
	sort.Slice(dels, func(i, j int) bool { return pointerAfter(dels[i], dels[j]) })
	for _, p := range dels {
		if data, err = sjson.DeleteBytes(data, gjsonPath(p)); err != nil {
			return nil, err
		}
	}
	if !validJSON(data) {
		return nil, fmt.Errorf("the edited record is not valid JSON")
	}
	return data, nil
}

// pointerAfter reports whether pointer a sorts after b, array indexes
// compared as numbers.
func pointerAfter(a, b string) bool {
	ta, tb := pointerTokens(a), pointerTokens(b)
	for i := 0; i < len(ta) && i < len(tb); i++ {
		if ta[i] == tb[i] {
			continue
		}
		na, ea := strconv.Atoi(ta[i])
		nb, eb := strconv.Atoi(tb[i])
		if ea == nil && eb == nil {
			return na > nb
		}
		return ta[i] > tb[i]
	}
	return len(ta) > len(tb)
}

// WriteTo writes the repaired file to w: the original bytes, with the
// plan's changes. It reads the session file as it goes.
func (p *Plan) WriteTo(w io.Writer) (int64, error) {
	f, err := os.Open(p.Session.Path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(w, 64<<10)
	var n, pos int64
	for _, c := range p.changes {
		k, err := io.CopyN(bw, f, c.off-pos)
		n += k
		if err != nil {
			return n, err
		}
		m, _ := bw.Write(c.with)
		n += int64(m)
		if _, err := f.Seek(c.end, io.SeekStart); err != nil {
			return n, err
		}
		pos = c.end
	}
	k, err := io.Copy(bw, f)
	n += k
	if err != nil {
		return n, err
	}
	return n, bw.Flush()
}

// Verify writes the repaired file to a temporary file, reads it back and
// audits it for the plan's target.
func (p *Plan) Verify() (*Report, error) {
	tmp, err := os.CreateTemp("", "replay-session-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	if _, err := p.WriteTo(tmp); err != nil {
		tmp.Close()
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	s, err := Read(tmp.Name(), Options{Agent: p.Session.Agent, Limits: p.Session.lim})
	if err != nil {
		return nil, fmt.Errorf("the repaired file: %w", err)
	}
	s.Path = p.Session.Path
	r := Audit(s, p.Target)
	r.Path = p.Session.Path
	for i := range r.Findings {
		r.Findings[i].Location.File = p.Session.Path
	}
	return r, nil
}
