package cohere

import (
	"encoding/json"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/engine"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/stream"
)

// NewFrameDecoder returns a decoder for v2 chat streams, seeded with the
// codec's Provider, Model and Limits.
func (c Codec) NewFrameDecoder() codecs.FrameDecoder {
	return &StreamDecoder{Provider: c.Provider, Model: c.Model, Limits: c.Limits}
}

// open is a content block or tool call still receiving deltas.
type open struct {
	tool  bool // a tool call (else a content block)
	index int
	block int // position in the turn's Blocks, -1 for a text block with no text yet
	think bool
	item  *replay.ReasoningText // the block, when think
	b     engine.Text           // in the decoder's arena
}

// StreamDecoder is the Cohere stream decoder. The zero value is ready to
// use; Provider, Model and Limits play the roles of the [Codec] fields.
type StreamDecoder struct {
	// Provider and Model are recorded in the turn's provenance.
	Provider string
	Model    string
	// Limits bound what the decoder keeps; [StreamDecoder.SetLimits]
	// overrides its non-zero fields.
	Limits replay.Limits

	run    engine.Run
	turn   replay.Turn
	perr   *replay.ProviderError
	done   bool
	opens  []*open
	plan   int // block of the tool plan, or -1
	planB  strings.Builder
	ev     event
	fields [14]*string // the fields of ev, found again in a matched event
}

// stream is the decoder as the engine drives it (see [engine.Codec]).
type decoder StreamDecoder

// SetLimits replaces the decoder's limits with the non-zero fields of l
// (see [codecs.FrameDecoder].SetLimits). Call it before the first frame.
func (s *StreamDecoder) SetLimits(l replay.Limits) { s.run.SetLimits((*decoder)(s), l) }

// Decode decodes one event.
func (s *StreamDecoder) Decode(typ, data []byte, dst []stream.Event) ([]stream.Event, error) {
	return s.run.Decode((*decoder)(s), typ, data, dst)
}

// Finish ends the stream and returns the turn.
func (s *StreamDecoder) Finish() (*replay.Turn, error) { return s.run.Finish((*decoder)(s)) }

func (s *decoder) Start(r *engine.Run) {
	r.Budget = kit.NewBudget(API, s.Limits, 0)
	s.plan = -1
	s.turn.Provenance = Codec{Provider: s.Provider, Model: s.Model}.provenance()
}

// Full reads an event in full: validated and extracted in one pass, in
// place (everything kept is copied).
func (s *decoder) Full(r *engine.Run, f engine.Frame, text string, dst []stream.Event) ([]stream.Event, error) {
	if text == "[DONE]" {
		// The SSE terminator cohere-go reads up to; message-end is what
		// completes the turn.
		return dst, nil
	}
	ev := &s.ev
	var sc jsonw.Scanner
	sc.Reset(text)
	valid, object := scan(&sc, ev)
	if !valid {
		return dst, r.Malformed("", "expected a JSON event")
	}
	if !object {
		return dst, r.Malformed("", "expected an event object")
	}
	typ := str(ev.typ)
	if typ == "" {
		typ = string(f.Type)
	}
	dst, err := s.event(typ, ev, dst)
	if err == nil {
		s.learn(text, typ, ev)
	}
	return dst, err
}

// Matched applies an event like the last delta read in full: the engine
// has put its fields at their places in it.
func (s *decoder) Matched(r *engine.Run, m *engine.Match, dst []stream.Event) ([]stream.Event, error) {
	return s.event(str(s.ev.typ), &s.ev, dst)
}

// learn learns the shape of text, a delta event read in full into ev
// without error, so that the next event like it is read by matching:
// its holes are the pieces a delta appends (thinking, text, tool plan,
// arguments), whose meaning the decoder takes from the value alone; the
// first is decoded as it is matched. Only an event that names its type is
// learned: a type taken from the frame is not in the text the shape
// matches.
func (s *decoder) learn(text, typ string, ev *event) {
	switch typ {
	case "content-delta", "tool-call-delta", "tool-plan-delta":
	default:
		return
	}
	if ev.typ == "" {
		return
	}
	var buf [4]string
	holes := buf[:0]
	for _, r := range [...]string{ev.thinking, ev.text, ev.plan, ev.fnArgs} {
		if len(r) >= 2 && r[0] == '"' {
			holes = append(holes, r)
		}
	}
	value := -1
	if len(holes) > 0 {
		value = 0
	}
	s.fields = ev.fields()
	s.run.Learn(text, holes, value, s.fields[:])
}

// event dispatches one event by its type. An event type this decoder does
// not know is ignored.
func (s *decoder) event(typ string, ev *event, dst []stream.Event) ([]stream.Event, error) {
	switch typ {
	case "content-start":
		return s.contentStart(ev, dst)
	case "content-delta":
		return s.contentDelta(ev, dst)
	case "content-end":
		return s.end(false, ev, dst)
	case "tool-plan-delta":
		return dst, s.toolPlanDelta(ev)
	case "tool-call-start":
		return s.toolCallStart(ev, dst)
	case "tool-call-delta":
		return s.toolCallDelta(ev, dst)
	case "tool-call-end":
		return s.end(true, ev, dst)
	case "citation-start":
		return dst, s.native("citation", ev.citations)
	case "message-end":
		return s.messageEnd(ev, dst)
	}
	return dst, nil // message-start, citation-end, debug, unknown
}

// contentStart opens a content block: thinking, text, or another type
// kept verbatim.
func (s *decoder) contentStart(ev *event, dst []stream.Event) ([]stream.Event, error) {
	idx, err := s.index(ev)
	if err != nil {
		return dst, err
	}
	if s.find(false, idx) != nil {
		return dst, codecs.Malformed(API, s.run.Budget.Event, "/index", "content block %d started twice", idx)
	}
	o := &open{index: idx, block: -1}
	switch str(ev.ctype) {
	case "thinking":
		it := &replay.ReasoningText{}
		it.Format, it.Unfinished = formats.Cohere, true
		if err := s.add(it); err != nil {
			return dst, err
		}
		o.think, o.item, o.block = true, it, len(s.turn.Blocks)-1
		s.opens = append(s.opens, o)
		dst = append(dst, stream.Event{Kind: stream.EventReasoningStart, Block: o.block, Item: it})
		return s.piece(o, ev.thinking, dst)
	case "text":
		s.opens = append(s.opens, o)
		return s.piece(o, ev.text, dst)
	}
	return dst, s.native("content-start", ev.content)
}

// contentDelta appends `delta.message.content.thinking` (or `.text`) to
// its block.
func (s *decoder) contentDelta(ev *event, dst []stream.Event) ([]stream.Event, error) {
	o, err := s.started(false, ev, "content-delta for a block that was not started")
	if err != nil {
		return dst, err
	}
	if o.think {
		return s.piece(o, ev.thinking, dst)
	}
	return s.piece(o, ev.text, dst)
}

// toolPlanDelta appends to the tool plan, opening it on the first piece.
func (s *decoder) toolPlanDelta(ev *event) error {
	r := ev.plan
	if r == "" {
		return nil
	}
	if r[0] != '"' {
		return codecs.Malformed(API, s.run.Budget.Event, "/delta/message/tool_plan", "expected a string")
	}
	if s.plan < 0 {
		if err := s.add(&replay.Native{Kind: "tool_plan", Unfinished: true}); err != nil {
			return err
		}
		s.plan = len(s.turn.Blocks) - 1
	}
	k := s.planB.Len()
	s.run.Unquote(&s.planB, r)
	return s.run.Budget.Item(s.plan, s.planB.Len(), s.planB.Len()-k)
}

// toolCallStart opens a tool call (id, name) and takes its first piece of
// arguments. It closes the tool plan.
func (s *decoder) toolCallStart(ev *event, dst []stream.Event) ([]stream.Event, error) {
	idx, err := s.index(ev)
	if err != nil {
		return dst, err
	}
	if s.find(true, idx) != nil {
		return dst, codecs.Malformed(API, s.run.Budget.Event, "/index", "tool call %d started twice", idx)
	}
	if len(ev.fnName) < 2 || ev.fnName[0] != '"' {
		return dst, codecs.Malformed(API, s.run.Budget.Event, "/delta/message/tool_calls/function/name", "expected a string")
	}
	s.closePlan()
	call := &replay.ToolCall{Unfinished: true}
	at := len(s.turn.Blocks)
	if call.ID, err = s.run.Budget.Keep(at, str(ev.callID)); err != nil {
		return dst, err
	}
	if call.Name, err = s.run.Budget.Keep(at, str(ev.fnName)); err != nil {
		return dst, err
	}
	if err := s.add(call); err != nil {
		return dst, err
	}
	o := &open{tool: true, index: idx, block: at}
	s.opens = append(s.opens, o)
	dst = append(dst, stream.Event{Kind: stream.EventToolCallStart, Block: o.block, ID: call.ID, Name: call.Name})
	return s.piece(o, ev.fnArgs, dst)
}

// toolCallDelta appends a piece of a call's arguments.
func (s *decoder) toolCallDelta(ev *event, dst []stream.Event) ([]stream.Event, error) {
	o, err := s.started(true, ev, "tool-call-delta for a call that was not started")
	if err != nil {
		return dst, err
	}
	return s.piece(o, ev.fnArgs, dst)
}

// end closes the content block or tool call the event's index names.
func (s *decoder) end(tool bool, ev *event, dst []stream.Event) ([]stream.Event, error) {
	idx, err := s.index(ev)
	if err != nil {
		return dst, err
	}
	if o := s.find(tool, idx); o != nil {
		dst = s.close(o, dst, true)
	}
	return dst, nil
}

// messageEnd records finish_reason and usage and completes the turn, or,
// for finish_reason "ERROR", ends it with a provider error (open blocks
// stay open: Finish marks them unfinished).
func (s *decoder) messageEnd(ev *event, dst []stream.Event) ([]stream.Event, error) {
	at := len(s.turn.Blocks)
	var err error
	if fr := ev.finish; len(fr) >= 2 && fr[0] == '"' {
		if s.turn.FinishReason, err = s.run.Budget.Keep(at, str(fr)); err != nil {
			return dst, err
		}
	}
	if u := ev.usage; len(u) >= 2 && u[0] == '{' {
		us, err := s.run.Budget.Keep(at, u)
		if err != nil {
			return dst, err
		}
		s.turn.Usage = json.RawMessage(us)
	}
	if s.turn.FinishReason == "ERROR" {
		msg, err := s.run.Budget.Keep(at, str(ev.errMsg))
		if err != nil {
			return dst, err
		}
		pe := &replay.ProviderError{API: API, Type: "ERROR", Message: msg}
		s.perr, s.turn.Error = pe, pe
		s.run.Stop() // the stream is over: later events are ignored
		return append(dst, stream.Event{Kind: stream.EventError, Block: -1, Err: pe}), nil
	}
	s.closePlan()
	for len(s.opens) > 0 {
		dst = s.close(s.opens[0], dst, true)
	}
	s.done = true
	s.run.Stop()
	return append(dst, stream.Event{Kind: stream.EventDone, Block: -1}), nil
}

func (s *decoder) index(ev *event) (int, error) {
	idx, ok := kit.Index(ev.index)
	if !ok {
		return 0, codecs.Malformed(API, s.run.Budget.Event, "/index", "expected a non-negative integer")
	}
	return idx, nil
}

// add appends a block within the budget.
func (s *decoder) add(b replay.Block) error {
	if err := s.run.Budget.Block(len(s.turn.Blocks)); err != nil {
		return err
	}
	s.turn.Blocks = append(s.turn.Blocks, b)
	return nil
}

// native adds a block kept verbatim.
func (s *decoder) native(kind, rawJSON string) error {
	if rawJSON == "" { // the member is absent: nothing to keep
		return nil
	}
	kept, err := s.run.Budget.Keep(len(s.turn.Blocks), rawJSON)
	if err != nil {
		return err
	}
	return s.add(&replay.Native{Kind: kind, Raw: []byte(kept)})
}

// piece appends the JSON string literal r (or nothing when r is "") to o,
// within the budget, and emits its delta.
func (s *decoder) piece(o *open, r string, dst []stream.Event) ([]stream.Event, error) {
	if r == "" || r == "null" {
		return dst, nil
	}
	if r[0] != '"' {
		return dst, codecs.Malformed(API, s.run.Budget.Event, "/delta/message", "expected a string")
	}
	k := o.b.Len()
	s.run.WriteRaw(&o.b, r)
	if o.b.Len() == k {
		return dst, nil
	}
	if o.block < 0 { // the first text of a text block
		if err := s.add(&replay.Text{}); err != nil {
			return dst, err
		}
		o.block = len(s.turn.Blocks) - 1
	}
	if err := s.run.Budget.Item(o.block, o.b.Len(), o.b.Len()-k); err != nil {
		return dst, err
	}
	d := o.b.String()[k:]
	switch {
	case o.tool:
		return append(dst, stream.Event{Kind: stream.EventToolCallDelta, Block: o.block, Delta: d}), nil
	case o.think:
		return append(dst, stream.Event{Kind: stream.EventReasoningDelta, Block: o.block, Delta: d, Item: o.item}), nil
	}
	return append(dst, stream.Event{Kind: stream.EventTextDelta, Block: o.block, Delta: d}), nil
}

// started returns the open block or call the delta event ev names, or a
// malformed-input error saying what when there is none.
func (s *decoder) started(tool bool, ev *event, what string) (*open, error) {
	idx, err := s.index(ev)
	if err != nil {
		return nil, err
	}
	o := s.find(tool, idx)
	if o == nil {
		return nil, codecs.Malformed(API, s.run.Budget.Event, "/index", "%s", what)
	}
	return o, nil
}

func (s *decoder) find(tool bool, idx int) *open {
	for _, o := range s.opens {
		if o.tool == tool && o.index == idx {
			return o
		}
	}
	return nil
}

func (s *decoder) closePlan() {
	if s.plan >= 0 {
		nb := s.turn.Blocks[s.plan].(*replay.Native)
		nb.Raw, nb.Unfinished = quoted(s.planB.String()), false
		s.plan = -1
	}
}

// close finishes o (events only when finished) and removes it.
func (s *decoder) close(o *open, dst []stream.Event, finished bool) []stream.Event {
	if o.block >= 0 {
		switch b := s.turn.Blocks[o.block].(type) {
		case *replay.ReasoningText:
			b.Text, b.Unfinished = o.b.String(), !finished
			if finished {
				dst = append(dst, stream.Event{Kind: stream.EventReasoningEnd, Block: o.block, Item: b})
			}
		case *replay.Text:
			b.Text = o.b.String()
		case *replay.ToolCall:
			b.Arguments, b.Unfinished = o.b.String(), !finished
			if finished {
				dst = append(dst, stream.Event{Kind: stream.EventToolCallEnd, Block: o.block})
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

// End ends the stream: a cut stream's open blocks and tool plan are kept
// unfinished.
func (s *decoder) End(r *engine.Run) (*replay.Turn, error) {
	t := &s.turn
	if !s.done || r.Err() != nil {
		if s.plan >= 0 {
			nb := t.Blocks[s.plan].(*replay.Native)
			nb.Raw = quoted(s.planB.String())
			s.plan = -1
		}
		for len(s.opens) > 0 {
			s.close(s.opens[0], nil, false)
		}
	}
	if r.Err() == nil && s.perr != nil {
		t.MarkUnfinished()
		return t, s.perr
	}
	return r.Close(t, s.done, "message-end")
}
