// Package chatstream is the one state machine behind the chat-completions
// stream decoders (openrouter, chatcompat, mistral).
//
// The core reads what every chat.completion.chunk stream shares: the chunk
// envelope (model, provider, usage, a mid-stream error), choices[0] with
// its delta and finish_reason, `[DONE]`, and the tool calls of a delta,
// merged by `index` with their arguments concatenated. It owns the turn,
// its blocks and the [kit.Budget] that bounds what is kept. What differs
// between hosts is a [Host]: which member carries reasoning and how
// fragments merge (OpenRouter's reasoning_details, a host's
// reasoning_content, Mistral's thinking chunks), how content is read (a
// string, <think> tags, chunk arrays), how an error chunk looks, and a few
// switches for the terminal events.
//
// Host hooks build the turn with the core's primitives: [Decoder.Open] for
// a block, [Decoder.NewItem] and [Decoder.AppendRaw] / [Decoder.AppendString]
// for reasoning items, [Decoder.TextRaw] / [Decoder.Text] for visible text.
// Every string goes through the budget. A surrogate pair whose halves arrive
// in two fragments of one text is joined (see [jsonw.WriteUnquotedJoin]).
//
// Lone surrogate escapes (`\ud800` with no partner) name no character;
// decoded, they become U+FFFD. Where that would alter bytes that must stay
// exact, the decoder refuses the input with an error located at the
// member: a signature, an encrypted blob, the text of an item that carries
// a signature, a tool call's id or name. In free text (visible text,
// unsigned reasoning, tool call arguments) a lone half becomes U+FFFD, as
// encoding/json and the providers' own SDKs read it.
package chatstream

import (
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/engine"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/stream"
)

// Chunk is the envelope of one chunk: raw JSON values of its top-level
// members ("" when absent). The strings are views of the frame.
type Chunk struct {
	Raw, Model, Provider, Error, Usage, Choices, Object string
}

// Host is what a codec plugs into the core.
type Host struct {
	// API names the codec in errors and provenance.
	API string
	// Provider is the turn's provenance provider.
	Provider string
	// Upstream records the chunk's top-level `provider` as the provenance
	// upstream (OpenRouter).
	Upstream bool
	// Error returns the provider error a chunk reports, or nil. It decides
	// from the chunk's envelope alone (never from the delta's strings): a
	// chunk read by its shape repeats every byte but those strings.
	Error func(c Chunk) *replay.ProviderError
	// Keys names the members of a delta (or a whole message) that Delta
	// reads: reasoning and content (at most seven).
	Keys []string
	// Delta reads the members of a delta (or a whole message) that the core
	// does not: vals[k] is the raw JSON value of Keys[k] ("" when absent),
	// a view of the frame. ptr is the JSON Pointer of the delta. The core
	// reads tool_calls after it.
	//
	// A stream chunk whose delta opens no block is learned as a shape (see
	// [jsonw.Shape]): the next chunk that differs from it only in the
	// strings Delta handed to [Decoder.AppendRaw], [Decoder.TextRaw],
	// [Decoder.Content] or [Decoder.Ignore] (each as empty or not as
	// before) is read by calling those again with its strings, without
	// Delta. So Delta takes every decision from the other bytes of the
	// delta and the turn's blocks, keeps those strings only through these
	// calls, and makes no other change that a second identical delta would
	// not make again (an id or format kept once is fine); where it does,
	// it calls [Decoder.Unshaped].
	Delta func(d *Decoder, vals []string, ptr string, dst []stream.Event) ([]stream.Event, error)
	// Content, when set, reads a JSON string the host hands to
	// [Decoder.Content] (chatcompat's content, split by <think> tags).
	Content func(d *Decoder, raw string, dst []stream.Event) ([]stream.Event, error)
	// Call, when set, runs before a new tool call opens its block (raw is
	// the tool call object); it returns the call's extra members. When nil,
	// the extra members are those other than index, id, type and function.
	// loc locates the call; its pointer is for errors.
	Call func(d *Decoder, raw string, loc Loc, dst []stream.Event) (extra []byte, out []stream.Event, err error)
	// Flush, when set, runs when the message ends (before the end events),
	// and on a cut stream before the partial turn is returned.
	Flush func(d *Decoder, dst []stream.Event) ([]stream.Event, error)
	// NoCallExtra keeps no extra members on tool calls.
	NoCallExtra bool
	// FinishError makes finish_reason "error" a provider error.
	FinishError bool
	// DoneIgnored makes `[DONE]` no terminal event (only finish_reason is).
	DoneIgnored bool
	// RejectAfterFinish makes a chunk with a choice after finish_reason
	// malformed; otherwise such chunks are ignored.
	RejectAfterFinish bool
	// EndOnSwitch ends a reasoning item (EventReasoningEnd) as soon as
	// another block opens, instead of at the end of the message.
	EndOnSwitch bool
}

// Item is one reasoning item being built.
type Item struct {
	// Block is the item's position in the turn.
	Block int
	// Label is the host's tag for the channel the item came from.
	Label int
	// It is the item; its text, summary or data and its signature are
	// written from Body and Sig when the message ends.
	It replay.ReasoningItem
	// Body holds the text, summary or data so far; Sig the signature.
	Body strings.Builder
	Sig  strings.Builder
	// SigP says whether a signature member was seen.
	SigP  replay.Presence
	hi    rune
	ended bool
	// pre is the body when a request's reader wrote it in one piece into
	// its arena (see [Decoder.Request]); Body is then empty. A further
	// write moves it into Body first.
	pre string
	// halves, made at the first surrogate half held or lone, says where
	// they came from.
	halves *halves
}

// halves is where an item's body first held a lone surrogate half (lone),
// and where the high half held in hi came from (held).
type halves struct {
	lone, held Loc
	hasLone    bool
}

// body returns the body so far.
func (st *Item) body() string {
	if st.pre != "" {
		return st.pre
	}
	return st.Body.String()
}

// bodyLen returns the length of the body so far.
func (st *Item) bodyLen() int { return st.Body.Len() + len(st.pre) }

// settle moves a body written in one piece into Body, before Body is
// written again.
func (st *Item) settle() {
	if st.pre != "" {
		st.Body.WriteString(st.pre)
		st.pre = ""
	}
}

// Len returns the length of the body so far.
func (st *Item) Len() int { return st.bodyLen() }

// String returns the body so far.
func (st *Item) String() string { return st.body() }

// hasLone reports whether the item's body held a lone surrogate half.
func (st *Item) hasLone() bool { return st.halves != nil && st.halves.hasLone }

// setLone records loc as where the body first held a lone half.
func (st *Item) setLone(loc Loc) {
	if st.halves == nil {
		st.halves = &halves{}
	}
	st.halves.lone, st.halves.hasLone = loc, true
}

// held returns where the high half held in hi came from.
func (st *Item) held() Loc { return st.halves.held }

// Loc is the JSON Pointer of a member, built only when an error needs it:
// Base, then "/List/K" when List is set, then "/Member" when set. Event
// is the frame it was in.
type Loc struct {
	Event      int
	Base, List string
	K          int
	Member     string
}

// String returns the pointer.
func (l Loc) String() string {
	s := l.Base
	if l.List != "" {
		s += "/" + l.List + "/" + strconv.Itoa(l.K)
	}
	if l.Member != "" {
		s += "/" + l.Member
	}
	return s
}

// With returns l for the member m.
func (l Loc) With(m string) Loc { l.Member = m; return l }

type call struct {
	block int
	args  strings.Builder
	hi    rune
	pre   string // the arguments, written in one piece into a request's arena (as Item.pre)
}

// argsLen returns the length of the arguments so far.
func (c *call) argsLen() int { return c.args.Len() + len(c.pre) }

// argsString returns the arguments so far.
func (c *call) argsString() string {
	if c.pre != "" {
		return c.pre
	}
	return c.args.String()
}

// Decoder is the stream decoder core. Build it with [New].
type Decoder struct {
	host *Host
	eng  engine.Run

	turn     replay.Turn
	finished bool // the message is complete
	ended    bool

	items []*Item
	calls []*call // tool call index -> call
	order []*call // calls in the order they opened
	// text runs share one builder whose written bytes never change.
	textB  strings.Builder
	textHi rune
	runs   []textRun
	open   int // 1 + position of the last opened block when it is a text run

	// vals holds a stream delta's values of the host's Keys, then of
	// tool_calls, views of the frame being decoded (here, not on the
	// stack: the host's Delta, called through a func value, would make
	// them escape).
	vals [8]string

	fast *fast // a stream's last chunk read in full, as a shape (made at the first chunk)

	// req holds what reading a request's messages uses (see
	// [Decoder.Request]); nil for a stream or a response body.
	req *request
	// keys are the host's Keys and tool_calls, made at the first Message.
	keys []string
}

// request is what a decoder reading a request's messages takes its
// values from: the request's Alloc, and chunks of item and call states
// that are never handed out twice.
type request struct {
	al     *kit.Alloc
	blocks int // room for the blocks of the message being read
	items  []Item
	calls  []call
}

// Request readies d to read the next whole message of a request into
// the request's Alloc al: the turn, its blocks (room for blocks of them
// first), items, calls, text runs and the strings it keeps come from al,
// and a string written in one piece is decoded there, with no builder of
// its own. Budget accounting is as for any body. [Decoder.Next] keeps
// this, but for the room of the blocks, which Request sets again.
func (d *Decoder) Request(al *kit.Alloc, blocks int) {
	if d.req == nil {
		d.req = &request{}
	}
	d.req.al, d.req.blocks = al, max(blocks, 1)
}

// Alloc returns the request's Alloc set by [Decoder.Request], or nil
// (whose block constructors allocate each value on its own).
func (d *Decoder) Alloc() *kit.Alloc {
	if d.req == nil {
		return nil
	}
	return d.req.al
}

// oneNew returns the next value of the chunk s, taking a new chunk (twice
// as large) when it is full: a value is never handed out twice, and never
// moves.
func oneNew[T any](s *[]T) *T {
	n := len(*s)
	if n == cap(*s) {
		*s, n = make([]T, 0, max(8, 2*n)), 0
	}
	*s = (*s)[:n+1]
	return &(*s)[n]
}

// newItemState returns a new item state.
func (d *Decoder) newItemState() *Item {
	if d.req == nil {
		return &Item{}
	}
	return oneNew(&d.req.items)
}

// newCallState returns a new call state.
func (d *Decoder) newCallState() *call {
	if d.req == nil {
		return &call{}
	}
	return oneNew(&d.req.calls)
}

// Keep keeps s as a string of the block at pos within the budget, as
// [kit.Budget.Keep] counts it: in the request's arena when d reads a
// request, else a copy of its own.
func (d *Decoder) Keep(pos int, s string) (string, error) { return d.keep(pos, s) }

// keep is Keep.
func (d *Decoder) keep(pos int, s string) (string, error) {
	if d.req != nil {
		return d.req.al.Raw(&d.eng.Budget, pos, s)
	}
	return d.eng.Budget.Keep(pos, s)
}

// once returns the value of the JSON string literal raw decoded into the
// request's arena, when d reads a request and raw holds no surrogate
// escape (so that what it decodes to does not depend on the text before
// or after it); ok is false otherwise.
func (d *Decoder) once(raw string) (s string, ok bool) {
	if d.req == nil || jsonw.SurrogateEscape(raw) {
		return "", false
	}
	return d.req.al.Unquoted(raw), true
}

type textRun struct{ pos, start, end int }

// New returns a decoder for host with the limits lim. event is 0 for a
// stream, -1 for a body read as one message.
func New(host *Host, lim replay.Limits, event int) *Decoder {
	d := &Decoder{host: host}
	d.eng.Budget = kit.NewBudget(host.API, lim, event)
	d.turn.Provenance = replay.Provenance{API: host.API, Provider: host.Provider}
	return d
}

// Next readies d, which read a whole message (event -1), for the next
// message of the same request, with the limits lim: the turn, its items
// and calls, and the budget start anew, as New makes them. The text
// builder is kept: its written bytes never change, so the texts of the
// turns read before stay as they are, and the next message's follow them.
func (d *Decoder) Next(lim replay.Limits) {
	host, event := d.host, d.eng.Budget.Event
	textB := d.textB // put back where it was below: a Builder must not move
	req, keys := d.req, d.keys
	clear(d.items)
	clear(d.calls)
	clear(d.order)
	items, calls, order, runs := d.items[:0], d.calls[:0], d.order[:0], d.runs[:0]
	*d = Decoder{host: host, req: req, keys: keys, items: items, calls: calls, order: order, runs: runs}
	d.textB = textB
	d.eng.Budget = kit.NewBudget(host.API, lim, event)
	d.turn.Provenance = replay.Provenance{API: host.API, Provider: host.Provider}
}

// SetLimits overrides the limits with the non-zero fields of lim.
func (d *Decoder) SetLimits(lim replay.Limits) { d.eng.SetLimits((*core)(d), lim) }

// Budget returns the decoder's budget.
func (d *Decoder) Budget() *kit.Budget { return &d.eng.Budget }

// Turn returns the turn being built.
func (d *Decoder) Turn() *replay.Turn { return &d.turn }

// Event returns the number of the frame being decoded (-1 for a body).
func (d *Decoder) Event() int { return d.eng.Budget.Event }

// Malformed returns the error for input that is not what the API sends,
// located at the current event and ptr.
func (d *Decoder) Malformed(ptr, format string, args ...any) error {
	return codecs.Malformed(d.host.API, d.eng.Budget.Event, ptr, format, args...)
}

// Decode implements [codecs.FrameDecoder].
func (d *Decoder) Decode(typ, data []byte, dst []stream.Event) ([]stream.Event, error) {
	return d.eng.Decode((*core)(d), typ, data, dst)
}

// core is the decoder as the engine drives it (see [engine.Codec]).
type core Decoder

// Start does nothing: New seeded the budget.
func (d *core) Start(*engine.Run) {}

// Full reads a chunk in full (validating everything, deciding everything)
// and, when it may, learns it (see shape.go).
func (d *core) Full(r *engine.Run, f engine.Frame, s string, dst []stream.Event) ([]stream.Event, error) {
	if s == "[DONE]" {
		if d.host.DoneIgnored {
			return dst, nil
		}
		d.finished = true
		dst = (*Decoder)(d).End(dst)
		return dst, r.Err()
	}
	if s == "" {
		return dst, nil
	}
	var sc scanned
	if !(*Decoder)(d).scan(s, &sc) {
		return dst, r.Malformed("", "expected a JSON chat completion chunk: %s", jsonw.Explain(s))
	}
	sh := d.fast
	if sh == nil {
		sh = &fast{}
		d.fast = sh
	}
	blocks := len(d.turn.Blocks)
	sh.record((*Decoder)(d).learnable(&sc))
	dst, err := (*Decoder)(d).chunk(&sc, dst)
	clear(d.vals[:])
	sh.stop(r, s, blocks, err == nil && !d.ended && len(d.turn.Blocks) == blocks)
	return dst, err
}

// End ends the stream (see [Decoder.Finish]).
func (d *core) End(r *engine.Run) (*replay.Turn, error) { return (*Decoder)(d).end() }

// scanned is what one pass over a chunk found: the envelope, the raw text
// of the first choice and of its members, and whether the delta's members
// were read into the decoder's vals.
type scanned struct {
	c                       Chunk
	object                  bool // the chunk is an object
	choice, delta, finish   string
	choiceObject, deltaRead bool
}

// scan validates the chunk s and extracts its parts in a single pass (see
// [jsonw.Scanner]); nothing is kept or emitted before the whole chunk is
// known to be valid.
func (d *Decoder) scan(s string, out *scanned) bool {
	var sc jsonw.Scanner
	sc.Reset(s)
	out.c.Raw = s
	var top jsonw.Object
	if !sc.Object(&top) {
		return sc.End()
	}
	out.object = true
	for name, ok := sc.Member(&top); ok; name, ok = sc.Member(&top) {
		switch name {
		case "choices":
			mark := sc.Mark()
			var arr jsonw.Array
			if sc.Array(&arr) {
				for first := true; sc.Elem(&arr); first = false {
					if first {
						d.scanChoice(&sc, out)
					}
				}
			} else {
				sc.Value()
			}
			out.c.Choices = sc.Since(mark)
		case "model":
			out.c.Model = sc.Value()
		case "provider":
			out.c.Provider = sc.Value()
		case "error":
			out.c.Error = sc.Value()
		case "usage":
			out.c.Usage = sc.Value()
		case "object":
			out.c.Object = sc.Value()
		}
	}
	return sc.End()
}

// scanChoice reads the first choice: its delta (the delta's members the
// host and the core read) and finish_reason.
func (d *Decoder) scanChoice(sc *jsonw.Scanner, out *scanned) {
	mark := sc.Mark()
	var o jsonw.Object
	if !sc.Object(&o) {
		out.choice = sc.Value()
		return
	}
	out.choiceObject = true
	for name, ok := sc.Member(&o); ok; name, ok = sc.Member(&o) {
		switch name {
		case "delta":
			ds := sc.Mark()
			var dm jsonw.Object
			if !sc.Object(&dm) {
				out.delta = sc.Value()
				continue
			}
			keys := d.host.Keys
			vals := d.vals[:len(keys)+1]
			clear(vals)
			for name, ok := sc.Member(&dm); ok; name, ok = sc.Member(&dm) {
				if name == "tool_calls" {
					vals[len(keys)] = sc.Value()
					continue
				}
				for n, key := range keys {
					if name == key {
						vals[n] = sc.Value()
						break
					}
				}
			}
			out.delta, out.deltaRead = sc.Since(ds), true
		case "finish_reason":
			out.finish = sc.Value()
		}
	}
	out.choice = sc.Since(mark)
}

func (d *Decoder) chunk(sc *scanned, dst []stream.Event) ([]stream.Event, error) {
	if !sc.object {
		return dst, d.Malformed("", "expected a JSON object (a chat completion chunk)")
	}
	c := sc.c
	if err := d.Envelope(c); err != nil {
		return dst, err
	}
	if pe := d.host.Error(c); pe != nil {
		if fr := sc.finish; isString(fr) {
			if err := d.finishReason(fr); err != nil {
				return dst, err
			}
		}
		return d.providerError(dst, pe)
	}
	if u := c.Usage; len(u) > 0 && u[0] == '{' {
		if err := d.eng.Budget.Item(-1, len(u), max(0, len(u)-len(d.turn.Usage))); err != nil {
			return dst, err
		}
		d.turn.Usage = append(d.turn.Usage[:0], u...)
	}
	switch ch := c.Choices; {
	case ch == "" || ch == "null":
		return dst, nil // a usage-only chunk
	case ch[0] != '[':
		return dst, d.Malformed("/choices", "expected an array of choice objects")
	}
	if sc.choice == "" {
		return dst, nil // an empty chunk
	}
	if !sc.choiceObject {
		return dst, d.Malformed("/choices/0", "expected a choice object")
	}
	if d.ended {
		if d.host.RejectAfterFinish {
			return dst, d.Malformed("/choices/0", "a chunk after finish_reason")
		}
		return dst, nil
	}
	const ptr = "/choices/0/delta"
	var err error
	if sc.deltaRead {
		dst, err = d.message(d.vals[:len(d.host.Keys)+1], ptr, dst)
	} else {
		dst, err = d.Message(sc.delta, ptr, dst)
	}
	if err != nil {
		return dst, err
	}
	if fr := sc.finish; isString(fr) {
		if err := d.finishReason(fr); err != nil {
			return dst, err
		}
		if d.host.FinishError && d.turn.FinishReason == "error" {
			return d.providerError(dst, &replay.ProviderError{API: d.host.API, Message: "the stream ended with finish_reason \"error\""})
		}
		d.finished = true
		if dst = d.End(dst); d.eng.Err() != nil {
			return dst, d.eng.Err()
		}
	}
	return dst, nil
}

// finishReason keeps the finish_reason literal fr, within the budget.
func (d *Decoder) finishReason(fr string) error {
	v, err := d.eng.Budget.Keep(-1, jsonw.UnquoteView(fr))
	d.turn.FinishReason = v
	return err
}

// Envelope records the provenance facts of a chunk or body: the model and,
// for a host that wants it, the upstream provider (the first non-empty
// value of each).
func (d *Decoder) Envelope(c Chunk) error {
	p := &d.turn.Provenance
	if p.Model == "" && isString(c.Model) && len(c.Model) > 2 {
		m, err := d.eng.Budget.Keep(-1, jsonw.UnquoteView(c.Model))
		if err != nil {
			return err
		}
		p.Model = m
	}
	if d.host.Upstream && p.Upstream == "" && isString(c.Provider) && len(c.Provider) > 2 {
		u, err := d.eng.Budget.Keep(-1, jsonw.UnquoteView(c.Provider))
		if err != nil {
			return err
		}
		p.Upstream = u
	}
	return nil
}

func (d *Decoder) providerError(dst []stream.Event, pe *replay.ProviderError) ([]stream.Event, error) {
	d.turn.Error = pe
	d.eng.Fail(pe)
	return append(dst, stream.Event{Kind: stream.EventError, Block: -1, Err: pe}), pe
}

// Message reads one delta, or a whole message: the host's members, then the
// tool calls.
func (d *Decoder) Message(delta, ptr string, dst []stream.Event) ([]stream.Event, error) {
	if delta == "" || delta == "null" {
		return dst, nil
	}
	if delta[0] != '{' {
		return dst, d.Malformed(ptr, "expected an object")
	}
	if d.keys == nil {
		d.keys = append(d.host.Keys[:len(d.host.Keys):len(d.host.Keys)], "tool_calls")
	}
	keys := d.keys
	jsonw.RawMembers(delta, keys, d.vals[:len(keys)])
	dst, err := d.message(d.vals[:len(keys)], ptr, dst)
	clear(d.vals[:])
	return dst, err
}

// message reads a delta whose members are in vals: the host's, then the
// tool calls.
func (d *Decoder) message(vals []string, ptr string, dst []stream.Event) ([]stream.Event, error) {
	n := len(vals) - 1
	dst, err := d.host.Delta(d, vals[:n], ptr, dst)
	if err != nil {
		return dst, err
	}
	switch tcs := vals[n]; {
	case tcs == "" || tcs == "null":
	case tcs[0] != '[':
		return dst, d.Malformed(ptr+"/tool_calls", "expected an array or null")
	default:
		k := 0
		for tc, pos, ok := jsonw.NextElem(tcs, 0); ok; tc, pos, ok = jsonw.NextElem(tcs, pos) {
			if dst, err = d.toolCall(tc, ptr, k, dst); err != nil {
				return dst, err
			}
			k++
		}
	}
	return dst, nil
}

// Finished marks the message complete (a body's message, a request's
// message) without a terminal event.
func (d *Decoder) Finished() { d.finished = true }

// Open appends block b to the turn (counting it against MaxBlocks) and
// returns its position. The open text run, if any, is closed.
func (d *Decoder) Open(b replay.Block, dst []stream.Event) (int, []stream.Event, error) {
	if d.host.EndOnSwitch {
		if st := d.Last(-1); st != nil {
			dst = d.EndItem(st, dst)
		}
	}
	pos := len(d.turn.Blocks)
	if err := d.eng.Budget.Block(pos); err != nil {
		return 0, dst, err
	}
	d.closeRun()
	if d.turn.Blocks == nil && d.req != nil {
		d.turn.Blocks = d.req.al.Blocks(d.req.blocks)
	}
	d.turn.Blocks = append(d.turn.Blocks, b)
	d.open = 0
	return pos, dst, nil
}

// NewItem opens a reasoning item of the given label and emits its start.
// The item is unfinished until it ends.
func (d *Decoder) NewItem(it replay.ReasoningItem, label int, dst []stream.Event) (*Item, []stream.Event, error) {
	pos, dst, err := d.Open(it, dst)
	if err != nil {
		return nil, dst, err
	}
	it.Meta().Unfinished = true
	st := d.newItemState()
	st.Block, st.Label, st.It = pos, label, it
	d.items = append(d.items, st)
	return st, append(dst, stream.Event{Kind: stream.EventReasoningStart, Block: pos, Item: it}), nil
}

// Items returns the items opened so far, in order.
func (d *Decoder) Items() []*Item { return d.items }

// Last returns the item at the last block of the turn when it is an open
// item with label (any label when label is -1), or nil.
func (d *Decoder) Last(label int) *Item {
	k := len(d.items)
	if k == 0 {
		return nil
	}
	st := d.items[k-1]
	if st.ended || st.Block != len(d.turn.Blocks)-1 || (label >= 0 && st.Label != label) {
		return nil
	}
	return st
}

// AppendRaw appends the value of the JSON string literal raw, the member
// at loc, to the item's body and, when emit is set, emits the delta. A
// lone surrogate half in an encrypted blob, or in the text of a signed
// item, is refused (see the package doc).
func (d *Decoder) AppendRaw(st *Item, raw string, loc Loc, emit bool, dst []stream.Event) ([]stream.Event, error) {
	o := op{kind: opItem, emit: emit, item: st, base: loc.Base, list: loc.List, k: int32(loc.K), member: loc.Member}
	if f := d.fast; f != nil && f.rec {
		f.add(o, raw)
	}
	return d.appendRaw(raw, "", false, &o, true, dst)
}

// appendRaw is AppendRaw of the call o (its item, location and emit);
// unicode false says raw holds no \u escape (so neither a surrogate half
// nor a lone one), and then val, when decoded, is its value.
func (d *Decoder) appendRaw(raw, val string, decoded bool, o *op, unicode bool, dst []stream.Event) ([]stream.Event, error) {
	st, emit := o.item, o.emit
	start := st.bodyLen()
	once := false
	if d.req != nil && start == 0 && st.hi == 0 { // a request's value read once
		var v string
		if v, once = d.once(raw); once {
			st.pre = v
		}
	}
	switch {
	case once:
	case !unicode && st.hi == 0:
		st.settle()
		writeValue(&st.Body, raw, val, decoded)
	default:
		st.settle()
		loc := o.loc() // only a surrogate half needs it
		loc.Event = d.eng.Budget.Event
		if st.hi != 0 && !st.hasLone() {
			if _, ok := jsonw.LeadingLow(raw); !ok {
				st.setLone(st.held()) // the half held from the previous fragment
			}
		}
		if lone, _ := jsonw.WriteUnquotedJoinLone(&st.Body, raw, &st.hi); lone > 0 && !st.hasLone() {
			st.setLone(loc)
		}
		if st.hi != 0 {
			if st.halves == nil {
				st.halves = &halves{}
			}
			st.halves.held = loc
		}
	}
	n := st.bodyLen()
	if err := d.eng.Budget.Item(st.Block, n, n-start); err != nil {
		return dst, err
	}
	if err := d.exact(st); err != nil {
		return dst, err
	}
	if !emit || n == start {
		return dst, nil
	}
	return append(dst, stream.Event{Kind: stream.EventReasoningDelta, Block: st.Block, Item: st.It, Delta: st.body()[start:]}), nil
}

// AppendString appends decoded text to the item's body and emits the delta.
func (d *Decoder) AppendString(st *Item, s string, dst []stream.Event) ([]stream.Event, error) {
	d.Unshaped()
	st.settle()
	start := st.Body.Len()
	if err := d.eng.Budget.Append(st.Block, &st.Body, s); err != nil {
		return dst, err
	}
	return append(dst, stream.Event{Kind: stream.EventReasoningDelta, Block: st.Block, Item: st.It, Delta: st.Body.String()[start:]}), nil
}

// AppendSig appends the value of the JSON string literal raw, the member
// at loc, to the item's signature. A lone surrogate half in it, or in the
// text it signs, is refused.
func (d *Decoder) AppendSig(st *Item, raw string, loc Loc) error {
	d.Unshaped()
	if jsonw.LoneAt(raw, false) >= 0 {
		return d.lone(loc, "a signature")
	}
	start := st.Sig.Len()
	jsonw.WriteUnquoted(&st.Sig, raw)
	st.SigP = replay.Present
	if err := d.eng.Budget.Item(st.Block, st.Sig.Len(), st.Sig.Len()-start); err != nil {
		return err
	}
	return d.exact(st)
}

// exact refuses an item whose bytes must stay exact (an encrypted blob,
// the text of a signed item) once its body holds a lone surrogate half.
func (d *Decoder) exact(st *Item) error {
	if !st.hasLone() {
		return nil
	}
	switch st.It.(type) {
	case *replay.Encrypted:
		return d.loneAt(st.halves.lone, "an encrypted blob")
	case *replay.ReasoningText:
		if st.Sig.Len() > 0 {
			return d.loneAt(st.halves.lone, "signed reasoning text")
		}
	}
	return nil
}

// Exact refuses the JSON string literal raw, the member at loc that must
// be kept byte-exact (an id, a name, a format, a signature), when it holds
// a lone surrogate half; what names the member in the error.
func (d *Decoder) Exact(raw string, loc Loc, what string) error {
	if len(raw) < 8 || jsonw.LoneAt(raw, false) < 0 {
		return nil
	}
	return d.lone(loc, what)
}

// ExactRaw is [Decoder.Exact] for a body reader: the member at ptr of a
// whole body (event -1) of api.
func ExactRaw(api, raw, ptr, what string) error {
	if len(raw) < 8 || jsonw.LoneAt(raw, false) < 0 {
		return nil
	}
	return loneErr(api, -1, ptr, what)
}

// ExactAt is ExactRaw for the member of a whole body of api at loc, whose
// pointer is built only for the error.
func ExactAt(api, raw string, loc Loc, what string) error {
	if len(raw) < 8 || jsonw.LoneAt(raw, false) < 0 {
		return nil
	}
	return loneErr(api, -1, loc.String(), what)
}

func loneErr(api string, event int, ptr, what string) error {
	return codecs.Malformed(api, event, ptr,
		"a lone surrogate escape in %s: it names no character, and decoding it would alter bytes that must be kept exact", what)
}

func (d *Decoder) lone(loc Loc, what string) error {
	loc.Event = d.eng.Budget.Event
	return d.loneAt(loc, what)
}

func (d *Decoder) loneAt(loc Loc, what string) error {
	return loneErr(d.host.API, loc.Event, loc.String(), what)
}

// TextRaw appends the value of the JSON string literal raw to the open
// visible text run, opening one when the last block is not.
func (d *Decoder) TextRaw(raw string, dst []stream.Event) ([]stream.Event, error) {
	if f := d.fast; f != nil && f.rec {
		f.add(op{kind: opText}, raw)
	}
	return d.textRaw(raw, "", false, true, dst)
}

// textRaw is TextRaw; unicode false says raw holds no \u escape, and
// then val, when decoded, is its value.
func (d *Decoder) textRaw(raw, val string, decoded, unicode bool, dst []stream.Event) ([]stream.Event, error) {
	if len(raw) <= 2 {
		return dst, nil
	}
	dst, run, err := d.run(dst)
	if err != nil {
		return dst, err
	}
	start := d.textB.Len()
	if !unicode && d.textHi == 0 {
		writeValue(&d.textB, raw, val, decoded)
	} else {
		jsonw.WriteUnquotedJoin(&d.textB, raw, &d.textHi)
	}
	return d.grew(run, start, dst)
}

// Text is TextRaw for decoded text.
func (d *Decoder) Text(s string, dst []stream.Event) ([]stream.Event, error) {
	d.Unshaped()
	if s == "" {
		return dst, nil
	}
	dst, run, err := d.run(dst)
	if err != nil {
		return dst, err
	}
	start := d.textB.Len()
	d.textB.WriteString(s)
	return d.grew(run, start, dst)
}

func (d *Decoder) run(dst []stream.Event) ([]stream.Event, *textRun, error) {
	if d.open == 0 || d.open-1 != len(d.turn.Blocks)-1 {
		pos, out, err := d.Open(d.Alloc().Text(), dst)
		if err != nil {
			return out, nil, err
		}
		dst = out
		d.runs = append(d.runs, textRun{pos: pos, start: d.textB.Len(), end: d.textB.Len()})
		d.open = pos + 1
	}
	return dst, &d.runs[len(d.runs)-1], nil
}

func (d *Decoder) grew(run *textRun, start int, dst []stream.Event) ([]stream.Event, error) {
	run.end = d.textB.Len()
	if err := d.eng.Budget.Item(run.pos, run.end-run.start, run.end-start); err != nil {
		return dst, err
	}
	if run.end == start {
		return dst, nil
	}
	return append(dst, stream.Event{Kind: stream.EventTextDelta, Block: run.pos, Delta: d.textB.String()[start:]}), nil
}

// closeRun ends the open visible text run: a surrogate half held at its end
// has no partner and is written as U+FFFD.
func (d *Decoder) closeRun() {
	if d.textHi != 0 && len(d.runs) > 0 {
		jsonw.FlushHalf(&d.textB, &d.textHi)
		d.runs[len(d.runs)-1].end = d.textB.Len()
	}
}

var (
	callKeys  = []string{"index", "id", "function"}
	funcKeys  = []string{"name", "arguments"}
	callKnown = []string{"index", "id", "type", "function"}
)

// toolCall merges one tool call fragment: the k-th of the tool_calls of the delta at base.
func (d *Decoder) toolCall(tc, base string, k int, dst []stream.Event) ([]stream.Event, error) {
	var tv [3]string
	if !jsonw.RawMembers(tc, callKeys, tv[:]) {
		return dst, d.Malformed(callPtr(base, k), "expected a tool call object")
	}
	var fv [2]string
	if f := tv[2]; f != "" && f != "null" && !jsonw.RawMembers(f, funcKeys, fv[:]) {
		return dst, d.Malformed(callPtr(base, k)+"/function", "expected an object")
	}
	idx := k
	if ix := tv[0]; ix != "" && ix != "null" {
		v, err := strconv.Atoi(ix)
		if err != nil || v < 0 {
			return dst, d.Malformed(callPtr(base, k)+"/index", "expected a non-negative integer index")
		}
		idx = v
	}
	if idx >= d.eng.Budget.Limits().MaxBlocks {
		// A turn cannot hold that many blocks: the call would be one too many.
		return dst, &replay.LimitError{What: "block count", Limit: d.eng.Budget.Limits().MaxBlocks,
			API: d.host.API, Event: d.eng.Budget.Event, Block: len(d.turn.Blocks)}
	}
	for len(d.calls) <= idx {
		d.calls = append(d.calls, nil)
	}
	c := d.calls[idx]
	var err error
	loc := Loc{Base: base, List: "tool_calls", K: k}
	if c == nil {
		if dst, c, err = d.newCall(tc, loc, tv[1], fv[0], dst); err != nil {
			return dst, err
		}
		d.calls[idx] = c
	} else if err = d.fillCall(c, tv[1], fv[0], loc); err != nil {
		return dst, err
	}
	start := c.argsLen()
	switch a := fv[1]; {
	case a == "" || a == "null":
		return dst, nil
	case isString(a):
		if start == 0 && c.hi == 0 {
			if v, ok := d.once(a); ok {
				c.pre = v
				break
			}
		}
		c.settle()
		jsonw.WriteUnquotedJoin(&c.args, a, &c.hi)
	case a[0] == '{':
		if start == 0 && d.req != nil {
			c.pre = d.req.al.Clone(a) // an object: kept as its text
			break
		}
		c.settle()
		c.args.WriteString(a) // an object: kept as its text
	default:
		return dst, d.Malformed(callPtr(base, k)+"/function/arguments", "expected a string or an object")
	}
	n := c.argsLen()
	if err := d.eng.Budget.Item(c.block, n, n-start); err != nil {
		return dst, err
	}
	if n == start {
		return dst, nil
	}
	return append(dst, stream.Event{Kind: stream.EventToolCallDelta, Block: c.block, Delta: c.argsString()[start:]}), nil
}

// settle moves arguments written in one piece into args, before args is
// written again.
func (c *call) settle() {
	if c.pre != "" {
		c.args.WriteString(c.pre)
		c.pre = ""
	}
}

func callPtr(base string, k int) string { return base + "/tool_calls/" + strconv.Itoa(k) }

func (d *Decoder) newCall(tc string, loc Loc, id, name string, dst []stream.Event) ([]stream.Event, *call, error) {
	var extra []byte
	var err error
	switch {
	case d.host.Call != nil:
		extra, dst, err = d.host.Call(d, tc, loc, dst)
	case !d.host.NoCallExtra:
		extra = jsonw.ExtraMembers(tc, callKnown...)
	}
	if err != nil {
		return dst, nil, err
	}
	if err := d.eng.Budget.Item(len(d.turn.Blocks), len(extra), len(extra)); err != nil {
		return dst, nil, err
	}
	tcall := d.Alloc().ToolCall()
	*tcall = replay.ToolCall{Extra: extra, Unfinished: true}
	pos, dst, err := d.Open(tcall, dst)
	if err != nil {
		return dst, nil, err
	}
	c := d.newCallState()
	c.block = pos
	if err := d.fillCall(c, id, name, loc); err != nil {
		return dst, nil, err
	}
	d.order = append(d.order, c)
	return append(dst, stream.Event{Kind: stream.EventToolCallStart, Block: pos, ID: tcall.ID, Name: tcall.Name}), c, nil
}

// fillCall sets the call's id and name from a fragment that has them when
// it has none yet.
func (d *Decoder) fillCall(c *call, id, name string, loc Loc) error {
	tcall := d.turn.Blocks[c.block].(*replay.ToolCall)
	if err := d.Exact(id, loc.With("id"), "a tool call id"); err != nil {
		return err
	}
	if err := d.Exact(name, loc.With("function/name"), "a tool call name"); err != nil {
		return err
	}
	var err error
	if tcall.ID == "" && isString(id) && len(id) > 2 {
		if tcall.ID, err = d.keep(c.block, jsonw.UnquoteView(id)); err != nil {
			return err
		}
	}
	if tcall.Name == "" && isString(name) && len(name) > 2 {
		tcall.Name, err = d.keep(c.block, jsonw.UnquoteView(name))
	}
	return err
}

// End ends the message: the host's flush, then the end events of every
// open item and call, and EventDone, once. An error is recorded as the
// decoder's.
func (d *Decoder) End(dst []stream.Event) []stream.Event {
	if d.ended {
		return dst
	}
	d.ended = true
	if d.host.Flush != nil {
		var err error
		if dst, err = d.host.Flush(d, dst); err != nil {
			d.eng.Fail(err)
			return dst
		}
	}
	for _, st := range d.items {
		if err := d.heldAtEnd(st); err != nil {
			d.eng.Fail(err)
			return dst
		}
	}
	d.materialize()
	for _, st := range d.items {
		dst = d.EndItem(st, dst)
	}
	for _, c := range d.order {
		d.turn.Blocks[c.block].(*replay.ToolCall).Unfinished = false
		dst = append(dst, stream.Event{Kind: stream.EventToolCallEnd, Block: c.block})
	}
	return append(dst, stream.Event{Kind: stream.EventDone, Block: -1})
}

// heldAtEnd records a high half still held when the item ends as lone,
// and refuses it where the item's bytes must stay exact.
func (d *Decoder) heldAtEnd(st *Item) error {
	if st.hi != 0 && !st.hasLone() {
		st.setLone(st.held())
	}
	return d.exact(st)
}

// EndItem ends the item: its text is written and EventReasoningEnd emitted, once.
func (d *Decoder) EndItem(st *Item, dst []stream.Event) []stream.Event {
	if st.ended {
		return dst
	}
	st.ended = true
	d.materializeItem(st)
	st.It.Meta().Unfinished = false
	return append(dst, stream.Event{Kind: stream.EventReasoningEnd, Block: st.Block, Item: st.It})
}

// materialize writes the builders' contents into the turn's blocks; a
// surrogate half still held has no partner and becomes U+FFFD.
func (d *Decoder) materialize() {
	d.closeRun()
	for _, c := range d.order {
		if c.pre != "" {
			d.turn.Blocks[c.block].(*replay.ToolCall).Arguments = c.pre
			continue
		}
		jsonw.FlushHalf(&c.args, &c.hi)
		d.turn.Blocks[c.block].(*replay.ToolCall).Arguments = c.args.String()
	}
	for _, st := range d.items {
		d.materializeItem(st)
	}
	all := d.textB.String()
	for _, r := range d.runs {
		d.turn.Blocks[r.pos].(*replay.Text).Text = all[r.start:r.end]
	}
}

func (d *Decoder) materializeItem(st *Item) {
	jsonw.FlushHalf(&st.Body, &st.hi)
	body := st.body()
	switch it := st.It.(type) {
	case *replay.ReasoningText:
		it.Text = body
		switch st.SigP {
		case replay.Present:
			it.Signature = replay.Some(st.Sig.String())
		case replay.Null:
			it.Signature = replay.NullOf[string]()
		}
	case *replay.Summary:
		it.Summary = body
	case *replay.Encrypted:
		it.Data = body
	}
}

// Finish implements [codecs.FrameDecoder].
func (d *Decoder) Finish() (*replay.Turn, error) { return d.eng.Finish((*core)(d)) }

func (d *Decoder) end() (*replay.Turn, error) {
	if !d.ended && d.eng.Err() == nil && d.host.Flush != nil {
		// flush what the host holds so the partial turn has it
		_, _ = d.host.Flush(d, nil)
	}
	d.materialize()
	t := d.Alloc().Turn()
	*t = d.turn
	switch {
	case d.eng.Err() != nil:
		t.MarkUnfinished()
		return t, d.eng.Err()
	case !d.finished:
		t.MarkUnfinished()
		what := "finish_reason or [DONE]"
		if d.host.DoneIgnored {
			what = "a finish_reason"
		}
		return t, kit.EndedBefore(d.host.API, d.eng.Events(), what)
	}
	t.Complete = true
	return t, nil
}

func isString(raw string) bool { return len(raw) >= 2 && raw[0] == '"' }
