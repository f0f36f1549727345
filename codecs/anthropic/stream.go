package anthropic

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"strings"

	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/jsonw"

	"github.com/reasonreplay/replay"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

type blockKind uint8

const (
	kindThinking blockKind = iota + 1
	kindRedacted
	kindText
	kindToolUse
	kindNative
)

// block is the decoder's state for one content block, addressed by its
// `index`.
type block struct {
	kind blockKind
	pos  int // position in the turn's Blocks
	open bool
	// text accumulates thinking text, visible text, or tool input JSON.
	text strings.Builder
	sig  strings.Builder
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
}

// StreamDecoder decodes an Anthropic Messages event stream (SSE, or one JSON
// payload per line), including Bedrock's `{"chunk":{"bytes":...}}`
// envelope. It implements [replay.FrameDecoder]; its zero value is ready to
// use. Deltas are routed by block index; a signature_delta is appended to
// its block's signature.
type StreamDecoder struct {
	// Provider is recorded as the turn's provenance provider, unless the
	// stream arrives in Bedrock's envelope ("bedrock").
	Provider string
	// Limits bound item sizes and the block count; zero fields take the
	// defaults.
	Limits replay.Limits

	lim   replay.Limits
	limOK bool

	turn     replay.Turn
	blocks   []*block
	n        int // frames seen
	done     bool
	bedrock  bool
	err      error
	finished bool
	buf      []byte
}

func (d *StreamDecoder) limits() replay.Limits {
	if !d.limOK {
		d.lim, d.limOK = d.Limits.WithDefaults(), true
	}
	return d.lim
}

func (d *StreamDecoder) malformed(ptr, format string, args ...any) error {
	return replay.Malformed(API, d.n, ptr, format, args...)
}

// Decode implements [replay.FrameDecoder].
func (d *StreamDecoder) Decode(f replay.Frame, dst []replay.Event) ([]replay.Event, error) {
	if d.err != nil {
		return dst, d.err
	}
	if d.finished {
		d.err = d.malformed("", "event after Finish")
		return dst, d.err
	}
	dst, d.err = d.decode(f, dst)
	d.n++
	return dst, d.err
}

func (d *StreamDecoder) decode(f replay.Frame, dst []replay.Event) ([]replay.Event, error) {
	data := bytes.TrimSpace(f.Data)
	if len(data) == 0 || string(data) == "[DONE]" {
		return dst, nil
	}
	if !jsonw.ValidBytes(data) {
		return dst, d.malformed("", "expected one JSON object per event")
	}
	s := bytesString(data)
	typ := gjson.Get(s, "type")
	if !typ.Exists() {
		// Bedrock InvokeModelWithResponseStream: the Anthropic event is
		// base64 in chunk.bytes (or bytes, when the envelope was peeled
		// once already).
		b := gjson.Get(s, "chunk.bytes")
		if !b.Exists() {
			b = gjson.Get(s, "bytes")
		}
		if b.Exists() {
			if b.Type != gjson.String {
				return dst, d.malformed("/chunk/bytes", "expected a base64 string")
			}
			n := base64.StdEncoding.DecodedLen(len(b.Str))
			if cap(d.buf) < n {
				d.buf = make([]byte, n)
			}
			m, err := base64.StdEncoding.Decode(d.buf[:n], stringBytes(b.Str))
			if err != nil {
				return dst, d.malformed("/chunk/bytes", "expected base64: %v", err)
			}
			inner := bytes.TrimSpace(d.buf[:m])
			if !jsonw.ValidBytes(inner) {
				return dst, d.malformed("/chunk/bytes", "expected a base64-encoded JSON event")
			}
			d.bedrock = true
			s = bytesString(inner)
			typ = gjson.Get(s, "type")
		} else if pe := bedrockException(s); pe != nil {
			d.bedrock = true
			return d.fail(dst, pe)
		} else if len(f.Type) > 0 {
			typ = gjson.Result{Type: gjson.String, Str: bytesString(f.Type)}
		}
	}
	if typ.Type != gjson.String {
		return dst, d.malformed("/type", "expected a string event type")
	}
	if d.done && typ.Str != "error" {
		return dst, nil // nothing after message_stop changes the turn
	}
	switch typ.Str {
	case "message_start":
		msg := gjson.Get(s, "message")
		if m := msg.Get("model"); m.Type == gjson.String {
			d.turn.Provenance.Model = strings.Clone(m.Str)
		}
		if u := msg.Get("usage"); u.IsObject() {
			d.turn.Usage = []byte(u.Raw)
		}
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
	case "message_stop":
		if gjson.Get(s, "amazon-bedrock-invocationMetrics").Exists() {
			d.bedrock = true
		}
		d.done = true
		dst = append(dst, replay.Event{Kind: replay.EventDone, Block: -1})
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

func (d *StreamDecoder) fail(dst []replay.Event, pe *replay.ProviderError) ([]replay.Event, error) {
	d.turn.Error = pe
	dst = append(dst, replay.Event{Kind: replay.EventError, Block: -1, Err: pe})
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

func (d *StreamDecoder) index(s string) (int, error) {
	ix := gjson.Get(s, "index")
	if ix.Type != gjson.Number || ix.Num < 0 || ix.Num != float64(int64(ix.Num)) {
		return 0, d.malformed("/index", "expected a non-negative integer block index")
	}
	if ix.Num >= float64(d.limits().MaxBlocks) {
		return 0, &replay.LimitError{What: "block count", Limit: d.limits().MaxBlocks, Event: -1, Block: -1}
	}
	return int(ix.Num), nil
}

func (d *StreamDecoder) block(s string) (*block, error) {
	i, err := d.index(s)
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

func (d *StreamDecoder) start(s string, dst []replay.Event) ([]replay.Event, error) {
	i, err := d.index(s)
	if err != nil {
		return dst, err
	}
	if i < len(d.blocks) && d.blocks[i] != nil {
		return dst, d.malformed("/index", "block %d started twice", i)
	}
	if len(d.turn.Blocks) >= d.limits().MaxBlocks {
		return dst, &replay.LimitError{What: "block count", Limit: d.limits().MaxBlocks, Event: -1, Block: -1}
	}
	cb := gjson.Get(s, "content_block")
	ctype := cb.Get("type")
	if !cb.IsObject() || ctype.Type != gjson.String {
		return dst, d.malformed("/content_block", "expected a content block object with a string type")
	}
	b := &block{pos: len(d.turn.Blocks), open: true}
	switch ctype.Str {
	case "thinking":
		b.kind = kindThinking
		b.think = &replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: formats.AnthropicClaude, Index: replay.Some(i)}}
		t := cb.Get("thinking")
		if t.Exists() && t.Type != gjson.String {
			return dst, d.malformed("/content_block/thinking", "expected a string")
		}
		writeStr(&b.text, t)
		if sg := cb.Get("signature"); sg.Exists() {
			if sg.Type != gjson.String {
				return dst, d.malformed("/content_block/signature", "expected a string")
			}
			b.sigSeen = true
			writeStr(&b.sig, sg)
		}
		b.think.Extra = extraMembers(cb, "type", "thinking", "signature")
		d.turn.Blocks = append(d.turn.Blocks, b.think)
		dst = append(dst, replay.Event{Kind: replay.EventReasoningStart, Block: b.pos, Item: b.think})
		if b.text.Len() > 0 {
			dst = append(dst, replay.Event{Kind: replay.EventReasoningDelta, Block: b.pos, Delta: b.text.String()})
		}
	case "redacted_thinking":
		b.kind = kindRedacted
		data := cb.Get("data")
		if data.Type != gjson.String {
			return dst, d.malformed("/content_block/data", "expected the redacted_thinking data string")
		}
		if len(data.Raw) > d.limits().MaxItem {
			return dst, &replay.LimitError{What: "item size", Limit: d.limits().MaxItem, Event: -1, Block: -1}
		}
		b.enc = &replay.Encrypted{ItemMeta: replay.ItemMeta{Format: formats.AnthropicClaude, Index: replay.Some(i)},
			Data: strings.Clone(data.Str)}
		b.enc.Extra = extraMembers(cb, "type", "data")
		d.turn.Blocks = append(d.turn.Blocks, b.enc)
		dst = append(dst, replay.Event{Kind: replay.EventReasoningStart, Block: b.pos, Item: b.enc})
	case "text":
		b.kind = kindText
		t := cb.Get("text")
		if t.Exists() && t.Type != gjson.String {
			return dst, d.malformed("/content_block/text", "expected a string")
		}
		writeStr(&b.text, t)
		b.txt = &replay.Text{Extra: extraMembers(cb, "type", "text")}
		d.turn.Blocks = append(d.turn.Blocks, b.txt)
		if b.text.Len() > 0 {
			dst = append(dst, replay.Event{Kind: replay.EventTextDelta, Block: b.pos, Delta: b.text.String()})
		}
	case "tool_use":
		b.kind = kindToolUse
		id, name := cb.Get("id"), cb.Get("name")
		if id.Type != gjson.String || name.Type != gjson.String {
			return dst, d.malformed("/content_block", "expected a tool_use block with string id and name")
		}
		b.call = &replay.ToolCall{ID: strings.Clone(id.Str), Name: strings.Clone(name.Str),
			Extra: extraMembers(cb, "type", "id", "name", "input")}
		if in := cb.Get("input"); in.Exists() {
			b.startInput = strings.Clone(in.Raw)
		}
		d.turn.Blocks = append(d.turn.Blocks, b.call)
		dst = append(dst, replay.Event{Kind: replay.EventToolCallStart, Block: b.pos, ID: b.call.ID, Name: b.call.Name})
	default:
		b.kind = kindNative
		b.nat = &replay.Native{Kind: strings.Clone(ctype.Str), Raw: []byte(cb.Raw)}
		d.turn.Blocks = append(d.turn.Blocks, b.nat)
	}
	for len(d.blocks) <= i {
		d.blocks = append(d.blocks, nil)
	}
	d.blocks[i] = b
	return dst, nil
}

func (d *StreamDecoder) delta(s string, dst []replay.Event) ([]replay.Event, error) {
	b, err := d.block(s)
	if err != nil {
		return dst, err
	}
	delta := gjson.Get(s, "delta")
	dtype := delta.Get("type")
	if !delta.IsObject() || dtype.Type != gjson.String {
		return dst, d.malformed("/delta", "expected a delta object with a string type")
	}
	str := func(member string) (gjson.Result, error) {
		v := delta.Get(member)
		if v.Type != gjson.String {
			return v, d.malformed("/delta/"+member, "expected a string")
		}
		return v, nil
	}
	wrong := func() error {
		return d.malformed("/delta/type", "%s for a block that is not %s", dtype.Str, map[blockKind]string{
			kindThinking: "thinking", kindRedacted: "redacted_thinking", kindText: "text",
			kindToolUse: "tool_use", kindNative: "a server block"}[b.kind])
	}
	grow := func(sb *strings.Builder, v gjson.Result) (int, error) {
		old := sb.Len()
		if old+len(v.Raw) > d.limits().MaxItem {
			return old, &replay.LimitError{What: "item size", Limit: d.limits().MaxItem, Event: -1, Block: -1}
		}
		writeStr(sb, v)
		return old, nil
	}
	switch dtype.Str {
	case "thinking_delta":
		if b.kind != kindThinking {
			return dst, wrong()
		}
		v, err := str("thinking")
		if err != nil {
			return dst, err
		}
		old, err := grow(&b.text, v)
		if err != nil {
			return dst, err
		}
		if b.text.Len() > old {
			dst = append(dst, replay.Event{Kind: replay.EventReasoningDelta, Block: b.pos, Delta: b.text.String()[old:]})
		}
	case "signature_delta":
		if b.kind != kindThinking {
			return dst, wrong()
		}
		v, err := str("signature")
		if err != nil {
			return dst, err
		}
		b.sigSeen = true
		if _, err := grow(&b.sig, v); err != nil {
			return dst, err
		}
	case "text_delta":
		if b.kind != kindText {
			return dst, wrong()
		}
		v, err := str("text")
		if err != nil {
			return dst, err
		}
		old, err := grow(&b.text, v)
		if err != nil {
			return dst, err
		}
		if b.text.Len() > old {
			dst = append(dst, replay.Event{Kind: replay.EventTextDelta, Block: b.pos, Delta: b.text.String()[old:]})
		}
	case "input_json_delta":
		if b.kind != kindToolUse && b.kind != kindNative {
			return dst, wrong()
		}
		v, err := str("partial_json")
		if err != nil {
			return dst, err
		}
		old, err := grow(&b.text, v)
		if err != nil {
			return dst, err
		}
		if b.kind == kindToolUse && b.text.Len() > old {
			dst = append(dst, replay.Event{Kind: replay.EventToolCallDelta, Block: b.pos, Delta: b.text.String()[old:]})
		}
	case "citations_delta":
		if b.kind != kindText {
			return dst, wrong()
		}
		c := delta.Get("citation")
		if !c.IsObject() {
			return dst, d.malformed("/delta/citation", "expected a citation object")
		}
		if len(b.cites) > 0 {
			b.cites = append(b.cites, ',')
		}
		b.cites = append(b.cites, c.Raw...)
	default:
		// A delta type added later: tolerated, not kept.
	}
	return dst, nil
}

// stop closes b: its item takes its final text and signature.
func (d *StreamDecoder) stop(b *block, dst []replay.Event) []replay.Event {
	d.settle(b)
	b.open = false
	switch b.kind {
	case kindThinking:
		dst = append(dst, replay.Event{Kind: replay.EventReasoningEnd, Block: b.pos, Item: b.think})
	case kindRedacted:
		dst = append(dst, replay.Event{Kind: replay.EventReasoningEnd, Block: b.pos, Item: b.enc})
	case kindToolUse:
		dst = append(dst, replay.Event{Kind: replay.EventToolCallEnd, Block: b.pos, ID: b.call.ID, Name: b.call.Name})
	}
	return dst
}

// settle writes b's accumulated strings into its turn block.
func (d *StreamDecoder) settle(b *block) {
	switch b.kind {
	case kindThinking:
		b.think.Text = b.text.String()
		if b.sigSeen {
			b.think.Signature = replay.Some(b.sig.String())
		}
	case kindText:
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
	case kindNative:
		if b.text.Len() > 0 && gjson.Valid(b.text.String()) {
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

// Finish implements [replay.FrameDecoder].
func (d *StreamDecoder) Finish() (*replay.Turn, error) {
	if d.finished {
		return &d.turn, d.malformed("", "Finish called twice")
	}
	d.finished = true
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
			}
		}
	}
	// Thinking blocks cannot be partially recovered: when the stream did
	// not complete, no block of it is replayable, closed or not.
	switch {
	case d.err != nil:
		t.MarkUnfinished()
		return t, d.err
	case !d.done:
		t.MarkUnfinished()
		return t, &replay.Error{API: API, Event: d.n, Err: fmt.Errorf("stream ended before message_stop: %w", io.ErrUnexpectedEOF)}
	case len(open) > 0:
		t.MarkUnfinished()
		return t, &replay.Error{API: API, Event: d.n, Err: fmt.Errorf("message_stop with block %d still open: %w", open[0], io.ErrUnexpectedEOF)}
	}
	t.Complete = true
	return t, nil
}

// extraMembers returns the members of obj not in known, as one JSON object in
// source order (a repeated name kept once), or nil.
func extraMembers(obj gjson.Result, known ...string) []byte {
	return jsonw.ExtraMembers(obj.Raw, known...)
}
