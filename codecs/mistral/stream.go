package mistral

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unsafe"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
)

// NewStream returns a decoder for chat.completion.chunk streams.
func (c Codec) NewStream() replay.FrameDecoder {
	return &Stream{Provider: c.Provider, Limits: c.Limits}
}

type call struct {
	index int
	block int
	args  strings.Builder
}

// Stream is the Mistral stream decoder. The zero value is ready to use;
// Provider and Limits play the roles of the [Codec] fields.
type Stream struct {
	Provider string
	Limits   replay.Limits

	lim     replay.Limits
	init    bool
	turn    replay.Turn
	n       int
	err     error
	perr    *replay.ProviderError
	done    bool
	reason  int // block of the open reasoning item, or -1
	rtext   strings.Builder
	text    int // block of the open text run, or -1
	ttext   strings.Builder
	calls   []*call
	scratch []byte
}

func (s *Stream) start() {
	if !s.init {
		s.init = true
		s.lim = s.Limits.WithDefaults()
		s.reason, s.text = -1, -1
		s.turn.Provenance = replay.Provenance{API: API, Provider: Codec{Provider: s.Provider}.provider()}
	}
}

// Decode decodes one chunk.
func (s *Stream) Decode(f replay.Frame, dst []replay.Event) ([]replay.Event, error) {
	s.start()
	if s.err != nil {
		return dst, s.err
	}
	n := s.n
	s.n++
	if s.perr != nil {
		return dst, nil
	}
	if string(bytes.TrimSpace(f.Data)) == "[DONE]" {
		return dst, nil
	}
	if !jsonw.ValidBytes(f.Data) {
		s.err = replay.Malformed(API, n, "", "expected a JSON chunk")
		return dst, s.err
	}
	// Read in place: the frame is valid only during this call, and
	// everything kept is copied.
	root := gjson.Parse(unsafe.String(unsafe.SliceData(f.Data), len(f.Data)))
	var err error
	dst, err = s.chunk(n, root, dst)
	if err != nil {
		s.err = err
	}
	return dst, err
}

func (s *Stream) chunk(n int, root gjson.Result, dst []replay.Event) ([]replay.Event, error) {
	if !root.IsObject() {
		return dst, replay.Malformed(API, n, "", "expected a chunk object")
	}
	if pe := providerError(root); pe != nil {
		s.perr, s.turn.Error = pe, pe
		return append(dst, replay.Event{Kind: replay.EventError, Block: -1, Err: pe}), nil
	}
	if s.turn.Provenance.Model == "" {
		if m := root.Get("model"); m.Type == gjson.String {
			s.turn.Provenance.Model = clone(m.Str)
		}
	}
	if u := root.Get("usage"); u.IsObject() {
		s.turn.Usage = raw(u.Raw)
	}
	choices := root.Get("choices")
	if !choices.Exists() || choices.Type == gjson.Null {
		return dst, nil // a usage-only chunk
	}
	choice := choices.Get("0")
	if !choices.IsArray() || (choice.Exists() && !choice.IsObject()) {
		return dst, replay.Malformed(API, n, "/choices", "expected an array of choice objects")
	}
	if !choice.Exists() {
		return dst, nil
	}
	if s.done {
		return dst, replay.Malformed(API, n, "/choices/0", "a chunk after finish_reason")
	}
	delta := choice.Get("delta")
	if delta.Exists() && !delta.IsObject() {
		return dst, replay.Malformed(API, n, "/choices/0/delta", "expected an object")
	}
	var err error
	// String values are read raw and unquoted straight into the builders,
	// so that an escaped delta costs no allocation.
	switch raw := jsonw.RawMember(delta.Raw, "content"); {
	case raw == "" || raw == "null":
	case raw[0] == '"':
		dst, err = s.textDelta(raw, dst)
	case raw[0] == '[':
		content := gjson.Parse(raw)
		content.ForEach(func(_, ch gjson.Result) bool {
			dst, err = s.contentChunk(n, ch, dst)
			return err == nil
		})
	default:
		err = replay.Malformed(API, n, "/choices/0/delta/content", "expected a string, an array or null")
	}
	if err != nil {
		return dst, err
	}
	if tcs := delta.Get("tool_calls"); tcs.IsArray() {
		k := 0
		tcs.ForEach(func(_, tc gjson.Result) bool {
			dst, err = s.toolDelta(n, k, tc, dst)
			k++
			return err == nil
		})
		if err != nil {
			return dst, err
		}
	} else if tcs.Exists() && tcs.Type != gjson.Null {
		return dst, replay.Malformed(API, n, "/choices/0/delta/tool_calls", "expected an array")
	}
	if fr := choice.Get("finish_reason"); fr.Exists() && fr.Type != gjson.Null {
		s.turn.FinishReason = clone(fr.String())
		dst = s.closeRuns(dst)
		dst = s.closeCalls(dst, true)
		s.done = true
		dst = append(dst, replay.Event{Kind: replay.EventDone, Block: -1})
	}
	return dst, nil
}

func (s *Stream) contentChunk(n int, ch gjson.Result, dst []replay.Event) ([]replay.Event, error) {
	if ch.Type == gjson.String {
		return s.textDelta(ch.Raw, dst)
	}
	if !ch.IsObject() {
		return dst, replay.Malformed(API, n, "/choices/0/delta/content", "expected chunk objects")
	}
	switch ch.Get("type").String() {
	case "text":
		x := jsonw.RawMember(ch.Raw, "text")
		if x == "" || x[0] != '"' {
			return dst, replay.Malformed(API, n, "/choices/0/delta/content", "expected a string text")
		}
		return s.textDelta(x, dst)
	case "thinking":
		th := ch.Get("thinking")
		if !th.IsArray() && th.Type != gjson.String {
			return dst, replay.Malformed(API, n, "/choices/0/delta/content", "expected thinking to be an array")
		}
		textOnly := th.Type == gjson.String
		if !textOnly {
			textOnly = true
			th.ForEach(func(_, p gjson.Result) bool {
				t := jsonw.RawMember(p.Raw, "text")
				textOnly = p.Get("type").String() == "text" && t != "" && t[0] == '"'
				return textOnly
			})
		}
		if !textOnly {
			break // kept verbatim below
		}
		dst = s.closeText(dst)
		if s.reason < 0 {
			if err := s.grow(); err != nil {
				return dst, err
			}
			it := &replay.ReasoningText{}
			it.Format, it.Unfinished = formats.Mistral, true
			s.reason = len(s.turn.Blocks)
			s.turn.Blocks = append(s.turn.Blocks, it)
			dst = append(dst, replay.Event{Kind: replay.EventReasoningStart, Block: s.reason, Item: it})
		}
		it := s.turn.Blocks[s.reason].(*replay.ReasoningText)
		s.setExtra(it, ch)
		var err error
		emit := func(piece string) {
			if piece == `""` || err != nil {
				return
			}
			var d string
			if d, err = s.appendTo(&s.rtext, piece); err == nil {
				dst = append(dst, replay.Event{Kind: replay.EventReasoningDelta, Block: s.reason, Delta: d, Item: it})
			}
		}
		if th.Type == gjson.String {
			emit(th.Raw)
		} else {
			th.ForEach(func(_, p gjson.Result) bool {
				emit(jsonw.RawMember(p.Raw, "text"))
				return err == nil
			})
		}
		return dst, err
	}
	// Another chunk type: kept verbatim as its own block.
	dst = s.closeRuns(dst)
	if err := s.grow(); err != nil {
		return dst, err
	}
	kind := ch.Get("type").String()
	if kind == "" {
		kind = "chunk"
	}
	s.turn.Blocks = append(s.turn.Blocks, &replay.Native{Kind: clone(kind), Raw: raw(ch.Raw)})
	return dst, nil
}

// setExtra keeps the thinking chunk's other members (`closed`) on the item,
// allocating only when they change.
func (s *Stream) setExtra(it *replay.ReasoningText, ch gjson.Result) {
	buf := s.scratch[:0]
	ch.ForEach(func(k, v gjson.Result) bool {
		if k.Str == "type" || k.Str == "thinking" {
			return true
		}
		if len(buf) == 0 {
			buf = append(buf, '{')
		} else {
			buf = append(buf, ',')
		}
		buf = append(buf, k.Raw...)
		buf = append(buf, ':')
		buf = append(buf, v.Raw...)
		return true
	})
	if len(buf) > 0 {
		buf = append(buf, '}')
	}
	s.scratch = buf
	if !bytes.Equal(buf, it.Extra) {
		if len(buf) == 0 {
			it.Extra = nil
		} else {
			it.Extra = json.RawMessage(append([]byte(nil), buf...))
		}
	}
}

// textDelta appends the JSON string literal piece to the text run.
func (s *Stream) textDelta(piece string, dst []replay.Event) ([]replay.Event, error) {
	if piece == `""` {
		return dst, nil
	}
	dst = s.closeReasoning(dst)
	if s.text < 0 {
		if err := s.grow(); err != nil {
			return dst, err
		}
		s.text = len(s.turn.Blocks)
		s.turn.Blocks = append(s.turn.Blocks, &replay.Text{})
	}
	d, err := s.appendTo(&s.ttext, piece)
	if err != nil {
		return dst, err
	}
	return append(dst, replay.Event{Kind: replay.EventTextDelta, Block: s.text, Delta: d}), nil
}

func (s *Stream) toolDelta(n, k int, tc gjson.Result, dst []replay.Event) ([]replay.Event, error) {
	if !tc.IsObject() {
		return dst, replay.Malformed(API, n, "/choices/0/delta/tool_calls", "expected tool call objects")
	}
	index := k
	if ix := tc.Get("index"); ix.Type == gjson.Number {
		index = int(ix.Int())
	}
	var c *call
	for _, x := range s.calls {
		if x.index == index {
			c = x
			break
		}
	}
	fn := tc.Get("function")
	if c == nil {
		dst = s.closeRuns(dst)
		if err := s.grow(); err != nil {
			return dst, err
		}
		tcall := &replay.ToolCall{ID: clone(tc.Get("id").String()), Name: clone(fn.Get("name").String()), Unfinished: true}
		c = &call{index: index, block: len(s.turn.Blocks)}
		s.calls = append(s.calls, c)
		s.turn.Blocks = append(s.turn.Blocks, tcall)
		dst = append(dst, replay.Event{Kind: replay.EventToolCallStart, Block: c.block, ID: tcall.ID, Name: tcall.Name})
	}
	args := jsonw.RawMember(fn.Raw, "arguments")
	var d string
	var err error
	switch {
	case args == "" || args == "null" || args == `""`:
		return dst, nil
	case args[0] == '"':
		d, err = s.appendTo(&c.args, args)
	case args[0] == '{':
		d, err = s.appendVerbatim(&c.args, args)
	default:
		return dst, replay.Malformed(API, n, "/choices/0/delta/tool_calls", "expected string arguments")
	}
	if err != nil {
		return dst, err
	}
	return append(dst, replay.Event{Kind: replay.EventToolCallDelta, Block: c.block, Delta: d}), nil
}

func (s *Stream) grow() error {
	if len(s.turn.Blocks) >= s.lim.MaxBlocks {
		return &replay.LimitError{What: "block count", Limit: s.lim.MaxBlocks, Event: -1, Block: -1}
	}
	return nil
}

// appendTo appends the value of the JSON string literal lit to b and
// returns the appended bytes as an immutable string.
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

// appendVerbatim appends raw JSON text to b.
func (s *Stream) appendVerbatim(b *strings.Builder, raw string) (string, error) {
	if b.Len()+len(raw) > s.lim.MaxItem {
		return "", &replay.LimitError{What: "item size", Limit: s.lim.MaxItem, Event: -1, Block: -1}
	}
	k := b.Len()
	b.WriteString(raw)
	return b.String()[k:], nil
}

func (s *Stream) closeReasoning(dst []replay.Event) []replay.Event {
	if s.reason < 0 {
		return dst
	}
	it := s.turn.Blocks[s.reason].(*replay.ReasoningText)
	it.Text, it.Unfinished = s.rtext.String(), false
	dst = append(dst, replay.Event{Kind: replay.EventReasoningEnd, Block: s.reason, Item: it})
	s.reason, s.rtext = -1, strings.Builder{}
	return dst
}

func (s *Stream) closeText(dst []replay.Event) []replay.Event {
	if s.text >= 0 {
		s.turn.Blocks[s.text].(*replay.Text).Text = s.ttext.String()
		s.text, s.ttext = -1, strings.Builder{}
	}
	return dst
}

func (s *Stream) closeRuns(dst []replay.Event) []replay.Event {
	return s.closeText(s.closeReasoning(dst))
}

func (s *Stream) closeCalls(dst []replay.Event, finished bool) []replay.Event {
	for _, c := range s.calls {
		tc := s.turn.Blocks[c.block].(*replay.ToolCall)
		tc.Arguments, tc.Unfinished = c.args.String(), !finished
		if finished {
			dst = append(dst, replay.Event{Kind: replay.EventToolCallEnd, Block: c.block})
		}
	}
	s.calls = nil
	return dst
}

// Finish ends the stream and returns the turn.
func (s *Stream) Finish() (*replay.Turn, error) {
	s.start()
	t := &s.turn
	if !s.done || s.err != nil || s.perr != nil {
		// Keep what arrived, marked unfinished.
		if s.reason >= 0 {
			it := t.Blocks[s.reason].(*replay.ReasoningText)
			it.Text = s.rtext.String()
			s.reason = -1
		}
		s.closeText(nil)
		s.closeCalls(nil, false)
		t.MarkUnfinished()
	}
	switch {
	case s.err != nil:
		return t, s.err
	case s.perr != nil:
		return t, s.perr
	case !s.done:
		return t, &replay.Error{API: API, Event: s.n, Err: fmt.Errorf("stream ended before a finish_reason: %w", io.ErrUnexpectedEOF)}
	}
	t.Complete = true
	return t, nil
}
