package anthropic

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/engine"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/internal/view"
	"github.com/reasonreplay/replay/stream"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// NewFrameDecoder returns a fresh stream decoder for Messages API events (SSE, or
// one event per line), also in Bedrock's `{"chunk":{"bytes":...}}` envelope.
func (c Codec) NewFrameDecoder() codecs.FrameDecoder {
	return &StreamDecoder{Provider: c.Provider, Limits: c.Limits}
}

type blockKind uint8

const (
	kindThinking blockKind = iota + 1
	kindRedacted
	kindText
	kindToolUse
	kindNative
	kindCompaction
)

// block is the decoder's state for one content block, addressed by its
// `index`.
type block struct {
	kind blockKind
	pos  int // position in the turn's Blocks
	open bool
	// text accumulates thinking text, visible text, or tool input JSON;
	// text and sig grow in the decoder's arena (engine.Run.Texts).
	text engine.Text
	sig  engine.Text
	// sigSeen records that a signature member or delta arrived, so that an
	// absent signature stays absent and an empty one stays empty.
	sigSeen    bool
	startInput string
	cites      []byte

	think *replay.ReasoningText
	enc   *replay.Encrypted
	txt   *replay.Text
	call  *replay.ToolCall
	nat   *replay.Native
	comp  *replay.Compaction
	// contentSeen records that a compaction's content arrived.
	contentSeen bool
	// hi holds a high surrogate half that ended the previous text_delta,
	// to be joined with the low half that starts the next one (a host
	// cutting text by UTF-16 code units splits pairs).
	hi rune
}

// StreamDecoder decodes an Anthropic Messages event stream (SSE, or one JSON
// payload per line), including Bedrock's `{"chunk":{"bytes":...}}`
// envelope. It implements [codecs.FrameDecoder];
// its zero value is ready to use. Deltas are routed by block index; a
// signature_delta is appended to its block's signature.
type StreamDecoder struct {
	// Provider is recorded as the turn's provenance provider, unless the
	// stream arrives in Bedrock's envelope ("bedrock").
	Provider string
	// Limits bound what the decoder keeps; zero fields take the defaults.
	Limits replay.Limits

	run     engine.Run
	turn    replay.Turn
	blocks  []*block
	done    bool
	bedrock bool
	buf     []byte

	// The block and delta kind of the last delta read in full and
	// learned: a next delta like it (only its string differs) is read by
	// matching and applied to them.
	shapeBlock *block
	shapeSpec  *deltaSpec
}

// stream is the decoder as the engine drives it (see [engine.Codec]).
type decoder StreamDecoder

// format is the format of the decoded thinking blocks: Claude's for a
// stream in Bedrock's envelope, else the provider's ([Codec.Format]).
func (d *decoder) format() replay.Format {
	if d.bedrock {
		return formats.AnthropicClaude
	}
	return Codec{Provider: d.Provider}.Format()
}

// SetLimits implements [codecs.FrameDecoder]: the non-zero fields of l
// replace the decoder's limits.
func (d *StreamDecoder) SetLimits(l replay.Limits) { d.run.SetLimits((*decoder)(d), l) }

// Decode implements [codecs.FrameDecoder].
func (d *StreamDecoder) Decode(typ, data []byte, dst []stream.Event) ([]stream.Event, error) {
	return d.run.Decode((*decoder)(d), typ, data, dst)
}

// Finish implements [codecs.FrameDecoder].
func (d *StreamDecoder) Finish() (*replay.Turn, error) { return d.run.Finish((*decoder)(d)) }

// Start seeds the budget. The decoder learns only events whose data
// carries its "type" member (a delta), and reads the frame type only of an
// event whose data has none (a Bedrock-wrapped one): a matched event
// repeats the learned data's type, so its frame type is not compared
// (engine.Run.TypeInData).
func (d *decoder) Start(r *engine.Run) {
	r.Budget = kit.NewBudget(API, d.Limits, 0)
	r.TypeInData = true
}

func (d *decoder) malformed(ptr, format string, args ...any) error {
	return d.run.Malformed(ptr, format, args...)
}

// Matched applies a delta like the last one learned: only its string
// differs.
func (d *decoder) Matched(r *engine.Run, m *engine.Match, dst []stream.Event) ([]stream.Event, error) {
	val, decoded := m.Value()
	return d.apply(d.shapeBlock, d.shapeSpec, m.Raw(0), val, decoded, dst)
}

// Full reads an event in full.
func (d *decoder) Full(r *engine.Run, f engine.Frame, s string, dst []stream.Event) ([]stream.Event, error) {
	if s == "" || s == "[DONE]" {
		return dst, nil
	}
	var ev eventFields
	if !ev.scan(s) {
		return dst, d.malformed("", "expected one JSON object per event")
	}
	// The hot path: deltas, stops and pings, read from the one pass.
	if ev.object && len(ev.typ) > 2 && ev.typ[0] == '"' && !d.done {
		switch ev.typ[1 : len(ev.typ)-1] {
		case "content_block_delta":
			return d.deltaFast(s, &ev, dst)
		case "content_block_stop":
			b, err := d.blockAt(ev.index)
			if err != nil {
				return dst, err
			}
			return d.stop(b, dst), nil
		case "ping":
			return dst, nil
		}
	}
	// The event is valid JSON: the rarer events are read with gjson.
	typ := gjson.Get(s, "type")
	if !typ.Exists() {
		var pe *replay.ProviderError
		var err error
		if s, typ, pe, err = d.unwrap(s, f.Type); err != nil {
			return dst, err
		} else if pe != nil {
			return d.fail(dst, pe)
		}
	}
	if typ.Type != gjson.String {
		return dst, d.malformed("/type", "expected a string event type")
	}
	if d.done && typ.Str != "error" {
		return dst, nil // nothing after message_stop changes the turn
	}
	return d.event(typ.Str, s, dst)
}

// eventFields is what one pass over an event keeps: the raw text of the
// members the hot path reads (a member absent is "").
type eventFields struct {
	object bool // the event is a JSON object
	typ    string
	index  string
	delta  string // the delta member, whatever its kind
	dtype  string // delta.type, when delta is an object
	// The delta's string members, by name.
	thinking, text, signature, partialJSON, content, citation string
}

// scan reads the event s once, validating it as [jsonw.Valid] does, and
// keeps the raw members the hot path needs. It reports false when s is
// not valid JSON.
func (ev *eventFields) scan(s string) bool {
	var sc jsonw.Scanner
	if !sc.Reset(s) {
		return false
	}
	var top jsonw.Object
	if !sc.Object(&top) {
		return sc.End()
	}
	ev.object = true
	for name, ok := sc.Member(&top); ok; name, ok = sc.Member(&top) {
		switch name {
		case "type":
			ev.typ = sc.Value()
		case "index":
			ev.index = sc.Value()
		case "delta":
			mark := sc.Mark()
			var o jsonw.Object
			if !sc.Object(&o) {
				ev.delta = sc.Value()
				continue
			}
			for n, ok := sc.Member(&o); ok; n, ok = sc.Member(&o) {
				var dst *string
				switch n {
				case "type":
					dst = &ev.dtype
				case "thinking":
					dst = &ev.thinking
				case "text":
					dst = &ev.text
				case "signature":
					dst = &ev.signature
				case "partial_json":
					dst = &ev.partialJSON
				case "content":
					dst = &ev.content
				case "citation":
					dst = &ev.citation
				default:
					continue
				}
				*dst = sc.Value()
			}
			ev.delta = sc.Since(mark)
		}
	}
	return sc.End()
}

// unwrap reads an event without a JSON `type`: Bedrock
// InvokeModelWithResponseStream's, whose Anthropic event is base64 in
// chunk.bytes (or bytes, when the envelope was peeled once already, as
// the event-stream framing does), a Bedrock exception, or an event typed
// by its frame.
func (d *decoder) unwrap(s string, ftype []byte) (string, gjson.Result, *replay.ProviderError, error) {
	b := gjson.Get(s, "chunk.bytes")
	if !b.Exists() {
		b = gjson.Get(s, "bytes")
	}
	if !b.Exists() {
		if pe := bedrockException(s); pe != nil {
			d.bedrock = true
			return s, gjson.Result{}, pe, nil
		}
		if len(ftype) > 0 {
			return s, gjson.Result{Type: gjson.String, Str: view.String(ftype)}, nil, nil
		}
		return s, gjson.Result{}, nil, nil
	}
	if b.Type != gjson.String {
		return s, b, nil, d.malformed("/chunk/bytes", "expected a base64 string")
	}
	n := base64.StdEncoding.DecodedLen(len(b.Str))
	if cap(d.buf) < n {
		d.buf = make([]byte, n)
	}
	m, err := base64.StdEncoding.Decode(d.buf[:n], view.Bytes(b.Str))
	if err != nil {
		return s, b, nil, d.malformed("/chunk/bytes", "expected base64: %v", err)
	}
	inner := bytes.TrimSpace(d.buf[:m])
	if !jsonw.ValidBytes(inner) {
		return s, b, nil, d.malformed("/chunk/bytes", "expected a base64-encoded JSON event")
	}
	d.bedrock = true
	s = view.String(inner)
	return s, gjson.Get(s, "type"), nil, nil
}

// event decodes one Messages event of type typ.
func (d *decoder) event(typ, s string, dst []stream.Event) ([]stream.Event, error) {
	switch typ {
	case "message_start":
		msg := gjson.Get(s, "message")
		if m := msg.Get("model"); m.Type == gjson.String {
			d.turn.Provenance.Model = strings.Clone(m.Str)
		}
		if u := msg.Get("usage"); u.IsObject() {
			d.turn.Usage = []byte(u.Raw)
		}
		return dst, d.transformations(msg.Get("input_transformations"), "/message/input_transformations")
	case "content_block_start":
		return d.start(s, dst)
	case "content_block_delta":
		return d.delta(s, dst)
	case "content_block_stop":
		b, err := d.block(s)
		if err != nil {
			return dst, err
		}
		return d.stop(b, dst), nil
	case "message_delta":
		if r := gjson.Get(s, "delta.stop_reason"); r.Type == gjson.String {
			d.turn.FinishReason = strings.Clone(r.Str)
		}
		if u := gjson.Get(s, "usage"); u.IsObject() {
			d.turn.Usage = mergeUsage(d.turn.Usage, u)
		}
		// After a server-side fallback the final message_delta repeats the
		// list, complete: it replaces the one of message_start.
		for _, ptr := range [...]string{"input_transformations", "delta.input_transformations"} {
			if v := gjson.Get(s, ptr); v.Exists() {
				return dst, d.transformations(v, "/"+strings.ReplaceAll(ptr, ".", "/"))
			}
		}
	case "message_stop":
		if gjson.Get(s, "amazon-bedrock-invocationMetrics").Exists() {
			d.bedrock = true
		}
		d.done = true
		dst = append(dst, stream.Event{Kind: stream.EventDone, Block: -1})
	case "error":
		e := gjson.Get(s, "error")
		pe := &replay.ProviderError{API: API}
		if t := e.Get("type"); t.Type == gjson.String {
			pe.Type = strings.Clone(t.Str)
		}
		if m := e.Get("message"); m.Type == gjson.String {
			pe.Message = strings.Clone(m.Str)
		}
		return d.fail(dst, pe)
	default:
		// ping, and event types added later: nothing to keep.
	}
	return dst, nil
}

func (d *decoder) fail(dst []stream.Event, pe *replay.ProviderError) ([]stream.Event, error) {
	d.turn.Error = pe
	dst = append(dst, stream.Event{Kind: stream.EventError, Block: -1, Err: pe})
	return dst, pe
}

// bedrockException reads an AWS event-stream exception event relayed as
// JSON: one member named like `throttlingException` holding a message.
func bedrockException(s string) *replay.ProviderError {
	var pe *replay.ProviderError
	gjson.Parse(s).ForEach(func(k, v gjson.Result) bool {
		if strings.HasSuffix(k.Str, "Exception") && v.IsObject() {
			pe = &replay.ProviderError{API: API, Type: strings.Clone(k.Str), Provider: "bedrock"}
			if m := v.Get("message"); m.Type == gjson.String {
				pe.Message = strings.Clone(m.Str)
			}
			return false
		}
		return true
	})
	return pe
}

// mergeUsage sets every member of upd on the usage object old (message_delta
// carries cumulative counts, but not always the input counts).
func mergeUsage(old []byte, upd gjson.Result) []byte {
	if len(old) == 0 {
		return []byte(upd.Raw)
	}
	out := old
	upd.ForEach(func(k, v gjson.Result) bool {
		if k.Type != gjson.String || strings.ContainsAny(k.Str, ".*?|#@\\:") {
			return true
		}
		if o, err := sjson.SetRawBytes(out, k.Str, []byte(v.Raw)); err == nil {
			out = o
		}
		return true
	})
	return out
}

func (d *decoder) index(s string) (int, error) {
	return d.indexRaw(gjson.Get(s, "index").Raw)
}

// indexRaw reads a block index from its raw JSON text ("" when absent).
func (d *decoder) indexRaw(raw string) (int, error) {
	n, ok := 0, len(raw) > 0 && len(raw) < 10
	for i := 0; ok && i < len(raw); i++ {
		c := raw[i]
		ok = c >= '0' && c <= '9' && !(i == 0 && c == '0' && len(raw) > 1)
		n = n*10 + int(c-'0')
	}
	if !ok {
		// Not a plain small integer: read it as a JSON number (1e2 is 100).
		f, err := strconv.ParseFloat(raw, 64)
		if raw == "" || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) || err != nil && !errors.Is(err, strconv.ErrRange) ||
			f < 0 || f != float64(int64(f)) {
			return 0, d.malformed("/index", "expected a non-negative integer block index")
		}
		if max := d.run.Budget.Limits().MaxBlocks; f >= float64(max) {
			return 0, &replay.LimitError{What: "block count", Limit: max, API: API, Event: d.run.Budget.Event, Block: -1}
		}
		return int(f), nil
	}
	if max := d.run.Budget.Limits().MaxBlocks; n >= max {
		return 0, &replay.LimitError{What: "block count", Limit: max, API: API, Event: d.run.Budget.Event, Block: -1}
	}
	return n, nil
}

func (d *decoder) block(s string) (*block, error) {
	return d.blockAt(gjson.Get(s, "index").Raw)
}

// blockAt returns the open block of the raw index ix.
func (d *decoder) blockAt(ix string) (*block, error) {
	i, err := d.indexRaw(ix)
	if err != nil {
		return nil, err
	}
	if i >= len(d.blocks) || d.blocks[i] == nil {
		return nil, d.malformed("/index", "block %d was never started", i)
	}
	b := d.blocks[i]
	if !b.open {
		return nil, d.malformed("/index", "block %d is already closed", i)
	}
	return b, nil
}

// start opens the block of a content_block_start at its index.
func (d *decoder) start(s string, dst []stream.Event) ([]stream.Event, error) {
	i, err := d.index(s)
	if err != nil {
		return dst, err
	}
	if i < len(d.blocks) && d.blocks[i] != nil {
		return dst, d.malformed("/index", "block %d started twice", i)
	}
	cb := gjson.Get(s, "content_block")
	ctype := cb.Get("type")
	if !cb.IsObject() || ctype.Type != gjson.String {
		return dst, d.malformed("/content_block", "expected a content block object with a string type")
	}
	b := &block{pos: len(d.turn.Blocks), open: true}
	if err := d.run.Budget.Block(b.pos); err != nil {
		return dst, err
	}
	switch ctype.Str {
	case "thinking", "redacted_thinking", "compaction":
		// Signed or opaque strings: a lone surrogate escape would alter them.
		for _, k := range [...]string{"thinking", "signature", "data", "content"} {
			if v := cb.Get(k); v.Type == gjson.String {
				if err := d.lone(v.Raw, "/content_block/", k); err != nil {
					return dst, err
				}
			}
		}
	}
	switch ctype.Str {
	case "thinking":
		dst, err = d.startThinking(b, i, cb, dst)
	case "redacted_thinking":
		dst, err = d.startRedacted(b, i, cb, dst)
	case "text":
		dst, err = d.startText(b, cb, dst)
	case "tool_use":
		dst, err = d.startToolUse(b, cb, dst)
	case "compaction":
		err = d.startCompaction(b, cb)
	default:
		b.kind = kindNative
		if err = d.run.Budget.Item(b.pos, len(cb.Raw), len(cb.Raw)); err == nil {
			b.nat = &replay.Native{Kind: strings.Clone(ctype.Str), Raw: []byte(cb.Raw)}
			d.turn.Blocks = append(d.turn.Blocks, b.nat)
		}
	}
	if err != nil {
		return dst, err
	}
	for len(d.blocks) <= i {
		d.blocks = append(d.blocks, nil)
	}
	d.blocks[i] = b
	return dst, nil
}

// extra returns the members of cb not in known, counted against the
// budget as strings of block b.
func (d *decoder) extra(b *block, cb gjson.Result, known ...string) ([]byte, error) {
	x := extraMembers(cb, known...)
	return x, d.run.Budget.Item(b.pos, len(x), len(x))
}

// startThinking opens a thinking block with its initial text and
// signature (normally empty, but kept and counted when not).
func (d *decoder) startThinking(b *block, i int, cb gjson.Result, dst []stream.Event) ([]stream.Event, error) {
	b.kind = kindThinking
	b.think = &replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: d.format(), Index: replay.Some(i)}}
	t := cb.Get("thinking")
	if t.Exists() && t.Type != gjson.String {
		return dst, d.malformed("/content_block/thinking", "expected a string")
	}
	if _, err := d.grow(b, &b.text, t); err != nil {
		return dst, err
	}
	if sg := cb.Get("signature"); sg.Exists() {
		if sg.Type != gjson.String {
			return dst, d.malformed("/content_block/signature", "expected a string")
		}
		b.sigSeen = true
		if _, err := d.grow(b, &b.sig, sg); err != nil {
			return dst, err
		}
	}
	var err error
	if b.think.Extra, err = d.extra(b, cb, "type", "thinking", "signature"); err != nil {
		return dst, err
	}
	d.turn.Blocks = append(d.turn.Blocks, b.think)
	dst = append(dst, stream.Event{Kind: stream.EventReasoningStart, Block: b.pos, Item: b.think})
	if b.text.Len() > 0 {
		dst = append(dst, stream.Event{Kind: stream.EventReasoningDelta, Block: b.pos, Delta: b.text.String()})
	}
	return dst, nil
}

// transformations replaces the turn's input transformations with the
// list v, within the budget.
func (d *decoder) transformations(v gjson.Result, ptr string) error {
	if !v.Exists() {
		return nil
	}
	xs, err := transformations(v, ptr)
	if err != nil {
		return err
	}
	if err := d.run.Budget.Item(-1, len(v.Raw), len(v.Raw)); err != nil {
		return err
	}
	d.turn.Transformations = xs
	return nil
}

// startCompaction opens a compaction block: its content arrives whole in
// one compaction_delta (or in the start event), an on-demand compaction's
// signature in signature_delta pieces.
func (d *decoder) startCompaction(b *block, cb gjson.Result) error {
	b.kind = kindCompaction
	b.comp = &replay.Compaction{Format: d.format()}
	for _, f := range [...]struct {
		k    string
		sb   *engine.Text
		seen *bool
	}{{"content", &b.text, &b.contentSeen}, {"signature", &b.sig, &b.sigSeen}} {
		v := cb.Get(f.k)
		switch v.Type {
		case gjson.String:
			*f.seen = true
			if _, err := d.grow(b, f.sb, v); err != nil {
				return err
			}
		case gjson.Null:
		default:
			return d.malformed("/content_block/"+f.k, "expected a string")
		}
	}
	var err error
	if b.comp.Extra, err = d.extra(b, cb, "type", "content", "signature"); err != nil {
		return err
	}
	d.turn.Blocks = append(d.turn.Blocks, b.comp)
	return nil
}

// startRedacted opens a redacted_thinking block, which arrives whole.
func (d *decoder) startRedacted(b *block, i int, cb gjson.Result, dst []stream.Event) ([]stream.Event, error) {
	b.kind = kindRedacted
	data := cb.Get("data")
	if data.Type != gjson.String {
		return dst, d.malformed("/content_block/data", "expected the redacted_thinking data string")
	}
	b.enc = &replay.Encrypted{ItemMeta: replay.ItemMeta{Format: d.format(), Index: replay.Some(i)}}
	var err error
	if b.enc.Data, err = d.run.Budget.Keep(b.pos, data.Str); err != nil {
		return dst, err
	}
	if b.enc.Extra, err = d.extra(b, cb, "type", "data"); err != nil {
		return dst, err
	}
	d.turn.Blocks = append(d.turn.Blocks, b.enc)
	return append(dst, stream.Event{Kind: stream.EventReasoningStart, Block: b.pos, Item: b.enc}), nil
}

// startText opens a text block with its initial text.
func (d *decoder) startText(b *block, cb gjson.Result, dst []stream.Event) ([]stream.Event, error) {
	b.kind = kindText
	t := cb.Get("text")
	if t.Exists() && t.Type != gjson.String {
		return dst, d.malformed("/content_block/text", "expected a string")
	}
	if _, err := d.grow(b, &b.text, t); err != nil {
		return dst, err
	}
	b.txt = &replay.Text{}
	var err error
	if b.txt.Extra, err = d.extra(b, cb, "type", "text"); err != nil {
		return dst, err
	}
	d.turn.Blocks = append(d.turn.Blocks, b.txt)
	if b.text.Len() > 0 {
		dst = append(dst, stream.Event{Kind: stream.EventTextDelta, Block: b.pos, Delta: b.text.String()})
	}
	return dst, nil
}

// startToolUse opens a tool_use block with its id, name and initial input.
func (d *decoder) startToolUse(b *block, cb gjson.Result, dst []stream.Event) ([]stream.Event, error) {
	b.kind = kindToolUse
	id, name := cb.Get("id"), cb.Get("name")
	if id.Type != gjson.String || name.Type != gjson.String {
		return dst, d.malformed("/content_block", "expected a tool_use block with string id and name")
	}
	b.call = &replay.ToolCall{}
	var err error
	if b.call.ID, err = d.run.Budget.Keep(b.pos, id.Str); err != nil {
		return dst, err
	}
	if b.call.Name, err = d.run.Budget.Keep(b.pos, name.Str); err != nil {
		return dst, err
	}
	if b.call.Extra, err = d.extra(b, cb, "type", "id", "name", "input"); err != nil {
		return dst, err
	}
	if in := cb.Get("input"); in.Exists() {
		if b.startInput, err = d.run.Budget.Keep(b.pos, in.Raw); err != nil {
			return dst, err
		}
	}
	d.turn.Blocks = append(d.turn.Blocks, b.call)
	return append(dst, stream.Event{Kind: stream.EventToolCallStart, Block: b.pos, ID: b.call.ID, Name: b.call.Name}), nil
}

// grow appends the value of the JSON string v to sb, a growing string of
// block b, within the budget, and returns the length sb had before.
func (d *decoder) grow(b *block, sb *engine.Text, v gjson.Result) (int, error) {
	if v.Type != gjson.String {
		return sb.Len(), nil
	}
	return d.growRaw(b, sb, v.Raw)
}

// growRaw is grow for the raw text of a JSON string (valid JSON: its value
// is never longer than its text between the quotes).
func (d *decoder) growRaw(b *block, sb *engine.Text, raw string) (int, error) {
	old := sb.Len()
	if len(raw) > 2 {
		v, _ := jsonw.AppendUnquoted(d.run.Texts.Tail(sb, len(raw)-2), raw)
		sb.Set(v)
	}
	return old, d.run.Budget.Item(b.pos, sb.Len(), sb.Len()-old)
}

// deltaSpec is what a delta type needs: the block kinds it applies to, the
// member holding its string, and the event its new bytes make.
type deltaSpec struct {
	kinds  []blockKind
	member string
	event  stream.EventKind
}

var (
	specThinking   = deltaSpec{[]blockKind{kindThinking}, "thinking", stream.EventReasoningDelta}
	specSignature  = deltaSpec{[]blockKind{kindThinking, kindCompaction}, "signature", stream.EventInvalid}
	specCompaction = deltaSpec{[]blockKind{kindCompaction}, "content", stream.EventInvalid}
	specText       = deltaSpec{[]blockKind{kindText}, "text", stream.EventTextDelta}
	specInput      = deltaSpec{[]blockKind{kindToolUse, kindNative}, "partial_json", stream.EventToolCallDelta}
	specCitations  = deltaSpec{[]blockKind{kindText}, "citation", stream.EventInvalid}
)

// spec returns the delta type's spec and its string member's raw text.
func (ev *eventFields) spec(dtype string) (*deltaSpec, string) {
	switch dtype {
	case "thinking_delta":
		return &specThinking, ev.thinking
	case "signature_delta":
		return &specSignature, ev.signature
	case "compaction_delta":
		return &specCompaction, ev.content
	case "text_delta":
		return &specText, ev.text
	case "input_json_delta":
		return &specInput, ev.partialJSON
	case "citations_delta":
		return &specCitations, ev.citation
	}
	return nil, ""
}

var kindNames = [...]string{
	kindThinking: "thinking", kindRedacted: "redacted_thinking", kindText: "text",
	kindToolUse: "tool_use", kindNative: "a server block", kindCompaction: "compaction"}

// delta applies a content_block_delta to the block at its index.
func (d *decoder) delta(s string, dst []stream.Event) ([]stream.Event, error) {
	var ev eventFields
	ev.scan(s) // s was validated
	return d.deltaFast("", &ev, dst)
}

// deltaFast applies a content_block_delta read by one pass into ev. When
// s, the event's text, is given, the next delta that differs from it only
// in its string is read by matching its shape.
func (d *decoder) deltaFast(s string, ev *eventFields, dst []stream.Event) ([]stream.Event, error) {
	b, err := d.blockAt(ev.index)
	if err != nil {
		return dst, err
	}
	if len(ev.delta) == 0 || ev.delta[0] != '{' || len(ev.dtype) < 2 || ev.dtype[0] != '"' {
		return dst, d.malformed("/delta", "expected a delta object with a string type")
	}
	dtype := jsonw.UnquoteView(ev.dtype)
	spec, raw := ev.spec(dtype)
	if spec == nil {
		return dst, nil // a delta type added later: tolerated, not kept
	}
	if !slices.Contains(spec.kinds, b.kind) {
		return dst, d.malformed("/delta/type", "%s for a block that is not %s", dtype, kindNames[b.kind])
	}
	if spec == &specCitations {
		return dst, d.citation(b, raw)
	}
	if len(raw) < 2 || raw[0] != '"' {
		return dst, d.malformed("/delta/"+spec.member, "expected a string")
	}
	dst, err = d.apply(b, spec, raw, "", false, dst)
	if err == nil && s != "" && d.run.Learn(s, []string{raw}, 0, nil) {
		d.shapeBlock, d.shapeSpec = b, spec
	}
	return dst, err
}

// apply appends raw, the JSON string of a delta of kind spec, to the
// block b it was checked against. When decoded, val is raw's value,
// decoded as it was matched (only for a string with no \u escape of a
// surrogate half); otherwise raw may hold such an escape (and so a lone
// one, refused where the bytes must stay exact).
func (d *decoder) apply(b *block, spec *deltaSpec, raw, val string, decoded bool, dst []stream.Event) ([]stream.Event, error) {
	sb := &b.text
	switch spec {
	case &specSignature:
		sb, b.sigSeen = &b.sig, true
	case &specCompaction:
		b.contentSeen = true
	}
	if !decoded && spec != &specText && spec != &specInput {
		if err := d.lone(raw, "/delta/", spec.member); err != nil {
			return dst, err
		}
	}
	var old int
	var err error
	switch {
	case decoded && (spec != &specText || b.hi == 0):
		// Without a \u escape there is no surrogate half to join: the
		// value is what AppendUnquoted (and AppendUnquotedJoin) appends.
		old = sb.Len()
		d.run.Texts.Write(sb, val)
		err = d.run.Budget.Item(b.pos, sb.Len(), len(val))
	case spec == &specText:
		old = sb.Len()
		v, _ := jsonw.AppendUnquotedJoin(d.run.Texts.Tail(sb, len(raw)-2+utf8.UTFMax), raw, &b.hi)
		sb.Set(v)
		err = d.run.Budget.Item(b.pos, sb.Len(), sb.Len()-old)
	default:
		old, err = d.growRaw(b, sb, raw)
	}
	if err != nil {
		return dst, err
	}
	if spec.event == stream.EventInvalid || sb.Len() == old || (spec.event == stream.EventToolCallDelta && b.kind != kindToolUse) {
		return dst, nil
	}
	return append(dst, stream.Event{Kind: spec.event, Block: b.pos, Delta: sb.String()[old:]}), nil
}

// lone refuses a string whose raw JSON text holds a lone surrogate escape:
// it names no character, and decoding it would alter signed or opaque
// bytes (a signature, signed thinking text, compaction content).
// The error names the member at the pointer ptr+name.
func (d *decoder) lone(raw, ptr, name string) error {
	if strings.IndexByte(raw, '\\') < 0 || jsonw.LoneAt(raw, false) < 0 {
		return nil
	}
	return d.malformed(ptr+name, "a lone surrogate escape: it names no character, and decoding it would alter bytes that must be kept exact")
}

// citation keeps a citations_delta's citation for the text block b.
func (d *decoder) citation(b *block, raw string) error {
	if len(raw) == 0 || raw[0] != '{' {
		return d.malformed("/delta/citation", "expected a citation object")
	}
	if err := d.run.Budget.Item(b.pos, len(b.cites)+1+len(raw), 1+len(raw)); err != nil {
		return err
	}
	if len(b.cites) > 0 {
		b.cites = append(b.cites, ',')
	}
	b.cites = append(b.cites, raw...)
	return nil
}

// stop closes b: its item takes its final text and signature.
func (d *decoder) stop(b *block, dst []stream.Event) []stream.Event {
	d.settle(b)
	b.open = false
	switch b.kind {
	case kindThinking:
		dst = append(dst, stream.Event{Kind: stream.EventReasoningEnd, Block: b.pos, Item: b.think})
	case kindRedacted:
		dst = append(dst, stream.Event{Kind: stream.EventReasoningEnd, Block: b.pos, Item: b.enc})
	case kindToolUse:
		dst = append(dst, stream.Event{Kind: stream.EventToolCallEnd, Block: b.pos, ID: b.call.ID, Name: b.call.Name})
	}
	return dst
}

// settle writes b's accumulated strings into its turn block.
func (d *decoder) settle(b *block) {
	switch b.kind {
	case kindThinking:
		b.think.Text = b.text.String()
		if b.sigSeen {
			b.think.Signature = replay.Some(b.sig.String())
		}
	case kindText:
		if b.hi != 0 { // a lone half: U+FFFD, as unsigned visible text reads it
			b.text.Set(jsonw.AppendHalf(d.run.Texts.Tail(&b.text, utf8.UTFMax), &b.hi))
		}
		b.txt.Text = b.text.String()
		if len(b.cites) > 0 {
			extra := b.txt.Extra
			if len(extra) == 0 {
				extra = []byte("{}")
			}
			arr := append(append([]byte{'['}, b.cites...), ']')
			if out, err := sjson.SetRawBytes(extra, "citations", arr); err == nil {
				b.txt.Extra = out
			}
		}
	case kindToolUse:
		b.call.Arguments = toolInput(b.text.String(), b.startInput)
	case kindCompaction:
		if b.contentSeen {
			b.comp.Content = replay.Some(b.text.String())
		}
		if b.sigSeen {
			b.comp.Signature = replay.Some(b.sig.String())
		}
	case kindNative:
		if b.text.Len() > 0 && jsonw.Valid(b.text.String()) {
			if out, err := sjson.SetRawBytes(b.nat.Raw, "input", []byte(b.text.String())); err == nil {
				b.nat.Raw = out
			}
		}
	}
}

// toolInput decides a streamed tool_use block's arguments: the concatenated
// input_json_delta pieces when there are any, else the block's initial
// `input` (always `{}` from Anthropic), else `{}`.
func toolInput(streamed, initial string) string {
	switch {
	case streamed != "":
		return streamed
	case initial != "":
		return initial
	}
	return "{}"
}

// End ends the stream: blocks still open are settled and marked
// unfinished.
func (d *decoder) End(r *engine.Run) (*replay.Turn, error) {
	t := &d.turn
	t.Provenance.API = API
	t.Provenance.Provider = d.Provider
	if d.bedrock {
		t.Provenance.Provider = "bedrock"
	}
	var open []int
	for i, b := range d.blocks {
		if b != nil && b.open {
			d.settle(b)
			open = append(open, i)
			switch b.kind {
			case kindThinking:
				b.think.Unfinished = true
			case kindRedacted:
				b.enc.Unfinished = true
			case kindToolUse:
				b.call.Unfinished = true
			case kindNative:
				b.nat.Unfinished = true
			case kindCompaction:
				b.comp.Unfinished = true
			}
		}
	}
	// Thinking blocks cannot be partially recovered: when the stream did
	// not complete, no block of it is replayable, closed or not.
	if r.Err() == nil && d.done && len(open) > 0 {
		t.MarkUnfinished()
		return t, &replay.Error{API: API, Event: r.Events(), Err: fmt.Errorf("message_stop with block %d still open: %w", open[0], io.ErrUnexpectedEOF)}
	}
	if r.Err() == nil && d.done {
		fallback(t)
	}
	return r.Close(t, d.done, "message_stop")
}

// extraMembers returns the members of obj not in known, as one JSON object in
// source order (a repeated name kept once), or nil.
func extraMembers(obj gjson.Result, known ...string) []byte {
	return jsonw.ExtraMembers(obj.Raw, known...)
}
