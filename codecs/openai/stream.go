package openai

import (
	"fmt"
	"io"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/engine"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/stream"
	"github.com/tidwall/gjson"
)

// NewFrameDecoder returns a fresh stream decoder for this provider.
func (c Codec) NewFrameDecoder() codecs.FrameDecoder {
	return &StreamDecoder{Provider: c.Provider, Limits: c.Limits}
}

// StreamDecoder decodes a Responses stream, one event's data at a time. The
// zero value decodes OpenAI's stream with the default limits; it implements
// [codecs.FrameDecoder]. See the package
// documentation for the wire facts it handles.
type StreamDecoder struct {
	// Limits bound event, item and block sizes; zero fields take defaults.
	Limits replay.Limits
	// Provider is the platform that served the stream (see [Codec.Provider]).
	Provider string

	run     engine.Run
	format  replay.Format
	turn    replay.Turn
	blks    []*blk     // blocks in arrival order; events name their positions
	outs    []*outItem // by output_index
	seen    []uint64   // sequence numbers seen, as a bit set
	seenMap map[int64]struct{}
	ended   bool // a terminal event was decoded

	// to is the block the last delta event read in full and learned
	// appended to: a next event like it (only its delta, sequence number
	// or obfuscation differ) is read by matching and appended to it, as
	// the full path would; seqHole is the index of its sequence number's
	// hole (0 for none: hole 0 is the delta).
	to      deltaTo
	seqHole int
	// cand is the block the event being read in full appended its delta
	// to, if it did.
	cand deltaTo

	// Where the turn's objects are carved from (see slab.go; the kept
	// strings and texts come from the engine's arena), and the budget
	// that reads a finished item.
	outSlab  slab[outItem]
	blkSlab  slab[blk]
	sumSlab  slab[replay.Summary]
	rtSlab   slab[replay.ReasoningText]
	textSlab slab[replay.Text]
	callSlab slab[replay.ToolCall]
	encSlab  slab[replay.Encrypted]
	keepr    arenaKeeper
	order    []int // itemBlocks' result
	// The parts of the reasoning item being read, reused from item to
	// item.
	sums, texts []string
}

// arenaKeeper is the [keeper] of a finished item's strings: it counts them
// against its budget and copies them into the decoder's arena.
type arenaKeeper struct {
	budget kit.Budget
	strs   *engine.Arena
}

func (k *arenaKeeper) Item(pos, size, add int) error { return k.budget.Item(pos, size, add) }

func (k *arenaKeeper) Keep(pos int, s string) (string, error) {
	if err := k.budget.Item(pos, len(s), len(s)); err != nil {
		return "", err
	}
	return k.strs.Clone(s), nil
}

// deltaTo is the block a delta event appends to, as the full path found
// it: its position and the kind of event its deltas emit.
type deltaTo struct {
	b    *blk
	at   int
	kind stream.EventKind
	ok   bool
}

// blk is one block under construction.
type blk struct {
	out     int   // output_index
	key     int64 // order inside the output item
	b       engine.Text
	block   replay.Block
	dropped bool
}

// The order of an item's blocks: summaries, reasoning texts or message
// parts, encrypted content.
const (
	keySummary   = 0
	keyContent   = 1 << 32
	keyEncrypted = 2 << 32
)

// outItem is one output item of the stream.
type outItem struct {
	typ    string
	id     string // a message's id, from output_item.added
	done   bool
	blocks []int // positions in blks, in creation order
	summ   []int // summary_index -> position + 1
	cont   []int // content_index -> position + 1
	enc    int   // position + 1 of the encrypted block
	call   int   // position + 1 of the tool call or native block
	// Room for the first blocks and parts, so that most items need no
	// more.
	blocks0 [3]int
	summ0   [2]int
	cont0   [1]int
}

// fields are the top-level members of one event that the decoder reads.
type fields struct {
	typ, seq, outIdx, sumIdx, contIdx, text, item, part, response, args, input gjson.Result
	// delta is the raw value of the delta member ("" when absent): its
	// text is written straight into its block.
	delta string
	// obf is the raw value of the obfuscation member, which the decoder
	// does not read ("" when absent).
	obf string
	// Members of the item, part and response objects, read in the same
	// pass: raw values, "" when absent (or the container is not an
	// object); outputs counts response.output's elements.
	itemType, partType, partText, respModel, respOutput, respUsage string
	outputs                                                        int
}

// stream is the decoder as the engine drives it (see [engine.Codec]).
type decoder StreamDecoder

// SetLimits implements [codecs.FrameDecoder]: the non-zero fields of l
// replace the decoder's limits.
func (d *StreamDecoder) SetLimits(l replay.Limits) { d.run.SetLimits((*decoder)(d), l) }

// Decode implements [codecs.FrameDecoder].
func (d *StreamDecoder) Decode(typ, data []byte, dst []stream.Event) ([]stream.Event, error) {
	return d.run.Decode((*decoder)(d), typ, data, dst)
}

// Finish implements [codecs.FrameDecoder]. The turn's blocks are in
// output_index order; blocks of items that never finished are marked
// unfinished.
func (d *StreamDecoder) Finish() (*replay.Turn, error) { return d.run.Finish((*decoder)(d)) }

func (d *decoder) Start(r *engine.Run) {
	r.Budget = kit.NewBudget(API, d.Limits, 0)
	d.format = FormatFor(d.Provider)
	p := d.Provider
	if p == "" {
		p = "openai"
	}
	d.turn.Provenance = replay.Provenance{API: API, Provider: p}
}

// Full reads the event s in full (trusting nothing) and decodes it. A
// delta event whose type its JSON names, appended to a block, is learned
// as the shape of the next.
func (d *decoder) Full(r *engine.Run, f engine.Frame, s string, dst []stream.Event) ([]stream.Event, error) {
	if s == "" || s == "[DONE]" {
		return dst, nil
	}
	n := r.Budget.Event
	fl, obj, ok := readFields(s)
	if !ok {
		return dst, codecs.Malformed(API, n, "", "expected a JSON Responses stream event")
	}
	if !obj {
		return dst, codecs.Malformed(API, n, "", "expected a JSON Responses stream event object")
	}
	root := gjson.Result{Type: gjson.JSON, Raw: s}
	typ := fl.typ.Str
	if typ == "" && len(f.Type) > 0 {
		typ = string(f.Type)
	}
	if fl.seq.Type == gjson.Number && d.seenBefore(fl.seq.Int()) {
		return dst, nil
	}
	if d.ended {
		return dst, nil
	}
	d.cand.ok = false
	dst, err := d.event(typ, &fl, root, n, dst)
	if err == nil && d.cand.ok && fl.typ.Type == gjson.String && fl.typ.Str != "" {
		d.learn(s, &fl)
	}
	if pe, ok := err.(*replay.ProviderError); ok {
		d.turn.Error = pe
		dst = append(dst, stream.Event{Kind: stream.EventError, Block: -1, Err: pe})
	}
	return dst, err
}

// learn learns the shape of the delta event s, read in full into fl,
// with its delta (decoded by the full path's code), sequence number and
// obfuscation (not read) as the holes.
func (d *decoder) learn(s string, fl *fields) {
	holes := [3]string{fl.delta}
	k, seq := 1, 0
	if fl.seq.Type == gjson.Number {
		holes[k], seq = fl.seq.Raw, k
		k++
	}
	if o := fl.obf; o != "" && (o[0] == '"' || o[0] == '-' || (o[0] >= '0' && o[0] <= '9')) {
		holes[k] = o
		k++
	}
	if d.run.Learn(s, holes[:k], -1, nil) {
		d.to, d.seqHole = d.cand, seq
	}
}

// Matched decodes an event that matched the learned shape: it differs
// from the last delta event only in the holes' values. It runs what the
// full path runs for that event: the sequence number's repeat check, then
// the delta appended to the same block, within the budget.
func (d *decoder) Matched(r *engine.Run, m *engine.Match, dst []stream.Event) ([]stream.Event, error) {
	if d.seqHole > 0 && d.seenBefore(seqNumber(m.Raw(d.seqHole))) {
		return dst, nil
	}
	if d.ended {
		return dst, nil
	}
	return d.appendText(d.to.b, d.to.at, d.to.kind, m.Raw(0), m.Escaped(0), dst)
}

// seqNumber returns result(raw).Int() for raw a JSON number, without
// going through a float for a plain integer of up to 15 digits.
func seqNumber(raw string) int64 {
	if len(raw) >= 16 || raw[0] == '-' || (raw[0] == '0' && raw != "0") {
		return result(raw).Int()
	}
	var n int64
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c < '0' || c > '9' {
			return result(raw).Int() // a fraction or an exponent
		}
		n = n*10 + int64(c-'0')
	}
	return n
}

// readFields reads the top-level members of the event s that the decoder
// uses, in the one pass that validates s as [jsonw.Valid] does. It reports
// whether s is an object, and ok false when s is not valid JSON.
func readFields(s string) (fl fields, obj, ok bool) {
	var sc jsonw.Scanner
	if !sc.Reset(s) {
		return fl, false, false
	}
	var top jsonw.Object
	if !sc.Object(&top) {
		return fl, false, sc.End()
	}
	for name, more := sc.Member(&top); more; name, more = sc.Member(&top) {
		var dst *gjson.Result
		switch name {
		case "type":
			dst = &fl.typ
		case "sequence_number":
			dst = &fl.seq
		case "output_index":
			dst = &fl.outIdx
		case "summary_index":
			dst = &fl.sumIdx
		case "content_index":
			dst = &fl.contIdx
		case "delta":
			fl.delta = sc.Value()
			continue
		case "text":
			dst = &fl.text
		case "item":
			fl.item = result(readObject(&sc, "type", &fl.itemType, "", nil))
			continue
		case "part":
			fl.part = result(readObject(&sc, "type", &fl.partType, "text", &fl.partText))
			continue
		case "response":
			fl.response = result(readResponse(&sc, &fl))
			continue
		case "arguments":
			dst = &fl.args
		case "input":
			dst = &fl.input
		case "obfuscation":
			fl.obf = sc.Value()
			continue
		default:
			continue
		}
		*dst = result(sc.Value())
	}
	return fl, true, sc.End()
}

// readObject reads the value at sc's position and returns its raw text;
// when it is an object, it sets *v1 and *v2 (when v2 is not nil) to the raw
// values of its members k1 and k2 (left "" when absent), in the same pass.
func readObject(sc *jsonw.Scanner, k1 string, v1 *string, k2 string, v2 *string) string {
	mark := sc.Mark()
	var o jsonw.Object
	if !sc.Object(&o) {
		return sc.Value()
	}
	for name, ok := sc.Member(&o); ok; name, ok = sc.Member(&o) {
		switch {
		case name == k1:
			*v1 = sc.Value()
		case v2 != nil && name == k2:
			*v2 = sc.Value()
		}
	}
	return sc.Since(mark)
}

// readResponse reads the value at sc's position, a terminal event's
// response, and returns its raw text; when it is an object, it keeps its
// model, output and usage in fl and counts the output's elements, in the
// same pass.
func readResponse(sc *jsonw.Scanner, fl *fields) string {
	mark := sc.Mark()
	var o jsonw.Object
	if !sc.Object(&o) {
		return sc.Value()
	}
	for name, ok := sc.Member(&o); ok; name, ok = sc.Member(&o) {
		switch name {
		case "model":
			fl.respModel = sc.Value()
		case "usage":
			fl.respUsage = sc.Value()
		case "output":
			at := sc.Mark()
			var a jsonw.Array
			if !sc.Array(&a) {
				fl.respOutput = sc.Value()
				continue
			}
			for sc.Elem(&a) {
				fl.outputs++
			}
			fl.respOutput = sc.Since(at)
		}
	}
	return sc.Since(mark)
}

// result makes the gjson value of the raw text of one valid JSON value,
// as gjson reads it; a string's Str views raw unless it has escapes.
func result(raw string) gjson.Result {
	if raw == "" {
		return gjson.Result{}
	}
	switch c := raw[0]; {
	case c == '"':
		return gjson.Result{Type: gjson.String, Raw: raw, Str: jsonw.UnquoteView(raw)}
	case c == '{' || c == '[':
		return gjson.Result{Type: gjson.JSON, Raw: raw}
	case c == 't':
		return gjson.Result{Type: gjson.True, Raw: raw}
	case c == 'f':
		return gjson.Result{Type: gjson.False, Raw: raw}
	case c == 'n':
		return gjson.Result{Type: gjson.Null, Raw: raw}
	}
	if len(raw) < 16 && raw[0] != '-' && raw[0] != '0' || raw == "0" {
		n := 0
		for i := 0; i < len(raw); i++ {
			if raw[i] < '0' || raw[i] > '9' {
				return gjson.Parse(raw) // a fraction or an exponent
			}
			n = n*10 + int(raw[i]-'0')
		}
		return gjson.Result{Type: gjson.Number, Raw: raw, Num: float64(n)}
	}
	return gjson.Parse(raw) // a number
}

// seenBefore records a sequence number and reports whether it was seen.
func (d *decoder) seenBefore(n int64) bool {
	if n >= 0 && n < 1<<24 {
		w, bit := n>>6, uint64(1)<<(n&63)
		for int64(len(d.seen)) <= w {
			d.seen = append(d.seen, 0)
		}
		if d.seen[w]&bit != 0 {
			return true
		}
		d.seen[w] |= bit
		return false
	}
	if d.seenMap == nil {
		d.seenMap = map[int64]struct{}{}
	}
	if _, ok := d.seenMap[n]; ok {
		return true
	}
	d.seenMap[n] = struct{}{}
	return false
}

// event decodes one event of type typ.
func (d *decoder) event(typ string, fl *fields, root gjson.Result, n int, dst []stream.Event) ([]stream.Event, error) {
	switch typ {
	case "response.created", "response.in_progress", "response.queued":
		d.model(fl.response)
	case "response.output_item.added":
		o, pos, err := d.out(fl, n, "")
		if err != nil {
			return dst, err
		}
		return d.added(o, pos, fl.item, value(fl.itemType), n, dst)
	case "response.reasoning_summary_part.added", "response.reasoning_summary_text.delta",
		"response.reasoning_summary_text.done", "response.reasoning_summary_part.done":
		return d.reasoningPart(typ, fl, n, fl.sumIdx, "/summary_index", keySummary, dst)
	case "response.reasoning_text.delta", "response.reasoning_text.done":
		return d.reasoningPart(typ, fl, n, fl.contIdx, "/content_index", keyContent, dst)
	case "response.content_part.added", "response.content_part.done":
		return d.contentPart(typ, fl, n, dst)
	case "response.output_text.delta", "response.output_text.done":
		return d.outputText(typ, fl, n, dst)
	case "response.function_call_arguments.delta", "response.function_call_arguments.done",
		"response.custom_tool_call_input.delta", "response.custom_tool_call_input.done":
		return d.callInput(typ, fl, n, dst)
	case "response.output_item.done":
		o, pos, err := d.out(fl, n, "")
		if err != nil {
			return dst, err
		}
		return d.itemDone(o, pos, fl.item, value(fl.itemType), n, dst)
	case "response.completed":
		return d.completed(fl, n, dst)
	case "response.incomplete", "response.failed":
		return dst, d.unsuccessful(typ, fl)
	case "error":
		d.ended = true
		e := root
		if x := get(root, "error"); x.IsObject() {
			e = x
		}
		return dst, providerError(e)
	}
	return dst, nil
}

// reasoningPart routes a summary or reasoning-text event of a reasoning
// item to its part (idx, at JSON Pointer ptr; key orders the part).
func (d *decoder) reasoningPart(typ string, fl *fields, n int, idxv gjson.Result, ptr string, key int64, dst []stream.Event) ([]stream.Event, error) {
	o, pos, err := d.out(fl, n, "reasoning")
	if err != nil {
		return dst, err
	}
	if o.typ != "reasoning" {
		return dst, nil
	}
	idx, err := index(idxv, n, ptr)
	if err != nil {
		return dst, err
	}
	parts := &o.cont
	if key == keySummary {
		parts = &o.summ
	}
	return d.partEvent(o, pos, parts, idx, key, typ, fl, n, dst)
}

// contentPart routes a content_part event, which names the type of its
// item by its part's type when no earlier event did.
func (d *decoder) contentPart(typ string, fl *fields, n int, dst []stream.Event) ([]stream.Event, error) {
	o, pos, err := d.out(fl, n, "")
	if err != nil {
		return dst, err
	}
	pt := value(fl.partType).Str // get(fl.part, "type"), read in the event's pass
	if o.typ == "" {
		if pt == "reasoning_text" {
			o.typ = "reasoning"
		} else {
			o.typ = "message"
		}
	}
	if (o.typ == "reasoning" && pt == "reasoning_text") || (o.typ == "message" && pt == "output_text") {
		idx, err := index(fl.contIdx, n, "/content_index")
		if err != nil {
			return dst, err
		}
		return d.partEvent(o, pos, &o.cont, idx, keyContent, typ, fl, n, dst)
	}
	return dst, nil
}

// outputText routes a message's text delta or done event.
func (d *decoder) outputText(typ string, fl *fields, n int, dst []stream.Event) ([]stream.Event, error) {
	o, pos, err := d.out(fl, n, "message")
	if err != nil {
		return dst, err
	}
	if o.typ != "message" {
		return dst, nil
	}
	idx, err := index(fl.contIdx, n, "/content_index")
	if err != nil {
		return dst, err
	}
	return d.partEvent(o, pos, &o.cont, idx, keyContent, typ, fl, n, dst)
}

// callInput appends to (delta) or settles (done) a tool call's arguments.
func (d *decoder) callInput(typ string, fl *fields, n int, dst []stream.Event) ([]stream.Event, error) {
	want := "function_call"
	final := fl.args
	if strings.HasPrefix(typ, "response.custom") {
		want, final = "custom_tool_call", fl.input
	}
	o, pos, err := d.out(fl, n, want)
	if err != nil {
		return dst, err
	}
	if o.typ != "function_call" && o.typ != "custom_tool_call" {
		return dst, nil
	}
	if o.call == 0 {
		dst = d.openCall(o, pos, gjson.Result{}, dst)
		if err := d.run.Err(); err != nil {
			return dst, err
		}
	}
	b := d.blks[o.call-1]
	if strings.HasSuffix(typ, ".delta") {
		return d.appendDelta(b, o.call-1, stream.EventToolCallDelta, fl.delta, n, dst)
	}
	if final.Type == gjson.String {
		return d.reconcile(b, o.call-1, stream.EventToolCallDelta, final.Str, dst)
	}
	return dst, nil
}

// completed ends the stream: items whose output_item.done never came are
// taken from the response.
func (d *decoder) completed(fl *fields, n int, dst []stream.Event) ([]stream.Event, error) {
	d.ended = true
	// The response's members as get reads them, found in the event's one
	// pass.
	d.setModel(value(fl.respModel))
	dst, err := d.fillFrom(value(fl.respOutput), fl.outputs, n, dst)
	if err != nil {
		return dst, err
	}
	if u := value(fl.respUsage); u.IsObject() {
		d.turn.Usage = []byte(u.Raw)
	}
	d.turn.Complete = true
	d.turn.FinishReason = "completed"
	return append(dst, stream.Event{Kind: stream.EventDone, Block: -1}), nil
}

// unsuccessful ends the stream with response.incomplete or
// response.failed, returning the provider error.
func (d *decoder) unsuccessful(typ string, fl *fields) error {
	d.ended = true
	d.model(fl.response)
	if u := get(fl.response, "usage"); u.IsObject() {
		d.turn.Usage = []byte(u.Raw)
	}
	var t replay.Turn
	err := finishStatus(&t, fl.response)
	if err == nil {
		err = &replay.ProviderError{API: API, Type: strings.TrimPrefix(typ, "response."), Message: "the stream ended with " + typ}
	}
	d.turn.FinishReason = t.FinishReason
	return err
}

func (d *decoder) model(resp gjson.Result) { d.setModel(get(resp, "model")) }

// setModel keeps m, a response's model, unless the turn has one.
func (d *decoder) setModel(m gjson.Result) {
	if m.Type == gjson.String && d.turn.Provenance.Model == "" {
		d.turn.Provenance.Model = d.run.Texts.Clone(m.Str)
	}
}

func index(v gjson.Result, n int, ptr string) (int, error) {
	if !v.Exists() {
		return 0, nil
	}
	if v.Type != gjson.Number || v.Num < 0 || v.Num != float64(int64(v.Num)) {
		return 0, codecs.Malformed(API, n, ptr, "expected a non-negative integer")
	}
	return int(v.Num), nil
}

// out returns the output item an event names, creating it (of type typ)
// when the event is the first to name it.
func (d *decoder) out(fl *fields, n int, typ string) (*outItem, int, error) {
	pos, err := index(fl.outIdx, n, "/output_index")
	if err != nil {
		return nil, 0, err
	}
	if !fl.outIdx.Exists() {
		return nil, 0, codecs.Malformed(API, n, "/output_index", "expected an output_index")
	}
	if pos >= d.run.Budget.Limits().MaxBlocks {
		return nil, 0, d.blockLimit()
	}
	for len(d.outs) <= pos {
		d.outs = append(d.outs, nil)
	}
	o := d.outs[pos]
	if o == nil {
		o = d.outSlab.new()
		o.typ = typ
		d.outs[pos] = o
	}
	return o, pos, nil
}

// newBlock adds a block of output item pos and returns its position.
func (d *decoder) newBlock(o *outItem, pos int, key int64, b replay.Block) (int, error) {
	if err := d.run.Budget.Block(len(d.blks)); err != nil {
		return 0, err
	}
	x := d.blkSlab.new()
	x.out, x.key, x.block = pos, key, b
	d.blks = append(d.blks, x)
	if o.blocks == nil {
		o.blocks = o.blocks0[:0]
	}
	o.blocks = append(o.blocks, len(d.blks)-1)
	return len(d.blks) - 1, nil
}

// added opens what an output_item.added announces: item, of type
// itemType (its member as get reads it).
func (d *decoder) added(o *outItem, pos int, item, itemType gjson.Result, n int, dst []stream.Event) ([]stream.Event, error) {
	if !item.IsObject() {
		return dst, codecs.Malformed(API, n, "/item", "expected an output item object")
	}
	if o.typ == "" {
		o.typ = internType(itemType.Str) // get(item, "type"), read in the event's pass
	}
	switch o.typ {
	case "":
		// No type yet: the item's later events or its .done name it.
	case "reasoning", "message":
		// Blocks open with their parts.
		if o.typ == "message" {
			o.id = d.run.Texts.Clone(get(item, "id").Str)
			if err := d.keep(len(d.blks), o.id); err != nil {
				return dst, err
			}
		}
	case "function_call", "custom_tool_call":
		if o.call == 0 {
			return d.openCall(o, pos, item, dst), nil
		}
	case "compaction":
		// Its encrypted content comes whole with output_item.done.
		if o.call == 0 {
			at, err := d.newBlock(o, pos, 0, &replay.Compaction{Format: d.format, ID: d.run.Texts.Clone(get(item, "id").Str), Unfinished: true})
			if err == nil {
				err = d.keep(at, get(item, "id").Str)
			}
			if err != nil {
				return dst, err
			}
			o.call = at + 1
		}
	default:
		if o.call == 0 {
			at, err := d.newBlock(o, pos, 0, &replay.Native{Kind: o.typ, Raw: []byte(item.Raw), Unfinished: true})
			if err == nil {
				err = d.keep(at, item.Raw)
			}
			if err != nil {
				return dst, err
			}
			o.call = at + 1
		}
	}
	return dst, nil
}

func (d *decoder) openCall(o *outItem, pos int, item gjson.Result, dst []stream.Event) []stream.Event {
	tc := d.callSlab.new()
	*tc = replay.ToolCall{ID: d.run.Texts.Clone(get(item, "call_id").Str), Name: d.run.Texts.Clone(get(item, "name").Str),
		ItemID: d.run.Texts.Clone(get(item, "id").Str), Unfinished: true}
	at, err := d.newBlock(o, pos, 0, tc)
	if err == nil {
		err = d.keep(at, tc.ID, tc.Name, tc.ItemID)
	}
	if err != nil {
		d.run.Fail(err)
		return dst
	}
	o.call = at + 1
	return append(dst, stream.Event{Kind: stream.EventToolCallStart, Block: at, ID: tc.ID, Name: tc.Name})
}

// part returns the position of part idx of o (a summary, reasoning text or
// message text), creating the block when needed.
func (d *decoder) part(o *outItem, pos int, parts *[]int, idx int, key int64, dst []stream.Event) (int, []stream.Event, error) {
	if idx >= d.run.Budget.Limits().MaxBlocks {
		return 0, dst, d.blockLimit()
	}
	if *parts == nil {
		if parts == &o.summ {
			*parts = o.summ0[:0]
		} else {
			*parts = o.cont0[:0]
		}
	}
	for len(*parts) <= idx {
		*parts = append(*parts, 0)
	}
	if at := (*parts)[idx]; at > 0 {
		return at - 1, dst, nil
	}
	var b replay.Block
	meta := replay.ItemMeta{Format: d.format, Index: replay.Some(idx), Unfinished: true}
	switch {
	case o.typ == "message":
		t := d.textSlab.new()
		t.ID = o.id
		b = t
	case key == keySummary:
		x := d.sumSlab.new()
		x.ItemMeta = meta
		b = x
	default:
		x := d.rtSlab.new()
		x.ItemMeta = meta
		b = x
	}
	at, err := d.newBlock(o, pos, key+int64(idx), b)
	if err != nil {
		return 0, dst, err
	}
	(*parts)[idx] = at + 1
	if it, ok := b.(replay.ReasoningItem); ok {
		dst = append(dst, stream.Event{Kind: stream.EventReasoningStart, Block: at, Item: it})
	}
	return at, dst, nil
}

func deltaKind(b replay.Block) stream.EventKind {
	switch b.(type) {
	case *replay.Text:
		return stream.EventTextDelta
	case *replay.ToolCall:
		return stream.EventToolCallDelta
	}
	return stream.EventReasoningDelta
}

func (d *decoder) partEvent(o *outItem, pos int, parts *[]int, idx int, key int64, typ string, fl *fields, n int, dst []stream.Event) ([]stream.Event, error) {
	at, dst, err := d.part(o, pos, parts, idx, key, dst)
	if err != nil {
		return dst, err
	}
	b := d.blks[at]
	kind := deltaKind(b.block)
	switch {
	case strings.HasSuffix(typ, ".delta"):
		return d.appendDelta(b, at, kind, fl.delta, n, dst)
	case strings.HasSuffix(typ, "text.done"):
		if fl.text.Type == gjson.String {
			return d.reconcile(b, at, kind, fl.text.Str, dst)
		}
	case strings.HasSuffix(typ, "part.done"):
		if t := value(fl.partText); t.Type == gjson.String { // get(fl.part, "text")
			return d.reconcile(b, at, kind, t.Str, dst)
		}
	}
	return dst, nil
}

func (d *decoder) appendDelta(b *blk, at int, kind stream.EventKind, delta string, n int, dst []stream.Event) ([]stream.Event, error) {
	if len(delta) == 0 || delta[0] != '"' {
		return dst, codecs.Malformed(API, n, "/delta", "expected a string delta")
	}
	d.cand = deltaTo{b: b, at: at, kind: kind, ok: true}
	return d.appendText(b, at, kind, delta, strings.IndexByte(delta, '\\') >= 0, dst)
}

// appendText appends the value of raw, a delta's JSON string (escaped when
// it holds an escape), to the block b at position at, within the budget,
// and emits it as an event of the given kind. Both the full and the
// matched path end here.
func (d *decoder) appendText(b *blk, at int, kind stream.EventKind, raw string, escaped bool, dst []stream.Event) ([]stream.Event, error) {
	if len(raw) == 2 {
		return dst, nil // ""
	}
	start := b.b.Len()
	if !escaped {
		s := raw[1 : len(raw)-1]
		if err := d.run.Budget.Item(at, start+len(s), len(s)); err != nil {
			return dst, err
		}
		d.run.Texts.Write(&b.b, s)
	} else {
		// Unquoted in place, then counted: a delta refused is cut off
		// again before anything sees it.
		d.run.WriteRaw(&b.b, raw)
		if err := d.run.Budget.Item(at, b.b.Len(), b.b.Len()-start); err != nil {
			b.b.Truncate(start)
			return dst, err
		}
	}
	return append(dst, stream.Event{Kind: kind, Block: at, Delta: b.b.String()[start:]}), nil
}

// reconcile makes the block's text the final text a `.done` event or item
// gives: the missing tail is emitted as one more delta; a text that the
// deltas do not lead to replaces them (the final text wins).
func (d *decoder) reconcile(b *blk, at int, kind stream.EventKind, final string, dst []stream.Event) ([]stream.Event, error) {
	if err := d.run.Budget.Item(at, len(final), max(0, len(final)-b.b.Len())); err != nil {
		return dst, err
	}
	cur := b.b.String()
	if cur == final {
		return dst, nil
	}
	if strings.HasPrefix(final, cur) {
		d.run.Texts.Write(&b.b, final[len(cur):])
		return append(dst, stream.Event{Kind: kind, Block: at, Delta: b.b.String()[len(cur):]}), nil
	}
	b.b.Reset()
	d.run.Texts.Write(&b.b, final)
	return dst, nil
}

// itemDone takes the authoritative item of response.output_item.done, of
// type itemType (its member as get reads it).
func (d *decoder) itemDone(o *outItem, pos int, item, itemType gjson.Result, n int, dst []stream.Event) ([]stream.Event, error) {
	if !item.IsObject() {
		return dst, codecs.Malformed(API, n, "/item", "expected an output item object")
	}
	if o.done {
		return dst, nil
	}
	typ := itemType.Str
	if o.typ != typ {
		// The item changed type since it was announced: what was built
		// for the old type is dropped.
		for _, at := range o.blocks {
			d.blks[at].dropped = true
		}
		*o = outItem{typ: internType(typ)}
	}
	ptr := "/item"
	var err error
	switch typ {
	case "reasoning":
		r := reasoning{summaries: d.sums[:0], texts: d.texts[:0], compareOnly: true}
		scratch := d.scratch()
		err = r.read(item, ptr, len(d.blks), scratch)
		defer func() {
			// Views of this frame: dropped, the slices kept.
			clear(r.summaries)
			clear(r.texts)
			d.sums, d.texts = r.summaries[:0], r.texts[:0]
		}()
		if err != nil {
			return dst, withEvent(err, n)
		}
		dst, err = d.reasoningDone(o, pos, &r, item, dst)
	case "message":
		var m message
		scratch := d.scratch()
		if err = m.read(item, ptr, len(d.blks), scratch); err != nil {
			return dst, withEvent(err, n)
		}
		dst, err = d.messageDone(o, pos, &m, item, dst)
	case "function_call", "custom_tool_call":
		var tc replay.ToolCall
		scratch := d.scratch()
		if err = readCall(&tc, item, ptr, len(d.blks), scratch); err != nil {
			return dst, withEvent(err, n)
		}
		if o.call == 0 {
			dst = d.openCall(o, pos, item, dst)
			if err := d.run.Err(); err != nil {
				return dst, err
			}
		}
		b := d.blks[o.call-1]
		if dst, err = d.reconcile(b, o.call-1, stream.EventToolCallDelta, tc.Arguments, dst); err != nil {
			return dst, err
		}
		*b.block.(*replay.ToolCall) = tc
		dst = append(dst, stream.Event{Kind: stream.EventToolCallEnd, Block: o.call - 1, ID: tc.ID, Name: tc.Name})
	case "compaction":
		scratch := d.scratch()
		x, err := readCompaction(item, d.format, ptr, len(d.blks), scratch)
		if err != nil {
			return dst, withEvent(err, n)
		}
		if o.call == 0 {
			at, err := d.newBlock(o, pos, 0, x)
			if err != nil {
				return dst, err
			}
			o.call = at + 1
		}
		if err := d.keep(o.call-1, x.ID, x.Data, string(x.Extra)); err != nil {
			return dst, err
		}
		d.blks[o.call-1].block = x
	default:
		if err := d.keep(len(d.blks), item.Raw); err != nil {
			return dst, err
		}
		nat := &replay.Native{Kind: internType(typ), Raw: []byte(item.Raw), Unfinished: unfinishedStatus(item)}
		if o.call == 0 {
			at, err := d.newBlock(o, pos, 0, nat)
			if err != nil {
				return dst, err
			}
			o.call = at + 1
		}
		d.blks[o.call-1].block = nat
	}
	if err != nil {
		return dst, err
	}
	o.done = true
	return dst, nil
}

// scratch returns the keeper for reading one finished item: its strings
// are bounded by MaxItem there, copied into the decoder's arena, and
// counted against the turn as they are applied (text by reconcile, the
// rest by keep).
func (d *decoder) scratch() *arenaKeeper {
	d.keepr = arenaKeeper{budget: kit.NewBudget(API, d.run.Budget.Limits(), d.run.Budget.Event), strs: &d.run.Texts}
	return &d.keepr
}

// keep counts strings of the block at pos, kept from a finished item,
// against the turn.
func (d *decoder) keep(pos int, strs ...string) error {
	for _, s := range strs {
		if err := d.run.Budget.Item(pos, len(s), len(s)); err != nil {
			return err
		}
	}
	return nil
}

// blockLimit is the error for an index beyond MaxBlocks.
func (d *decoder) blockLimit() error {
	return &replay.LimitError{What: "block count", Limit: d.run.Budget.Limits().MaxBlocks, API: API, Event: d.run.Budget.Event, Block: -1}
}

func withEvent(err error, n int) error {
	if e, ok := err.(*replay.Error); ok {
		e.Event = n
	}
	return err
}

func (d *decoder) reasoningDone(o *outItem, pos int, r *reasoning, item gjson.Result, dst []stream.Event) ([]stream.Event, error) {
	var err error
	var at int
	for i, s := range r.summaries {
		if at, dst, err = d.part(o, pos, &o.summ, i, keySummary, dst); err != nil {
			return dst, err
		}
		if dst, err = d.reconcile(d.blks[at], at, stream.EventReasoningDelta, s, dst); err != nil {
			return dst, err
		}
	}
	for i, s := range r.texts {
		if at, dst, err = d.part(o, pos, &o.cont, i, keyContent, dst); err != nil {
			return dst, err
		}
		if dst, err = d.reconcile(d.blks[at], at, stream.EventReasoningDelta, s, dst); err != nil {
			return dst, err
		}
	}
	if data, ok := r.enc.Get(); ok {
		if o.enc == 0 {
			enc := d.encSlab.new()
			enc.Format = d.format
			if at, err = d.newBlock(o, pos, keyEncrypted, enc); err != nil {
				return dst, err
			}
			o.enc = at + 1
			dst = append(dst, stream.Event{Kind: stream.EventReasoningStart, Block: at, Item: enc})
		}
		if err := d.keep(o.enc-1, data); err != nil {
			return dst, err
		}
		d.blks[o.enc-1].block.(*replay.Encrypted).Data = data
	}
	items := d.itemBlocks(o)
	if len(items) == 0 {
		at, err := d.newBlock(o, pos, 0, &replay.Native{Kind: "reasoning", Raw: []byte(item.Raw), Unfinished: r.unfinished})
		if err != nil {
			return dst, err
		}
		o.call = at + 1
		return dst, nil
	}
	for i, at := range items {
		b := d.blks[at]
		it, ok := b.block.(replay.ReasoningItem)
		if !ok {
			// Built while the item's type was not known: not a part.
			b.dropped = true
			continue
		}
		m := it.Meta()
		m.ID = r.id
		m.Unfinished = r.unfinished
		if i == 0 && len(r.extra) > 0 {
			m.Extra = wrap(r.extra)
		}
		switch x := it.(type) {
		case *replay.Summary:
			x.Summary = b.b.String()
		case *replay.ReasoningText:
			x.Text = b.b.String()
		}
		dst = append(dst, stream.Event{Kind: stream.EventReasoningEnd, Block: at, Item: it})
	}
	return dst, nil
}

// itemBlocks returns the positions of o's live blocks in item order. The
// slice is reused by the next call.
func (d *decoder) itemBlocks(o *outItem) []int {
	out := d.order[:0]
	for _, at := range o.blocks {
		if !d.blks[at].dropped {
			out = append(out, at)
		}
	}
	// A stable insertion sort: the blocks come nearly in order.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && d.blks[out[j]].key < d.blks[out[j-1]].key; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	d.order = out
	return out
}

func (d *decoder) messageDone(o *outItem, pos int, m *message, item gjson.Result, dst []stream.Event) ([]stream.Event, error) {
	if m.native {
		for _, at := range o.blocks {
			d.blks[at].dropped = true
		}
		at, err := d.newBlock(o, pos, 0, &replay.Native{Kind: "message", Raw: []byte(item.Raw), Unfinished: unfinishedStatus(item)})
		if err != nil {
			return dst, err
		}
		o.call = at + 1
		return dst, nil
	}
	var err error
	var at int
	for i, s := range m.texts {
		if at, dst, err = d.part(o, pos, &o.cont, i, keyContent, dst); err != nil {
			return dst, err
		}
		b := d.blks[at]
		if dst, err = d.reconcile(b, at, stream.EventTextDelta, s, dst); err != nil {
			return dst, err
		}
		*b.block.(*replay.Text) = replay.Text{Text: b.b.String(), ID: m.id, Extra: m.extra(i)}
	}
	return dst, nil
}

// fillFrom takes, from the terminal response's output array, the items
// whose output_item.done never came.
// The array has elems elements.
func (d *decoder) fillFrom(out gjson.Result, elems, n int, dst []stream.Event) ([]stream.Event, error) {
	missing := false
	for _, o := range d.outs {
		if o == nil || !o.done {
			missing = true
			break
		}
	}
	if !missing && len(d.outs) >= elems {
		return dst, nil
	}
	var err error
	i := 0
	forEach(out, func(_, item gjson.Result) bool {
		if i >= d.run.Budget.Limits().MaxBlocks {
			err = d.blockLimit()
			return false
		}
		for len(d.outs) <= i {
			d.outs = append(d.outs, nil)
		}
		o := d.outs[i]
		if o == nil {
			o = &outItem{}
			d.outs[i] = o
		}
		if !o.done {
			dst, err = d.itemDone(o, i, item, get(item, "type"), n, dst)
		}
		i++
		return err == nil
	})
	return dst, err
}

// End ends the stream.
func (d *decoder) End(r *engine.Run) (*replay.Turn, error) {
	t := d.turn
	t.Blocks = make([]replay.Block, 0, len(d.blks))
	for _, o := range d.outs {
		if o == nil {
			continue
		}
		for _, at := range d.itemBlocks(o) {
			b := d.blks[at]
			if !o.done {
				markUnfinished(b)
			}
			t.Blocks = append(t.Blocks, b.block)
		}
	}
	if err := r.Err(); err != nil {
		t.Complete = false
		return &t, err
	}
	if !d.ended {
		t.Complete = false
		return &t, &replay.Error{API: API, Event: r.Events(), Err: fmt.Errorf("the stream ended before response.completed: %w", io.ErrUnexpectedEOF)}
	}
	return &t, nil
}

// markUnfinished copies the text built so far into an unfinished block
// and marks it.
func markUnfinished(b *blk) {
	switch x := b.block.(type) {
	case *replay.Summary:
		x.Summary = b.b.String()
		x.Unfinished = true
	case *replay.ReasoningText:
		x.Text = b.b.String()
		x.Unfinished = true
	case *replay.Encrypted:
		x.Unfinished = true
	case *replay.Text:
		x.Text = b.b.String()
	case *replay.ToolCall:
		x.Arguments = b.b.String()
		x.Unfinished = true
	case *replay.Native:
		x.Unfinished = true
	case *replay.Compaction:
		x.Unfinished = true
	}
}
