package sessions

import (
	"errors"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
)

// This file holds what a reader makes of a session: the messages the agent
// sends on resume, each a list of stored blocks with their locations, and
// for an assistant message the turn the codec of its wire reads from them.

const (
	roleUser      = "user"
	roleAssistant = "assistant"
)

// kind is what a stored block is, for the session's own checks.
type kind uint8

const (
	kOther      kind = iota
	kThinking        // reasoning text with an optional signature
	kRedacted        // an opaque reasoning blob (redacted_thinking)
	kReasoning       // an OpenAI reasoning item, stored whole
	kText            // visible assistant text
	kToolUse         // a tool call
	kToolResult      // a tool result (user side)
	kUserText        // user content
	kCompaction      // a provider's compaction item
)

func (k kind) reasoning() bool { return k == kThinking || k == kRedacted || k == kReasoning }

func (k kind) String() string {
	return [...]string{"block", "thinking block", "redacted thinking block", "reasoning item", "text block",
		"tool call", "tool result", "user content", "compaction item"}[k]
}

// block is one stored block of a message.
type block struct {
	loc  Location
	kind kind
	id   string // a tool call's or result's id
	// empty reports a thinking or text block whose text is empty.
	empty bool
	sig   sigInfo
	// raw is the block as its wire carries it, for the codec that reads
	// the message (nil when the message is read otherwise).
	raw []byte
	// whole reports that the block is its record's only content: dropping
	// the block drops the record.
	whole bool
	// itemID is the inner pointer of the block's own provider item id
	// (an OpenAI fc_/msg_ id that pairs it with the reasoning before it),
	// "" when it has none.
	itemID string
	// bad is why the codec could not read the block.
	bad string
	msg *message
	// item is the turn's reasoning item read from it, when there is one.
	item replay.ReasoningItem
	// call is the turn's tool call read from it, when there is one.
	call *replay.ToolCall
	// sentinel is the inner pointer where the documented placeholder
	// signature goes on this block (a Gemini functionCall part), "" when
	// none can.
	sentinel string
}

// sigInfo is what the session checks know of a stored signature.
type sigInfo struct {
	present bool   // the member is there (possibly null or empty)
	null    bool   // it is null
	short   string // the signature when shorter than 512 bytes
	n       int    // its length in bytes
}

func sigOf(v string, present, null bool) sigInfo {
	s := sigInfo{present: present, null: null, n: len(v)}
	if len(v) < 512 {
		s.short = clone(v)
	}
	return s
}

// message is one message of the conversation the agent sends on resume.
type message struct {
	role   string
	blocks []*block
	// turn is the assistant turn its blocks read as; tmap gives, per turn
	// block, the index in blocks it came from (-1 when not known).
	turn *replay.Turn
	tmap []int
	// first is the location of the message itself (its first record).
	first Location
	// stop is the agent's stop reason, where it records one.
	stop string
	// info carries an agent's own facts about the message.
	info map[string]string
}

func (m *message) add(b *block) *block {
	b.msg = m
	m.blocks = append(m.blocks, b)
	return b
}

// wire wraps the blocks of one assistant message in the smallest request
// body the codec of api reads, the message followed (unless last) by an
// empty assistant message so that the codec does not read it as a request
// cut short.
func wire(api string, elems [][]byte, last bool) []byte {
	var b []byte
	join := func() {
		for i, e := range elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, e...)
		}
	}
	switch api {
	case apiResponses:
		b = append(b, `{"input":[`...)
		join()
		if !last {
			b = append(b, `,{"type":"message","role":"user","content":"."},{"type":"message","role":"assistant","content":[]}`...)
		}
		b = append(b, "]}"...)
	case apiGemini:
		b = append(b, `{"contents":[{"role":"model","parts":[`...)
		join()
		b = append(b, "]}]}"...)
	case apiAnthropic:
		b = append(b, `{"messages":[{"role":"assistant","content":[`...)
		join()
		b = append(b, "]}"...)
		if !last {
			b = append(b, `,{"role":"assistant","content":[]}`...)
		}
		b = append(b, "]}"...)
	default: // chat completions: elems is one assistant message
		b = append(b, `{"messages":[`...)
		join()
		if !last {
			b = append(b, `,{"role":"user","content":"."},{"role":"assistant","content":""}`...)
		}
		b = append(b, "]}"...)
	}
	return b
}

// The wire APIs whose stored blocks the session readers hand to codecs.
const (
	apiAnthropic = "anthropic"
	apiResponses = "openai-responses"
	apiGemini    = "gemini"
)

// decode reads the stored blocks of assistant message m (their raw wire
// elements) with the codec of api for the provider and model, and maps
// each block of the turn back to the stored block it came from. A block
// the codec refuses is marked bad and left out of the turn.
func decode(m *message, api, provider, model string, last bool) error {
	c, err := replay.Lookup(api, provider, model)
	if err != nil {
		return err
	}
	var elems [][]byte
	var from []int
	for i, b := range m.blocks {
		if b.raw != nil && b.bad == "" {
			elems = append(elems, b.raw)
			from = append(from, i)
		}
	}
	read := func(elems [][]byte, last bool) (*replay.Turn, error) {
		h, _, err := c.DecodeRequest(wire(api, elems, last))
		if err != nil {
			return nil, err
		}
		if len(h.Turns) == 0 {
			return &replay.Turn{Complete: true}, nil
		}
		return h.Turns[0], nil
	}
	t, err := read(elems, last)
	if err != nil {
		// Find the blocks the codec refuses, and read the others.
		var ok [][]byte
		var okFrom []int
		for k, e := range elems {
			if _, err := read([][]byte{e}, false); err != nil {
				m.blocks[from[k]].bad = errText(err)
				continue
			}
			ok, okFrom = append(ok, e), append(okFrom, from[k])
		}
		elems, from = ok, okFrom
		if t, err = read(elems, last); err != nil {
			return err
		}
	}
	m.turn = t
	// A content block of the Messages API reads as one block.
	m.tmap = mapBlocks(t, elems, from, api == apiAnthropic, func(e []byte) int {
		u, err := read([][]byte{e}, false)
		if err != nil {
			return -1
		}
		return len(u.Blocks)
	})
	m.link()
	return nil
}

// mapBlocks returns, per block of t, the index of the stored block it was
// read from: elements are read in order, count(e) blocks each (one each
// when oneEach says so). When the counts do not add up, every block maps to
// the only element, or to none.
func mapBlocks(t *replay.Turn, elems [][]byte, from []int, oneEach bool, count func([]byte) int) []int {
	out := make([]int, len(t.Blocks))
	for i := range out {
		out[i] = -1
	}
	if len(elems) == 1 {
		for i := range out {
			out[i] = from[0]
		}
		return out
	}
	if oneEach && len(elems) == len(t.Blocks) {
		copy(out, from)
		return out
	}
	k := 0
	for i, e := range elems {
		n := count(e)
		if n < 0 || k+n > len(out) {
			for j := range out {
				out[j] = -1
			}
			return out
		}
		for j := 0; j < n; j++ {
			out[k+j] = from[i]
		}
		k += n
	}
	if k != len(out) {
		for j := range out {
			out[j] = -1
		}
	}
	return out
}

// link records on each stored block the reasoning item and tool call the
// turn read from it.
func (m *message) link() {
	if m.turn == nil {
		return
	}
	for ti, bi := range m.tmap {
		if bi < 0 {
			continue
		}
		b := m.blocks[bi]
		switch x := m.turn.Blocks[ti].(type) {
		case replay.ReasoningItem:
			if b.item == nil || !x.Meta().Attached {
				b.item = x
			}
		case *replay.ToolCall:
			b.call = x
		}
	}
}

// own builds m's turn from blocks the reader made itself (one turn block
// per stored block, in order), for agents whose files no codec reads.
func (m *message) own(p replay.Provenance, blocks []replay.Block, from []int) {
	m.turn = &replay.Turn{Provenance: p, Blocks: blocks, Complete: true}
	m.tmap = from
	m.link()
}

func errText(err error) string {
	var e *replay.Error
	if errors.As(err, &e) && e.Err != nil {
		msg := e.Err.Error()
		msg = strings.TrimPrefix(msg, replay.ErrMalformed.Error()+": ")
		return msg
	}
	return err.Error()
}

// validJSON reports whether data is JSON the library's readers take: valid,
// nested at most its depth limit, no member name repeated, valid UTF-8.
func validJSON(data []byte) bool { return jsonw.ValidBytes(data) }

// lastAssistant returns the index in s.msgs of the last assistant message,
// or -1: the one a codec reads as possibly cut short.
func (s *Session) lastAssistant() int {
	for i := len(s.msgs) - 1; i >= 0; i-- {
		if s.msgs[i].role == roleAssistant {
			return i
		}
	}
	return -1
}

// ancestor follows parent from id through the deleted records it names, to
// the first that stays ("" for the root).
func ancestor(parent map[string]string, id string) string {
	for n := 0; n <= len(parent); n++ {
		p, ok := parent[id]
		if !ok {
			return id
		}
		id = p
	}
	return id
}
