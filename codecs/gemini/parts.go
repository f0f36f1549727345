package gemini

import (
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/engine"
	"github.com/reasonreplay/replay/internal/gemsig"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/stream"
	"github.com/tidwall/gjson"
)

// open says which block is open, i.e. may still grow.
type open uint8

const (
	openNone open = iota
	openThought
	openText
	openCall // a call streamed in partialArgs fragments
)

// builder turns parts into blocks. The body and stream decoders share it,
// so that a stream and its whole-body equivalent give the same turn.
//
// Every string the turn keeps is appended to buf and sliced out of it:
// the builder never rewrites bytes it wrote, so the slices stay valid and
// stream deltas cost no allocation. Every kept string is counted against
// the budget (MaxItem per string, MaxTurn in total), every block against
// MaxBlocks; the budget's Event is the frame number, -1 for a body.
type builder struct {
	blocks []replay.Block
	buf    strings.Builder
	bud    *kit.Budget
	run    *engine.Run // the stream's engine, nil for a body
	emit   bool
	ev     []stream.Event
	cand   int // position of the candidate, for error pointers
	pi     int // position of the part, for error pointers
	// content, when set, is the JSON Pointer of the Content object being
	// read (a request's model turn); else it is candidate cand's content.
	content string
	// request says the parts are a request's model turn: a function call
	// cut short (no name, no args) is kept as an unfinished call and sets
	// cut, instead of being malformed input or a stream fragment.
	request bool
	cut     bool

	open    open
	start   int // offset in buf where the open block's text starts
	thought *replay.ReasoningText
	text    *replay.Text
	call    *replay.ToolCall
	callAt  int
	args    argTree // the open call's streamed arguments
	argLen  int     // bytes of the open call's argument values so far
	scratch []byte
	// al, when set, makes the blocks (a request's turns; nil for a
	// response or a stream: each block allocated on its own).
	al *kit.Alloc
}

// nextTurn readies b for another turn of the same request: the strings
// it kept stay in buf, which the next turn's follow; everything else
// starts anew.
func (b *builder) nextTurn() {
	buf, al := b.buf, b.al // buf is put back where it was: a Builder must not move
	*b = builder{}
	b.buf, b.al = buf, al
}

// reserve makes room for n more bytes in buf without moving what it
// holds: when buf is full it starts a new buffer, carrying over only the
// open block's text (which must stay contiguous). Strings sliced out of
// the old buffer stay valid.
func (b *builder) reserve(n int) {
	if b.buf.Cap()-b.buf.Len() >= n {
		return
	}
	open := ""
	if b.open == openThought || b.open == openText {
		open = b.buf.String()[b.start:]
	}
	size := 2 * (len(open) + n)
	if size < 32<<10 {
		size = 32 << 10
	}
	b.buf = strings.Builder{}
	b.buf.Grow(size)
	b.buf.WriteString(open)
	b.start = 0
}

// store copies s into buf and returns the copy, uncounted.
func (b *builder) store(s string) string {
	if s == "" {
		return ""
	}
	b.reserve(len(s))
	i := b.buf.Len()
	b.buf.WriteString(s)
	return b.buf.String()[i:]
}

// keep stores s, a string of the block at pos, within the budget.
func (b *builder) keep(pos int, s string) (string, error) {
	if err := b.bud.Item(pos, len(s), len(s)); err != nil {
		return "", err
	}
	return b.store(s), nil
}

// unquote writes the value of the JSON string raw to buf and returns
// where it starts: in a stream, the value decoded while the event was
// matched when raw is that hole (see [engine.Run.Decoded]); otherwise it
// decodes raw.
func (b *builder) unquote(raw string) int {
	if b.run != nil {
		if v, ok := b.run.Decoded(raw); ok {
			b.reserve(len(v))
			i := b.buf.Len()
			b.buf.WriteString(v)
			return i
		}
	}
	b.reserve(unescapedLen(raw))
	i := b.buf.Len()
	jsonw.WriteUnquoted(&b.buf, raw)
	return i
}

// keepStr decodes the JSON string raw, a string of the block at pos, into
// buf within the budget and returns the kept text.
func (b *builder) keepStr(pos int, raw string) (string, error) {
	i := b.unquote(raw)
	s := b.buf.String()[i:]
	if err := b.bud.Item(pos, len(s), len(s)); err != nil {
		return "", err
	}
	return s, nil
}

// keepBytes is keep for a JSON text kept as bytes (Extra, Native.Raw).
func (b *builder) keepBytes(pos int, p []byte) ([]byte, error) {
	if err := b.bud.Item(pos, len(p), len(p)); err != nil {
		return nil, err
	}
	return p, nil
}

// add appends a block within the budget and returns its position.
func (b *builder) add(bl replay.Block) (int, error) {
	if err := b.bud.Block(len(b.blocks)); err != nil {
		return 0, err
	}
	b.blocks = append(b.blocks, bl)
	return len(b.blocks) - 1, nil
}

func (b *builder) push(e stream.Event) {
	if b.emit {
		b.ev = append(b.ev, e)
	}
}

// close closes the open block.
func (b *builder) close() error {
	switch b.open {
	case openThought:
		b.push(stream.Event{Kind: stream.EventReasoningEnd, Block: len(b.blocks) - 1, Item: b.thought})
	case openCall:
		if err := b.finishCall(); err != nil {
			return err
		}
	}
	b.open, b.thought, b.text, b.call = openNone, nil, nil, nil
	return nil
}

// unfinished marks the open block unfinished (the stream ended inside it).
func (b *builder) unfinished() {
	switch b.open {
	case openThought:
		b.thought.Unfinished = true
	case openCall:
		b.call.Unfinished = true
	}
	b.open = openNone
}

func (b *builder) malformed(ptr, format string, args ...any) error {
	return codecs.Malformed(API, b.bud.Event, ptr, format, args...)
}

// ptr locates the part being decoded.
func (b *builder) ptr() string {
	if b.content != "" {
		return b.content + "/parts/" + strconv.Itoa(b.pi)
	}
	return "/candidates/" + strconv.Itoa(b.cand) + "/content/parts/" + strconv.Itoa(b.pi)
}

// partFields are the members of a part this codec reads.
type partFields struct {
	sig, text, fc string // raw JSON values, "" when absent
	thought       bool
	kind          string // first other member's key
	others        int    // members other than text, thought, thoughtSignature, functionCall
	n             int    // all members
	raw           string // the whole part
}

// fields decodes one scanned part.
func (b *builder) fields(f *partFields) error {
	p := f.raw
	if !isObject(p) {
		return b.malformed(b.ptr(), "expected a part object")
	}
	if f.sig != "" {
		if !isString(f.sig) {
			return b.malformed(b.ptr()+"/thoughtSignature", "expected a string signature")
		}
		if jsonw.Lone(f.sig) {
			// Decoding would put U+FFFD in its place: an altered signature.
			return b.malformed(b.ptr()+"/thoughtSignature", "a lone surrogate escape in a signature")
		}
	}
	switch {
	case f.fc != "":
		if !isObject(f.fc) {
			return b.malformed(b.ptr()+"/functionCall", "expected an object")
		}
		return b.functionCall(p, f)
	case isString(f.text):
		if f.thought {
			return b.thoughtPart(p, f)
		}
		return b.textPart(p, f)
	case f.text != "":
		return b.malformed(b.ptr()+"/text", "expected a string")
	}
	return b.native(p, f)
}

// textExtra reports whether a text part has members to keep besides its
// text, thought flag and signature.
func (f *partFields) textExtra() bool { return f.others > 0 }

// extra returns the members of the object obj other than skip..., as one
// JSON object (nil when there are none).
func (b *builder) extra(obj string, skip ...string) []byte {
	var out []byte
	members(obj, func(name, k, v string) bool {
		for _, s := range skip {
			if name == s {
				return true
			}
		}
		if out == nil {
			out = append(out, '{')
		} else {
			out = append(out, ',')
		}
		out = append(out, '"')
		out = append(out, k...)
		out = append(out, '"', ':')
		out = append(out, v...)
		return true
	})
	if out != nil {
		out = append(out, '}')
	}
	return out
}

// bind adds the bound signature item for the next block.
func (b *builder) bind(sigRaw string, id string) error {
	if sigRaw == "" {
		return nil
	}
	sig, err := b.keepStr(len(b.blocks), sigRaw)
	if err != nil {
		return err
	}
	it := gemsig.ItemIn(b.al.Encrypted(), sig, id)
	at, err := b.add(it)
	if err != nil {
		return err
	}
	b.push(stream.Event{Kind: stream.EventReasoningStart, Block: at, Item: it})
	b.push(stream.Event{Kind: stream.EventReasoningEnd, Block: at, Item: it})
	return nil
}

// grow appends the JSON string raw to the open block's text, within the
// budget, and returns the new text and the delta.
func (b *builder) grow(raw string) (all, delta string, err error) {
	i := b.unquote(raw)
	s := b.buf.String()
	all, delta = s[b.start:], s[i:]
	if err := b.bud.Item(len(b.blocks)-1, len(all), len(delta)); err != nil {
		return "", "", err
	}
	return all, delta, nil
}

func (b *builder) thoughtPart(p string, f *partFields) error {
	if b.open == openThought && f.sig == "" && !f.textExtra() &&
		!b.thought.Signature.IsPresent() && b.thought.Extra == nil {
		all, delta, err := b.grow(f.text)
		if err != nil {
			return err
		}
		b.thought.Text = all
		if delta != "" {
			b.push(stream.Event{Kind: stream.EventReasoningDelta, Block: len(b.blocks) - 1, Delta: delta})
		}
		return nil
	}
	if err := b.close(); err != nil {
		return err
	}
	it := b.al.ReasoningText()
	it.Format = formats.GoogleGemini
	at := len(b.blocks)
	var err error
	if f.sig != "" {
		sig, err := b.keepStr(at, f.sig)
		if err != nil {
			return err
		}
		it.Signature = replay.Some(sig)
	}
	if f.textExtra() {
		if it.Extra, err = b.keepBytes(at, b.extra(p, "text", "thought", "thoughtSignature")); err != nil {
			return err
		}
	}
	b.start = b.buf.Len()
	if it.Text, err = b.keepStr(at, f.text); err != nil {
		return err
	}
	if _, err := b.add(it); err != nil {
		return err
	}
	b.open, b.thought = openThought, it
	b.push(stream.Event{Kind: stream.EventReasoningStart, Block: at, Item: it})
	if it.Text != "" {
		b.push(stream.Event{Kind: stream.EventReasoningDelta, Block: at, Delta: it.Text})
	}
	return nil
}

func (b *builder) textPart(p string, f *partFields) error {
	empty := f.text == `""`
	if f.sig == "" && !f.textExtra() {
		if b.open == openText && b.text.Extra == nil {
			if empty {
				return nil
			}
			all, delta, err := b.grow(f.text)
			if err != nil {
				return err
			}
			b.text.Text = all
			b.push(stream.Event{Kind: stream.EventTextDelta, Block: len(b.blocks) - 1, Delta: delta})
			return nil
		}
		if empty {
			// An unsigned empty part carries nothing (streams close with
			// one); it is not kept.
			return nil
		}
	}
	if err := b.close(); err != nil {
		return err
	}
	if err := b.bind(f.sig, ""); err != nil {
		return err
	}
	t := b.al.Text()
	at := len(b.blocks)
	var err error
	if f.textExtra() {
		if t.Extra, err = b.keepBytes(at, b.extra(p, "text", "thought", "thoughtSignature")); err != nil {
			return err
		}
	}
	b.start = b.buf.Len()
	if t.Text, err = b.keepStr(at, f.text); err != nil {
		return err
	}
	if _, err := b.add(t); err != nil {
		return err
	}
	b.open, b.text = openText, t
	if t.Text != "" {
		b.push(stream.Event{Kind: stream.EventTextDelta, Block: at, Delta: t.Text})
	}
	return nil
}

func (b *builder) native(p string, f *partFields) error {
	if err := b.close(); err != nil {
		return err
	}
	if err := b.bind(f.sig, ""); err != nil {
		return err
	}
	var raw []byte
	if f.sig != "" {
		raw = b.extra(p, "thoughtSignature")
		if raw == nil {
			raw = []byte("{}")
		}
	} else {
		raw = []byte(p)
	}
	raw, err := b.keepBytes(len(b.blocks), raw)
	if err != nil {
		return err
	}
	n := b.al.Native()
	*n = replay.Native{Kind: internKind(f.kind), Raw: raw}
	_, err = b.add(n)
	return err
}

// callFields are the members of a functionCall object, as raw JSON texts
// ("" when absent).
type callFields struct {
	name, id, args, partial string
	cont                    bool // willContinue
	inner                   bool // members this codec does not read
}

// scanCall reads and checks the members of the functionCall object fc.
func (b *builder) scanCall(fc string) (callFields, error) {
	var cf callFields
	members(fc, func(k, _, v string) bool {
		switch k {
		case "name":
			cf.name = v
		case "id":
			cf.id = v
		case "args":
			cf.args = v
		case "partialArgs":
			cf.partial = v
		case "willContinue":
			cf.cont = v == "true"
		default:
			cf.inner = true
		}
		return true
	})
	if cf.name != "" && !isString(cf.name) || cf.id != "" && !isString(cf.id) {
		return cf, b.malformed(b.ptr()+"/functionCall", "expected string name and id")
	}
	if cf.args == "null" {
		cf.args = ""
	}
	if cf.args != "" && !isObject(cf.args) {
		return cf, b.malformed(b.ptr()+"/functionCall/args", "expected an object")
	}
	if cf.partial != "" && !isArray(cf.partial) {
		return cf, b.malformed(b.ptr()+"/functionCall/partialArgs", "expected an array")
	}
	return cf, nil
}

// functionCall handles a functionCall part: a whole call, or a fragment of
// a call streamed in partialArgs pieces.
func (b *builder) functionCall(p string, f *partFields) error {
	cf, err := b.scanCall(f.fc)
	if err != nil {
		return err
	}
	if cf.name == "" && !(b.request && b.open != openCall) {
		return b.continueCall(f, &cf)
	}
	if err := b.close(); err != nil {
		return err
	}
	c, err := b.newCall(p, f, &cf)
	if err != nil {
		return err
	}
	if b.request && (cf.name == "" || cf.args == "" && cf.partial == "" && !cf.cont) {
		c.Unfinished, b.cut = true, true
	}
	at, err := b.add(c)
	if err != nil {
		return err
	}
	b.push(stream.Event{Kind: stream.EventToolCallStart, Block: at, ID: c.ID, Name: c.Name})
	if cf.cont || cf.partial != "" {
		b.args.reset()
		b.open, b.call, b.callAt, b.argLen = openCall, c, at, 0
		return b.moreArgs(&cf)
	}
	if c.Arguments != "" {
		b.push(stream.Event{Kind: stream.EventToolCallDelta, Block: at, Delta: c.Arguments})
	}
	b.push(stream.Event{Kind: stream.EventToolCallEnd, Block: at})
	return nil
}

// continueCall takes a fragment without a name: more arguments of the
// open streamed call, which the fragment closes unless it will continue.
func (b *builder) continueCall(f *partFields, cf *callFields) error {
	if b.open != openCall {
		return b.malformed(b.ptr()+"/functionCall", "a functionCall fragment without a name and no streamed call open")
	}
	if f.sig != "" {
		return b.malformed(b.ptr()+"/thoughtSignature", "a signature on a continuation fragment of a streamed call")
	}
	return b.moreArgs(cf)
}

// moreArgs records a fragment's partialArgs and closes the call when the
// fragment says it is the last.
func (b *builder) moreArgs(cf *callFields) error {
	if err := b.partialArgs(cf.partial); err != nil {
		return err
	}
	if !cf.cont {
		return b.close()
	}
	return nil
}

// newCall keeps a named call (its signature item first, bound to it) and
// returns it, not yet added.
func (b *builder) newCall(p string, f *partFields, cf *callFields) (*replay.ToolCall, error) {
	at := len(b.blocks)
	if f.sig != "" {
		at++ // the bound signature item comes first
	}
	var err error
	c := b.al.ToolCall()
	if cf.id != "" {
		if c.ID, err = b.keepStr(at, cf.id); err != nil {
			return nil, err
		}
	}
	if err := b.bind(f.sig, c.ID); err != nil {
		return nil, err
	}
	if c.Name, err = b.keepStr(at, cf.name); err != nil {
		return nil, err
	}
	if c.Arguments, err = b.keep(at, cf.args); err != nil {
		return nil, err
	}
	outer := f.n - 1
	if f.sig != "" {
		outer--
	}
	if cf.inner || outer > 0 {
		if c.Extra, err = b.keepBytes(at, b.callExtra(p, f.fc)); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// callExtra keeps the unknown members of a functionCall part: the part's
// own as members, the functionCall object's under "functionCall".
func (b *builder) callExtra(p, fc string) []byte {
	inner := b.extra(fc, "name", "id", "args", "partialArgs", "willContinue")
	outer := b.extra(p, "functionCall", "thoughtSignature")
	if inner == nil {
		return outer
	}
	out := append([]byte(nil), `{"functionCall":`...)
	out = append(out, inner...)
	out = jsonw.Members(out, outer)
	return append(out, '}')
}

// partialArgs records streamed argument pieces of the open call.
func (b *builder) partialArgs(list string) error {
	var err error
	elements(list, func(v string) bool {
		err = b.partialArg(v)
		return err == nil
	})
	return err
}

// partialArg records one piece, `{"jsonPath":"$.a","stringValue":"..."}`
// (or numberValue, boolValue, nullValue), within the budget: all the
// pieces of a call count against MaxItem as one string of its block. The
// cost of a piece is linear in its size, whatever came before.
func (b *builder) partialArg(v string) error {
	a := gjson.Parse(v)
	jp := a.Get("jsonPath")
	if jp.Type != gjson.String {
		return b.malformed(b.ptr()+"/functionCall/partialArgs", "expected a jsonPath string")
	}
	raw, str, ok := partialValue(a)
	if !ok {
		return b.malformed(b.ptr()+"/functionCall/partialArgs", "expected a value in a partial argument")
	}
	b.argLen += len(raw)
	if err := b.bud.Item(b.callAt, b.argLen, len(raw)); err != nil {
		return err
	}
	if !b.args.set(jp.Str, raw, str) {
		return b.malformed(b.ptr()+"/functionCall/partialArgs", "unsupported jsonPath %q", truncate(jp.Str, 64))
	}
	return nil
}

// truncate shortens s for an error message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// partialValue returns the value of a partial argument: the text of a
// stringValue (str true) or the JSON text of another value.
func partialValue(a gjson.Result) (raw string, str, ok bool) {
	if v := a.Get("stringValue"); v.Exists() {
		return v.Str, true, true
	}
	if v := a.Get("numberValue"); v.Exists() {
		return v.Raw, false, true
	}
	if v := a.Get("boolValue"); v.Exists() {
		return v.Raw, false, true
	}
	if a.Get("nullValue").Exists() {
		return "null", false, true
	}
	return "", false, false
}

// finishCall builds the streamed call's arguments and closes it. The
// arguments count against the budget for what they add to the pieces.
func (b *builder) finishCall() error {
	c := b.call
	if !b.args.empty() {
		obj := b.args.appendJSON(b.scratch[:0])
		if err := b.bud.Item(b.callAt, len(obj), max(len(obj)-b.argLen, 0)); err != nil {
			return err
		}
		c.Arguments = b.store(string(obj))
		b.scratch = obj
		b.push(stream.Event{Kind: stream.EventToolCallDelta, Block: b.callAt, Delta: c.Arguments})
	}
	b.args.reset()
	b.push(stream.Event{Kind: stream.EventToolCallEnd, Block: b.callAt})
	return nil
}

// knownKinds are the part kinds of the Gemini API that are kept as Native
// blocks; internKind returns the constant so that the kind does not alias
// the frame and costs no allocation.
var knownKinds = [...]string{"executableCode", "codeExecutionResult", "inlineData", "fileData",
	"toolCall", "toolResponse", "functionResponse", "videoMetadata", "partMetadata", "mediaResolution"}

func internKind(k string) string {
	if k == "" {
		return "part"
	}
	for _, s := range knownKinds {
		if s == k {
			return s
		}
	}
	return strings.Clone(k)
}
