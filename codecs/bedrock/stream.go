package bedrock

import (
	"fmt"
	"io"
	"strings"
	"unsafe"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/think"
	"github.com/tidwall/gjson"
)

// NewStream returns a decoder for ConverseStream events.
func (c Codec) NewStream() replay.FrameDecoder {
	return &Stream{Model: c.Model, Provider: c.Provider, Limits: c.Limits, KeepTags: c.KeepTags}
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
	block int // position in the turn's Blocks, -1 for an empty text block
	text  strings.Builder
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

// Stream is the ConverseStream decoder. The zero value is ready to use;
// Model, Provider and Limits play the roles of the [Codec] fields.
type Stream struct {
	Model    string
	Provider string
	Limits   replay.Limits
	// KeepTags leaves <think>-style tags in visible text (see
	// [Codec.KeepTags]).
	KeepTags bool

	lim     replay.Limits
	init    bool
	turn    replay.Turn
	opens   []*open
	free    []*open
	n       int // frames seen
	stopped bool
	err     error
	perr    *replay.ProviderError
	done    bool
	split   bool // split tags out of text blocks
	segs    []think.Segment
}

// exception events and the HTTP status each stands for.
var exceptions = map[string]int{
	"internalServerException":     500,
	"modelStreamErrorException":   424,
	"validationException":         400,
	"throttlingException":         429,
	"serviceUnavailableException": 503,
}

// Decode decodes one event.
func (s *Stream) Decode(f replay.Frame, dst []replay.Event) ([]replay.Event, error) {
	if s.err != nil {
		return dst, s.err
	}
	if !s.init {
		s.init = true
		s.lim = s.Limits.WithDefaults()
		s.split = splitsTags(s.Model, s.KeepTags)
		s.turn.Provenance = Codec{Provider: s.Provider, Model: s.Model}.provenance()
	}
	n := s.n
	s.n++
	if s.done {
		return dst, nil
	}
	if !jsonw.ValidBytes(f.Data) {
		s.err = replay.Malformed(API, n, "", "expected a JSON event")
		return dst, s.err
	}
	// The frame is read in place (it is valid only during this call);
	// everything kept is copied out of it.
	data := gjson.Parse(unsafe.String(unsafe.SliceData(f.Data), len(f.Data)))
	var typ string
	var p gjson.Result
	if len(f.Type) > 0 {
		typ, p = unsafe.String(unsafe.SliceData(f.Type), len(f.Type)), data
	} else {
		if !data.IsObject() {
			s.err = replay.Malformed(API, n, "", "expected an object {\"<eventType>\":{...}}")
			return dst, s.err
		}
		members := 0
		data.ForEach(func(k, v gjson.Result) bool {
			typ, p = k.Str, v
			members++
			return members < 2
		})
		if members != 1 {
			s.err = replay.Malformed(API, n, "", "expected exactly one member naming the event type")
			return dst, s.err
		}
	}
	var err error
	dst, err = s.event(n, typ, p, dst)
	if err != nil {
		s.err = err
	}
	return dst, err
}

func (s *Stream) event(n int, typ string, p gjson.Result, dst []replay.Event) ([]replay.Event, error) {
	switch typ {
	case "messageStart", "metadata", "messageStop", "contentBlockStart", "contentBlockDelta", "contentBlockStop":
		if !p.IsObject() {
			return dst, replay.Malformed(API, n, "", "expected %s to be an object", typ)
		}
	}
	switch typ {
	case "messageStart":
		return dst, nil
	case "metadata":
		if u := p.Get("usage"); u.IsObject() {
			s.turn.Usage = raw(u.Raw)
		}
		return dst, nil
	case "messageStop":
		if sr := p.Get("stopReason"); sr.Type == gjson.String {
			s.turn.FinishReason = clone(sr.Str)
		}
		for len(s.opens) > 0 {
			dst = s.close(s.opens[0], dst)
		}
		s.stopped = true
		return append(dst, replay.Event{Kind: replay.EventDone, Block: -1}), nil
	case "contentBlockStart", "contentBlockDelta", "contentBlockStop":
	default:
		status, ok := exceptions[typ]
		if ok || strings.HasSuffix(typ, "Exception") || typ == "error" {
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
			s.perr, s.done = e, true
			s.turn.Error = e
			return append(dst, replay.Event{Kind: replay.EventError, Block: -1, Err: e}), nil
		}
		return dst, nil // an event type this decoder does not know
	}
	if s.stopped {
		return dst, replay.Malformed(API, n, "", "%s after messageStop", typ)
	}
	idx := p.Get("contentBlockIndex")
	if idx.Type != gjson.Number || idx.Int() < 0 || float64(idx.Int()) != idx.Num {
		return dst, replay.Malformed(API, n, "/contentBlockIndex", "expected a non-negative integer")
	}
	cbi := int(idx.Int())
	o := s.find(cbi)
	switch typ {
	case "contentBlockStop":
		if o != nil {
			dst = s.close(o, dst)
		}
		return dst, nil
	case "contentBlockStart":
		if o != nil {
			return dst, replay.Malformed(API, n, "/contentBlockIndex", "block %d started twice", cbi)
		}
		st := p.Get("start")
		tu := st.Get("toolUse")
		if !tu.IsObject() {
			if !st.IsObject() || st.Raw == "{}" || st.Get("text").Exists() || st.Get("reasoningContent").Exists() {
				return dst, nil // text and reasoning blocks open at their first delta
			}
			// Another start kind: kept verbatim, closed at once.
			if err := s.grow(); err != nil {
				return dst, err
			}
			s.turn.Blocks = append(s.turn.Blocks, &replay.Native{Kind: "contentBlockStart", Raw: raw(st.Raw)})
			return dst, nil
		}
		id, name := tu.Get("toolUseId"), tu.Get("name")
		if id.Type != gjson.String || name.Type != gjson.String {
			return dst, replay.Malformed(API, n, "/start/toolUse", "expected string toolUseId and name")
		}
		if err := s.grow(); err != nil {
			return dst, err
		}
		o = s.openAt(cbi, openTool)
		call := &replay.ToolCall{ID: clone(id.Str), Name: clone(name.Str), Unfinished: true,
			Extra: extra(tu, "toolUseId", "name")}
		s.turn.Blocks = append(s.turn.Blocks, call)
		return append(dst, replay.Event{Kind: replay.EventToolCallStart, Block: o.block, ID: call.ID, Name: call.Name}), nil
	}
	// contentBlockDelta
	const ptr = "/delta"
	d := p.Get("delta")
	if !d.IsObject() {
		return dst, replay.Malformed(API, n, ptr, "expected an object")
	}
	if x := jsonw.RawMember(d.Raw, "text"); x != "" {
		if x[0] != '"' {
			return dst, replay.Malformed(API, n, ptr+"/text", "expected a string")
		}
		if o == nil {
			o = s.openAt(cbi, openText)
		} else if o.kind != openText {
			return dst, replay.Malformed(API, n, ptr+"/text", "text delta in a block of another kind")
		}
		if x == `""` {
			return dst, nil
		}
		// The raw content is kept in o.text; its new piece goes through
		// the tag splitter into visible and reasoning runs.
		piece, err := s.appendTo(&o.text, x)
		if err != nil || piece == "" {
			return dst, err
		}
		if !s.split {
			s.segs = append(s.segs[:0], think.Segment{Text: unsafe.Slice(unsafe.StringData(piece), len(piece))})
		} else {
			s.segs = o.split.WriteString(s.segs[:0], piece)
		}
		return s.runs(o, s.segs, dst)
	}
	if rc := jsonw.RawMember(d.Raw, "reasoningContent"); rc != "" {
		const ptr = "/delta/reasoningContent"
		if rc[0] != '{' {
			return dst, replay.Malformed(API, n, ptr, "expected an object")
		}
		text, sig, red := jsonw.RawMember(rc, "text"), jsonw.RawMember(rc, "signature"), jsonw.RawMember(rc, "redactedContent")
		for _, v := range [...]string{text, sig, red} {
			if v != "" && v[0] != '"' {
				return dst, replay.Malformed(API, n, ptr, "expected string members")
			}
		}
		want := openReasoning
		if red != "" {
			want = openRedacted
			if text != "" || sig != "" {
				return dst, replay.Malformed(API, n, ptr, "redactedContent together with text or signature")
			}
		} else if text == "" && sig == "" {
			return dst, replay.Malformed(API, n, ptr, "expected text, signature or redactedContent")
		}
		if o == nil {
			if err := s.grow(); err != nil {
				return dst, err
			}
			o = s.openAt(cbi, want)
			var it replay.ReasoningItem
			if want == openRedacted {
				it = &replay.Encrypted{}
			} else {
				it = &replay.ReasoningText{}
			}
			m := it.Meta()
			m.Index, m.Unfinished = replay.Some(cbi), true
			m.Format = formatFor(s.Model, false)
			s.turn.Blocks = append(s.turn.Blocks, it)
			dst = append(dst, replay.Event{Kind: replay.EventReasoningStart, Block: o.block, Item: it})
		} else if o.kind != want {
			return dst, replay.Malformed(API, n, ptr, "reasoning delta in a block of another kind")
		}
		it := s.turn.Blocks[o.block].(replay.ReasoningItem)
		if red != "" {
			if _, err := s.appendTo(&o.data, red); err != nil {
				return dst, err
			}
			return dst, nil
		}
		if sig != "" {
			if _, err := s.appendTo(&o.sig, sig); err != nil {
				return dst, err
			}
			o.nsig++
		}
		if text != "" {
			delta, err := s.appendTo(&o.text, text)
			if err != nil {
				return dst, err
			}
			if delta != "" {
				dst = append(dst, replay.Event{Kind: replay.EventReasoningDelta, Block: o.block, Delta: delta, Item: it})
			}
		}
		return dst, nil
	}
	if tu := jsonw.RawMember(d.Raw, "toolUse"); tu != "" {
		in := jsonw.RawMember(tu, "input")
		if in == "" || in[0] != '"' {
			return dst, replay.Malformed(API, n, ptr+"/toolUse/input", "expected a string")
		}
		if o == nil || o.kind != openTool {
			return dst, replay.Malformed(API, n, ptr+"/toolUse", "toolUse delta without a toolUse contentBlockStart")
		}
		delta, err := s.appendTo(&o.text, in)
		if err != nil {
			return dst, err
		}
		if delta == "" {
			return dst, nil
		}
		return append(dst, replay.Event{Kind: replay.EventToolCallDelta, Block: o.block, Delta: delta}), nil
	}
	// Another delta kind (citation, image, ...): kept verbatim as its own
	// block.
	if err := s.grow(); err != nil {
		return dst, err
	}
	s.turn.Blocks = append(s.turn.Blocks, &replay.Native{Kind: "contentBlockDelta", Raw: raw(d.Raw)})
	return dst, nil
}

func (s *Stream) grow() error {
	if len(s.turn.Blocks) >= s.lim.MaxBlocks {
		return &replay.LimitError{What: "block count", Limit: s.lim.MaxBlocks, Event: -1, Block: -1}
	}
	return nil
}

// appendTo appends the value of the JSON string literal lit to b (without
// allocating beyond b's growth) and returns the appended bytes as an
// immutable string.
func (s *Stream) appendTo(b *strings.Builder, lit string) (string, error) {
	if b.Len()+len(lit)-2 > s.lim.MaxItem {
		return "", &replay.LimitError{What: "item size", Limit: s.lim.MaxItem, Event: -1, Block: -1}
	}
	k := b.Len()
	jsonw.WriteUnquoted(b, lit)
	if b.Len() > s.lim.MaxItem {
		return "", &replay.LimitError{What: "item size", Limit: s.lim.MaxItem, Event: -1, Block: -1}
	}
	return b.String()[k:], nil
}

func (s *Stream) find(cbi int) *open {
	for _, o := range s.opens {
		if o.cbi == cbi {
			return o
		}
	}
	return nil
}

// openAt opens a block. Reasoning and tool blocks take the next position
// in the turn; a text block gets one at its first non-empty delta.
func (s *Stream) openAt(cbi int, kind openKind) *open {
	var o *open
	if k := len(s.free); k > 0 {
		o, s.free = s.free[k-1], s.free[:k-1]
	} else {
		o = &open{}
	}
	o.cbi, o.kind, o.nsig = cbi, kind, 0
	o.block, o.vis, o.rsn = -1, -1, -1
	o.split.Reset()
	if kind != openText {
		o.block = len(s.turn.Blocks)
	}
	s.opens = append(s.opens, o)
	return o
}

// close finishes o and removes it from the open list.
func (s *Stream) close(o *open, dst []replay.Event) []replay.Event {
	dst = s.finalize(o, dst, true)
	for i, x := range s.opens {
		if x == o {
			s.opens = append(s.opens[:i], s.opens[i+1:]...)
			break
		}
	}
	o.text, o.sig, o.data = strings.Builder{}, strings.Builder{}, strings.Builder{}
	o.visB, o.rsnB = strings.Builder{}, strings.Builder{}
	s.free = append(s.free, o)
	return dst
}

// finalize copies o's builders into its block; finished says whether the
// block closed normally (events are emitted only then).
func (s *Stream) finalize(o *open, dst []replay.Event, finished bool) []replay.Event {
	if o.kind == openText {
		if s.split && finished {
			s.segs = o.split.Close(s.segs[:0])
			var err error
			if dst, err = s.runs(o, s.segs, dst); err != nil && s.err == nil {
				s.err = err
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
			dst = append(dst, replay.Event{Kind: replay.EventReasoningEnd, Block: o.block, Item: b})
		}
	case *replay.Encrypted:
		b.Data = o.data.String()
		b.Unfinished = !finished
		if finished {
			dst = append(dst, replay.Event{Kind: replay.EventReasoningEnd, Block: o.block, Item: b})
		}
	case *replay.ToolCall:
		b.Arguments = o.text.String()
		b.Unfinished = !finished
		if finished {
			dst = append(dst, replay.Event{Kind: replay.EventToolCallEnd, Block: o.block})
		}
	}
	return dst
}

// Finish ends the stream and returns the turn.
func (s *Stream) Finish() (*replay.Turn, error) {
	if !s.init {
		s.init = true
		s.turn.Provenance = Codec{Provider: s.Provider, Model: s.Model}.provenance()
	}
	for _, o := range s.opens {
		s.finalize(o, nil, false)
	}
	s.opens = nil
	t := &s.turn
	switch {
	case s.err != nil:
		t.MarkUnfinished()
		return t, s.err
	case s.perr != nil:
		t.MarkUnfinished()
		return t, s.perr
	case !s.stopped:
		t.MarkUnfinished()
		return t, &replay.Error{API: API, Event: s.n, Err: fmt.Errorf("stream ended before messageStop: %w", io.ErrUnexpectedEOF)}
	}
	t.Complete = true
	return t, nil
}

// runs appends the segments of a text block to its visible and reasoning
// runs, opening a new turn block at every change of kind.
func (s *Stream) runs(o *open, segs []think.Segment, dst []replay.Event) ([]replay.Event, error) {
	for _, sg := range segs {
		if sg.Reasoning {
			s.endVisible(o)
			if o.rsn < 0 {
				if err := s.grow(); err != nil {
					return dst, err
				}
				it := &replay.ReasoningText{}
				it.Format, it.Index, it.Unfinished = formatFor(s.Model, false), replay.Some(o.cbi), true
				o.rsn = len(s.turn.Blocks)
				s.turn.Blocks = append(s.turn.Blocks, it)
				dst = append(dst, replay.Event{Kind: replay.EventReasoningStart, Block: o.rsn, Item: it})
			}
			d, err := s.appendBytes(&o.rsnB, sg.Text)
			if err != nil {
				return dst, err
			}
			dst = append(dst, replay.Event{Kind: replay.EventReasoningDelta, Block: o.rsn, Delta: d, Item: s.turn.Blocks[o.rsn].(replay.ReasoningItem)})
			continue
		}
		dst = s.endReasoning(o, dst, true)
		if o.vis < 0 {
			if err := s.grow(); err != nil {
				return dst, err
			}
			o.vis = len(s.turn.Blocks)
			s.turn.Blocks = append(s.turn.Blocks, &replay.Text{})
		}
		d, err := s.appendBytes(&o.visB, sg.Text)
		if err != nil {
			return dst, err
		}
		dst = append(dst, replay.Event{Kind: replay.EventTextDelta, Block: o.vis, Delta: d})
	}
	return dst, nil
}

func (s *Stream) appendBytes(b *strings.Builder, p []byte) (string, error) {
	if b.Len()+len(p) > s.lim.MaxItem {
		return "", &replay.LimitError{What: "item size", Limit: s.lim.MaxItem, Event: -1, Block: -1}
	}
	k := b.Len()
	b.Write(p)
	return b.String()[k:], nil
}

// endVisible closes the current visible run of o.
func (s *Stream) endVisible(o *open) {
	if o.vis >= 0 {
		s.turn.Blocks[o.vis].(*replay.Text).Text = o.visB.String()
		o.vis, o.visB = -1, strings.Builder{}
	}
}

// endReasoning closes the current reasoning run of o.
func (s *Stream) endReasoning(o *open, dst []replay.Event, finished bool) []replay.Event {
	if o.rsn < 0 {
		return dst
	}
	it := s.turn.Blocks[o.rsn].(*replay.ReasoningText)
	it.Text, it.Unfinished = o.rsnB.String(), !finished
	if finished {
		dst = append(dst, replay.Event{Kind: replay.EventReasoningEnd, Block: o.rsn, Item: it})
	}
	o.rsn, o.rsnB = -1, strings.Builder{}
	return dst
}
