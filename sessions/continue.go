package sessions

import (
	"io"
	"os"

	"github.com/tidwall/gjson"
)

// Continue sessions (research: agent-session-formats.md, "OpenCode,
// Goose, Continue"; continuedev/continue core/index.d.ts and
// core/types.d.ts).
//
// ~/.continue/sessions/<id>.json is {"sessionId","title",
// "workspaceDirectory","history":[{"message":{...},"contextItems":[...]}]}.
// A message is {role:"user"|"assistant"|"thinking"|"tool"|"system", ...}:
// a `thinking` message holds the reasoning (content, signature?,
// redactedThinking?), an `assistant` message the text (content) and its
// toolCalls [{id, type, function:{name, arguments}}], a `tool` message a
// result (toolCallId). The thinking messages before an assistant message
// are its reasoning, sent back to Anthropic as thinking blocks. The file
// names no model or provider: signed thinking is taken to be Claude's.

func readContinue(s *Session, f *os.File) error {
	s.Format, s.reqAPI = "continue-json", apiAnthropic
	s.api = func(provider, model string) string {
		if provider == "unknown" {
			provider = ""
		}
		return clineAPI(provider, model)
	}
	s.ed = plainEditor{}
	dr := newDocReader(f, s.lim.MaxRecord)
	var last *message
	signed := map[*message]bool{}
	member := func(key string, data []byte) {
		if key == "sessionId" {
			s.ID, _ = unquote(data)
		}
	}
	for {
		data, rec, err := s.nextElement(dr, "history", member)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		msg := gjson.GetBytes(data, "message")
		role := msg.Get("role").Str
		var blocks []*block
		assistant := false
		switch role {
		case "thinking":
			assistant = true
			b := &block{kind: kThinking, whole: true, loc: Location{rec: -1, inner: "/message"}}
			text := msg.Get("content").Str
			b.empty = text == ""
			sig := msg.Get("signature")
			b.sig = sigOf(sig.Str, sig.Exists(), sig.Type == gjson.Null)
			raw := `{"type":"thinking","thinking":` + string(quote(text))
			if sig.Exists() {
				raw += `,"signature":` + sig.Raw
			}
			b.raw = []byte(raw + "}")
			if d := msg.Get("redactedThinking"); d.Type == gjson.String {
				b.kind, b.raw = kRedacted, []byte(`{"type":"redacted_thinking","data":`+d.Raw+`}`)
			}
			blocks = append(blocks, b)
		case roleAssistant:
			assistant = true
			content := msg.Get("content")
			text := content.Str
			if content.IsArray() {
				text = ""
				content.ForEach(func(_, p gjson.Result) bool {
					text += p.Get("text").Str
					return true
				})
			}
			if text != "" || !msg.Get("toolCalls").IsArray() {
				blocks = append(blocks, &block{kind: kText, empty: text == "", loc: Location{rec: -1, inner: "/message/content"},
					raw: []byte(`{"type":"text","text":` + string(quote(text)) + `}`)})
			}
			msg.Get("toolCalls").ForEach(func(k, c gjson.Result) bool {
				args := c.Get("function.arguments").Str
				if !gjson.Valid(args) || !gjson.Parse(args).IsObject() {
					args = "{}"
				}
				blocks = append(blocks, &block{kind: kToolUse, id: clone(c.Get("id").Str), loc: Location{rec: -1, inner: "/message/toolCalls/" + itoa(int(k.Int()))},
					raw: []byte(`{"type":"tool_use","id":` + string(quote(c.Get("id").Str)) + `,"name":` + string(quote(c.Get("function.name").Str)) + `,"input":` + args + `}`)})
				return true
			})
		case "tool":
			blocks = append(blocks, &block{kind: kToolResult, id: clone(msg.Get("toolCallId").Str), whole: true, loc: Location{rec: -1, inner: "/message"}})
		case "user":
			blocks = append(blocks, &block{kind: kUserText, whole: true, loc: Location{rec: -1, inner: "/message"}})
		default:
			continue // system messages go in the request's system prompt
		}
		size := 0
		for _, b := range blocks {
			b.loc = s.loc(rec, b.loc.inner)
			size += len(b.raw)
		}
		if err := s.keep(size); err != nil {
			return err
		}
		r := roleUser
		if assistant {
			r = roleAssistant
		}
		// Thinking messages open a turn; the assistant message after them
		// closes it.
		if last == nil || last.role != r || r == roleAssistant && last.info["closed"] != "" {
			last = &message{role: r, first: s.loc(rec, ""), info: map[string]string{}}
			s.msgs = append(s.msgs, last)
		}
		for _, b := range blocks {
			last.add(b)
			if b.kind == kRedacted || b.kind == kThinking && b.sig.n > 0 {
				signed[last] = true
			}
		}
		if role == roleAssistant {
			last.info["closed"] = "1"
		}
	}
	la := s.lastAssistant()
	for i, m := range s.msgs {
		if m.role != roleAssistant {
			continue
		}
		provider := "unknown"
		if signed[m] {
			provider = "anthropic"
		}
		if err := decode(m, apiAnthropic, provider, "", i == la); err != nil {
			markBad(m, err)
		}
		m.turn.Provenance.API, m.turn.Provenance.Provider = apiAnthropic, provider
	}
	return nil
}
