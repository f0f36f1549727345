package openrouter

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
)

// StreamDecoder decodes an OpenRouter chat completion stream, one SSE data
// payload at a time. The zero value is ready to use; it implements
// [replay.FrameDecoder].
//
// reasoning_details fragments are merged into whole items: a fragment joins
// the most recent item of the same type when their `index` agrees and their
// ids do not conflict (an index alone is not unique: OpenAI upstreams send a
// summary and an encrypted item both at index 0). Text, summary, signature
// and data pieces are appended. The plain `delta.reasoning` string is read
// only when a chunk has no reasoning_details, so reasoning mirrored in both
// counts once, while a token repeated in consecutive chunks is kept.
// Unknown detail types are kept verbatim, one item per fragment. Unknown
// members of a detail are kept from the fragment that opened the item.
type StreamDecoder struct {
	// Limits bound item size and block count; zero fields take defaults.
	Limits replay.Limits
	// Provider, when set, is recorded as the turn's provider instead of
	// "openrouter".
	Provider string

	turn     replay.Turn
	items    []*itemState
	tools    []int // tool call index -> block position + 1
	text     int   // index + 1 in runs of the open visible text run, 0 if none
	textB    strings.Builder
	textHi   rune // a high surrogate half held at the end of the open run
	runs     []textRun
	nEvents  int
	err      error
	started  bool
	finished bool
	ended    bool // item end events emitted
	argB     []*strings.Builder
	argHi    []rune
}

// textRun is one visible text block: its position, and its bytes in the
// shared text builder, whose string never changes once written.
type textRun struct{ pos, start, end int }

type itemState struct {
	block  int
	kind   replay.ItemKind
	index  replay.Opt[int]
	id     replay.Opt[string]
	plain  bool // built from the plain `reasoning` string
	body   strings.Builder
	hi     rune // a high surrogate half held at the end of body
	sig    strings.Builder
	sigP   replay.Presence
	format replay.Format
	extra  []byte
	item   replay.ReasoningItem
}

var doneMarker = []byte("[DONE]")

// Member names read from each object, in one pass per object (see
// jsonw.RawMembers): gjson's path lookups would rescan the chunk for each.
var (
	topKeys    = []string{"model", "provider", "error", "usage", "choices"}
	choiceKeys = []string{"delta", "finish_reason"}
	deltaKeys  = []string{"reasoning_details", "reasoning", "reasoning_content", "content", "tool_calls"}
	// detailKnown: the members of a detail the decoder reads itself; the
	// order is the order of the values in detail.
	detailKnown = []string{"type", "text", "summary", "data", "signature", "id", "format", "index"}
	callKeys    = []string{"index", "id", "function"}
	funcKeys    = []string{"name", "arguments"}
)

// Decode implements [replay.FrameDecoder].
func (d *StreamDecoder) Decode(f replay.Frame, dst []replay.Event) ([]replay.Event, error) {
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
	s := view(data)
	if !jsonw.Valid(s) {
		d.err = replay.Malformed(API, n, "", "expected a JSON chat completion chunk")
		return dst, d.err
	}
	var top [5]string
	if !jsonw.RawMembers(s, topKeys, top[:]) {
		d.err = replay.Malformed(API, n, "", "expected a JSON object (a chat completion chunk)")
		return dst, d.err
	}
	if !d.started {
		d.started = true
		d.turn.Provenance = replay.Provenance{API: API, Provider: "openrouter",
			Model: stringValue(top[0]), Upstream: stringValue(top[1])}
		if d.Provider != "" {
			d.turn.Provenance.Provider = d.Provider
		}
	}
	if e := top[2]; e != "" && e != "null" {
		pe := providerError(gjson.Parse(e), stringValue(top[1]))
		if fr := gjson.Get(s, "choices.0.finish_reason"); fr.Type == gjson.String {
			d.turn.FinishReason = clone(fr.Str)
		}
		return d.fail(dst, pe)
	}
	if u := top[3]; len(u) > 0 && u[0] == '{' {
		d.turn.Usage = append(d.turn.Usage[:0], u...)
	}
	choice, _, ok := jsonw.NextElem(top[4], 0)
	if !ok {
		return dst, nil // a usage-only or empty chunk
	}
	var ch [2]string
	if !jsonw.RawMembers(choice, choiceKeys, ch[:]) {
		d.err = replay.Malformed(API, n, "/choices/0", "expected a choice object")
		return dst, d.err
	}
	var err error
	if dst, err = d.decodeDelta(ch[0], n, dst); err != nil {
		d.err = err
		return dst, err
	}
	if fr := ch[1]; isString(fr) {
		d.turn.FinishReason = stringValue(fr)
		if d.turn.FinishReason == "error" {
			return d.fail(dst, &replay.ProviderError{API: API, Message: "the stream ended with finish_reason \"error\""})
		}
		d.finished = true
		dst = d.end(dst)
	}
	return dst, nil
}

func (d *StreamDecoder) fail(dst []replay.Event, pe *replay.ProviderError) ([]replay.Event, error) {
	d.turn.Error = pe
	d.err = pe
	return append(dst, replay.Event{Kind: replay.EventError, Block: -1, Err: pe}), pe
}

func (d *StreamDecoder) decodeDelta(delta string, n int, dst []replay.Event) ([]replay.Event, error) {
	if delta == "" || delta == "null" {
		return dst, nil
	}
	var dv [5]string
	if !jsonw.RawMembers(delta, deltaKeys, dv[:]) {
		return dst, replay.Malformed(API, n, "/choices/0/delta", "expected a delta object")
	}
	var err error
	hasDetails := false
	k := 0
	for det, pos, ok := jsonw.NextElem(dv[0], 0); ok; det, pos, ok = jsonw.NextElem(dv[0], pos) {
		hasDetails = true
		if dst, err = d.detail(det, n, k, dst); err != nil {
			return dst, err
		}
		k++
	}
	if !hasDetails {
		r := dv[1]
		if !isString(r) || len(r) <= 2 {
			r = dv[2]
		}
		if isString(r) && len(r) > 2 {
			if dst, err = d.plain(r, dst); err != nil {
				return dst, err
			}
		}
	}
	if c := dv[3]; isString(c) && len(c) > 2 {
		if dst, err = d.content(c, dst); err != nil {
			return dst, err
		}
	}
	k = 0
	for tc, pos, ok := jsonw.NextElem(dv[4], 0); ok; tc, pos, ok = jsonw.NextElem(dv[4], pos) {
		if dst, err = d.toolCall(tc, n, k, dst); err != nil {
			return dst, err
		}
		k++
	}
	return dst, nil
}

func (d *StreamDecoder) limits() replay.Limits { return d.Limits.WithDefaults() }

func (d *StreamDecoder) newBlock(b replay.Block) (int, error) {
	if len(d.turn.Blocks) >= d.limits().MaxBlocks {
		return 0, &replay.LimitError{What: "block count", Limit: d.limits().MaxBlocks, Event: -1, Block: -1}
	}
	d.turn.Blocks = append(d.turn.Blocks, b)
	d.text = 0
	return len(d.turn.Blocks) - 1, nil
}

func (d *StreamDecoder) checkSize(n int) error {
	if max := d.limits().MaxItem; n > max {
		return &replay.LimitError{What: "item size", Limit: max, Event: -1, Block: -1}
	}
	return nil
}

func detailPtr(k int) string { return "/choices/0/delta/reasoning_details/" + strconv.Itoa(k) }

// detail merges one reasoning_details fragment (raw JSON, a view of the
// frame: nothing of it is kept without a copy).
func (d *StreamDecoder) detail(det string, n, k int, dst []replay.Event) ([]replay.Event, error) {
	var dv [8]string // in detailKnown order
	if !jsonw.RawMembers(det, detailKnown, dv[:]) {
		return dst, replay.Malformed(API, n, detailPtr(k), "expected a reasoning detail object")
	}
	typ := dv[0]
	if !isString(typ) {
		return dst, replay.Malformed(API, n, detailPtr(k)+"/type", "expected a string type")
	}
	var kind replay.ItemKind
	switch {
	case jsonw.StringEquals(typ, string(replay.KindText)):
		kind = replay.KindText
	case jsonw.StringEquals(typ, string(replay.KindSummary)):
		kind = replay.KindSummary
	case jsonw.StringEquals(typ, string(replay.KindEncrypted)):
		kind = replay.KindEncrypted
	default:
		it, err := parseDetail(det, detailPtr(k))
		if err != nil {
			return dst, withAPI(err)
		}
		pos, err := d.newBlock(it)
		if err != nil {
			return dst, err
		}
		dst = append(dst, replay.Event{Kind: replay.EventReasoningStart, Block: pos, Item: it})
		return append(dst, replay.Event{Kind: replay.EventReasoningEnd, Block: pos, Item: it}), nil
	}
	var index replay.Opt[int]
	switch ix := dv[7]; {
	case ix == "null":
		index = replay.NullOf[int]()
	case ix != "":
		v, err := strconv.Atoi(ix)
		if err != nil {
			return dst, replay.Malformed(API, n, detailPtr(k)+"/index", "expected an integer index")
		}
		index = replay.Some(v)
	}
	var id replay.Opt[string]
	switch v := dv[5]; {
	case isString(v):
		id = replay.Some(transient(v)) // a view of the frame when it has no escapes
	case v == "null":
		id = replay.NullOf[string]()
	}
	st := d.find(kind, index, id)
	var err error
	if st == nil {
		st = &itemState{kind: kind, index: index}
		if id.IsPresent() {
			st.id = replay.Some(clone(id.Value()))
		} else {
			st.id = id
		}
		st.extra = jsonw.ExtraMembers(det, detailKnown...)
		switch kind {
		case replay.KindText:
			st.item = &replay.ReasoningText{}
		case replay.KindSummary:
			st.item = &replay.Summary{}
		default:
			st.item = &replay.Encrypted{}
		}
		if st.block, err = d.newBlock(st.item); err != nil {
			return dst, err
		}
		d.items = append(d.items, st)
		dst = append(dst, replay.Event{Kind: replay.EventReasoningStart, Block: st.block, Item: st.item})
	} else if !st.id.IsPresent() && id.IsPresent() {
		st.id = replay.Some(clone(id.Value()))
	}
	if f := dv[6]; isString(f) && st.format == "" {
		st.format = replay.Format(stringValue(f))
	}
	field, body := "text", dv[1]
	switch kind {
	case replay.KindSummary:
		field, body = "summary", dv[2]
	case replay.KindEncrypted:
		field, body = "data", dv[3]
	}
	switch {
	case isString(body):
		if len(body) > 2 {
			if err := d.checkSize(st.body.Len() + len(body)); err != nil {
				return dst, err
			}
			start := st.body.Len()
			jsonw.WriteUnquotedJoin(&st.body, body, &st.hi)
			if kind != replay.KindEncrypted {
				dst = append(dst, replay.Event{Kind: replay.EventReasoningDelta, Block: st.block, Item: st.item, Delta: st.body.String()[start:]})
			}
		}
	case body != "" && body != "null":
		return dst, replay.Malformed(API, n, detailPtr(k)+"/"+field, "expected a string")
	}
	if kind == replay.KindText {
		switch sig := dv[4]; {
		case sig == "":
		case isString(sig):
			if err := d.checkSize(st.sig.Len() + len(sig)); err != nil {
				return dst, err
			}
			jsonw.WriteUnquoted(&st.sig, sig)
			st.sigP = replay.Present
		case sig == "null":
			if st.sigP == replay.Absent {
				st.sigP = replay.Null
			}
		default:
			return dst, replay.Malformed(API, n, detailPtr(k)+"/signature", "expected a string or null")
		}
	}
	return dst, nil
}

// find returns the item a fragment of this type, index and id merges into.
func (d *StreamDecoder) find(kind replay.ItemKind, index replay.Opt[int], id replay.Opt[string]) *itemState {
	for i := len(d.items) - 1; i >= 0; i-- {
		st := d.items[i]
		if st.kind != kind || st.plain {
			continue
		}
		if st.index != index {
			return nil
		}
		if a, ok := st.id.Get(); ok && a != "" {
			if b, ok := id.Get(); ok && b != "" && a != b {
				return nil
			}
		}
		return st
	}
	return nil
}

// plain appends the JSON string literal raw to the plain reasoning item.
func (d *StreamDecoder) plain(raw string, dst []replay.Event) ([]replay.Event, error) {
	var st *itemState
	if k := len(d.items); k > 0 && d.items[k-1].plain && d.items[k-1].block == len(d.turn.Blocks)-1 {
		st = d.items[k-1]
	}
	if st == nil {
		st = &itemState{kind: replay.KindText, plain: true, item: &replay.ReasoningText{}}
		var err error
		if st.block, err = d.newBlock(st.item); err != nil {
			return dst, err
		}
		d.items = append(d.items, st)
		dst = append(dst, replay.Event{Kind: replay.EventReasoningStart, Block: st.block, Item: st.item})
	}
	if err := d.checkSize(st.body.Len() + len(raw)); err != nil {
		return dst, err
	}
	start := st.body.Len()
	jsonw.WriteUnquotedJoin(&st.body, raw, &st.hi)
	return append(dst, replay.Event{Kind: replay.EventReasoningDelta, Block: st.block, Item: st.item, Delta: st.body.String()[start:]}), nil
}

// content appends the JSON string literal raw to the open text block.
func (d *StreamDecoder) content(raw string, dst []replay.Event) ([]replay.Event, error) {
	if d.text == 0 {
		d.closeRun()
		pos, err := d.newBlock(&replay.Text{})
		if err != nil {
			return dst, err
		}
		d.runs = append(d.runs, textRun{pos: pos, start: d.textB.Len(), end: d.textB.Len()})
		d.text = len(d.runs)
	}
	run := &d.runs[d.text-1]
	if err := d.checkSize(run.end - run.start + len(raw)); err != nil {
		return dst, err
	}
	start := d.textB.Len()
	jsonw.WriteUnquotedJoin(&d.textB, raw, &d.textHi)
	run.end = d.textB.Len()
	return append(dst, replay.Event{Kind: replay.EventTextDelta, Block: run.pos, Delta: d.textB.String()[start:]}), nil
}

func (d *StreamDecoder) toolCall(tc string, n, k int, dst []replay.Event) ([]replay.Event, error) {
	ptr := func() string { return "/choices/0/delta/tool_calls/" + strconv.Itoa(k) }
	var tv [3]string
	if !jsonw.RawMembers(tc, callKeys, tv[:]) {
		return dst, replay.Malformed(API, n, ptr(), "expected a tool call object")
	}
	var fv [2]string
	jsonw.RawMembers(tv[2], funcKeys, fv[:])
	idx := 0
	if tv[0] != "" && tv[0] != "null" {
		v, err := strconv.Atoi(tv[0])
		if err != nil {
			return dst, replay.Malformed(API, n, ptr()+"/index", "expected an integer index")
		}
		idx = v
	}
	if idx < 0 || idx >= d.limits().MaxBlocks {
		return dst, replay.Malformed(API, n, ptr()+"/index", "tool call index %d out of range", idx)
	}
	for len(d.tools) <= idx {
		d.tools = append(d.tools, 0)
		d.argB = append(d.argB, nil)
		d.argHi = append(d.argHi, 0)
	}
	var call *replay.ToolCall
	if d.tools[idx] == 0 {
		call = &replay.ToolCall{ID: stringValue(tv[1]), Name: stringValue(fv[0]), Extra: jsonw.ExtraMembers(tc, toolCallKnown...)}
		pos, err := d.newBlock(call)
		if err != nil {
			return dst, err
		}
		d.tools[idx] = pos + 1
		d.argB[idx] = &strings.Builder{}
		dst = append(dst, replay.Event{Kind: replay.EventToolCallStart, Block: pos, ID: call.ID, Name: call.Name})
	} else {
		call = d.turn.Blocks[d.tools[idx]-1].(*replay.ToolCall)
		if call.ID == "" {
			call.ID = stringValue(tv[1])
		}
		if call.Name == "" {
			call.Name = stringValue(fv[0])
		}
	}
	if a := fv[1]; isString(a) && len(a) > 2 {
		b := d.argB[idx]
		if err := d.checkSize(b.Len() + len(a)); err != nil {
			return dst, err
		}
		start := b.Len()
		jsonw.WriteUnquotedJoin(b, a, &d.argHi[idx])
		dst = append(dst, replay.Event{Kind: replay.EventToolCallDelta, Block: d.tools[idx] - 1, Delta: b.String()[start:]})
	}
	return dst, nil
}

// end emits the end events of every open item and call, once.
func (d *StreamDecoder) end(dst []replay.Event) []replay.Event {
	if d.ended {
		return dst
	}
	d.ended = true
	d.materialize()
	for _, st := range d.items {
		dst = append(dst, replay.Event{Kind: replay.EventReasoningEnd, Block: st.block, Item: st.item})
	}
	for _, pos := range d.tools {
		if pos > 0 {
			dst = append(dst, replay.Event{Kind: replay.EventToolCallEnd, Block: pos - 1})
		}
	}
	return append(dst, replay.Event{Kind: replay.EventDone, Block: -1})
}

// closeRun ends the open visible text run: a surrogate half held at its end
// has no partner and is written as U+FFFD.
func (d *StreamDecoder) closeRun() {
	if d.textHi != 0 && len(d.runs) > 0 {
		jsonw.FlushHalf(&d.textB, &d.textHi)
		d.runs[len(d.runs)-1].end = d.textB.Len()
	}
}

// materialize writes the builders' contents into the turn's blocks; a
// surrogate half still held has no partner and becomes U+FFFD.
func (d *StreamDecoder) materialize() {
	d.closeRun()
	for i, b := range d.argB {
		if b != nil {
			jsonw.FlushHalf(b, &d.argHi[i])
		}
	}
	for _, st := range d.items {
		jsonw.FlushHalf(&st.body, &st.hi)
		m := st.item.Meta()
		m.Format, m.ID, m.Index = st.format, st.id, st.index
		if len(st.extra) > 0 {
			m.Extra = st.extra
		}
		switch it := st.item.(type) {
		case *replay.ReasoningText:
			it.Text = st.body.String()
			switch st.sigP {
			case replay.Present:
				it.Signature = replay.Some(st.sig.String())
			case replay.Null:
				it.Signature = replay.NullOf[string]()
			}
		case *replay.Summary:
			it.Summary = st.body.String()
		case *replay.Encrypted:
			it.Data = st.body.String()
		}
	}
	for i, pos := range d.tools {
		if pos > 0 {
			d.turn.Blocks[pos-1].(*replay.ToolCall).Arguments = d.argB[i].String()
		}
	}
	all := d.textB.String()
	for _, r := range d.runs {
		d.turn.Blocks[r.pos].(*replay.Text).Text = all[r.start:r.end]
	}
}

// Finish implements [replay.FrameDecoder].
func (d *StreamDecoder) Finish() (*replay.Turn, error) {
	d.materialize()
	t := d.turn
	switch {
	case d.err != nil:
		t.MarkUnfinished()
		return &t, d.err
	case !d.finished:
		t.MarkUnfinished()
		return &t, &replay.Error{API: API, Event: d.nEvents, Err: fmt.Errorf("stream ended before finish_reason or [DONE]: %w", io.ErrUnexpectedEOF)}
	}
	t.Complete = true
	return &t, nil
}

func isString(raw string) bool { return len(raw) >= 2 && raw[0] == '"' }

// stringValue returns the value of the JSON string literal raw as a new
// string ("" when raw is not a string).
func stringValue(raw string) string {
	if !isString(raw) || len(raw) == 2 {
		return ""
	}
	var b strings.Builder
	jsonw.WriteUnquoted(&b, raw)
	return b.String()
}

// transient returns the value of the JSON string literal raw, as a view of
// raw when it has no escapes: valid only while raw is.
func transient(raw string) string {
	if v := raw[1 : len(raw)-1]; strings.IndexByte(v, '\\') < 0 {
		return v
	}
	return stringValue(raw)
}
