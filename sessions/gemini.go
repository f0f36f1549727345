package sessions

import (
	"io"
	"os"
	"strings"

	"github.com/tidwall/gjson"
)

// Gemini CLI chats (research: agent-session-formats.md, "Gemini CLI";
// gemini-cli packages/core/src/services/chatRecordingTypes.ts and
// chatRecordingService.ts).
//
// A `.json` file is one ConversationRecord {sessionId, projectHash,
// messages: [...], kind?}. A `.jsonl` file is a log: a metadata line, then
// message records (a record whose id was seen before replaces it in
// place), {"$set":{...}} metadata updates (a non-empty `messages` there
// replaces the conversation), and {"$rewindTo":"<id>"} (the message with
// that id and every later one are dropped; an unknown id drops them all).
//
// A `gemini` message's parts are sent as they are when its content is a
// part list that holds function calls or thoughts (signatures ride on
// those parts); otherwise the agent rebuilds them: its `thoughts`
// summaries as unsigned thought parts, its text, and its `toolCalls` as
// function calls (the first with the validator-skipping placeholder
// signature gemini-cli writes). The results of its tool calls
// (toolCalls[].result) are the next user turn. No provider or login is
// recorded.

// gmMsg is one message record of the conversation.
type gmMsg struct {
	rec    record
	inner  string // the message's pointer inside its record ("" or "/$set/messages/3")
	id     string
	typ    string
	model  string
	blocks []*block // the model turn's parts (or the user's content)
	result []*block // the tool results that follow it
	size   int
}

func readGemini(s *Session, f *os.File) error {
	s.api = func(string, string) string { return apiGemini }
	var order []string
	msgs := map[string]*gmMsg{}
	versions := map[string][]record{}
	var setMsgs []*gmMsg // a $set's messages, which replace the conversation
	add := func(m *gmMsg) error {
		if _, seen := msgs[m.id]; !seen {
			order = append(order, m.id)
		} else {
			s.kept -= msgs[m.id].size
		}
		msgs[m.id] = m
		return s.keep(m.size)
	}
	if strings.HasSuffix(s.Path, ".json") {
		s.Format = "gemini-json"
		dr := newDocReader(f, s.lim.MaxRecord)
		member := func(key string, data []byte) {
			switch key {
			case "sessionId":
				s.ID, _ = unquote(data)
			case "kind":
				k, _ := unquote(data)
				s.Subagent = k == "subagent"
			}
		}
		for {
			data, rec, err := s.nextElement(dr, "messages", member)
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			m := parseGemini(gjson.ParseBytes(data), rec, "")
			m.id = itoa(rec.index) + "#" + m.id // positions, not ids, in a document
			if err := add(m); err != nil {
				return err
			}
		}
	} else {
		s.Format, s.jsonl = "gemini-jsonl", true
		lr := newLineReader(f, s.lim.MaxRecord)
		for {
			data, rec, err := s.nextRecord(lr)
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			root := gjson.ParseBytes(data)
			switch {
			case root.Get("$rewindTo").Type == gjson.String:
				id := root.Get("$rewindTo").Str
				cut := -1
				for i, x := range order {
					if x == id {
						cut = i
						break
					}
				}
				if cut < 0 {
					cut = 0
				}
				for _, x := range order[cut:] {
					s.kept -= msgs[x].size
					delete(msgs, x)
				}
				order = order[:cut]
			case root.Get("id").Type == gjson.String:
				m := parseGemini(root, rec, "")
				versions[m.id] = append(versions[m.id], rec)
				if err := add(m); err != nil {
					return err
				}
			case root.Get("$set").IsObject():
				set := root.Get("$set")
				if k := set.Get("kind"); k.Exists() {
					s.Subagent = k.Str == "subagent"
				}
				if id := set.Get("sessionId").Str; id != "" {
					s.ID = id
				}
				if ms := set.Get("messages"); ms.IsArray() && len(ms.Array()) > 0 {
					setMsgs = setMsgs[:0]
					ms.ForEach(func(k, v gjson.Result) bool {
						setMsgs = append(setMsgs, parseGemini(v, rec, "/$set/messages/"+itoa(int(k.Int()))))
						return true
					})
				}
			default:
				if id := root.Get("sessionId").Str; id != "" && s.ID == "" {
					s.ID = id
				}
				if root.Get("kind").Str == "subagent" {
					s.Subagent = true
				}
			}
		}
	}
	s.ed = &geminiEditor{versions: versions}
	list := setMsgs
	if len(list) == 0 {
		for _, id := range order {
			list = append(list, msgs[id])
		}
	}
	s.buildGemini(list)
	return nil
}

// errAt is an error located at a record.
type errAt struct {
	rec record
	msg string
}

func (e *errAt) Error() string { return "line " + itoa(e.rec.line) + ": " + e.msg }

func parseGemini(v gjson.Result, rec record, inner string) *gmMsg {
	m := &gmMsg{rec: rec, inner: inner, id: clone(v.Get("id").Str), typ: clone(v.Get("type").Str), model: clone(v.Get("model").Str), size: len(v.Raw)}
	content := v.Get("content")
	switch m.typ {
	case "user":
		m.blocks = []*block{{kind: kUserText, empty: content.Type == gjson.String && content.Str == "", loc: Location{rec: -1, inner: inner + "/content"}, whole: true}}
	case "gemini":
		native := false
		if content.IsArray() {
			content.ForEach(func(_, p gjson.Result) bool {
				native = native || p.Get("functionCall").Exists() || p.Get("thought").Bool()
				return !native
			})
		}
		if native {
			content.ForEach(func(k, p gjson.Result) bool {
				m.blocks = append(m.blocks, geminiPart(p, inner+"/content/"+itoa(int(k.Int()))))
				return true
			})
		} else {
			v.Get("thoughts").ForEach(func(k, t gjson.Result) bool {
				text := "**" + t.Get("subject").Str + "** " + t.Get("description").Str
				m.blocks = append(m.blocks, &block{kind: kThinking, loc: Location{rec: -1, inner: inner + "/thoughts/" + itoa(int(k.Int()))},
					raw: []byte(`{"text":` + string(quote(text)) + `,"thought":true}`)})
				return true
			})
			text := content.Str
			if content.IsArray() {
				var b strings.Builder
				content.ForEach(func(_, p gjson.Result) bool {
					b.WriteString(p.Get("text").Str)
					return true
				})
				text = b.String()
			}
			if text != "" {
				m.blocks = append(m.blocks, &block{kind: kText, loc: Location{rec: -1, inner: inner + "/content"},
					raw: []byte(`{"text":` + string(quote(text)) + `}`)})
			}
			first := true
			v.Get("toolCalls").ForEach(func(k, c gjson.Result) bool {
				args := c.Get("args").Raw
				if args == "" {
					args = "{}"
				}
				raw := `{"functionCall":{"name":` + string(quote(c.Get("name").Str)) + `,"args":` + args
				if id := c.Get("id").Str; id != "" {
					raw += `,"id":` + string(quote(id))
				}
				raw += "}"
				if first {
					raw += `,"thoughtSignature":"` + geminiSentinel + `"`
				}
				first = false
				m.blocks = append(m.blocks, &block{kind: kToolUse, id: callID(c), loc: Location{rec: -1, inner: inner + "/toolCalls/" + itoa(int(k.Int()))},
					raw: []byte(raw + "}")})
				return true
			})
		}
		v.Get("toolCalls").ForEach(func(k, c gjson.Result) bool {
			if r := c.Get("result"); r.Exists() && r.Type != gjson.Null {
				m.result = append(m.result, &block{kind: kToolResult, id: callID(c), loc: Location{rec: -1, inner: inner + "/toolCalls/" + itoa(int(k.Int())) + "/result"}})
			}
			return true
		})
	}
	return m
}

// callID is the id a Gemini CLI tool call is matched by: its
// functionCall's id when it has one, else its name.
func callID(c gjson.Result) string {
	if id := c.Get("id").Str; id != "" {
		return clone(id)
	}
	return clone(c.Get("name").Str)
}

// geminiPart reads one stored part of a model turn at inner pointer ptr.
func geminiPart(p gjson.Result, ptr string) *block {
	b := &block{raw: []byte(p.Raw), loc: Location{rec: -1, inner: ptr}}
	sig := p.Get("thoughtSignature")
	switch {
	case p.Get("functionCall").Exists():
		fc := p.Get("functionCall")
		b.kind, b.id = kToolUse, clone(fc.Get("id").Str)
		if b.id == "" {
			b.id = clone(fc.Get("name").Str)
		}
		b.sentinel = ptr + "/thoughtSignature"
	case p.Get("thought").Bool():
		b.kind = kThinking
		b.empty = p.Get("text").Str == ""
		b.sig = sigOf(sig.Str, sig.Exists(), sig.Type == gjson.Null)
	case p.Get("text").Exists():
		b.kind = kText
		b.empty = p.Get("text").Str == ""
	}
	return b
}

func (s *Session) buildGemini(list []*gmMsg) {
	for _, g := range list {
		switch g.typ {
		case "user", "gemini":
		default:
			continue // info, error, warning: shown, not sent
		}
		role := roleUser
		if g.typ == "gemini" {
			role = roleAssistant
		}
		m := &message{role: role, first: s.loc(g.rec, g.inner), info: map[string]string{"model": g.model}}
		for _, b := range g.blocks {
			b.loc = s.loc(g.rec, b.loc.inner)
			m.add(b)
		}
		if len(m.blocks) > 0 || role == roleAssistant {
			s.msgs = append(s.msgs, m)
		}
		if len(g.result) > 0 {
			r := &message{role: roleUser, first: s.loc(g.rec, g.inner+"/toolCalls")}
			for _, b := range g.result {
				b.loc = s.loc(g.rec, b.loc.inner)
				r.add(b)
			}
			s.msgs = append(s.msgs, r)
		}
	}
	for _, m := range s.msgs {
		if m.role != roleAssistant {
			continue
		}
		if err := decode(m, apiGemini, "", m.info["model"], false); err != nil {
			markBad(m, err)
		}
		m.turn.Provenance.API, m.turn.Provenance.Model = apiGemini, m.info["model"]
	}
}

// geminiEditor edits Gemini CLI chats. In a log, a message is every
// record with its id: deleting one deletes them all (else an older copy
// would come back).
type geminiEditor struct{ versions map[string][]record }

func (e *geminiEditor) dropRecord(s *Session, rec int) []edit {
	out := []edit{{rec: rec, del: true}}
	if !s.jsonl {
		return out
	}
	for _, rs := range e.versions {
		for _, r := range rs {
			if r.index == s.recs[rec].index {
				for _, v := range rs {
					if v.index != r.index {
						out = append(out, edit{rec: s.addRecord(v), del: true})
					}
				}
				return out
			}
		}
	}
	return out
}

func (*geminiEditor) relink(*Session, map[int]bool) []edit { return nil }
