package cohere

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unsafe"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
)

// NewStream returns a decoder for v2 chat streams.
func (c Codec) NewStream() replay.FrameDecoder {
	return &Stream{Provider: c.Provider, Model: c.Model, Limits: c.Limits}
}

type open struct {
	tool  bool // a tool call (else a content block)
	index int
	block int // position in the turn's Blocks, -1 for a text block with no text yet
	think bool
	b     strings.Builder
}

// Stream is the Cohere stream decoder. The zero value is ready to use;
// Provider, Model and Limits play the roles of the [Codec] fields.
type Stream struct {
	Provider string
	Model    string
	Limits   replay.Limits

	lim   replay.Limits
	init  bool
	turn  replay.Turn
	n     int
	err   error
	perr  *replay.ProviderError
	done  bool
	opens []*open
	plan  int // block of the tool plan, or -1
	planB strings.Builder
}

func (s *Stream) start() {
	if !s.init {
		s.init = true
		s.lim = s.Limits.WithDefaults()
		s.plan = -1
		s.turn.Provenance = Codec{Provider: s.Provider, Model: s.Model}.provenance()
	}
}

// Decode decodes one event.
func (s *Stream) Decode(f replay.Frame, dst []replay.Event) ([]replay.Event, error) {
	s.start()
	if s.err != nil {
		return dst, s.err
	}
	n := s.n
	s.n++
	if s.done || s.perr != nil {
		return dst, nil
	}
	if string(bytes.TrimSpace(f.Data)) == "[DONE]" {
		// The SSE terminator cohere-go reads up to; message-end is what
		// completes the turn.
		return dst, nil
	}
	if !jsonw.ValidBytes(f.Data) {
		s.err = replay.Malformed(API, n, "", "expected a JSON event")
		return dst, s.err
	}
	// Read in place: the frame is valid only during this call, and
	// everything kept is copied.
	ev := gjson.Parse(unsafe.String(unsafe.SliceData(f.Data), len(f.Data)))
	if !ev.IsObject() {
		s.err = replay.Malformed(API, n, "", "expected an event object")
		return dst, s.err
	}
	typ := ev.Get("type").String()
	if typ == "" {
		typ = unsafe.String(unsafe.SliceData(f.Type), len(f.Type))
	}
	var err error
	dst, err = s.event(n, typ, ev, dst)
	if err != nil {
		s.err = err
	}
	return dst, err
}

func (s *Stream) event(n int, typ string, ev gjson.Result, dst []replay.Event) ([]replay.Event, error) {
	var msg gjson.Result
	switch typ {
	case "content-start", "tool-call-start", "citation-start":
		msg = ev.Get("delta.message")
	}
	switch typ {
	case "message-start", "debug", "":
		return dst, nil
	case "content-start":
		idx, err := index(n, ev)
		if err != nil {
			return dst, err
		}
		if s.find(false, idx) != nil {
			return dst, replay.Malformed(API, n, "/index", "content block %d started twice", idx)
		}
		c := msg.Get("content")
		o := &open{index: idx, block: -1}
		switch c.Get("type").String() {
		case "thinking":
			if err := s.grow(); err != nil {
				return dst, err
			}
			o.think, o.block = true, len(s.turn.Blocks)
			it := &replay.ReasoningText{}
			it.Format, it.Unfinished = formats.Cohere, true
			s.turn.Blocks = append(s.turn.Blocks, it)
			s.opens = append(s.opens, o)
			dst = append(dst, replay.Event{Kind: replay.EventReasoningStart, Block: o.block, Item: it})
			return s.piece(o, jsonw.RawMember(c.Raw, "thinking"), dst)
		case "text":
			s.opens = append(s.opens, o)
			return s.piece(o, jsonw.RawMember(c.Raw, "text"), dst)
		}
		// Another block type: kept verbatim.
		if err := s.grow(); err != nil {
			return dst, err
		}
		s.turn.Blocks = append(s.turn.Blocks, &replay.Native{Kind: "content-start", Raw: raw(c.Raw)})
		return dst, nil
	case "content-delta":
		idx, err := index(n, ev)
		if err != nil {
			return dst, err
		}
		o := s.find(false, idx)
		if o == nil {
			return dst, replay.Malformed(API, n, "/index", "content-delta for a block that was not started")
		}
		c := jsonw.RawMember(jsonw.RawMember(jsonw.RawMember(ev.Raw, "delta"), "message"), "content")
		field := "text"
		if o.think {
			field = "thinking"
		}
		return s.piece(o, jsonw.RawMember(c, field), dst)
	case "content-end":
		idx, err := index(n, ev)
		if err != nil {
			return dst, err
		}
		if o := s.find(false, idx); o != nil {
			dst = s.close(o, dst, true)
		}
		return dst, nil
	case "tool-plan-delta":
		r := jsonw.RawMember(jsonw.RawMember(jsonw.RawMember(ev.Raw, "delta"), "message"), "tool_plan")
		if r == "" {
			return dst, nil
		}
		if r[0] != '"' {
			return dst, replay.Malformed(API, n, "/delta/message/tool_plan", "expected a string")
		}
		if s.plan < 0 {
			if err := s.grow(); err != nil {
				return dst, err
			}
			s.plan = len(s.turn.Blocks)
			s.turn.Blocks = append(s.turn.Blocks, &replay.Native{Kind: "tool_plan", Unfinished: true})
		}
		if s.planB.Len()+len(r) > s.lim.MaxItem {
			return dst, &replay.LimitError{What: "item size", Limit: s.lim.MaxItem, Event: -1, Block: -1}
		}
		jsonw.WriteUnquoted(&s.planB, r)
		return dst, nil
	case "tool-call-start":
		idx, err := index(n, ev)
		if err != nil {
			return dst, err
		}
		if s.find(true, idx) != nil {
			return dst, replay.Malformed(API, n, "/index", "tool call %d started twice", idx)
		}
		tc := msg.Get("tool_calls")
		name := tc.Get("function.name")
		if name.Type != gjson.String {
			return dst, replay.Malformed(API, n, "/delta/message/tool_calls/function/name", "expected a string")
		}
		s.closePlan()
		if err := s.grow(); err != nil {
			return dst, err
		}
		o := &open{tool: true, index: idx, block: len(s.turn.Blocks)}
		call := &replay.ToolCall{ID: clone(tc.Get("id").String()), Name: clone(name.Str), Unfinished: true}
		s.turn.Blocks = append(s.turn.Blocks, call)
		s.opens = append(s.opens, o)
		dst = append(dst, replay.Event{Kind: replay.EventToolCallStart, Block: o.block, ID: call.ID, Name: call.Name})
		return s.piece(o, jsonw.RawMember(jsonw.RawMember(tc.Raw, "function"), "arguments"), dst)
	case "tool-call-delta":
		idx, err := index(n, ev)
		if err != nil {
			return dst, err
		}
		o := s.find(true, idx)
		if o == nil {
			return dst, replay.Malformed(API, n, "/index", "tool-call-delta for a call that was not started")
		}
		a := jsonw.RawMember(jsonw.RawMember(jsonw.RawMember(jsonw.RawMember(jsonw.RawMember(ev.Raw, "delta"), "message"), "tool_calls"), "function"), "arguments")
		return s.piece(o, a, dst)
	case "tool-call-end":
		idx, err := index(n, ev)
		if err != nil {
			return dst, err
		}
		if o := s.find(true, idx); o != nil {
			dst = s.close(o, dst, true)
		}
		return dst, nil
	case "citation-start":
		if err := s.grow(); err != nil {
			return dst, err
		}
		s.turn.Blocks = append(s.turn.Blocks, &replay.Native{Kind: "citation", Raw: raw(msg.Get("citations").Raw)})
		return dst, nil
	case "citation-end":
		return dst, nil
	case "message-end":
		d := ev.Get("delta")
		if fr := d.Get("finish_reason"); fr.Type == gjson.String {
			s.turn.FinishReason = clone(fr.Str)
		}
		if u := d.Get("usage"); u.IsObject() {
			s.turn.Usage = raw(u.Raw)
		}
		if s.turn.FinishReason == "ERROR" {
			// Open blocks stay open: Finish marks them unfinished.
			pe := &replay.ProviderError{API: API, Type: "ERROR", Message: clone(d.Get("error").String())}
			s.perr, s.turn.Error = pe, pe
			return append(dst, replay.Event{Kind: replay.EventError, Block: -1, Err: pe}), nil
		}
		s.closePlan()
		for len(s.opens) > 0 {
			dst = s.close(s.opens[0], dst, true)
		}
		s.done = true
		return append(dst, replay.Event{Kind: replay.EventDone, Block: -1}), nil
	}
	return dst, nil // an event type this decoder does not know
}

func index(n int, ev gjson.Result) (int, error) {
	idx := ev.Get("index")
	if idx.Type != gjson.Number || idx.Int() < 0 || float64(idx.Int()) != idx.Num {
		return 0, replay.Malformed(API, n, "/index", "expected a non-negative integer")
	}
	return int(idx.Int()), nil
}

// piece appends the JSON string literal r (or nothing when r is "") to o
// and emits its delta.
func (s *Stream) piece(o *open, r string, dst []replay.Event) ([]replay.Event, error) {
	if r == "" || r == "null" {
		return dst, nil
	}
	if r[0] != '"' {
		return dst, replay.Malformed(API, s.n-1, "/delta/message", "expected a string")
	}
	if o.b.Len()+len(r) > s.lim.MaxItem {
		return dst, &replay.LimitError{What: "item size", Limit: s.lim.MaxItem, Event: -1, Block: -1}
	}
	k := o.b.Len()
	jsonw.WriteUnquoted(&o.b, r)
	if o.b.Len() == k {
		return dst, nil
	}
	d := o.b.String()[k:]
	switch {
	case o.tool:
		return append(dst, replay.Event{Kind: replay.EventToolCallDelta, Block: o.block, Delta: d}), nil
	case o.think:
		it := s.turn.Blocks[o.block].(replay.ReasoningItem)
		return append(dst, replay.Event{Kind: replay.EventReasoningDelta, Block: o.block, Delta: d, Item: it}), nil
	}
	if o.block < 0 {
		if err := s.grow(); err != nil {
			return dst, err
		}
		o.block = len(s.turn.Blocks)
		s.turn.Blocks = append(s.turn.Blocks, &replay.Text{})
	}
	return append(dst, replay.Event{Kind: replay.EventTextDelta, Block: o.block, Delta: d}), nil
}

func (s *Stream) grow() error {
	if len(s.turn.Blocks) >= s.lim.MaxBlocks {
		return &replay.LimitError{What: "block count", Limit: s.lim.MaxBlocks, Event: -1, Block: -1}
	}
	return nil
}

func (s *Stream) find(tool bool, idx int) *open {
	for _, o := range s.opens {
		if o.tool == tool && o.index == idx {
			return o
		}
	}
	return nil
}

func (s *Stream) closePlan() {
	if s.plan >= 0 {
		nb := s.turn.Blocks[s.plan].(*replay.Native)
		nb.Raw, nb.Unfinished = quoted(s.planB.String()), false
		s.plan = -1
	}
}

// close finishes o (events only when finished) and removes it.
func (s *Stream) close(o *open, dst []replay.Event, finished bool) []replay.Event {
	if o.block >= 0 {
		switch b := s.turn.Blocks[o.block].(type) {
		case *replay.ReasoningText:
			b.Text, b.Unfinished = o.b.String(), !finished
			if finished {
				dst = append(dst, replay.Event{Kind: replay.EventReasoningEnd, Block: o.block, Item: b})
			}
		case *replay.Text:
			b.Text = o.b.String()
		case *replay.ToolCall:
			b.Arguments, b.Unfinished = o.b.String(), !finished
			if finished {
				dst = append(dst, replay.Event{Kind: replay.EventToolCallEnd, Block: o.block})
			}
		}
	}
	for i, x := range s.opens {
		if x == o {
			s.opens = append(s.opens[:i], s.opens[i+1:]...)
			break
		}
	}
	return dst
}

// Finish ends the stream and returns the turn.
func (s *Stream) Finish() (*replay.Turn, error) {
	s.start()
	t := &s.turn
	if !s.done || s.err != nil {
		if s.plan >= 0 {
			nb := t.Blocks[s.plan].(*replay.Native)
			nb.Raw = quoted(s.planB.String())
			s.plan = -1
		}
		for len(s.opens) > 0 {
			s.close(s.opens[0], nil, false)
		}
		t.MarkUnfinished()
	}
	switch {
	case s.err != nil:
		return t, s.err
	case s.perr != nil:
		return t, s.perr
	case !s.done:
		return t, &replay.Error{API: API, Event: s.n, Err: fmt.Errorf("stream ended before message-end: %w", io.ErrUnexpectedEOF)}
	}
	t.Complete = true
	return t, nil
}
