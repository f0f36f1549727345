package ollama

import (
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/engine"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/stream"
	"github.com/reasonreplay/replay/think"
)

// Decode reads a non-streamed /api/chat response body. An error body
// (`{"error":"..."}`) returns a *[replay.ProviderError].
func (c Codec) Decode(body []byte) (*replay.Turn, error) {
	if err := kit.CheckBody(API, body, "a JSON chat response"); err != nil {
		return nil, err
	}
	var ev event
	if !ev.scan(string(body)) || !ev.object {
		return nil, codecs.Malformed(API, -1, "", "expected a JSON object (a chat response)")
	}
	if ev.err != "" {
		return nil, providerError(ev.err)
	}
	bud := kit.NewBudget(API, c.Limits, -1)
	t := &replay.Turn{Provenance: replay.Provenance{API: API, Provider: c.provider()}}
	b := builder{bud: &bud, turn: t}
	if err := b.message(&ev, "/message"); err != nil {
		return nil, err
	}
	if ev.done != "true" {
		return nil, codecs.Malformed(API, -1, "/done", "expected a finished response (\"done\": true); the lines of a stream are read by the stream decoder")
	}
	if err := b.finish(&ev); err != nil {
		return nil, err
	}
	t.Complete = true
	return t, nil
}

// providerError is the error an error object's message (a JSON string, or
// another value kept as its text) reports.
func providerError(raw string) *replay.ProviderError {
	msg := raw
	if len(raw) > 0 && raw[0] == '"' {
		msg = jsonw.Unquote(raw)
	} else {
		msg = strings.Clone(raw)
	}
	return &replay.ProviderError{API: API, Message: msg}
}

// The block a builder has open.
const (
	openNone     = iota
	openThinking // a reasoning item of the native thinking member
	openTag      // a reasoning item of <think> tags in content
	openText
)

// builder turns the pieces of one assistant message into the turn's
// blocks, in the order they come: a reasoning item per run of thinking, a
// text block per run of visible content, a tool call per call. The body
// decoder and the request reader give it a whole message, the stream
// decoder one line's pieces at a time, so that a stream and its whole body
// make the same turn. Every kept byte counts against the budget.
type builder struct {
	bud  *kit.Budget
	run  *engine.Run // the stream's engine (values decoded while matching), nil for a body
	turn *replay.Turn
	emit bool
	ev   []stream.Event

	open  int
	at    int // the open block's position in the turn
	item  *replay.ReasoningText
	text  *replay.Text
	b     strings.Builder // the open block's text
	hi    rune            // a high surrogate half ending the open block's last piece
	calls int             // tool calls read, for pointers

	// Content goes through the <think> splitter; a native thinking member
	// makes the reasoning tags carry dropped.
	native    bool
	split     *think.Splitter
	segs      []think.Segment
	contentHi rune
	scratch   strings.Builder
}

func (b *builder) push(e stream.Event) {
	if b.emit {
		b.ev = append(b.ev, e)
	}
}

func (b *builder) malformed(ptr, format string, args ...any) error {
	return codecs.Malformed(API, b.bud.Event, ptr, format, args...)
}

// message reads the members of a message (or a stream line's piece of
// one) that ev holds: thinking, content, tool calls, in that order.
func (b *builder) message(ev *event, ptr string) error {
	switch m := ev.message; {
	case m == "" || m == "null":
		return nil
	case m[0] != '{':
		return b.malformed(ptr, "expected a message object")
	}
	if err := b.thinking(ev.thinking, ptr+"/thinking"); err != nil {
		return err
	}
	if err := b.content(ev.content, ptr+"/content"); err != nil {
		return err
	}
	switch tcs := ev.toolCalls; {
	case tcs == "" || tcs == "null":
	case tcs[0] != '[':
		return b.malformed(ptr+"/tool_calls", "expected an array")
	default:
		for tc, pos, ok := jsonw.NextElem(tcs, 0); ok; tc, pos, ok = jsonw.NextElem(tcs, pos) {
			if err := b.toolCall(tc, ptr+"/tool_calls/"+strconv.Itoa(b.calls)); err != nil {
				return err
			}
			b.calls++
		}
	}
	return nil
}

// thinking appends a piece of the native thinking member (the JSON
// literal raw) to the open reasoning item, opening one when another
// block is open.
func (b *builder) thinking(raw, ptr string) error {
	switch {
	case raw == "" || raw == "null":
		return nil
	case raw[0] != '"':
		return b.malformed(ptr, "expected a string")
	case raw == `""`:
		return nil
	}
	b.native = true
	if b.open != openThinking {
		if err := b.openItem(openThinking, nil); err != nil {
			return err
		}
	}
	start := b.b.Len()
	if v, ok := b.decoded(raw); ok && b.hi == 0 {
		b.b.WriteString(v)
	} else {
		jsonw.WriteUnquotedJoin(&b.b, raw, &b.hi)
	}
	return b.grew(start, stream.EventReasoningDelta)
}

// decoded returns raw's value as the stream's engine decoded it while
// matching the line, when it did.
func (b *builder) decoded(raw string) (string, bool) {
	if b.run == nil {
		return "", false
	}
	return b.run.Decoded(raw)
}

// content feeds a piece of content (the JSON literal raw) to the <think>
// splitter, and its visible and reasoning runs to their blocks.
func (b *builder) content(raw, ptr string) error {
	switch {
	case raw == "" || raw == "null":
		return nil
	case raw[0] != '"':
		return b.malformed(ptr, "expected a string")
	case raw == `""`:
		return nil
	}
	var s string
	if v, ok := b.decoded(raw); ok && b.contentHi == 0 {
		s = v
	} else if b.contentHi == 0 && strings.IndexByte(raw, '\\') < 0 {
		s = raw[1 : len(raw)-1]
	} else {
		b.scratch.Reset()
		jsonw.WriteUnquotedJoin(&b.scratch, raw, &b.contentHi)
		s = b.scratch.String()
	}
	if s == "" {
		return nil
	}
	if b.split == nil {
		b.split = &think.Splitter{}
		// Visible from the first byte: Ollama separates thinking itself
		// when asked, and content then streams as it comes.
		if sp, err := think.New(think.Options{Start: think.StartVisible}); err == nil {
			b.split = sp
		}
	}
	b.segs = b.split.WriteString(b.segs[:0], s)
	return b.segments()
}

// segments writes the splitter's output to the blocks.
func (b *builder) segments() error {
	for _, sg := range b.segs {
		kind := openText
		if sg.Reasoning {
			if b.native {
				continue // native thinking is authoritative
			}
			kind = openTag
		}
		if b.open != kind {
			var err error
			if kind == openText {
				err = b.openText()
			} else {
				err = b.openItem(openTag, []byte(`{"source":"content"}`))
			}
			if err != nil {
				return err
			}
		}
		start := b.b.Len()
		b.b.Write(sg.Text)
		ev := stream.EventTextDelta
		if sg.Reasoning {
			ev = stream.EventReasoningDelta
		}
		if err := b.grew(start, ev); err != nil {
			return err
		}
	}
	b.segs = b.segs[:0]
	return nil
}

// grew counts what the open block's text grew by since start and emits it.
func (b *builder) grew(start int, kind stream.EventKind) error {
	if err := b.bud.Item(b.at, b.b.Len(), b.b.Len()-start); err != nil {
		return err
	}
	if b.b.Len() == start {
		return nil
	}
	e := stream.Event{Kind: kind, Block: b.at, Delta: b.b.String()[start:]}
	if kind == stream.EventReasoningDelta {
		e.Item = b.item
	}
	b.push(e)
	return nil
}

// add appends a block to the turn within the budget and returns its
// position.
func (b *builder) add(bl replay.Block) (int, error) {
	at := len(b.turn.Blocks)
	if err := b.bud.Block(at); err != nil {
		return 0, err
	}
	b.turn.Blocks = append(b.turn.Blocks, bl)
	return at, nil
}

// openItem closes the open block and opens a reasoning item of the given
// kind (extra its Extra).
func (b *builder) openItem(kind int, extra []byte) error {
	b.close(true)
	it := &replay.ReasoningText{}
	it.Format, it.Unfinished, it.Extra = replay.FormatUnknown, true, extra
	at, err := b.add(it)
	if err != nil {
		return err
	}
	b.open, b.at, b.item = kind, at, it
	b.push(stream.Event{Kind: stream.EventReasoningStart, Block: at, Item: it})
	return nil
}

// openText closes the open block and opens a visible text block.
func (b *builder) openText() error {
	b.close(true)
	t := &replay.Text{}
	at, err := b.add(t)
	if err != nil {
		return err
	}
	b.open, b.at, b.text = openText, at, t
	return nil
}

// close writes the open block's text into it; finished says whether the
// message went on past it (only then is a reasoning item finished, with
// its end event).
func (b *builder) close(finished bool) {
	jsonw.FlushHalf(&b.b, &b.hi) // a half with no partner: U+FFFD
	switch b.open {
	case openThinking, openTag:
		b.item.Text, b.item.Unfinished = b.b.String(), !finished
		if finished {
			b.push(stream.Event{Kind: stream.EventReasoningEnd, Block: b.at, Item: b.item})
		}
	case openText:
		b.text.Text = b.b.String()
	}
	b.open, b.item, b.text, b.b = openNone, nil, nil, strings.Builder{}
}

// toolCall reads a whole tool call, `{"id"?,"function":{"index"?,"name",
// "arguments":{...}}}`, into a block: its id and name kept, its arguments
// as their JSON text, every other member in Extra (those of function
// under "function").
func (b *builder) toolCall(raw, ptr string) error {
	var v [2]string
	if raw == "" || raw[0] != '{' || !jsonw.RawMembers(raw, callKeys, v[:]) {
		return b.malformed(ptr, "expected a tool call object")
	}
	id, fn := v[0], v[1]
	var f [2]string
	if fn == "" || fn[0] != '{' || !jsonw.RawMembers(fn, funcKeys, f[:]) {
		return b.malformed(ptr+"/function", "expected a function object")
	}
	name, args := f[0], f[1]
	if id != "" && id != "null" && id[0] != '"' {
		return b.malformed(ptr+"/id", "expected a string")
	}
	if name != "" && name[0] != '"' {
		return b.malformed(ptr+"/function/name", "expected a string")
	}
	// An id or a name must come back byte for byte: a lone surrogate
	// escape, read as U+FFFD, would alter it.
	if jsonw.Lone(id) {
		return b.malformed(ptr+"/id", "a lone surrogate escape in a tool call id")
	}
	if jsonw.Lone(name) {
		return b.malformed(ptr+"/function/name", "a lone surrogate escape in a tool call name")
	}
	b.close(true)
	c := &replay.ToolCall{}
	at := len(b.turn.Blocks)
	var err error
	if len(id) > 2 && id[0] == '"' {
		if c.ID, err = b.bud.Keep(at, jsonw.Unquote(id)); err != nil {
			return err
		}
	}
	if len(name) >= 2 {
		if c.Name, err = b.bud.Keep(at, jsonw.Unquote(name)); err != nil {
			return err
		}
	}
	switch {
	case args == "" || args == "null":
		c.Unfinished = true // what a cut request leaves
	case args[0] == '{':
		c.Arguments, err = b.bud.Keep(at, args)
	case args[0] == '"':
		c.Arguments, err = b.bud.Keep(at, jsonw.Unquote(args))
	default:
		return b.malformed(ptr+"/function/arguments", "expected an object")
	}
	if err != nil {
		return err
	}
	if name == "" {
		c.Unfinished = true
	}
	if c.Extra = callExtra(raw, fn); len(c.Extra) > 0 {
		if err := b.bud.Item(at, len(c.Extra), len(c.Extra)); err != nil {
			return err
		}
	}
	if _, err := b.add(c); err != nil {
		return err
	}
	b.push(stream.Event{Kind: stream.EventToolCallStart, Block: at, ID: c.ID, Name: c.Name})
	if c.Arguments != "" {
		b.push(stream.Event{Kind: stream.EventToolCallDelta, Block: at, Delta: c.Arguments})
	}
	if !c.Unfinished {
		b.push(stream.Event{Kind: stream.EventToolCallEnd, Block: at, ID: c.ID, Name: c.Name})
	}
	return nil
}

var (
	callKeys = []string{"id", "function"}
	funcKeys = []string{"name", "arguments"}
)

// callExtra returns the members of a tool call other than id and
// function, and under "function" those of its function other than name
// and arguments (`index`), as one object; nil when there are none.
func callExtra(call, fn string) []byte {
	inner := jsonw.ExtraMembers(fn, funcKeys...)
	outer := jsonw.ExtraMembers(call, callKeys...)
	if inner == nil {
		return outer
	}
	out := append([]byte(`{"function":`), inner...)
	out = jsonw.Members(out, outer)
	return append(out, '}')
}

// end ends the message: what the splitter holds is written out, and the
// open block closes.
func (b *builder) end() error {
	if err := b.flush(); err != nil {
		return err
	}
	b.close(true)
	return nil
}

// flush writes out what the splitter holds (a partial tag, a surrogate
// half).
func (b *builder) flush() error {
	if b.split != nil {
		if b.contentHi != 0 {
			b.contentHi = 0
			b.segs = b.split.WriteString(b.segs[:0], "\uFFFD")
			if err := b.segments(); err != nil {
				return err
			}
		}
		b.segs = b.split.Close(b.segs[:0])
		if err := b.segments(); err != nil {
			return err
		}
	}
	return nil
}

// finish ends the message of a finished response (ev, its last line) and
// keeps its model, done_reason and counters.
func (b *builder) finish(ev *event) error {
	if err := b.end(); err != nil {
		return err
	}
	t := b.turn
	var err error
	if t.Provenance.Model == "" && len(ev.model) > 2 && ev.model[0] == '"' {
		if t.Provenance.Model, err = b.bud.Keep(-1, jsonw.Unquote(ev.model)); err != nil {
			return err
		}
	}
	if r := ev.doneReason; len(r) >= 2 && r[0] == '"' {
		if t.FinishReason, err = b.bud.Keep(-1, jsonw.Unquote(r)); err != nil {
			return err
		}
	}
	if u := ev.usage(); len(u) > 0 {
		if err := b.bud.Item(-1, len(u), len(u)); err != nil {
			return err
		}
		t.Usage = u
	}
	return nil
}
