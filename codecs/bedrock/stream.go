package bedrock

import (
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/engine"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/internal/view"
	"github.com/reasonreplay/replay/stream"
	"github.com/reasonreplay/replay/think"
	"github.com/tidwall/gjson"
)

// NewFrameDecoder returns a decoder for ConverseStream events, seeded with the
// codec's model, provider, limits and tag handling.
func (c Codec) NewFrameDecoder() codecs.FrameDecoder {
	return &StreamDecoder{Model: c.Model, Provider: c.Provider, Limits: c.Limits, KeepTags: c.KeepTags}
}

type openKind uint8

const (
	openText openKind = iota + 1
	openReasoning
	openRedacted
	openTool
)

// open is a content block between its first event and contentBlockStop.
type open struct {
	cbi   int // contentBlockIndex
	kind  openKind
	block int                  // position in the turn's Blocks, -1 for an empty text block
	item  replay.ReasoningItem // the block, for a reasoning or redacted block
	text  engine.Text          // in the decoder's arena
	sig   strings.Builder
	nsig  int // signature deltas seen
	data  strings.Builder

	// A text block: its content is split into visible runs and
	// tag-delimited reasoning runs, each its own turn block.
	split think.Splitter
	vis   int // block of the current visible run, or -1
	visB  strings.Builder
	rsn   int // block of the current reasoning run, or -1
	rsnB  strings.Builder
}

// StreamDecoder is the ConverseStream decoder. The zero value is ready to
// use; Model, Provider and Limits play the roles of the [Codec] fields. It
// implements [codecs.FrameDecoder].
type StreamDecoder struct {
	// Model is the Bedrock model id; it selects the items' format.
	Model string
	// Provider is recorded in the turn's provenance.
	Provider string
	// Limits bound what the decoder keeps; zero fields take defaults.
	Limits replay.Limits
	// KeepTags leaves <think>-style tags in visible text (see
	// [Codec.KeepTags]).
	KeepTags bool

	run     engine.Run
	piece   strings.Builder // the decoded pieces of text deltas with escapes
	turn    replay.Turn
	opens   []*open
	free    []*open
	stopped bool
	perr    *replay.ProviderError
	split   bool // split tags out of text blocks
	segs    []think.Segment
	ev      event
	fields  [14]*string // the fields of ev, found again in a matched frame
}

// stream is the decoder as the engine drives it (see [engine.Codec]).
type decoder StreamDecoder

// exception returns the HTTP status an exception event stands for, and
// false for an event type that is none of these.
func exception(typ string) (int, bool) {
	switch typ {
	case "internalServerException":
		return 500, true
	case "modelStreamErrorException":
		return 424, true
	case "validationException":
		return 400, true
	case "throttlingException":
		return 429, true
	case "serviceUnavailableException":
		return 503, true
	}
	return 0, false
}

// SetLimits implements [codecs.FrameDecoder]: the non-zero fields of l
// replace the decoder's limits.
func (s *StreamDecoder) SetLimits(l replay.Limits) { s.run.SetLimits((*decoder)(s), l) }

// Decode implements [codecs.FrameDecoder]: it decodes one event.
func (s *StreamDecoder) Decode(typ, data []byte, dst []stream.Event) ([]stream.Event, error) {
	return s.run.Decode((*decoder)(s), typ, data, dst)
}

// Finish implements [codecs.FrameDecoder]: it ends the stream and returns
// the turn.
func (s *StreamDecoder) Finish() (*replay.Turn, error) { return s.run.Finish((*decoder)(s)) }

func (s *decoder) Start(r *engine.Run) {
	r.Budget = kit.NewBudget(API, s.Limits, 0)
	s.split = splitsTags(s.Model, s.KeepTags)
	s.turn.Provenance = Codec{Provider: s.Provider, Model: s.Model}.provenance()
}

// Full reads a frame in full into s.ev, validated and read in one pass, in
// place (everything kept is copied out of it), and decodes it. Its event
// type is its Type, or, for a frame without a type, the name of the one
// member of its data, `{"<eventType>":{...}}`.
func (s *decoder) Full(r *engine.Run, f engine.Frame, text string, dst []stream.Event) ([]stream.Event, error) {
	if len(f.Data) == 0 && len(f.Type) > 0 {
		text = "{}" // an event stream message without a payload
	}
	e := &s.ev
	wrapped := len(f.Type) == 0
	var sc jsonw.Scanner
	sc.Reset(text)
	if !scan(&sc, e, wrapped) {
		return dst, r.Malformed("", "expected a JSON event")
	}
	typ := view.String(f.Type)
	if wrapped {
		switch {
		case text == "" || text[0] != '{':
			return dst, r.Malformed("", "expected an object {\"<eventType>\":{...}}")
		case e.members != 1:
			return dst, r.Malformed("", "expected exactly one member naming the event type")
		}
		typ = e.typ
	}
	dst, err := s.event(r.Budget.Event, typ, e, dst)
	if err == nil && typ == "contentBlockDelta" {
		s.learn(text)
	}
	return dst, err
}

// Matched decodes a frame like the last delta read in full (the same type,
// the same bytes but for its holes): s.ev holds its fields, found at their
// places in it, what the full read would give.
func (s *decoder) Matched(r *engine.Run, m *engine.Match, dst []stream.Event) ([]stream.Event, error) {
	typ := "contentBlockDelta"
	if s.ev.typ != "" {
		typ = s.ev.typ // the wrapped form names it in the data
	}
	return s.event(r.Budget.Event, typ, &s.ev, dst)
}

// learn learns the shape of text, a contentBlockDelta read in full into
// s.ev without error, so that the next delta like it is read by matching:
// its holes are the delta's piece (text, reasoning text, signature,
// redacted content or tool input: appended, or kept verbatim, by the same
// code either way), decoded as it is matched, and the padding "p", which
// the decoder ignores. The block index and the delta's kind are not holes:
// they decide what the event is.
func (s *decoder) learn(text string) {
	e := &s.ev
	var buf [jsonw.MaxHoles + 2]string
	holes := buf[:0]
	for _, r := range [...]string{e.text, e.rcText, e.rcSig, e.rcRed, e.tuInput} {
		if len(r) >= 2 && r[0] == '"' {
			holes = append(holes, r)
		}
	}
	value := min(len(holes), 1) - 1 // the first piece, if any
	if p := e.pad; len(p) >= 2 && p[0] == '"' {
		holes = append(holes, p)
	}
	s.fields = e.fields()
	s.run.Learn(text, holes, value, s.fields[:])
}

// event decodes one event of type typ, read into e.
func (s *decoder) event(n int, typ string, e *event, dst []stream.Event) ([]stream.Event, error) {
	switch typ {
	case "messageStart", "metadata", "messageStop", "contentBlockStart", "contentBlockDelta", "contentBlockStop":
		if len(e.payload) < 2 || e.payload[0] != '{' {
			return dst, codecs.Malformed(API, n, "", "expected %s to be an object", typ)
		}
	default:
		return s.other(typ, gjson.Parse(e.payload), dst), nil
	}
	switch typ {
	case "messageStart":
		return dst, nil
	case "metadata":
		if u := e.usage; len(u) >= 2 && u[0] == '{' {
			s.turn.Usage = raw(u)
		}
		return dst, nil
	case "messageStop":
		return s.messageStop(gjson.Parse(e.payload), dst), nil
	}
	if s.stopped {
		return dst, codecs.Malformed(API, n, "", "%s after messageStop", typ)
	}
	cbi, ok := kit.Index(e.index)
	if !ok {
		return dst, codecs.Malformed(API, n, "/contentBlockIndex", "expected a non-negative integer")
	}
	o := s.find(cbi)
	switch typ {
	case "contentBlockStop":
		if o != nil {
			dst = s.close(o, dst)
		}
		return dst, nil
	case "contentBlockStart":
		if o != nil {
			return dst, codecs.Malformed(API, n, "/contentBlockIndex", "block %d started twice", cbi)
		}
		return s.blockStart(n, cbi, gjson.Parse(e.start), dst)
	}
	return s.blockDelta(n, cbi, o, e, dst)
}

// other handles an event outside the message's own: an exception or error
// ends the stream with a provider error; an unknown event is ignored.
func (s *decoder) other(typ string, p gjson.Result, dst []stream.Event) []stream.Event {
	status, ok := exception(typ)
	if !ok && !strings.HasSuffix(typ, "Exception") && typ != "error" {
		return dst // an event type this decoder does not know
	}
	e := &replay.ProviderError{API: API, Status: status, Type: clone(typ)}
	if typ == "error" {
		e.Type = clone(p.Get("code").String())
	}
	if m := p.Get("message"); m.Type == gjson.String {
		e.Message = clone(m.Str)
	}
	if st := p.Get("originalStatusCode"); st.Type == gjson.Number {
		e.Status = int(st.Int())
	}
	if om := p.Get("originalMessage"); om.Type == gjson.String {
		e.Raw = clone(om.Str)
	}
	s.perr = e
	s.run.Stop() // the stream is over: later frames are ignored
	s.turn.Error = e
	return append(dst, stream.Event{Kind: stream.EventError, Block: -1, Err: e})
}

// messageStop records the stop reason and closes the blocks still open.
func (s *decoder) messageStop(p gjson.Result, dst []stream.Event) []stream.Event {
	if sr := p.Get("stopReason"); sr.Type == gjson.String {
		s.turn.FinishReason = clone(sr.Str)
	}
	for len(s.opens) > 0 {
		dst = s.close(s.opens[0], dst)
	}
	s.stopped = true
	return append(dst, stream.Event{Kind: stream.EventDone, Block: -1})
}

// blockStart opens a toolUse block, or keeps another start kind verbatim;
// text and reasoning blocks open at their first delta.
func (s *decoder) blockStart(n, cbi int, st gjson.Result, dst []stream.Event) ([]stream.Event, error) {
	tu := st.Get("toolUse")
	if !tu.IsObject() {
		if !st.IsObject() || st.Raw == "{}" || st.Get("text").Exists() || st.Get("reasoningContent").Exists() {
			return dst, nil
		}
		// Another start kind: kept verbatim, closed at once.
		return dst, s.native("contentBlockStart", st.Raw)
	}
	id, name := tu.Get("toolUseId"), tu.Get("name")
	if id.Type != gjson.String || name.Type != gjson.String {
		return dst, codecs.Malformed(API, n, "/start/toolUse", "expected string toolUseId and name")
	}
	pos := len(s.turn.Blocks)
	if err := s.run.Budget.Block(pos); err != nil {
		return dst, err
	}
	call := &replay.ToolCall{Unfinished: true, Extra: extra(tu, "toolUseId", "name")}
	var err error
	if call.ID, err = s.run.Budget.Keep(pos, id.Str); err != nil {
		return dst, err
	}
	if call.Name, err = s.run.Budget.Keep(pos, name.Str); err != nil {
		return dst, err
	}
	if err = s.run.Budget.Item(pos, len(call.Extra), len(call.Extra)); err != nil {
		return dst, err
	}
	o := s.openAt(cbi, openTool)
	s.turn.Blocks = append(s.turn.Blocks, call)
	return append(dst, stream.Event{Kind: stream.EventToolCallStart, Block: o.block, ID: call.ID, Name: call.Name}), nil
}

// native keeps a block of a kind this decoder does not know, verbatim.
func (s *decoder) native(kind, rawJSON string) error {
	pos := len(s.turn.Blocks)
	if err := s.run.Budget.Block(pos); err != nil {
		return err
	}
	if err := s.run.Budget.Item(pos, len(rawJSON), len(rawJSON)); err != nil {
		return err
	}
	s.turn.Blocks = append(s.turn.Blocks, &replay.Native{Kind: kind, Raw: raw(rawJSON)})
	return nil
}

// blockDelta routes a contentBlockDelta to its block by kind.
func (s *decoder) blockDelta(n, cbi int, o *open, e *event, dst []stream.Event) ([]stream.Event, error) {
	if len(e.delta) < 2 || e.delta[0] != '{' {
		return dst, codecs.Malformed(API, n, "/delta", "expected an object")
	}
	if e.text != "" {
		return s.textDelta(n, cbi, o, e.text, dst)
	}
	if e.rc != "" {
		return s.reasoningDelta(n, cbi, o, e, dst)
	}
	if e.tu != "" {
		return s.toolDelta(n, o, e.tuInput, dst)
	}
	// Another delta kind (citation, image, ...): kept verbatim as its own
	// block.
	return dst, s.native("contentBlockDelta", e.delta)
}

// textDelta appends a text piece: it goes through the tag splitter into
// visible and reasoning runs, each its own turn block.
func (s *decoder) textDelta(n, cbi int, o *open, x string, dst []stream.Event) ([]stream.Event, error) {
	const ptr = "/delta/text"
	if x[0] != '"' {
		return dst, codecs.Malformed(API, n, ptr, "expected a string")
	}
	if o == nil {
		o = s.openAt(cbi, openText)
	} else if o.kind != openText {
		return dst, codecs.Malformed(API, n, ptr, "text delta in a block of another kind")
	}
	if x == `""` {
		return dst, nil
	}
	piece := x[1 : len(x)-1] // a view of the frame, used during this call only
	if strings.IndexByte(piece, '\\') >= 0 {
		// Decoded at the end of s.piece, which only grows (no byte it
		// holds is rewritten) until it is replaced: no allocation per
		// piece.
		if s.piece.Len() > 32<<10 {
			s.piece = strings.Builder{}
		}
		if v, ok := s.run.Decoded(x); ok {
			piece = v // decoded by matching, held by the engine until the next frame
		} else {
			k := s.piece.Len()
			jsonw.WriteUnquoted(&s.piece, x)
			piece = s.piece.String()[k:]
		}
	}
	if !s.split {
		s.segs = append(s.segs[:0], think.Segment{Text: view.Bytes(piece)})
	} else {
		s.segs = o.split.WriteString(s.segs[:0], piece)
	}
	return s.runs(o, s.segs, dst)
}

// reasoningDelta appends to a reasoning block: text, signature or
// redactedContent pieces, opening the block at its first.
func (s *decoder) reasoningDelta(n, cbi int, o *open, e *event, dst []stream.Event) ([]stream.Event, error) {
	const ptr = "/delta/reasoningContent"
	if e.rc[0] != '{' {
		return dst, codecs.Malformed(API, n, ptr, "expected an object")
	}
	text, sig, red := e.rcText, e.rcSig, e.rcRed
	for _, v := range [...]string{text, sig, red} {
		if v != "" && v[0] != '"' {
			return dst, codecs.Malformed(API, n, ptr, "expected string members")
		}
	}
	if jsonw.Lone(sig) || jsonw.Lone(red) {
		// Read as U+FFFD it would alter the minted bytes.
		return dst, codecs.Malformed(API, n, ptr, "a lone surrogate escape in a signature or redactedContent")
	}
	want := openReasoning
	if red != "" {
		want = openRedacted
		if text != "" || sig != "" {
			return dst, codecs.Malformed(API, n, ptr, "redactedContent together with text or signature")
		}
	} else if text == "" && sig == "" {
		return dst, codecs.Malformed(API, n, ptr, "expected text, signature or redactedContent")
	}
	var err error
	if o == nil {
		if o, dst, err = s.openReasoning(cbi, want, dst); err != nil {
			return dst, err
		}
	} else if o.kind != want {
		return dst, codecs.Malformed(API, n, ptr, "reasoning delta in a block of another kind")
	}
	if red != "" {
		_, err := s.appendTo(o.block, &o.data, red)
		return dst, err
	}
	if sig != "" {
		if _, err := s.appendTo(o.block, &o.sig, sig); err != nil {
			return dst, err
		}
		o.nsig++
	}
	if text != "" {
		delta, err := s.appendText(o.block, &o.text, text)
		if err != nil {
			return dst, err
		}
		if delta != "" {
			dst = append(dst, stream.Event{Kind: stream.EventReasoningDelta, Block: o.block, Delta: delta, Item: o.item})
		}
	}
	return dst, nil
}

// openReasoning opens a reasoning or redacted block at its first delta.
func (s *decoder) openReasoning(cbi int, kind openKind, dst []stream.Event) (*open, []stream.Event, error) {
	if err := s.run.Budget.Block(len(s.turn.Blocks)); err != nil {
		return nil, dst, err
	}
	o := s.openAt(cbi, kind)
	var it replay.ReasoningItem
	if kind == openRedacted {
		it = &replay.Encrypted{}
	} else {
		it = &replay.ReasoningText{}
	}
	m := it.Meta()
	m.Index, m.Unfinished = replay.Some(cbi), true
	m.Format = formatFor(s.Model, false)
	s.turn.Blocks = append(s.turn.Blocks, it)
	o.item = it
	return o, append(dst, stream.Event{Kind: stream.EventReasoningStart, Block: o.block, Item: it}), nil
}

// toolDelta appends a piece of a tool call's input.
func (s *decoder) toolDelta(n int, o *open, in string, dst []stream.Event) ([]stream.Event, error) {
	const ptr = "/delta/toolUse"
	if in == "" || in[0] != '"' {
		return dst, codecs.Malformed(API, n, ptr+"/input", "expected a string")
	}
	if o == nil || o.kind != openTool {
		return dst, codecs.Malformed(API, n, ptr, "toolUse delta without a toolUse contentBlockStart")
	}
	delta, err := s.appendText(o.block, &o.text, in)
	if err != nil || delta == "" {
		return dst, err
	}
	return append(dst, stream.Event{Kind: stream.EventToolCallDelta, Block: o.block, Delta: delta}), nil
}

// appendTo appends the value of the JSON string literal lit to b, the
// growing string of the block at pos, within the budget, and returns the
// appended bytes as an immutable string.
func (s *decoder) appendTo(pos int, b *strings.Builder, lit string) (string, error) {
	k := b.Len()
	s.run.Unquote(b, lit)
	if err := s.run.Budget.Item(pos, b.Len(), b.Len()-k); err != nil {
		return "", err
	}
	return b.String()[k:], nil
}

// appendText is appendTo for a text in the decoder's arena.
func (s *decoder) appendText(pos int, t *engine.Text, lit string) (string, error) {
	k := t.Len()
	s.run.WriteRaw(t, lit)
	if err := s.run.Budget.Item(pos, t.Len(), t.Len()-k); err != nil {
		return "", err
	}
	return t.String()[k:], nil
}

func (s *decoder) find(cbi int) *open {
	for _, o := range s.opens {
		if o.cbi == cbi {
			return o
		}
	}
	return nil
}

// openAt opens a block. Reasoning and tool blocks take the next position
// in the turn; a text block gets one at its first non-empty delta.
func (s *decoder) openAt(cbi int, kind openKind) *open {
	var o *open
	if k := len(s.free); k > 0 {
		o, s.free = s.free[k-1], s.free[:k-1]
	} else {
		o = &open{}
	}
	o.cbi, o.kind, o.nsig, o.item = cbi, kind, 0, nil
	o.block, o.vis, o.rsn = -1, -1, -1
	o.split.Reset()
	if kind != openText {
		o.block = len(s.turn.Blocks)
	}
	s.opens = append(s.opens, o)
	return o
}

// close finishes o and removes it from the open list.
func (s *decoder) close(o *open, dst []stream.Event) []stream.Event {
	dst = s.finalize(o, dst, true)
	for i, x := range s.opens {
		if x == o {
			s.opens = append(s.opens[:i], s.opens[i+1:]...)
			break
		}
	}
	o.text, o.sig, o.data = engine.Text{}, strings.Builder{}, strings.Builder{}
	o.visB, o.rsnB = strings.Builder{}, strings.Builder{}
	s.free = append(s.free, o)
	return dst
}

// finalize copies o's builders into its block; finished says whether the
// block closed normally (events are emitted only then).
func (s *decoder) finalize(o *open, dst []stream.Event, finished bool) []stream.Event {
	if o.kind == openText {
		if s.split && finished {
			s.segs = o.split.Close(s.segs[:0])
			var err error
			if dst, err = s.runs(o, s.segs, dst); err != nil {
				s.run.Fail(err)
			}
		}
		s.endVisible(o)
		return s.endReasoning(o, dst, finished)
	}
	if o.block < 0 {
		return dst
	}
	switch b := s.turn.Blocks[o.block].(type) {
	case *replay.Text:
		b.Text = o.text.String()
	case *replay.ReasoningText:
		b.Text = o.text.String()
		if o.nsig > 0 {
			b.Signature = replay.Some(o.sig.String())
		}
		b.Format = formatFor(s.Model, b.Signed())
		b.Unfinished = !finished
		if finished {
			dst = append(dst, stream.Event{Kind: stream.EventReasoningEnd, Block: o.block, Item: b})
		}
	case *replay.Encrypted:
		b.Data = o.data.String()
		b.Unfinished = !finished
		if finished {
			dst = append(dst, stream.Event{Kind: stream.EventReasoningEnd, Block: o.block, Item: b})
		}
	case *replay.ToolCall:
		b.Arguments = o.text.String()
		b.Unfinished = !finished
		if finished {
			dst = append(dst, stream.Event{Kind: stream.EventToolCallEnd, Block: o.block})
		}
	}
	return dst
}

// End ends the stream: blocks still open are kept unfinished.
func (s *decoder) End(r *engine.Run) (*replay.Turn, error) {
	for _, o := range s.opens {
		s.finalize(o, nil, false)
	}
	s.opens = nil
	t := &s.turn
	if r.Err() == nil && s.perr != nil {
		t.MarkUnfinished()
		return t, s.perr
	}
	return r.Close(t, s.stopped, "messageStop")
}

// runs appends the segments of a text block to its visible and reasoning
// runs, opening a new turn block at every change of kind.
func (s *decoder) runs(o *open, segs []think.Segment, dst []stream.Event) ([]stream.Event, error) {
	for _, sg := range segs {
		if sg.Reasoning {
			s.endVisible(o)
			if o.rsn < 0 {
				if err := s.run.Budget.Block(len(s.turn.Blocks)); err != nil {
					return dst, err
				}
				it := &replay.ReasoningText{}
				it.Format, it.Index, it.Unfinished = formatFor(s.Model, false), replay.Some(o.cbi), true
				o.rsn = len(s.turn.Blocks)
				s.turn.Blocks = append(s.turn.Blocks, it)
				dst = append(dst, stream.Event{Kind: stream.EventReasoningStart, Block: o.rsn, Item: it})
			}
			d, err := s.appendBytes(o.rsn, &o.rsnB, sg.Text)
			if err != nil {
				return dst, err
			}
			dst = append(dst, stream.Event{Kind: stream.EventReasoningDelta, Block: o.rsn, Delta: d, Item: s.turn.Blocks[o.rsn].(replay.ReasoningItem)})
			continue
		}
		dst = s.endReasoning(o, dst, true)
		if o.vis < 0 {
			if err := s.run.Budget.Block(len(s.turn.Blocks)); err != nil {
				return dst, err
			}
			o.vis = len(s.turn.Blocks)
			s.turn.Blocks = append(s.turn.Blocks, &replay.Text{})
		}
		d, err := s.appendBytes(o.vis, &o.visB, sg.Text)
		if err != nil {
			return dst, err
		}
		dst = append(dst, stream.Event{Kind: stream.EventTextDelta, Block: o.vis, Delta: d})
	}
	return dst, nil
}

// appendBytes appends p to b, the growing string of the block at pos,
// within the budget, and returns the appended bytes as a string.
func (s *decoder) appendBytes(pos int, b *strings.Builder, p []byte) (string, error) {
	if err := s.run.Budget.Item(pos, b.Len()+len(p), len(p)); err != nil {
		return "", err
	}
	k := b.Len()
	b.Write(p)
	return b.String()[k:], nil
}

// endVisible closes the current visible run of o.
func (s *decoder) endVisible(o *open) {
	if o.vis >= 0 {
		s.turn.Blocks[o.vis].(*replay.Text).Text = o.visB.String()
		o.vis, o.visB = -1, strings.Builder{}
	}
}

// endReasoning closes the current reasoning run of o.
func (s *decoder) endReasoning(o *open, dst []stream.Event, finished bool) []stream.Event {
	if o.rsn < 0 {
		return dst
	}
	it := s.turn.Blocks[o.rsn].(*replay.ReasoningText)
	it.Text, it.Unfinished = o.rsnB.String(), !finished
	if finished {
		dst = append(dst, stream.Event{Kind: stream.EventReasoningEnd, Block: o.rsn, Item: it})
	}
	o.rsn, o.rsnB = -1, strings.Builder{}
	return dst
}
