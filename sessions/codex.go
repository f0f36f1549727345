package sessions

import (
	"io"
	"os"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/tidwall/gjson"
)

// Codex CLI rollouts (research: agent-session-formats.md, "OpenAI Codex
// CLI").
//
// Each line is {"timestamp","type","payload"}. The model-visible history
// is the stream of `response_item` payloads, Responses API items, each
// output item of a response on its own line; a `compacted` line replaces
// everything before it with its `replacement_history` (items, some of them
// encrypted `compaction` items), or, in older rollouts without one, with a
// summary message. `turn_context` names the model of the turns after it,
// `session_meta` the provider. The rollout does not name the account:
// the login is read from the `token_count` events (a `rate_limits`
// object is a ChatGPT login's; `rate_limits: null` an API key's), which
// follow each response. Codex sends the items back as stored, with
// store=false.

// cxItem is one item of the history being read.
type cxItem struct {
	b                 *block
	rec               record
	assistant         bool
	model, provider   string
	login             string
	inherited         bool
	userText, session bool
}

func readCodex(s *Session, f *os.File) error {
	s.Format, s.jsonl, s.reqAPI = "codex-rollout", true, apiResponses
	s.api = func(string, string) string { return apiResponses }
	s.ed = plainEditor{}
	var items, pending []*cxItem
	provider, model, login := "", "", ""
	forked, sawTurn := false, false
	lr := newLineReader(f, s.lim.MaxRecord)
	add := func(it gjson.Result, rec record, inner string, whole bool) error {
		x := &cxItem{rec: rec, model: model, provider: provider, login: login, inherited: forked && !sawTurn}
		b := responsesBlock(it)
		b.loc, b.whole = Location{inner: inner, rec: -1}, whole
		if b.itemID != "" {
			b.itemID = inner + b.itemID
		}
		x.b = b
		x.assistant = responsesAssistant(it)
		if !x.assistant {
			b.raw = nil // the user side is kept as ids only
		} else if err := s.keep(len(b.raw)); err != nil {
			return err
		}
		switch it.Get("type").Str {
		case "ghost_snapshot":
			return nil // Codex keeps it for undo; it is not sent
		case "message":
			if r := it.Get("role").Str; r == "system" || r == "developer" {
				return nil
			}
		}
		items = append(items, x)
		pending = append(pending, x)
		return nil
	}
	for {
		data, rec, err := s.nextRecord(lr)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		typ, payload := gjson.GetBytes(data, "type").Str, gjson.GetBytes(data, "payload")
		switch typ {
		case "session_meta":
			if s.ID == "" {
				s.ID = clone(payload.Get("id").Str)
			}
			if p := payload.Get("model_provider").Str; p != "" {
				provider = clone(p)
			}
			if payload.Get("forked_from_id").Exists() || payload.Get("parent_thread_id").Exists() || payload.Get("source.subagent").Exists() {
				forked, s.Subagent = true, true
			}
		case "turn_context":
			sawTurn = true
			if m := payload.Get("model").Str; m != "" {
				model = clone(m)
			}
		case "event_msg":
			if payload.Get("type").Str != "token_count" {
				continue
			}
			switch rl := payload.Get("rate_limits"); {
			case rl.IsObject():
				login = "chatgpt"
			case rl.Type == gjson.Null && rl.Exists():
				login = "api-key"
			default:
				continue
			}
			for _, x := range pending {
				x.login = login
			}
			pending = pending[:0]
		case "compacted":
			items, pending = items[:0], pending[:0]
			s.kept = 0
			rh := payload.Get("replacement_history")
			var err error
			rh.ForEach(func(k, it gjson.Result) bool {
				err = add(it, rec, "/payload/replacement_history/"+itoa(int(k.Int())), false)
				return err == nil
			})
			if err != nil {
				return err
			}
		case "response_item":
			if err := add(payload, rec, "/payload", true); err != nil {
				return err
			}
		}
	}
	for _, x := range pending {
		if x.login == "" {
			x.login = login
		}
	}
	// The messages: each run of assistant items is a turn, the rest the
	// user's.
	var last *message
	for _, x := range items {
		x.b.loc = s.loc(x.rec, x.b.loc.inner)
		role := roleUser
		if x.assistant {
			role = roleAssistant
		}
		if last == nil || last.role != role {
			last = &message{role: role, first: x.b.loc, info: map[string]string{
				"model": x.model, "provider": x.provider, "login": x.login}}
			if x.inherited {
				last.info["inherited"] = "1"
			}
			s.msgs = append(s.msgs, last)
		}
		last.add(x.b)
	}
	la := s.lastAssistant()
	for i, m := range s.msgs {
		if m.role != roleAssistant {
			continue
		}
		if err := decode(m, apiResponses, m.info["provider"], m.info["model"], i == la); err != nil {
			markBad(m, err)
		}
		p := &m.turn.Provenance
		p.API, p.Model, p.Account = apiResponses, m.info["model"], m.info["login"]
		if p.Provider == "" {
			p.Provider = m.info["provider"]
		}
	}
	return nil
}

// responsesAssistant reports whether a Responses input item is part of an
// assistant turn (what the openai codec reads as one): not a tool output,
// not a user, system or developer message.
func responsesAssistant(it gjson.Result) bool {
	typ, role := it.Get("type").Str, it.Get("role").Str
	switch {
	case strings.HasSuffix(typ, "_output"), typ == "mcp_approval_response":
		return false
	case role == "user" || role == "system" || role == "developer":
		return false
	case typ == "" && role == "":
		return false
	}
	return true
}

// responsesBlock reads one stored Responses item.
func responsesBlock(it gjson.Result) *block {
	b := &block{raw: []byte(it.Raw), kind: kOther}
	typ := it.Get("type").Str
	switch {
	case typ == "reasoning":
		b.kind = kReasoning
		enc := it.Get("encrypted_content")
		b.sig = sigOf(enc.Str, enc.Exists(), enc.Type == gjson.Null)
	case typ == "compaction" || typ == "compaction_summary":
		b.kind = kCompaction
	case typ == "function_call" || typ == "custom_tool_call" || typ == "local_shell_call":
		b.kind, b.id = kToolUse, clone(it.Get("call_id").Str)
	case strings.HasSuffix(typ, "_output"):
		b.kind, b.id = kToolResult, clone(it.Get("call_id").Str)
	case typ == "message" || typ == "" && it.Get("role").Exists():
		if it.Get("role").Str == roleAssistant {
			b.kind = kText
		} else {
			b.kind = kUserText
		}
	}
	if id := it.Get("id").Str; (b.kind == kToolUse || b.kind == kText) && (strings.HasPrefix(id, "fc_") || strings.HasPrefix(id, "msg_")) {
		b.itemID = "/id"
	}
	return b
}

// markBad marks every block of m unreadable after its codec refused the
// message as a whole, and gives m an empty turn.
func markBad(m *message, err error) {
	for _, b := range m.blocks {
		if b.bad == "" {
			b.bad = errText(err)
		}
	}
	m.turn = &replay.Turn{Complete: true}
	m.tmap = nil
}
