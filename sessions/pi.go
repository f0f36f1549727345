package sessions

import (
	"encoding/json"
	"io"
	"os"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/tidwall/gjson"
)

// pi and OpenClaw (research: agent-session-formats.md, "pi", "OpenClaw").
//
// A header line {"type":"session","version":3,...}, then entries linked by
// id / parentId into a tree (version 1 files are a linear list without
// ids). The agent resumes the branch that ends at the last entry; a
// `compaction` entry on it replaces what comes before its
// firstKeptEntryId with its summary. Each assistant response is one
// `message` entry whose content blocks are {"type":"thinking","thinking",
// "thinkingSignature","redacted"?}, {"type":"text","text",
// "textSignature"?}, {"type":"toolCall","id","name","arguments",
// "thoughtSignature"?}; `api`, `provider`, `model` say where it came from,
// and `thinkingSignature` holds what that API needs back: an Anthropic
// signature, an OpenAI reasoning item (as JSON text), a Gemini signature,
// or, for chat-completions hosts, the name of the field the reasoning
// came in. Tool results are `toolResult` messages matched by toolCallId.
//
// What pi does before sending (pi-ai transformMessages): it skips
// assistant messages that ended in an error or were aborted, keeps signed
// thinking only for the same provider and model and sends other thinking
// as plain text, drops Gemini signatures across models, and answers a
// tool call that has no result. OpenClaw, in pi's format, drops thinking
// without a signature (sanitizeSessionHistory) and sends the rest as it is
// stored, across a model switch too.

// piEntry is what is kept of one entry.
type piEntry struct {
	rec                  record
	id, parent, typ      string
	role                 string
	api, provider, model string
	stop                 string
	firstKept            string
	summary              bool
	blocks               []*block
	calls                []piCall // per block: what the wire needs of it
	size                 int
}

// piCall is one stored assistant block, as the wire builders need it.
type piCall struct {
	typ, text, sig, name, id string
	args                     string
	redacted                 bool
	sigPresent               bool
}

func readPi(s *Session, f *os.File) error {
	s.Format, s.jsonl = "pi-v3", true
	s.api = resolveAPI
	s.synthesizes = s.Agent == Pi
	if s.Agent == Pi {
		s.transform = piTransform
	} else {
		s.transform = openclawTransform
	}
	entries, ok, err := readPiOnce(s, f, false)
	if err != nil {
		return err
	}
	path, found := piPath(entries)
	if !ok || !found {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		s.recs, s.recIdx, s.bad, s.kept, s.Records = nil, map[int]int{}, nil, 0, 0
		if entries, _, err = readPiOnce(s, f, true); err != nil {
			return err
		}
		path, _ = piPath(entries)
	}
	var meta []link
	for _, e := range entries {
		meta = append(meta, link{rec: e.rec, id: e.id, parent: e.parent, firstKept: e.firstKept})
	}
	s.ed = &linkEditor{links: meta, parentPtr: "/parentId"}
	s.buildPi(path)
	return nil
}

// readPiOnce reads the entries; unless keepAll, a compaction entry lets go
// of the entries its context no longer holds. ok is false when a later
// entry hangs off one let go of.
func readPiOnce(s *Session, f *os.File, keepAll bool) ([]*piEntry, bool, error) {
	var entries []*piEntry
	byID := map[string]*piEntry{}
	pruned := map[string]bool{}
	ok := true
	prev := ""
	lr := newLineReader(f, s.lim.MaxRecord)
	for {
		data, rec, err := s.nextRecord(lr)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false, err
		}
		root := gjson.ParseBytes(data)
		typ := root.Get("type").Str
		if typ == "session" {
			s.ID = clone(root.Get("id").Str)
			if root.Get("parentSession").Exists() || root.Get("branchedFrom").Exists() {
				s.Subagent = true
			}
			continue
		}
		e := &piEntry{rec: rec, typ: clone(typ), id: clone(root.Get("id").Str), parent: clone(root.Get("parentId").Str)}
		if e.id == "" { // version 1: a linear list
			e.id, e.parent = "#"+itoa(rec.index), prev
		}
		prev = e.id
		switch typ {
		case "message":
			readPiMessage(e, root.Get("message"))
		case "compaction":
			e.firstKept = clone(root.Get("firstKeptEntryId").Str)
			if n := root.Get("firstKeptEntryIndex"); n.Exists() {
				e.firstKept = "#" + itoa(int(n.Int()))
			}
			e.summary = true
		case "branch_summary":
			e.summary = true
		case "custom_message":
			e.role = roleUser
			e.blocks = []*block{{kind: kUserText, loc: Location{rec: -1, inner: "/content"}}}
		}
		if e.parent != "" && pruned[e.parent] {
			ok = false
		}
		if err := s.keep(e.size); err != nil {
			return nil, false, err
		}
		entries = append(entries, e)
		byID[e.id] = e
		if typ == "compaction" && !keepAll {
			// Keep the compaction's own context: its ancestors from the
			// first kept entry on.
			keep := map[*piEntry]bool{e: true}
			for cur := byID[e.parent]; cur != nil && !keep[cur]; cur = byID[cur.parent] {
				keep[cur] = true
				if cur.id == e.firstKept {
					break
				}
			}
			var kept []*piEntry
			s.kept = 0
			for _, x := range entries {
				if keep[x] {
					kept = append(kept, x)
					s.kept += x.size
				} else {
					pruned[x.id] = true
					delete(byID, x.id)
				}
			}
			entries = kept
		}
	}
	return entries, ok, nil
}

func readPiMessage(e *piEntry, m gjson.Result) {
	e.role = clone(m.Get("role").Str)
	switch e.role {
	case roleAssistant:
		e.api, e.provider, e.model, e.stop = clone(m.Get("api").Str), clone(m.Get("provider").Str), clone(m.Get("model").Str), clone(m.Get("stopReason").Str)
		content := m.Get("content")
		n := len(content.Array())
		content.ForEach(func(k, v gjson.Result) bool {
			b := &block{loc: Location{rec: -1, inner: "/message/content/" + itoa(int(k.Int()))}, whole: n == 1}
			var c piCall
			c.typ = clone(v.Get("type").Str)
			switch c.typ {
			case "thinking":
				b.kind = kThinking
				c.text = clone(v.Get("thinking").Str)
				b.empty = c.text == ""
				sig := v.Get("thinkingSignature")
				c.sig, c.sigPresent = clone(sig.Str), sig.Exists() && sig.Type != gjson.Null
				b.sig = sigOf(sig.Str, sig.Exists(), sig.Type == gjson.Null)
				if c.redacted = v.Get("redacted").Bool(); c.redacted {
					b.kind = kRedacted
				}
			case "text":
				b.kind = kText
				c.text = clone(v.Get("text").Str)
				b.empty = c.text == ""
				c.sig = clone(v.Get("textSignature").Str)
			case "toolCall":
				b.kind = kToolUse
				c.id, c.name = clone(v.Get("id").Str), clone(v.Get("name").Str)
				b.id = c.id
				c.args = clone(v.Get("arguments").Raw)
				if c.args == "" {
					c.args = "{}"
				}
				sig := v.Get("thoughtSignature")
				c.sig, c.sigPresent = clone(sig.Str), sig.Exists()
				if strings.HasPrefix(e.api, "google") {
					b.sentinel = b.loc.inner + "/thoughtSignature"
				}
			}
			e.size += len(v.Raw)
			e.blocks = append(e.blocks, b)
			e.calls = append(e.calls, c)
			return true
		})
	case "toolResult":
		e.role = roleUser
		e.blocks = []*block{{kind: kToolResult, id: clone(m.Get("toolCallId").Str), loc: Location{rec: -1, inner: "/message"}, whole: true}}
	default: // user, bashExecution, custom: context from the user's side
		e.role = roleUser
		b := &block{kind: kUserText, loc: Location{rec: -1, inner: "/message/content"}, whole: true}
		if c := m.Get("content"); c.Type == gjson.String && c.Str == "" {
			b.empty = true
		}
		e.blocks = []*block{b}
	}
}

// piPath returns the entries of the branch the agent resumes, in order,
// from the newest compaction's context on; false when the branch hangs
// off an entry that is not there.
func piPath(entries []*piEntry) ([]*piEntry, bool) {
	if len(entries) == 0 {
		return nil, true
	}
	byID := map[string]*piEntry{}
	for _, e := range entries {
		byID[e.id] = e
	}
	var path []*piEntry
	seen := map[*piEntry]bool{}
	ok := true
	for cur := entries[len(entries)-1]; cur != nil && !seen[cur]; {
		seen[cur] = true
		path = append(path, cur)
		if cur.parent == "" {
			break
		}
		next := byID[cur.parent]
		if next == nil {
			ok = false
		}
		cur = next
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	// From the newest compaction: its summary, the entries from its first
	// kept one to it, and those after it.
	for i := len(path) - 1; i >= 0; i-- {
		c := path[i]
		if c.typ != "compaction" {
			continue
		}
		start := i
		for j := 0; j < i; j++ {
			if path[j].id == c.firstKept {
				start = j
				break
			}
		}
		out := append([]*piEntry{c}, path[start:i]...)
		return append(out, path[i+1:]...), ok
	}
	return path, ok
}

// buildPi makes the session's messages from the resumed entries.
func (s *Session) buildPi(path []*piEntry) {
	var last *message
	for _, e := range path {
		if e.summary {
			e.role = roleUser
			e.blocks = []*block{{kind: kUserText, loc: Location{rec: -1, inner: "/summary"}, whole: true}}
		}
		if e.role == "" || len(e.blocks) == 0 {
			continue
		}
		for _, b := range e.blocks {
			b.loc = s.loc(e.rec, b.loc.inner)
		}
		if e.role == roleAssistant || last == nil || last.role != roleUser {
			last = &message{role: e.role, first: s.loc(e.rec, "/message"),
				stop: e.stop, info: map[string]string{"api": e.api, "provider": e.provider, "model": e.model}}
			s.msgs = append(s.msgs, last)
		}
		for _, b := range e.blocks {
			last.add(b)
		}
		if e.role == roleAssistant {
			s.decodePi(last, e)
		}
	}
}

// piWire returns the wire API of a pi api name.
func piWire(api string) string {
	switch {
	case strings.HasPrefix(api, "anthropic"):
		return apiAnthropic
	case strings.Contains(api, "responses"):
		return apiResponses
	case strings.HasPrefix(api, "google"):
		return apiGemini
	}
	return ""
}

// piProvider names a pi provider as the codecs know it.
func piProvider(p string) string {
	switch p {
	case "openai-codex":
		return "openai"
	case "azure-openai-responses":
		return "azure"
	case "google", "google-gemini-cli", "google-antigravity":
		return "aistudio"
	case "google-vertex":
		return "vertex"
	case "amazon-bedrock":
		return "bedrock"
	}
	return p
}

// decodePi reads an assistant message's blocks in the wire its api speaks,
// as pi would send them back to the same model, with that wire's codec.
func (s *Session) decodePi(m *message, e *piEntry) {
	w := piWire(e.api)
	provider := piProvider(e.provider)
	for i, b := range m.blocks {
		b.raw = piRaw(w, e.calls[i])
	}
	if w == "" {
		s.decodeChat(m, e, provider)
	} else if err := decode(m, w, provider, e.model, false); err != nil {
		markBad(m, err)
	}
	p := &m.turn.Provenance
	p.Model = e.model
	if p.Provider == "" {
		p.Provider = provider
	}
	if p.API == "" {
		p.API = w
	}
}

// piRaw writes one stored pi block in wire w's shape.
func piRaw(w string, c piCall) []byte {
	obj := func(kv ...any) []byte {
		var b []byte
		b = append(b, '{')
		for i := 0; i+1 < len(kv); i += 2 {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, quote(kv[i].(string))...)
			b = append(b, ':')
			switch v := kv[i+1].(type) {
			case string:
				b = append(b, quote(v)...)
			case json.RawMessage:
				b = append(b, v...)
			}
		}
		return append(b, '}')
	}
	callID, itemID, _ := strings.Cut(c.id, "|")
	switch w {
	case apiAnthropic:
		switch c.typ {
		case "thinking":
			if c.redacted {
				return obj("type", "redacted_thinking", "data", c.sig)
			}
			if !c.sigPresent {
				return obj("type", "thinking", "thinking", c.text)
			}
			return obj("type", "thinking", "thinking", c.text, "signature", c.sig)
		case "text":
			return obj("type", "text", "text", c.text)
		case "toolCall":
			return obj("type", "tool_use", "id", c.id, "name", c.name, "input", json.RawMessage(c.args))
		}
	case apiResponses:
		switch c.typ {
		case "thinking":
			if gjson.Valid(c.sig) && gjson.Get(c.sig, "type").Str == "reasoning" {
				return []byte(c.sig)
			}
			return obj("type", "reasoning", "summary", json.RawMessage("["+string(obj("type", "summary_text", "text", c.text))+"]"))
		case "text":
			content := json.RawMessage("[" + string(obj("type", "output_text", "text", c.text)) + "]")
			if strings.HasPrefix(c.sig, "msg_") {
				return obj("type", "message", "role", "assistant", "id", c.sig, "content", content)
			}
			return obj("type", "message", "role", "assistant", "content", content)
		case "toolCall":
			if strings.HasPrefix(itemID, "fc_") {
				return obj("type", "function_call", "id", itemID, "call_id", callID, "name", c.name, "arguments", c.args)
			}
			return obj("type", "function_call", "call_id", callID, "name", c.name, "arguments", c.args)
		}
	case apiGemini:
		switch c.typ {
		case "thinking":
			if c.sigPresent && c.sig != "" {
				return obj("text", c.text, "thought", json.RawMessage("true"), "thoughtSignature", c.sig)
			}
			return obj("text", c.text, "thought", json.RawMessage("true"))
		case "text":
			return obj("text", c.text)
		case "toolCall":
			fc := obj("name", c.name, "args", json.RawMessage(c.args))
			if c.sigPresent {
				return obj("functionCall", json.RawMessage(fc), "thoughtSignature", c.sig)
			}
			return obj("functionCall", json.RawMessage(fc))
		}
	}
	return nil
}

// decodeChat reads an assistant message of a chat-completions host: its
// thinking as the reasoning field pi recorded the name of, its text, its
// tool calls, in one message; the blocks map back by kind, in order.
func (s *Session) decodeChat(m *message, e *piEntry, provider string) {
	field, text := "reasoning_content", ""
	var reasoning []string
	var calls []string
	for _, c := range e.calls {
		switch c.typ {
		case "thinking":
			reasoning = append(reasoning, c.text)
			switch c.sig {
			case "reasoning", "reasoning_content", "reasoning_text":
				field = c.sig
			}
		case "text":
			text += c.text
		case "toolCall":
			callID, _, _ := strings.Cut(c.id, "|")
			calls = append(calls, `{"id":`+string(quote(callID))+`,"type":"function","function":{"name":`+string(quote(c.name))+`,"arguments":`+string(quote(c.args))+`}}`)
		}
	}
	msg := `{"role":"assistant","content":` + string(quote(text))
	if len(reasoning) > 0 {
		msg += `,` + string(quote(field)) + `:` + string(quote(strings.Join(reasoning, "")))
	}
	if len(calls) > 0 {
		msg += `,"tool_calls":[` + strings.Join(calls, ",") + `]`
	}
	msg += "}"
	api := chatAPI(provider, e.model)
	c, err := replay.Lookup(api, provider, e.model)
	var t *replay.Turn
	if err == nil {
		var h replay.History
		if h, _, err = c.DecodeRequest(wire("", [][]byte{[]byte(msg)}, false)); err == nil && len(h.Turns) > 0 {
			t = h.Turns[0]
		}
	}
	if t == nil {
		markBad(m, errString("the chat codec cannot read the message"))
		return
	}
	m.turn = t
	m.tmap = alignKinds(t, m.blocks)
	m.link()
}

type errString string

func (e errString) Error() string { return string(e) }

// chatAPI names the chat-completions codec for a provider and model.
func chatAPI(provider, model string) string {
	if c, err := replay.Resolve(provider, model); err == nil {
		switch api := c.API(); api {
		case "openrouter", "deepseek", "xai", "openai-compatible":
			return api
		}
	}
	return "openai-compatible"
}

// alignKinds maps turn blocks to stored blocks by kind, in order:
// reasoning items to thinking blocks, text to text, tool calls to calls.
func alignKinds(t *replay.Turn, blocks []*block) []int {
	class := func(k kind) int {
		switch {
		case k.reasoning():
			return 0
		case k == kText:
			return 1
		case k == kToolUse:
			return 2
		}
		return 3
	}
	next := [4]int{}
	out := make([]int, len(t.Blocks))
	for i, tb := range t.Blocks {
		c := 3
		switch tb.(type) {
		case replay.ReasoningItem:
			c = 0
		case *replay.Text:
			c = 1
		case *replay.ToolCall:
			c = 2
		}
		out[i] = -1
		for j := next[c]; j < len(blocks); j++ {
			if class(blocks[j].kind) == c {
				out[i], next[c] = j, j+1
				if c == 1 {
					next[c] = j // text runs join into one block
				}
				break
			}
		}
	}
	return out
}

// resolveAPI names the wire API an agent that speaks each provider's own
// API uses for a provider and model.
func resolveAPI(provider, model string) string {
	c, err := replay.Resolve(piProvider(provider), model)
	if err != nil {
		return ""
	}
	return c.API()
}

// piTransform is what pi does before sending to t (pi-ai
// transformMessages).
func piTransform(s *Session, t replay.Target) map[*block]handling {
	out := map[*block]handling{}
	for _, m := range s.msgs {
		if m.role != roleAssistant {
			continue
		}
		if m.stop == "error" || m.stop == "aborted" {
			for _, b := range m.blocks {
				out[b] = handling{reason: "pi does not send an assistant message that ended in " + m.stop}
			}
			continue
		}
		same := strings.EqualFold(piProvider(m.info["provider"]), piProvider(t.Provider)) && strings.EqualFold(m.info["model"], t.Model)
		for _, b := range m.blocks {
			switch {
			case b.kind == kRedacted && !same:
				out[b] = handling{reason: "pi does not send another model's redacted thinking"}
			case b.kind == kThinking && !same:
				out[b] = handling{reason: "pi sends another model's thinking as plain text", toText: true}
			case b.kind == kThinking && (b.sig.n == 0 || b.sig.null):
				out[b] = handling{reason: "pi sends unsigned thinking as plain text", toText: true}
			case b.kind == kToolUse && b.item != nil && !same:
				out[b] = handling{reason: "pi does not send another model's signature on a tool call", sigOnly: true}
			}
		}
	}
	return out
}

// openclawTransform is what OpenClaw does before sending: it drops
// thinking without a signature (sanitizeSessionHistory) and skips the
// messages pi skips.
func openclawTransform(s *Session, t replay.Target) map[*block]handling {
	out := map[*block]handling{}
	for _, m := range s.msgs {
		if m.role != roleAssistant {
			continue
		}
		for _, b := range m.blocks {
			switch {
			case m.stop == "error" || m.stop == "aborted":
				out[b] = handling{reason: "OpenClaw does not send an assistant message that ended in " + m.stop}
			case b.kind == kThinking && (b.sig.n == 0 || b.sig.null):
				out[b] = handling{reason: "OpenClaw drops thinking without a signature"}
			}
		}
	}
	return out
}
