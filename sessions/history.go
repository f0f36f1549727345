package sessions

import (
	"strings"

	"github.com/reasonreplay/replay"
)

// turnMap maps the turns of a History (and the elements of the request
// built with it) back to the stored blocks.
type turnMap struct {
	msgs []*message // per turn
	blks [][]*block // per turn, per block (nil where not known)
	pos  map[*block][2]int
	// req maps the JSON Pointer of each element of the request built for
	// the audit to its stored block, and reqMsg each message's pointer to
	// its message; path gives a block's location as the API words it
	// ("messages.3.content.0").
	req    map[string]*block
	reqMsg map[string]*message
	path   map[*block]string
	// skip holds what the agent drops or converts, and what a repair
	// drops.
	skip map[*block]handling
}

func (tm *turnMap) block(ti, bi int) *block {
	if tm == nil || ti < 0 || ti >= len(tm.blks) || bi < 0 || bi >= len(tm.blks[ti]) {
		return nil
	}
	return tm.blks[ti][bi]
}

// handling is what the agent does with a stored block before sending it.
type handling struct {
	reason string
	toText bool // it sends the block's text as plain text
	// sigOnly: it sends the block without the signature it carries (the
	// reasoning items read from it).
	sigOnly bool
}

// sent reports whether the agent sends block b as it is stored (a block
// the codec cannot read included).
func (tm *turnMap) sent(b *block) bool {
	h, skip := tm.skip[b]
	return !skip || h.sigOnly
}

// history builds what the agent sends to target t: the turns, without the
// blocks the agent drops or converts and those in dropped; with request,
// also the native request body when the agent sends its stored blocks as
// they are in t's API.
func (s *Session) history(t replay.Target, dropped map[*block]bool, request bool) (replay.History, *turnMap) {
	tm := &turnMap{pos: map[*block][2]int{}, skip: map[*block]handling{}}
	for b, why := range s.handledFor(t) {
		tm.skip[b] = why
	}
	for b := range dropped {
		tm.skip[b] = handling{reason: "dropped by the repair"}
	}
	var h replay.History
	for _, m := range s.msgs {
		if m.role != roleAssistant || m.turn == nil {
			continue
		}
		nt := *m.turn
		nt.Blocks = make([]replay.Block, 0, len(m.turn.Blocks))
		var bl []*block
		for ti, tb := range m.turn.Blocks {
			var sb *block
			if bi := m.tmap[ti]; bi >= 0 {
				sb = m.blocks[bi]
				if !tm.sent(sb) || sb.bad != "" {
					continue
				}
				if _, isItem := tb.(replay.ReasoningItem); isItem && tm.skip[sb].sigOnly {
					continue
				}
			}
			nt.Blocks = append(nt.Blocks, tb)
			bl = append(bl, sb)
		}
		if len(nt.Blocks) == 0 {
			continue
		}
		ti := len(h.Turns)
		for bi, b := range bl {
			if b != nil {
				if _, seen := tm.pos[b]; !seen {
					tm.pos[b] = [2]int{ti, bi}
				}
			}
		}
		h.Turns = append(h.Turns, &nt)
		tm.msgs = append(tm.msgs, m)
		tm.blks = append(tm.blks, bl)
	}
	if request && s.reqAPI != "" && strings.EqualFold(s.reqAPI, t.API) {
		s.request(&h, tm, t)
	}
	return h, tm
}

// request builds the native request body the agent sends to t: the
// assistant messages' stored blocks as they are, the user messages as
// stubs that keep only what the rules read (tool result ids, that there
// is content), and the turns' pointers into it.
func (s *Session) request(h *replay.History, tm *turnMap, t replay.Target) {
	tm.req, tm.reqMsg, tm.path = map[string]*block{}, map[string]*message{}, map[*block]string{}
	turnOf := map[*message]int{}
	for ti, m := range tm.msgs {
		turnOf[m] = ti
	}
	h.Pointers = make([]string, len(h.Turns))
	var b []byte
	n := 0 // elements of the array written
	el := func() {
		if n > 0 {
			b = append(b, ',')
		}
		n++
	}
	switch s.reqAPI {
	case apiAnthropic:
		// The API messages: an assistant message per stored message,
		// consecutive user messages joined as the API joins them.
		type apiMsg struct {
			m      *message // the assistant message, nil for a user one
			blocks []*block
		}
		var msgs []apiMsg
		for _, m := range s.msgs {
			var blocks []*block
			for _, sb := range m.blocks {
				if tm.sent(sb) {
					blocks = append(blocks, sb)
				}
			}
			switch {
			case len(blocks) == 0:
			case m.role == roleAssistant:
				msgs = append(msgs, apiMsg{m, blocks})
			case len(msgs) > 0 && msgs[len(msgs)-1].m == nil:
				msgs[len(msgs)-1].blocks = append(msgs[len(msgs)-1].blocks, blocks...)
			default:
				msgs = append(msgs, apiMsg{nil, blocks})
			}
		}
		b = append(b, `{"model":`...)
		b = append(b, quote(t.Model)...)
		b = append(b, `,"messages":[`...)
		for mi, am := range msgs {
			el()
			mp := "/messages/" + itoa(mi)
			if am.m != nil {
				b = append(b, `{"role":"assistant","content":[`...)
				tm.reqMsg[mp] = am.m
				if ti, ok := turnOf[am.m]; ok {
					h.Pointers[ti] = mp
				}
			} else {
				b = append(b, `{"role":"user","content":[`...)
			}
			for k, sb := range am.blocks {
				if k > 0 {
					b = append(b, ',')
				}
				if am.m != nil {
					b = append(b, sb.raw...)
				} else {
					b = append(b, userStub(apiAnthropic, sb)...)
				}
				tm.req[mp+"/content/"+itoa(k)] = sb
				tm.path[sb] = "messages." + itoa(mi) + ".content." + itoa(k)
			}
			b = append(b, "]}"...)
		}
		b = append(b, "]}"...)
	case apiResponses:
		b = append(b, `{"model":`...)
		b = append(b, quote(t.Model)...)
		if !t.Store {
			b = append(b, `,"store":false`...)
		}
		b = append(b, `,"input":[`...)
		for _, m := range s.msgs {
			first := true
			for _, sb := range m.blocks {
				if !tm.sent(sb) {
					continue
				}
				el()
				p := "/input/" + itoa(n-1)
				if m.role == roleAssistant {
					b = append(b, sb.raw...)
					if first {
						tm.reqMsg[p] = m
						if ti, ok := turnOf[m]; ok {
							h.Pointers[ti] = p
						}
					}
				} else {
					b = append(b, userStub(apiResponses, sb)...)
				}
				first = false
				tm.req[p] = sb
				tm.path[sb] = "input[" + itoa(n-1) + "]"
			}
		}
		b = append(b, "]}"...)
	default:
		return
	}
	h.Request = b
}

// userStub writes a stand-in for a stored user-side block: what the rules
// read of it (that a tool result answers a call id, that there is
// content), not its content.
func userStub(api string, b *block) []byte {
	switch api {
	case apiResponses:
		if b.kind == kToolResult {
			return []byte(`{"type":"function_call_output","call_id":` + string(quote(b.id)) + `,"output":""}`)
		}
		return []byte(`{"type":"message","role":"user","content":"."}`)
	}
	if b.kind == kToolResult {
		return []byte(`{"type":"tool_result","tool_use_id":` + string(quote(b.id)) + `}`)
	}
	if b.kind == kText && b.empty {
		return []byte(`{"type":"text","text":""}`)
	}
	return []byte(`{"type":"text","text":"."}`)
}
