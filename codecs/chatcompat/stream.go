package chatcompat

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/gemsig"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/think"
	"github.com/tidwall/gjson"
)

// StreamDecoder decodes a chat completion stream, one SSE data payload (or
// JSONL line) at a time. The zero value decodes with the [Generic]
// profile; it implements [replay.FrameDecoder].
type StreamDecoder struct {
	// API is the API name used in errors and provenance
	// ("openai-compatible" when empty).
	API string
	// Profile holds the host's rules.
	Profile Profile
	// Limits bound item size and block count; zero fields take defaults.
	Limits replay.Limits
	// Status is recorded on provider errors.
	Status int

	turn     replay.Turn
	inited   bool
	started  bool
	finished bool
	ended    bool
	err      error
	nEvents  int

	split  think.Splitter
	segs   []think.Segment
	native bool // the message has native reasoning

	cur   int // kind of the open block: 0 none, curText, curNative, curTag
	items []*itemState
	textB strings.Builder
	runs  []textRun
	tools []int // tool call index -> block position + 1
	argB  []*strings.Builder
	carry carry // a held high surrogate (see surrogate.go)
}

const (
	curText = 1 + iota
	curNative
	curTag
)

type textRun struct{ pos, start, end int }

type itemState struct {
	block int
	body  strings.Builder
	item  *replay.ReasoningText
	tag   bool
}

var doneMarker = []byte("[DONE]")

func (d *StreamDecoder) api() string {
	if d.API == "" {
		return APIGeneric
	}
	return d.API
}

func (d *StreamDecoder) init() {
	if d.inited {
		return
	}
	d.inited = true
	if d.Profile.Name == "" {
		d.Profile = Generic
	}
	sp, err := think.New(think.Options{Start: d.Profile.Start})
	if err == nil {
		d.split = *sp
	}
}

func (d *StreamDecoder) begin(root gjson.Result) {
	d.init()
	if d.started {
		return
	}
	d.started = true
	d.turn.Provenance = replay.Provenance{API: d.api(), Provider: d.Profile.Provider, Model: clone(root.Get("model").Str)}
}

// Decode implements [replay.FrameDecoder].
func (d *StreamDecoder) Decode(f replay.Frame, dst []replay.Event) ([]replay.Event, error) {
	d.init()
	if d.err != nil {
		return dst, d.err
	}
	n := d.nEvents
	d.nEvents++
	data := bytes.TrimSpace(f.Data)
	if bytes.Equal(data, doneMarker) {
		d.finished = true
		return d.end(dst), nil
	}
	if len(data) == 0 {
		return dst, nil
	}
	if !jsonw.ValidBytes(data) {
		d.err = replay.Malformed(d.api(), n, "", "expected a JSON chat completion chunk")
		return dst, d.err
	}
	root := gjson.ParseBytes(data)
	if !root.IsObject() {
		d.err = replay.Malformed(d.api(), n, "", "expected a JSON object (a chat completion chunk)")
		return dst, d.err
	}
	d.begin(root)
	if e := root.Get("error"); e.Exists() && e.Type != gjson.Null {
		pe := providerError(d.api(), d.Status, e)
		d.turn.Error = pe
		d.err = pe
		return append(dst, replay.Event{Kind: replay.EventError, Block: -1, Err: pe}), pe
	}
	if u := root.Get("usage"); u.IsObject() {
		d.turn.Usage = append(d.turn.Usage[:0], u.Raw...)
	}
	choice := root.Get("choices.0")
	if !choice.Exists() {
		return dst, nil // a usage-only or empty chunk
	}
	if !choice.IsObject() {
		d.err = replay.Malformed(d.api(), n, "/choices/0", "expected a choice object")
		return dst, d.err
	}
	if d.ended {
		return dst, nil
	}
	var err error
	if dst, err = d.delta(choice.Get("delta"), n, "/choices/0/delta", dst); err != nil {
		d.err = err
		return dst, err
	}
	if fr := choice.Get("finish_reason"); fr.Type == gjson.String {
		d.turn.FinishReason = clone(fr.Str)
		d.finished = true
		dst = d.end(dst)
	}
	return dst, nil
}

// delta reads one delta (or a whole message).
func (d *StreamDecoder) delta(delta gjson.Result, n int, ptr string, dst []replay.Event) ([]replay.Event, error) {
	if !delta.Exists() || delta.Type == gjson.Null {
		return dst, nil
	}
	if !delta.IsObject() {
		return dst, replay.Malformed(d.api(), n, ptr, "expected an object")
	}
	var err error
	// One native reasoning field per chunk: mirrored text counts once.
	read := false
	if rd := delta.Get("reasoning_details"); rd.IsArray() {
		rd.ForEach(func(_, det gjson.Result) bool {
			if det.Get("type").Str != string(replay.KindText) {
				return true
			}
			if t := det.Get("text"); t.Type == gjson.String && t.Str != "" {
				read = true
				if dst, err = d.settle(chNone, 0, dst); err == nil {
					dst, err = d.nativeText(t.Str, true, dst)
				}
			}
			return err == nil
		})
		if err != nil {
			return dst, err
		}
	}
	if !read {
		for _, name := range [...]string{"reasoning_content", "reasoning"} {
			if r := delta.Get(name); r.Type == gjson.String && r.Str != "" {
				var s string
				if s, dst, err = d.join16(chNative, 0, r.Raw, r.Str, dst); err == nil {
					dst, err = d.nativeText(s, false, dst)
				}
				if err != nil {
					return dst, err
				}
				break
			}
		}
	}
	switch c := delta.Get("content"); {
	case c.Type == gjson.String && c.Str != "":
		var s string
		if s, dst, err = d.join16(chContent, 0, c.Raw, c.Str, dst); err == nil && s != "" {
			dst, err = d.content(s, dst)
		}
		if err != nil {
			return dst, err
		}
	case c.Exists() && c.Type != gjson.String && c.Type != gjson.Null:
		return dst, replay.Malformed(d.api(), n, ptr+"/content", "expected a string or null (content arrays are not read by this codec)")
	}
	if tcs := delta.Get("tool_calls"); tcs.IsArray() {
		k := 0
		tcs.ForEach(func(_, tc gjson.Result) bool {
			dst, err = d.toolCall(tc, n, ptr+"/tool_calls/"+strconv.Itoa(k), k, dst)
			k++
			return err == nil
		})
	}
	return dst, err
}

func (d *StreamDecoder) limits() replay.Limits { return d.Limits.WithDefaults() }

func (d *StreamDecoder) newBlock(b replay.Block, kind int) (int, error) {
	if len(d.turn.Blocks) >= d.limits().MaxBlocks {
		return 0, &replay.LimitError{What: "block count", Limit: d.limits().MaxBlocks, Event: -1, Block: -1}
	}
	d.turn.Blocks = append(d.turn.Blocks, b)
	d.cur = kind
	return len(d.turn.Blocks) - 1, nil
}

func (d *StreamDecoder) checkSize(n int) error {
	if max := d.limits().MaxItem; n > max {
		return &replay.LimitError{What: "item size", Limit: max, Event: -1, Block: -1}
	}
	return nil
}

// reasoning appends s to the open reasoning item of the kind, opening one
// when needed.
func (d *StreamDecoder) reasoning(s string, kind int, cumulative bool, dst []replay.Event) ([]replay.Event, error) {
	var st *itemState
	if d.cur == kind && len(d.items) > 0 {
		st = d.items[len(d.items)-1]
	} else {
		st = &itemState{item: &replay.ReasoningText{}, tag: kind == curTag}
		st.item.Format = d.Profile.Format
		if st.tag {
			st.item.Extra = []byte(`{"source":"content"}`)
		}
		var err error
		if st.block, err = d.newBlock(st.item, kind); err != nil {
			return dst, err
		}
		d.items = append(d.items, st)
		dst = append(dst, replay.Event{Kind: replay.EventReasoningStart, Block: st.block, Item: st.item})
	}
	if cumulative && st.body.Len() >= 8 && len(s) > st.body.Len() && strings.HasPrefix(s, st.body.String()) {
		s = s[st.body.Len():]
	}
	if err := d.checkSize(st.body.Len() + len(s)); err != nil {
		return dst, err
	}
	start := st.body.Len()
	st.body.WriteString(s)
	return append(dst, replay.Event{Kind: replay.EventReasoningDelta, Block: st.block, Item: st.item, Delta: st.body.String()[start:]}), nil
}

func (d *StreamDecoder) nativeText(s string, cumulative bool, dst []replay.Event) ([]replay.Event, error) {
	if !d.native {
		d.native = true
		// a host that parses reasoning does not pre-open tags in content
		d.segs = d.split.Release(d.segs[:0])
		var err error
		if dst, err = d.segments(dst); err != nil {
			return dst, err
		}
	}
	if s == "" {
		return dst, nil // only half of a surrogate pair so far
	}
	return d.reasoning(s, curNative, cumulative, dst)
}

func (d *StreamDecoder) content(s string, dst []replay.Event) ([]replay.Event, error) {
	d.segs = d.split.WriteString(d.segs[:0], s)
	return d.segments(dst)
}

// segments turns the splitter's output into blocks.
func (d *StreamDecoder) segments(dst []replay.Event) ([]replay.Event, error) {
	var err error
	for _, sg := range d.segs {
		if sg.Reasoning {
			if d.native {
				continue // native reasoning is authoritative
			}
			if dst, err = d.reasoning(string(sg.Text), curTag, false, dst); err != nil {
				return dst, err
			}
			continue
		}
		if d.cur != curText {
			pos, err := d.newBlock(&replay.Text{}, curText)
			if err != nil {
				return dst, err
			}
			d.runs = append(d.runs, textRun{pos: pos, start: d.textB.Len(), end: d.textB.Len()})
		}
		run := &d.runs[len(d.runs)-1]
		if err := d.checkSize(run.end - run.start + len(sg.Text)); err != nil {
			return dst, err
		}
		start := d.textB.Len()
		d.textB.Write(sg.Text)
		run.end = d.textB.Len()
		dst = append(dst, replay.Event{Kind: replay.EventTextDelta, Block: run.pos, Delta: d.textB.String()[start:]})
	}
	d.segs = d.segs[:0]
	return dst, nil
}

var toolCallKnown = []string{"index", "id", "type", "function"}

func (d *StreamDecoder) toolCall(tc gjson.Result, n int, ptr string, pos int, dst []replay.Event) ([]replay.Event, error) {
	if !tc.IsObject() {
		return dst, replay.Malformed(d.api(), n, ptr, "expected a tool call object")
	}
	idx := pos
	if ix := tc.Get("index"); ix.Type == gjson.Number {
		idx = int(ix.Int())
	}
	if idx < 0 || idx >= d.limits().MaxBlocks {
		return dst, replay.Malformed(d.api(), n, ptr+"/index", "tool call index %d out of range", idx)
	}
	var err error
	if dst, err = d.settle(chArgs, idx, dst); err != nil {
		return dst, err
	}
	for len(d.tools) <= idx {
		d.tools = append(d.tools, 0)
		d.argB = append(d.argB, nil)
	}
	var call *replay.ToolCall
	if d.tools[idx] == 0 {
		raw := []byte(tc.Raw)
		sig, ok, err := gemsig.Read(tc)
		if err != nil {
			return dst, replay.Malformed(d.api(), n, ptr+"/extra_content/google/thought_signature", "%v", err)
		}
		id := clone(tc.Get("id").Str)
		if ok {
			if raw, err = gemsig.Strip(raw); err != nil {
				return dst, replay.Malformed(d.api(), n, ptr, "%v", err)
			}
			it := gemsig.Item(sig, id)
			p, err := d.newBlock(it, 0)
			if err != nil {
				return dst, err
			}
			dst = append(dst, replay.Event{Kind: replay.EventReasoningStart, Block: p, Item: it},
				replay.Event{Kind: replay.EventReasoningEnd, Block: p, Item: it})
		}
		call = &replay.ToolCall{ID: id, Name: clone(tc.Get("function.name").Str),
			Extra: extraMembers(gjson.ParseBytes(raw), toolCallKnown)}
		p, err := d.newBlock(call, 0)
		if err != nil {
			return dst, err
		}
		d.tools[idx] = p + 1
		d.argB[idx] = &strings.Builder{}
		dst = append(dst, replay.Event{Kind: replay.EventToolCallStart, Block: p, ID: call.ID, Name: call.Name})
	} else {
		call = d.turn.Blocks[d.tools[idx]-1].(*replay.ToolCall)
		if call.ID == "" {
			call.ID = clone(tc.Get("id").Str)
		}
		if call.Name == "" {
			call.Name = clone(tc.Get("function.name").Str)
		}
	}
	if a := jsonw.RawMember(jsonw.RawMember(tc.Raw, "function"), "arguments"); len(a) > 2 && a[0] == '"' {
		if d.carry.hi != 0 || highTail(a) != 0 {
			// a surrogate half held or to hold: decode, then join
			var tmp strings.Builder
			jsonw.WriteUnquoted(&tmp, a)
			s, dst, err := d.join16(chArgs, idx, a, tmp.String(), dst)
			if err != nil {
				return dst, err
			}
			return d.writeArgs(idx, s, dst)
		}
		b := d.argB[idx]
		if err := d.checkSize(b.Len() + len(a)); err != nil {
			return dst, err
		}
		start := b.Len()
		jsonw.WriteUnquoted(b, a)
		dst = append(dst, replay.Event{Kind: replay.EventToolCallDelta, Block: d.tools[idx] - 1, Delta: b.String()[start:]})
	}
	return dst, nil
}

// writeArgs appends decoded argument text to tool call idx.
func (d *StreamDecoder) writeArgs(idx int, s string, dst []replay.Event) ([]replay.Event, error) {
	if s == "" {
		return dst, nil
	}
	b := d.argB[idx]
	if err := d.checkSize(b.Len() + len(s)); err != nil {
		return dst, err
	}
	start := b.Len()
	b.WriteString(s)
	return append(dst, replay.Event{Kind: replay.EventToolCallDelta, Block: d.tools[idx] - 1, Delta: b.String()[start:]}), nil
}

// extraMembers returns the members of obj not in known, as one JSON object in
// source order (a repeated name kept once), or nil.
func extraMembers(obj gjson.Result, known []string) []byte {
	return jsonw.ExtraMembers(obj.Raw, known...)
}

// end flushes the splitter and emits the end events, once.
func (d *StreamDecoder) end(dst []replay.Event) []replay.Event {
	if d.ended {
		return dst
	}
	d.ended = true
	var err error
	if dst, err = d.settle(chNone, 0, dst); err != nil {
		d.err = err
		return dst
	}
	d.segs = d.split.Close(d.segs[:0])
	if dst, err = d.segments(dst); err != nil {
		d.err = err
		return dst
	}
	d.materialize()
	for _, st := range d.items {
		dst = append(dst, replay.Event{Kind: replay.EventReasoningEnd, Block: st.block, Item: st.item})
	}
	for _, p := range d.tools {
		if p > 0 {
			dst = append(dst, replay.Event{Kind: replay.EventToolCallEnd, Block: p - 1})
		}
	}
	return append(dst, replay.Event{Kind: replay.EventDone, Block: -1})
}

func (d *StreamDecoder) materialize() {
	for _, st := range d.items {
		st.item.Text = st.body.String()
	}
	for i, p := range d.tools {
		if p > 0 {
			d.turn.Blocks[p-1].(*replay.ToolCall).Arguments = d.argB[i].String()
		}
	}
	all := d.textB.String()
	for _, r := range d.runs {
		d.turn.Blocks[r.pos].(*replay.Text).Text = all[r.start:r.end]
	}
}

// Finish implements [replay.FrameDecoder].
func (d *StreamDecoder) Finish() (*replay.Turn, error) {
	d.init()
	if !d.ended && d.err == nil {
		// flush what the splitter holds so the partial turn has it
		_, _ = d.settle(chNone, 0, nil)
		d.segs = d.split.Close(d.segs[:0])
		_, _ = d.segments(nil)
	}
	d.materialize()
	t := d.turn
	if t.Provenance.API == "" {
		t.Provenance = replay.Provenance{API: d.api(), Provider: d.Profile.Provider}
	}
	switch {
	case d.err != nil:
		t.MarkUnfinished()
		return &t, d.err
	case !d.finished:
		t.MarkUnfinished()
		return &t, &replay.Error{API: d.api(), Event: d.nEvents, Err: fmt.Errorf("stream ended before finish_reason or [DONE]: %w", io.ErrUnexpectedEOF)}
	}
	t.Complete = true
	return &t, nil
}
