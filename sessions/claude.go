package sessions

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"
)

// Claude Code (research: agent-session-formats.md, "Claude Code").
//
// One JSONL file per session; each line a record with a `type`. Records
// chain through uuid / parentUuid; the agent resumes the chain that ends
// at the last non-sidechain message, walking parents, and stitches back
// the sibling lines of parallel tool calls (lines that share message.id)
// and their results. A streamed response is written one content block per
// line, the lines sharing message.id: concatenated, they are the API
// message. Compaction starts a new chain (a root: a compact_boundary
// system line, or a user line with isCompactSummary); its
// compactMetadata.preservedSegment names the messages it keeps, whose
// first is relinked to the boundary on load. Client-written lines
// (model "<synthetic>", isApiErrorMessage) are not model output and are
// not sent. Subagents write their own files (<session>/subagents/
// agent-<id>.jsonl) whose lines are all sidechain lines.
//
// The file records the model of each message and not the provider: the
// provider is taken from the model's name (claude-* is Claude, on
// Anthropic, Bedrock or Vertex alike; deepseek-*, kimi-*, glm-* are the
// hosts whose /anthropic endpoints Claude Code can be pointed at).

// ccRec is what is kept of one line of the segment being read.
type ccRec struct {
	rec                    record
	uuid, parent, logical  string
	side, compact, message bool
	typ, role, msgID       string
	model                  string
	synthetic              bool
	head, anchor, tail     string // compactMetadata.preservedSegment
	blocks                 []*block
	size                   int
}

// ccState is the reading state: the records since the last compaction.
type ccState struct {
	recs    []*ccRec
	byUUID  map[string]*ccRec
	pruned  map[string]bool
	relink  map[string]string // a preserved segment's head -> its anchor
	noPrune bool
}

func readClaude(s *Session, f *os.File) error {
	s.Format, s.jsonl, s.reqAPI = "claude-code-jsonl", true, apiAnthropic
	s.api = func(string, string) string { return apiAnthropic }
	s.Subagent = strings.Contains(filepath.ToSlash(s.Path), "/subagents/")
	st, err := readClaudeOnce(s, f, false)
	if err != nil {
		return err
	}
	chain, ok := st.chain()
	if !ok {
		// The branch resumed forks before a compaction the reader pruned
		// at: read again, keeping every record.
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		s.recs, s.recIdx, s.bad, s.kept, s.Records = nil, map[int]int{}, nil, 0, 0
		if st, err = readClaudeOnce(s, f, true); err != nil {
			return err
		}
		chain, _ = st.chain()
	}
	meta := make([]link, 0, len(st.recs))
	for _, r := range st.recs {
		meta = append(meta, link{rec: r.rec, id: r.uuid, parent: r.parent, logical: r.logical, tail: r.tail})
	}
	s.ed = &linkEditor{links: meta, parentPtr: "/parentUuid"}
	s.buildClaude(chain)
	return nil
}

func readClaudeOnce(s *Session, f *os.File, noPrune bool) (*ccState, error) {
	st := &ccState{byUUID: map[string]*ccRec{}, pruned: map[string]bool{}, relink: map[string]string{}, noPrune: noPrune}
	lr := newLineReader(f, s.lim.MaxRecord)
	for {
		data, rec, err := s.nextRecord(lr)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		r := parseClaudeLine(data, rec)
		if s.ID == "" && !r.side {
			s.ID = clone(gjson.GetBytes(data, "sessionId").Str)
		}
		if !r.side && r.parent == "" && (r.compact || r.typ == "system" && gjson.GetBytes(data, "subtype").Str == "compact_boundary") && !noPrune {
			st.reset(r)
			s.kept = 0
			for _, x := range st.recs {
				s.kept += x.size
			}
		}
		if r.head != "" && r.anchor != "" {
			st.relink[r.head] = r.anchor
		}
		if err := s.keep(r.size); err != nil {
			return nil, err
		}
		st.recs = append(st.recs, r)
		if r.uuid != "" {
			st.byUUID[r.uuid] = r
		}
	}
	if s.ID == "" && s.Subagent {
		s.ID = strings.TrimSuffix(filepath.Base(s.Path), ".jsonl")
	}
	return st, nil
}

// reset starts a new segment at compaction root r, keeping only the
// messages its preserved segment names (tail back to head).
func (st *ccState) reset(r *ccRec) {
	keep := map[*ccRec]bool{}
	if r.tail != "" {
		for cur, n := st.byUUID[r.tail], 0; cur != nil && n < len(st.recs); n++ {
			keep[cur] = true
			if cur.uuid == r.head {
				break
			}
			cur = st.byUUID[cur.parent]
		}
	}
	// The preserved messages' sibling lines (parallel tool calls) and the
	// results that answer them stay too: the agent stitches them back.
	ids, sib := map[string]bool{}, map[string]bool{}
	for x := range keep {
		if x.role == roleAssistant && x.msgID != "" {
			ids[x.msgID] = true
		}
	}
	for _, x := range st.recs {
		if x.role == roleAssistant && ids[x.msgID] {
			keep[x], sib[x.uuid] = true, true
		}
	}
	for _, x := range st.recs {
		if x.role == roleUser && sib[x.parent] && hasResult(x) {
			keep[x] = true
		}
	}
	var kept []*ccRec
	for _, x := range st.recs {
		if keep[x] {
			kept = append(kept, x)
			continue
		}
		if x.uuid != "" {
			st.pruned[x.uuid] = true
			delete(st.byUUID, x.uuid)
		}
	}
	st.recs = kept
}

func parseClaudeLine(data []byte, rec record) *ccRec {
	var r ccRec
	r.rec = rec
	vals := gjson.GetManyBytes(data, "type", "uuid", "parentUuid", "isSidechain", "isCompactSummary", "logicalParentUuid",
		"compactMetadata.preservedSegment.headUuid", "compactMetadata.preservedSegment.anchorUuid", "compactMetadata.preservedSegment.tailUuid",
		"isApiErrorMessage", "message")
	r.typ, r.uuid, r.parent = clone(vals[0].Str), clone(vals[1].Str), clone(vals[2].Str)
	r.side, r.compact, r.logical = vals[3].Bool(), vals[4].Bool(), clone(vals[5].Str)
	r.head, r.anchor, r.tail = clone(vals[6].Str), clone(vals[7].Str), clone(vals[8].Str)
	msg := vals[10]
	if (r.typ != "user" && r.typ != "assistant") || !msg.IsObject() {
		return &r
	}
	r.message = true
	r.role = clone(msg.Get("role").Str)
	if r.role == "" {
		r.role = r.typ
	}
	r.msgID, r.model = clone(msg.Get("id").Str), clone(msg.Get("model").Str)
	r.synthetic = vals[9].Bool() || r.model == "<synthetic>"
	content := msg.Get("content")
	if r.role == roleAssistant {
		n := len(content.Array())
		content.ForEach(func(k, v gjson.Result) bool {
			b := anthropicBlock(v)
			b.loc = Location{inner: "/message/content/" + itoa(int(k.Int())), rec: -1}
			b.whole = n == 1
			r.blocks = append(r.blocks, b)
			r.size += len(v.Raw)
			return true
		})
		return &r
	}
	r.blocks = userBlocks(content, "/message/content")
	return &r
}

// anthropicBlock reads one stored Messages API content block.
func anthropicBlock(v gjson.Result) *block {
	b := &block{raw: []byte(v.Raw)}
	switch v.Get("type").Str {
	case "thinking":
		b.kind = kThinking
		b.empty = v.Get("thinking").Str == ""
		sig := v.Get("signature")
		b.sig = sigOf(sig.Str, sig.Exists(), sig.Type == gjson.Null)
	case "redacted_thinking":
		b.kind = kRedacted
	case "text":
		b.kind = kText
		b.empty = v.Get("text").Str == ""
	case "tool_use":
		b.kind, b.id = kToolUse, clone(v.Get("id").Str)
	}
	return b
}

// userBlocks reads the content of a stored user message (a string, or an
// array of blocks) at inner pointer ptr: tool results by id, the rest as
// user content.
func userBlocks(content gjson.Result, ptr string) []*block {
	if content.Type == gjson.String {
		return []*block{{kind: kUserText, empty: content.Str == "", whole: true, loc: Location{inner: ptr, rec: -1}}}
	}
	var out []*block
	n := len(content.Array())
	content.ForEach(func(k, v gjson.Result) bool {
		b := &block{kind: kUserText, whole: n == 1, loc: Location{inner: ptr + "/" + itoa(int(k.Int())), rec: -1}}
		switch v.Get("type").Str {
		case "tool_result":
			b.kind, b.id = kToolResult, clone(v.Get("tool_use_id").Str)
		case "text":
			b.empty = v.Get("text").Str == ""
		}
		out = append(out, b)
		return true
	})
	return out
}

// chain returns the records of the resumed branch in file order, and false
// when the branch leads to a pruned record.
func (st *ccState) chain() ([]*ccRec, bool) {
	var leaf *ccRec
	sideOnly := true
	for _, r := range st.recs {
		if r.message && !r.side {
			sideOnly = false
		}
	}
	for i := len(st.recs) - 1; i >= 0; i-- {
		if r := st.recs[i]; r.message && (!r.side || sideOnly) {
			leaf = r
			break
		}
	}
	if leaf == nil {
		return nil, true
	}
	in := map[*ccRec]bool{}
	for cur := leaf; cur != nil && !in[cur]; {
		in[cur] = true
		p := cur.parent
		if a, ok := st.relink[cur.uuid]; ok {
			p = a
		}
		if p == "" {
			break
		}
		if st.pruned[p] && !st.noPrune {
			return nil, false
		}
		cur = st.byUUID[p]
	}
	// The sibling lines of the chain's messages (parallel tool calls) and
	// the results that answer them.
	ids := map[string]bool{}
	for r := range in {
		if r.role == roleAssistant && r.msgID != "" {
			ids[r.msgID] = true
		}
	}
	sib := map[string]bool{}
	for _, r := range st.recs {
		if r.message && r.role == roleAssistant && ids[r.msgID] && r.side == leaf.side {
			in[r] = true
			sib[r.uuid] = true
		}
	}
	for _, r := range st.recs {
		if r.message && r.role == roleUser && sib[r.parent] && hasResult(r) {
			in[r] = true
		}
	}
	var out []*ccRec
	for _, r := range st.recs {
		if in[r] {
			out = append(out, r)
		}
	}
	return out, true
}

func hasResult(r *ccRec) bool {
	for _, b := range r.blocks {
		if b.kind == kToolResult {
			return true
		}
	}
	return false
}

// buildClaude makes the session's messages from the resumed branch.
func (s *Session) buildClaude(chain []*ccRec) {
	var last *message
	lastID := ""
	for _, r := range chain {
		if !r.message || r.synthetic || len(r.blocks) == 0 {
			continue
		}
		for _, b := range r.blocks {
			b.loc = s.loc(r.rec, b.loc.inner)
		}
		switch {
		case r.role == roleAssistant && last != nil && last.role == roleAssistant && lastID == r.msgID && r.msgID != "":
		case r.role == roleUser && last != nil && last.role == roleUser:
		default:
			last = &message{role: r.role, first: s.loc(r.rec, "/message"),
				info: map[string]string{"model": r.model}}
			s.msgs = append(s.msgs, last)
		}
		lastID = r.msgID
		for _, b := range r.blocks {
			last.add(b)
		}
	}
	la := s.lastAssistant()
	for i, m := range s.msgs {
		if m.role != roleAssistant {
			continue
		}
		model := m.info["model"]
		provider := providerFromModel(model)
		if err := decode(m, apiAnthropic, provider, model, i == la); err != nil {
			markBad(m, err)
		}
		m.turn.Provenance.API, m.turn.Provenance.Provider, m.turn.Provenance.Model = apiAnthropic, provider, model
	}
}

// providerFromModel names the provider a Claude Code model name implies:
// Claude's models are Anthropic's (and Bedrock's and Vertex's, which
// accept the same signatures); the hosts whose /anthropic endpoints serve
// their own models go by their model names.
func providerFromModel(model string) string {
	m := strings.ToLower(model)
	switch {
	case m == "" || strings.Contains(m, "claude") || strings.Contains(m, "opus") || strings.Contains(m, "sonnet") || strings.Contains(m, "haiku"):
		return "anthropic"
	case strings.Contains(m, "deepseek"):
		return "deepseek"
	case strings.Contains(m, "kimi") || strings.Contains(m, "moonshot"):
		return "moonshot"
	case strings.Contains(m, "minimax"):
		return "minimax"
	case strings.HasPrefix(m, "glm") || strings.Contains(m, "zai"):
		return "zai"
	}
	if i := strings.IndexAny(m, "-/:"); i > 0 {
		return m[:i]
	}
	return m
}
