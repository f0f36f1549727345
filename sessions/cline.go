package sessions

import (
	"io"
	"os"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/tidwall/gjson"
)

// Cline and Roo Code task histories (research: agent-session-formats.md,
// "Cline", "Roo Code").
//
// api_conversation_history.json is a JSON array of Anthropic MessageParam
// objects plus the agent's own members. Cline adds modelInfo {modelId,
// providerId} to its messages and, when it converts them for Anthropic,
// leaves out thinking blocks without a signature and its own block members
// (call_id, reasoning_details). Roo Code's legacy array adds standalone
// OpenAI reasoning items ({"type":"reasoning","encrypted_content",...},
// sent only to the Responses API) and condensation and truncation
// markers: a message whose condenseParent names a summary that exists (or
// whose truncationParent names a marker that exists) is not sent. Roo's
// version 2 envelope {"version":2,"messages":[...]} holds AI SDK messages:
// reasoning parts with providerOptions.anthropic.signature, tool-call and
// tool-result parts.

// clEl is one element of the array.
type clEl struct {
	rec                       record
	role                      string
	provider, model           string
	reasoningItem             bool // a Roo standalone reasoning item
	condenseID, condenseOf    string
	truncationID, truncatedBy string
	summary, marker           bool
	blocks                    []*block
}

func readCline(s *Session, f *os.File) error {
	s.reqAPI = apiAnthropic
	s.api = clineAPI
	s.ed = plainEditor{}
	if s.Agent == Cline {
		s.Format = "cline-array"
		s.transform = clineTransform
	} else {
		s.Format = "roo-array"
		s.transform = rooTransform
	}
	var els []*clEl
	dr := newDocReader(f, s.lim.MaxRecord)
	member := func(key string, _ []byte) {
		if key == "version" {
			s.Format = "roo-v2"
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
		v := gjson.ParseBytes(data)
		e := &clEl{rec: rec, role: clone(v.Get("role").Str),
			provider: clone(v.Get("modelInfo.providerId").Str), model: clone(v.Get("modelInfo.modelId").Str),
			condenseID: clone(v.Get("condenseId").Str), condenseOf: clone(v.Get("condenseParent").Str),
			truncationID: clone(v.Get("truncationId").Str), truncatedBy: clone(v.Get("truncationParent").Str),
			summary: v.Get("isSummary").Bool(), marker: v.Get("isTruncationMarker").Bool()}
		size := 0
		switch {
		case v.Get("type").Str == "reasoning" && e.role == "":
			e.reasoningItem, e.role = true, roleAssistant
			b := responsesBlock(v)
			b.raw = stripMembers(v, "role", "ts", "condenseParent", "truncationParent")
			b.loc, b.whole = Location{rec: -1, inner: ""}, true
			e.blocks = []*block{b}
			size = len(b.raw)
		case e.role == "tool": // Roo v2: the results of tool calls
			e.role = roleUser
			v.Get("content").ForEach(func(k, p gjson.Result) bool {
				e.blocks = append(e.blocks, &block{kind: kToolResult, id: clone(p.Get("toolCallId").Str), loc: Location{rec: -1, inner: "/content/" + itoa(int(k.Int()))}})
				return true
			})
		case e.role == roleAssistant:
			content := v.Get("content")
			if content.Type == gjson.String {
				e.blocks = []*block{{kind: kText, empty: content.Str == "", whole: true, loc: Location{rec: -1, inner: "/content"},
					raw: []byte(`{"type":"text","text":` + content.Raw + `}`)}}
				break
			}
			content.ForEach(func(k, p gjson.Result) bool {
				b := clineBlock(p)
				b.loc = Location{rec: -1, inner: "/content/" + itoa(int(k.Int()))}
				e.blocks = append(e.blocks, b)
				size += len(p.Raw)
				return true
			})
		default:
			e.role = roleUser
			e.blocks = userBlocks(v.Get("content"), "/content")
			for _, b := range e.blocks {
				if b.kind == kUserText && b.id == "" {
					// an AI SDK tool-result part in a user message
					if p := v.Get(gjsonPath(b.loc.inner)); p.Get("type").Str == "tool-result" {
						b.kind, b.id = kToolResult, clone(p.Get("toolCallId").Str)
					}
				}
			}
		}
		if err := s.keep(size); err != nil {
			return err
		}
		els = append(els, e)
	}
	// What Roo hides: messages condensed into a summary or truncated
	// behind a marker that is there.
	summaries, markers := map[string]bool{}, map[string]bool{}
	for _, e := range els {
		if e.summary && e.condenseID != "" {
			summaries[e.condenseID] = true
		}
		if e.marker && e.truncationID != "" {
			markers[e.truncationID] = true
		}
	}
	var last *message
	provider, model := "", ""
	for _, e := range els {
		if e.condenseOf != "" && summaries[e.condenseOf] || e.truncatedBy != "" && markers[e.truncatedBy] {
			continue
		}
		if e.provider != "" || e.model != "" {
			provider, model = e.provider, e.model
		}
		for _, b := range e.blocks {
			b.loc = s.loc(e.rec, b.loc.inner)
			if len(e.blocks) == 1 {
				b.whole = true
			}
		}
		if len(e.blocks) == 0 {
			continue
		}
		if e.role == roleAssistant || e.reasoningItem || last == nil || last.role != roleUser {
			last = &message{role: e.role, first: s.loc(e.rec, ""),
				info: map[string]string{"provider": provider, "model": model}}
			if e.reasoningItem {
				last.info["reasoning-item"] = "1"
			}
			s.msgs = append(s.msgs, last)
		}
		for _, b := range e.blocks {
			last.add(b)
		}
	}
	la := s.lastAssistant()
	for i, m := range s.msgs {
		if m.role != roleAssistant {
			continue
		}
		p, mod := m.info["provider"], m.info["model"]
		if p == "" && s.Agent == RooCode {
			p = "anthropic" // Roo records no provider; its signed thinking is Claude's
		}
		if m.info["reasoning-item"] != "" {
			if err := decode(m, apiResponses, "openai", mod, false); err != nil {
				markBad(m, err)
			}
			m.turn.Provenance.API, m.turn.Provenance.Model = apiResponses, mod
			continue
		}
		// The issuer of stored thinking is the model's vendor, whichever
		// route the agent took to it.
		dp := clineProvider(p)
		if providerFromModel(mod) == "anthropic" && mod != "" {
			dp = "anthropic"
		}
		if err := decode(m, apiAnthropic, dp, mod, i == la); err != nil {
			markBad(m, err)
		}
		m.turn.Provenance.API, m.turn.Provenance.Provider, m.turn.Provenance.Model = apiAnthropic, clineProvider(p), mod
	}
	return nil
}

// clineBlock reads one stored content block: an Anthropic block (the
// agent's own members left out of what is sent), or an AI SDK part of
// Roo's version 2.
func clineBlock(p gjson.Result) *block {
	switch p.Get("type").Str {
	case "reasoning": // AI SDK
		sig := p.Get("providerOptions.anthropic.signature")
		b := &block{kind: kThinking, empty: p.Get("text").Str == ""}
		b.sig = sigOf(sig.Str, sig.Exists(), sig.Type == gjson.Null)
		raw := `{"type":"thinking","thinking":` + string(quote(p.Get("text").Str))
		if sig.Exists() {
			raw += `,"signature":` + sig.Raw
		}
		b.raw = []byte(raw + "}")
		if d := p.Get("providerOptions.anthropic.redactedData"); d.Exists() {
			b.kind, b.raw = kRedacted, []byte(`{"type":"redacted_thinking","data":`+d.Raw+`}`)
		}
		return b
	case "tool-call": // AI SDK
		input := p.Get("input").Raw
		if input == "" {
			input = "{}"
		}
		return &block{kind: kToolUse, id: clone(p.Get("toolCallId").Str),
			raw: []byte(`{"type":"tool_use","id":` + string(quote(p.Get("toolCallId").Str)) + `,"name":` + string(quote(p.Get("toolName").Str)) + `,"input":` + input + `}`)}
	}
	b := anthropicBlock(p)
	b.raw = stripMembers(p, "call_id", "reasoning_details", "summary", "ts")
	return b
}

// stripMembers returns the object v without the named members, the other
// members' bytes as they are.
func stripMembers(v gjson.Result, names ...string) []byte {
	out := []byte{'{'}
	v.ForEach(func(k, val gjson.Result) bool {
		for _, n := range names {
			if k.Str == n {
				return true
			}
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, k.Raw...)
		out = append(out, ':')
		out = append(out, val.Raw...)
		return true
	})
	return append(out, '}')
}

// clineProvider names a Cline provider id as the codecs know it.
func clineProvider(p string) string {
	switch p {
	case "claude-code":
		return "anthropic"
	case "cline":
		return "openrouter"
	case "openai-native":
		return "openai"
	}
	return p
}

// clineAPI names the API Cline and Roo Code speak to a provider: the
// Messages API to Claude's platforms, the provider's own otherwise.
func clineAPI(provider, model string) string {
	switch p := clineProvider(provider); p {
	case "", "anthropic", "bedrock", "vertex":
		return apiAnthropic
	default:
		return resolveAPI(p, model)
	}
}

// clineTransform: Cline does not send thinking without a signature to the
// Messages API (convertClineStorageToAnthropicMessage).
func clineTransform(s *Session, t replay.Target) map[*block]handling {
	out := map[*block]handling{}
	if !strings.EqualFold(t.API, apiAnthropic) {
		return out
	}
	for _, m := range s.msgs {
		for _, b := range m.blocks {
			if b.kind == kThinking && (b.sig.n == 0 || b.sig.null) {
				out[b] = handling{reason: "Cline does not send thinking without a signature"}
			}
		}
	}
	return out
}

// rooTransform: Roo Code sends its standalone OpenAI reasoning items only
// to the Responses API.
func rooTransform(s *Session, t replay.Target) map[*block]handling {
	out := map[*block]handling{}
	for _, m := range s.msgs {
		if m.info["reasoning-item"] == "" || strings.EqualFold(t.API, apiResponses) {
			continue
		}
		for _, b := range m.blocks {
			out[b] = handling{reason: "Roo Code sends OpenAI reasoning items only to the Responses API"}
		}
	}
	return out
}
