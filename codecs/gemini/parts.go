package gemini

import (
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/gemsig"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// open says which block is open, i.e. may still grow.
type open uint8

const (
	openNone open = iota
	openThought
	openText
	openCall // a call streamed in partialArgs fragments
)

// partialArg is one reassembled argument of a streamed function call.
type partialArg struct {
	path string // sjson path
	raw  string // JSON value text; for strings, the unescaped text so far
	str  bool   // raw holds string content, written as a JSON string
}

// builder turns parts into blocks. The body and stream decoders share it,
// so that a stream and its whole-body equivalent give the same turn.
//
// Every string the turn keeps is appended to buf and sliced out of it:
// the builder never rewrites bytes it wrote, so the slices stay valid and
// stream deltas cost no allocation.
type builder struct {
	blocks []replay.Block
	buf    strings.Builder
	lim    replay.Limits
	emit   bool
	ev     []replay.Event
	event  int // frame number for errors, -1 for a body
	cand   int // position of the candidate, for error pointers
	pi     int // position of the part, for error pointers

	open    open
	start   int // offset in buf where the open block's text starts
	thought *replay.ReasoningText
	text    *replay.Text
	call    *replay.ToolCall
	callAt  int
	args    []partialArg
	scratch []byte
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

// keep copies s into buf and returns the kept copy.
func (b *builder) keep(s string) string {
	if s == "" {
		return ""
	}
	b.reserve(len(s))
	i := b.buf.Len()
	b.buf.WriteString(s)
	return b.buf.String()[i:]
}

// keepStr decodes the JSON string raw into buf and returns the kept text.
func (b *builder) keepStr(raw string) string {
	b.reserve(unescapedLen(raw))
	i := b.buf.Len()
	appendUnescaped(&b.buf, raw)
	return b.buf.String()[i:]
}

func (b *builder) add(bl replay.Block) (int, error) {
	if len(b.blocks) >= b.lim.MaxBlocks {
		return 0, &replay.LimitError{What: "block count", Limit: b.lim.MaxBlocks, Event: -1, Block: -1}
	}
	b.blocks = append(b.blocks, bl)
	return len(b.blocks) - 1, nil
}

func (b *builder) size(n int) error {
	if n > b.lim.MaxItem {
		return &replay.LimitError{What: "item size", Limit: b.lim.MaxItem, Event: -1, Block: -1}
	}
	return nil
}

func (b *builder) push(e replay.Event) {
	if b.emit {
		b.ev = append(b.ev, e)
	}
}

// close closes the open block.
func (b *builder) close() error {
	switch b.open {
	case openThought:
		b.push(replay.Event{Kind: replay.EventReasoningEnd, Block: len(b.blocks) - 1, Item: b.thought})
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
	return replay.Malformed(API, b.event, ptr, format, args...)
}

// ptr locates the part being decoded.
func (b *builder) ptr() string {
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

// scanPart reads the members of the part that starts at s[i] and returns
// its fields and its end.
func scanPart(s string, i int) (partFields, int) {
	var f partFields
	if s[i] != '{' {
		e := valueEnd(s, i)
		f.raw = s[i:e]
		return f, e
	}
	e := object(s, i, func(k string, vi int) int {
		f.n++
		ve := valueEnd(s, vi)
		v := s[vi:ve]
		switch k {
		case "thoughtSignature":
			f.sig = v
		case "text":
			f.text = v
		case "thought":
			f.thought = v == "true"
			if v != "true" && v != "false" {
				f.others++ // kept verbatim
			}
		case "functionCall":
			f.fc = v
		default:
			if f.kind == "" {
				f.kind = k
			}
			f.others++
		}
		return ve
	})
	f.raw = s[i:e]
	return f, e
}

// part decodes one part, the raw JSON text p.
func (b *builder) part(p string) error {
	f, _ := scanPart(p, 0)
	return b.fields(&f)
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
		if err := b.size(unescapedLen(f.sig)); err != nil {
			return err
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
	members(obj, func(k, v string) bool {
		for _, s := range skip {
			if k == s {
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
	it := gemsig.Item(b.keepStr(sigRaw), id)
	at, err := b.add(it)
	if err != nil {
		return err
	}
	b.push(replay.Event{Kind: replay.EventReasoningStart, Block: at, Item: it})
	b.push(replay.Event{Kind: replay.EventReasoningEnd, Block: at, Item: it})
	return nil
}

// grow appends the JSON string raw to the open block's text and returns
// the new text and the delta.
func (b *builder) grow(raw string) (all, delta string, err error) {
	if err := b.size(b.buf.Len() - b.start + unescapedLen(raw)); err != nil {
		return "", "", err
	}
	b.reserve(unescapedLen(raw))
	i := b.buf.Len()
	appendUnescaped(&b.buf, raw)
	s := b.buf.String()
	return s[b.start:], s[i:], nil
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
			b.push(replay.Event{Kind: replay.EventReasoningDelta, Block: len(b.blocks) - 1, Delta: delta})
		}
		return nil
	}
	if err := b.close(); err != nil {
		return err
	}
	if err := b.size(unescapedLen(f.text)); err != nil {
		return err
	}
	it := &replay.ReasoningText{}
	it.Format = formats.GoogleGemini
	if f.sig != "" {
		it.Signature = replay.Some(b.keepStr(f.sig))
	}
	if f.textExtra() {
		it.Extra = b.extra(p, "text", "thought", "thoughtSignature")
	}
	at, err := b.add(it)
	if err != nil {
		return err
	}
	b.start = b.buf.Len()
	it.Text = b.keepStr(f.text)
	b.open, b.thought = openThought, it
	b.push(replay.Event{Kind: replay.EventReasoningStart, Block: at, Item: it})
	if it.Text != "" {
		b.push(replay.Event{Kind: replay.EventReasoningDelta, Block: at, Delta: it.Text})
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
			b.push(replay.Event{Kind: replay.EventTextDelta, Block: len(b.blocks) - 1, Delta: delta})
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
	if err := b.size(unescapedLen(f.text)); err != nil {
		return err
	}
	if err := b.bind(f.sig, ""); err != nil {
		return err
	}
	t := &replay.Text{}
	if f.textExtra() {
		t.Extra = b.extra(p, "text", "thought", "thoughtSignature")
	}
	at, err := b.add(t)
	if err != nil {
		return err
	}
	b.start = b.buf.Len()
	t.Text = b.keepStr(f.text)
	b.open, b.text = openText, t
	if t.Text != "" {
		b.push(replay.Event{Kind: replay.EventTextDelta, Block: at, Delta: t.Text})
	}
	return nil
}

func (b *builder) native(p string, f *partFields) error {
	if err := b.close(); err != nil {
		return err
	}
	if err := b.size(len(p)); err != nil {
		return err
	}
	if err := b.bind(f.sig, ""); err != nil {
		return err
	}
	kind := internKind(f.kind)
	var raw []byte
	if f.sig != "" {
		raw = b.extra(p, "thoughtSignature")
		if raw == nil {
			raw = []byte("{}")
		}
	} else {
		raw = []byte(p)
	}
	_, err := b.add(&replay.Native{Kind: kind, Raw: raw})
	return err
}

// functionCall handles a functionCall part: a whole call, or a fragment of
// a call streamed in partialArgs pieces.
func (b *builder) functionCall(p string, f *partFields) error {
	var name, id, args, partial string
	cont, inner := false, false
	members(f.fc, func(k, v string) bool {
		switch k {
		case "name":
			name = v
		case "id":
			id = v
		case "args":
			args = v
		case "partialArgs":
			partial = v
		case "willContinue":
			cont = v == "true"
		default:
			inner = true
		}
		return true
	})
	if name != "" && !isString(name) || id != "" && !isString(id) {
		return b.malformed(b.ptr()+"/functionCall", "expected string name and id")
	}
	if args == "null" {
		args = ""
	}
	if args != "" && !isObject(args) {
		return b.malformed(b.ptr()+"/functionCall/args", "expected an object")
	}
	if partial != "" && !isArray(partial) {
		return b.malformed(b.ptr()+"/functionCall/partialArgs", "expected an array")
	}
	if name == "" {
		// A continuation fragment of the open streamed call.
		if b.open != openCall {
			return b.malformed(b.ptr()+"/functionCall", "a functionCall fragment without a name and no streamed call open")
		}
		if f.sig != "" {
			return b.malformed(b.ptr()+"/thoughtSignature", "a signature on a continuation fragment of a streamed call")
		}
		if err := b.partialArgs(partial); err != nil {
			return err
		}
		if !cont {
			return b.close()
		}
		return nil
	}
	if err := b.close(); err != nil {
		return err
	}
	if err := b.size(len(args)); err != nil {
		return err
	}
	cid := ""
	if id != "" {
		cid = b.keepStr(id)
	}
	if err := b.bind(f.sig, cid); err != nil {
		return err
	}
	c := &replay.ToolCall{Name: b.keepStr(name), ID: cid}
	c.Arguments = b.keep(args)
	outer := f.n - 1
	if f.sig != "" {
		outer--
	}
	if inner || outer > 0 {
		c.Extra = b.callExtra(p, f.fc)
	}
	at, err := b.add(c)
	if err != nil {
		return err
	}
	b.push(replay.Event{Kind: replay.EventToolCallStart, Block: at, ID: c.ID, Name: c.Name})
	if cont || partial != "" {
		b.open, b.call, b.callAt, b.args = openCall, c, at, b.args[:0]
		if err := b.partialArgs(partial); err != nil {
			return err
		}
		if !cont {
			return b.close()
		}
		return nil
	}
	if c.Arguments != "" {
		b.push(replay.Event{Kind: replay.EventToolCallDelta, Block: at, Delta: c.Arguments})
	}
	b.push(replay.Event{Kind: replay.EventToolCallEnd, Block: at})
	return nil
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
		a := gjson.Parse(v)
		jp := a.Get("jsonPath")
		if jp.Type != gjson.String {
			err = b.malformed(b.ptr()+"/functionCall/partialArgs", "expected a jsonPath string")
			return false
		}
		p, ok := sjsonPath(jp.Str)
		if !ok {
			err = b.malformed(b.ptr()+"/functionCall/partialArgs", "unsupported jsonPath %q", jp.Str)
			return false
		}
		var raw string
		str := false
		switch {
		case a.Get("stringValue").Exists():
			raw, str = strings.Clone(a.Get("stringValue").Str), true
		case a.Get("numberValue").Exists():
			raw = strings.Clone(a.Get("numberValue").Raw)
		case a.Get("boolValue").Exists():
			raw = strings.Clone(a.Get("boolValue").Raw)
		case a.Get("nullValue").Exists():
			raw = "null"
		default:
			err = b.malformed(b.ptr()+"/functionCall/partialArgs", "expected a value in a partial argument")
			return false
		}
		if n := len(b.args); str && n > 0 && b.args[n-1].str && b.args[n-1].path == p {
			b.args[n-1].raw += raw
			if err = b.size(len(b.args[n-1].raw)); err != nil {
				return false
			}
			return true
		}
		b.args = append(b.args, partialArg{path: p, raw: raw, str: str})
		return true
	})
	return err
}

// finishCall builds the streamed call's arguments and closes it.
func (b *builder) finishCall() error {
	c := b.call
	if len(b.args) > 0 {
		obj := append(b.scratch[:0], '{', '}')
		var err error
		for _, a := range b.args {
			val := a.raw
			if a.str {
				val = string(jsonw.String(nil, a.raw))
			}
			if obj, err = sjson.SetRawBytes(obj, a.path, []byte(val)); err != nil {
				return b.malformed("", "cannot rebuild streamed arguments: %v", err)
			}
		}
		if err := b.size(len(obj)); err != nil {
			return err
		}
		c.Arguments = b.keep(string(obj))
		b.scratch = obj
		b.push(replay.Event{Kind: replay.EventToolCallDelta, Block: b.callAt, Delta: c.Arguments})
	}
	b.args = b.args[:0]
	b.push(replay.Event{Kind: replay.EventToolCallEnd, Block: b.callAt})
	return nil
}

// sjsonPath converts a partialArgs jsonPath ("$.a.b[0]", "$['a b']") to an
// sjson path.
func sjsonPath(jp string) (string, bool) {
	if !strings.HasPrefix(jp, "$") || len(jp) < 3 {
		return "", false
	}
	var out []byte
	seg := func(s string) {
		if len(out) > 0 {
			out = append(out, '.')
		}
		for i := 0; i < len(s); i++ {
			c := s[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c >= 0x80) {
				out = append(out, '\\')
			}
			out = append(out, c)
		}
	}
	s := jp[1:]
	for s != "" {
		switch {
		case s[0] == '.':
			s = s[1:]
			n := strings.IndexAny(s, ".[")
			if n < 0 {
				n = len(s)
			}
			if n == 0 {
				return "", false
			}
			seg(s[:n])
			s = s[n:]
		case strings.HasPrefix(s, "['"):
			n := strings.Index(s, "']")
			if n < 2 {
				return "", false
			}
			seg(s[2:n])
			s = s[n+2:]
		case s[0] == '[':
			n := strings.IndexByte(s, ']')
			if n < 2 {
				return "", false
			}
			for _, c := range s[1:n] {
				if c < '0' || c > '9' {
					return "", false
				}
			}
			if len(out) > 0 {
				out = append(out, '.')
			}
			out = append(out, s[1:n]...)
			s = s[n+1:]
		default:
			return "", false
		}
	}
	return string(out), true
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
