package jsonw

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/reasonreplay/replay/internal/view"
	"github.com/tidwall/gjson"
)

// TapeDepth is how deep a [Tape] records values: the root is at depth 0,
// its members or elements at 1, theirs at 2, and so on. A request body's
// conversation elements sit at 2, their members at 3, the elements of a
// content array at 4 and a content block's members at 5; a tool result's
// text nests down to 8 (Bedrock's toolResult.content[].text).
const TapeDepth = 8

// Tape is a JSON text read in one validating pass that records where its
// values lie: every value down to [TapeDepth], with its raw text, its
// member name and, for an object or an array, its members or elements.
// Whoever reads the text after the pass (a request reader, the audit's
// rules, the conversation's digests, a repair) walks the tape instead of
// reading the text again; a value deeper than the tape records is read
// from its raw text, which the pass validated.
//
// [Tape.Reset] accepts exactly what [Valid] accepts. The number of values
// recorded is bounded by the text's size (a container opened when the
// bound is reached keeps its raw text only), so a tape costs at most a
// fraction of the text it records.
type Tape struct {
	s     string
	nodes []tnode
	kids  []int32 // the children of every recorded container, each run contiguous
	stack []int32 // the children of the containers being read
	limit int     // the most nodes recorded
	// capped is set when the bound left a container unrecorded: such a
	// tape is not reused (ResetAfter), since a text of another length
	// has another bound.
	capped bool
	reused int    // the values ResetAfter took from the earlier tape
	prefix int    // the leading bytes ResetAfter found the text shares with the earlier tape's
	after  string // that tape's text
	// memo is what a reader derived from the text (see Memo), cleared by
	// a reset.
	memo atomic.Pointer[tapeMemo]
	// kept is what a reader read from the text, for the reader of a
	// later text reset after this tape (see Keep), cleared by a reset and
	// carried by a snapshot.
	kept atomic.Pointer[tapeMemo]
	// shared is set when nodes and kids are shared with another tape
	// (ResetAfter of the same text, Snapshot): they are never written
	// again, and a reset of either tape starts from new memory.
	shared bool
}

// tapeMemo is one value derived from a tape's text, by its key.
type tapeMemo struct {
	key, val any
}

// Memo returns what derive makes of the tape's text, made once per reset
// for key (a pointer that names the derivation): the audit's rules that
// each walk the same values of a request share one walk. What derive
// returns must not be changed by those it is handed to. The tape keeps
// one derived value, the last key's; tapes read concurrently may derive it
// more than once.
func (t *Tape) Memo(key any, derive func() any) any {
	if m := t.memo.Load(); m != nil && m.key == key {
		return m.val
	}
	v := derive()
	t.memo.Store(&tapeMemo{key: key, val: v})
	return v
}

// tnode is one recorded value.
type tnode struct {
	start, end     int32 // the raw value
	nameAt, nameTo int32 // its member name's literal, quotes included (0, 0 for none)
	kids, nkids    int32 // its children in Tape.kids; nkids -1 when not recorded
	flags          uint8
}

const (
	tEscName = 1 << iota // the member name has escapes
	tEscStr              // the string value has escapes
)

// Reset reads s, which must not change while the tape is used: it reports
// whether s is valid JSON (as [Valid] says), and records its values when
// it is. A tape can be reset any number of times; it keeps its memory.
func (t *Tape) Reset(s string) bool {
	t.memo.Store(nil)
	t.kept.Store(nil)
	t.prefix, t.after = 0, ""
	t.s = s
	t.unshare()
	t.nodes, t.kids, t.stack = t.nodes[:0], t.kids[:0], t.stack[:0]
	t.limit, t.capped, t.reused = 1024+len(s)/32, false, 0
	if cap(t.nodes) == 0 {
		// A first guess at the values of a request body (about one per
		// 250 bytes), so that a new tape does not grow from nothing.
		n := min(t.limit, 16+len(s)/256)
		t.nodes, t.kids, t.stack = make([]tnode, 0, n), make([]int32, 0, n), make([]int32, 0, min(n, 64))
	}
	if len(s) > math.MaxInt32 || !utf8.ValidString(s) {
		t.s = ""
		return false
	}
	i, ok := t.value(skipSpace(s, 0), 0, 0, 0)
	if !ok || skipSpace(s, i) != len(s) {
		t.s, t.nodes = "", t.nodes[:0]
		return false
	}
	return true
}

// unshare gives up memory the tape shares with another, before it is
// written.
func (t *Tape) unshare() {
	if t.shared {
		t.nodes, t.kids, t.shared = nil, nil, false
	}
}

// Snapshot returns a tape of s, a copy of the tape's text (the same
// bytes, held elsewhere): what the tape recorded, read from s. It shares
// the tape's records, which neither tape writes again (a later reset of
// either starts from new memory). It returns nil when s is not the tape's
// text.
func (t *Tape) Snapshot(s string) *Tape {
	if t == nil || len(t.nodes) == 0 || s != t.s {
		return nil
	}
	if !t.shared { // a snapshot is marked already, and read concurrently
		t.shared = true
	}
	snap := &Tape{s: s, nodes: t.nodes[:len(t.nodes):len(t.nodes)], kids: t.kids[:len(t.kids):len(t.kids)],
		limit: t.limit, capped: t.capped, shared: true}
	snap.kept.Store(t.kept.Load())
	return snap
}

// Keep keeps v with the tape, under key (a comparable value that names
// what v is, and for which reader): what a reader read from the text, for
// the reader of a later text reset after this tape or a snapshot of it
// (ResetAfter), which may take from v what lies in the bytes the two texts
// share (see Prefix). The tape keeps one value, the last key's; a reset
// drops it, and Snapshot carries it. v must never be changed once kept:
// readers on several goroutines may take it.
func (t *Tape) Keep(key, v any) { t.kept.Store(&tapeMemo{key: key, val: v}) }

// Kept returns the value kept under key (see Keep), nil when none is.
func (t *Tape) Kept(key any) any {
	if m := t.kept.Load(); m != nil && m.key == key {
		return m.val
	}
	return nil
}

// Prefix returns the text of the tape this one was last reset after, and
// how many leading bytes the two texts share, when ResetAfter took that
// tape's values (the text's values that end within them are that tape's,
// at the same places); "" and 0 after Reset, or when ResetAfter read the
// text afresh.
func (t *Tape) Prefix() (after string, n int) { return t.after, t.prefix }

// Size returns the bytes the tape's records take (its text excluded).
func (t *Tape) Size() int { return cap(t.nodes)*tnodeSize + cap(t.kids)*4 }

var tnodeSize = int(reflect.TypeFor[tnode]().Size())

// ResetBytes is Reset for a byte slice, read in place: b must not change
// while the tape is used, and what the tape returns views it.
func (t *Tape) ResetBytes(b []byte) bool {
	if len(b) == 0 {
		return t.Reset("")
	}
	return t.Reset(view.String(b))
}

// Text returns the text the tape was reset with ("" when it was invalid).
func (t *Tape) Text() string { return t.s }

// Root returns the text's value (absent when the text was invalid).
func (t *Tape) Root() Val {
	if t == nil || len(t.nodes) == 0 {
		return Val{}
	}
	return Val{t: t, n: 0, start: t.nodes[0].start, end: t.nodes[0].end}
}

// value validates and records the value at s[i], at depth, under the
// member name s[nameAt:nameTo] (none when both are 0). A container at
// TapeDepth, or opened when the tape holds as many values as it records,
// is recorded with its raw text only.
func (t *Tape) value(i, depth, nameAt, nameTo int) (int, bool) {
	s := t.s
	if i >= len(s) {
		return i, false
	}
	switch c := s[i]; c {
	case '"':
		end, esc, ok := validStringEsc(s, i+1)
		if ok {
			var f uint8
			if esc {
				f = tEscStr
			}
			t.push(i, end, nameAt, nameTo, f, 0)
		}
		return end, ok
	case '{', '[':
		if depth >= TapeDepth || len(t.nodes) >= t.limit {
			t.capped = t.capped || depth < TapeDepth
			end, ok := value(s, i, depth)
			if ok {
				t.push(i, end, nameAt, nameTo, 0, -1)
			}
			return end, ok
		}
		if depth >= maxDepth {
			return i, false
		}
		n := t.push(i, i, nameAt, nameTo, 0, 0)
		mark := len(t.stack)
		var end int
		var ok bool
		if c == '{' {
			end, ok = t.object(i, depth, n, mark)
		} else {
			end, ok = t.array(i, depth, n, mark)
		}
		if !ok {
			return end, false
		}
		nd := &t.nodes[n]
		nd.end = int32(end)
		if nd.nkids >= 0 {
			nd.kids, nd.nkids = int32(len(t.kids)), int32(len(t.stack)-mark)
			t.kids = append(t.kids, t.stack[mark:]...)
		}
		t.stack = t.stack[:mark]
		return end, true
	}
	end, ok := value(s, i, depth)
	if ok {
		t.push(i, end, nameAt, nameTo, 0, 0)
	}
	return end, ok
}

// push records a value and lists it as a child of the container being
// read; it returns the value's node.
func (t *Tape) push(start, end, nameAt, nameTo int, flags uint8, nkids int32) int {
	if nameTo > nameAt && strings.IndexByte(t.s[nameAt+1:nameTo-1], '\\') >= 0 {
		flags |= tEscName
	}
	n := len(t.nodes)
	t.nodes = append(t.nodes, tnode{start: int32(start), end: int32(end), nameAt: int32(nameAt), nameTo: int32(nameTo), nkids: nkids, flags: flags})
	if n > 0 {
		t.stack = append(t.stack, int32(n))
	}
	return n
}

// child reads the next child of the container n (whose children are
// listed on the stack from mark): recorded while the tape holds fewer than
// twice the values it records; past that, the container keeps its raw
// text only and the rest of it is validated unrecorded.
func (t *Tape) child(i, depth, nameAt, nameTo, n, mark int) (int, bool) {
	if t.nodes[n].nkids < 0 {
		return value(t.s, i, depth)
	}
	if len(t.nodes) >= 2*t.limit {
		t.capped = true
		t.nodes[n].nkids = -1
		t.stack = t.stack[:mark]
		return value(t.s, i, depth)
	}
	return t.value(i, depth, nameAt, nameTo)
}

// object validates the object at s[i], recording its members.
func (t *Tape) object(i, depth, n, mark int) (int, bool) {
	s := t.s
	i = skipSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		return i + 1, true
	}
	var names memberNames
	for {
		if i >= len(s) || s[i] != '"' {
			return i, false
		}
		start := i
		var ok bool
		if i, ok = validString(s, i+1); !ok {
			return i, false
		}
		if names.repeated(s[start:i]) {
			return start, false
		}
		nameTo := i
		i = skipSpace(s, i)
		if i >= len(s) || s[i] != ':' {
			return i, false
		}
		if i, ok = t.child(skipSpace(s, i+1), depth+1, start, nameTo, n, mark); !ok {
			return i, false
		}
		i = skipSpace(s, i)
		if i >= len(s) {
			return i, false
		}
		switch s[i] {
		case ',':
			i = skipSpace(s, i+1)
		case '}':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// array validates the array at s[i], recording its elements.
func (t *Tape) array(i, depth, n, mark int) (int, bool) {
	s := t.s
	i = skipSpace(s, i+1)
	if i < len(s) && s[i] == ']' {
		return i + 1, true
	}
	return t.elements(i, depth, n, mark)
}

// elements validates and records the elements of the array n from its
// element at s[i] on, to the array's end.
func (t *Tape) elements(i, depth, n, mark int) (int, bool) {
	s := t.s
	for {
		var ok bool
		if i, ok = t.child(i, depth+1, 0, 0, n, mark); !ok {
			return i, false
		}
		i = skipSpace(s, i)
		if i >= len(s) {
			return i, false
		}
		switch s[i] {
		case ',':
			i = skipSpace(s, i+1)
		case ']':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// validStringEsc is validString that also reports whether the string has
// an escape.
func validStringEsc(s string, i int) (end int, esc, ok bool) {
	for {
		i = nextStop(s, i)
		if i >= len(s) {
			return len(s), esc, false
		}
		switch c := s[i]; {
		case c == '"':
			return i + 1, esc, true
		case c < 0x20:
			return i, esc, false
		}
		if i+1 >= len(s) {
			return i, esc, false
		}
		esc = true
		switch s[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if _, ok := hex4(s[i+2:]); !ok {
				return i, esc, false
			}
			i += 6
		default:
			return i, esc, false
		}
	}
}

// Val is one value of a [Tape]'s text: a recorded one, or one read from
// the raw text of a recorded one (deeper than the tape records). The zero
// Val is absent. A Val views the text: what it returns is valid while the
// text is.
type Val struct {
	t          *Tape
	n          int32 // the node, or -1 for a value read from raw text
	start, end int32
}

// Exists reports whether the value is present.
func (v Val) Exists() bool { return v.t != nil }

// Raw returns the value's raw text ("" when absent).
func (v Val) Raw() string {
	if v.t == nil {
		return ""
	}
	return v.t.s[v.start:v.end]
}

// Start returns the offset of the value's raw text in the tape's text (-1
// when absent).
func (v Val) Start() int {
	if v.t == nil {
		return -1
	}
	return int(v.start)
}

// End returns the offset after the value's raw text (-1 when absent).
func (v Val) End() int {
	if v.t == nil {
		return -1
	}
	return int(v.end)
}

// Kind returns the value's first byte: '{', '[', '"', 't', 'f', 'n', or
// a number's first byte; 0 when absent.
func (v Val) Kind() byte {
	if v.t == nil {
		return 0
	}
	return v.t.s[v.start]
}

// IsObject reports whether the value is an object.
func (v Val) IsObject() bool { return v.Kind() == '{' }

// IsArray reports whether the value is an array.
func (v Val) IsArray() bool { return v.Kind() == '[' }

// IsString reports whether the value is a string.
func (v Val) IsString() bool { return v.Kind() == '"' }

// IsNumber reports whether the value is a number.
func (v Val) IsNumber() bool { c := v.Kind(); return c == '-' || c >= '0' && c <= '9' }

// IsNull reports whether the value is null.
func (v Val) IsNull() bool { return v.Kind() == 'n' }

// IsBool reports whether the value is true or false.
func (v Val) IsBool() bool { c := v.Kind(); return c == 't' || c == 'f' }

// True reports whether the value is true.
func (v Val) True() bool { return v.Kind() == 't' }

// Escaped reports whether the value is a string written with escapes.
func (v Val) Escaped() bool {
	if v.t == nil || v.Kind() != '"' {
		return false
	}
	if v.n >= 0 {
		return v.t.nodes[v.n].flags&tEscStr != 0
	}
	return strings.IndexByte(v.Raw(), '\\') >= 0
}

// Str returns a string's value, a view of the text when it has no
// escapes; "" for any other value. Escapes are decoded as gjson decodes
// them (the readers and rules the tape serves were written on gjson).
func (v Val) Str() string {
	if v.Kind() != '"' {
		return ""
	}
	raw := v.Raw()
	if !v.Escaped() {
		return raw[1 : len(raw)-1]
	}
	return unescape(raw)
}

// unescape decodes the string literal raw (valid JSON) as gjson does.
func unescape(raw string) string { return string(AppendStr(nil, raw)) }

// nameIs reports whether the member name literal raw names name, as gjson
// compares them.
func nameIs(raw, name string, escaped bool) bool {
	if !escaped {
		return len(raw) == len(name)+2 && raw[1:len(raw)-1] == name
	}
	// Decoding never lengthens a string, and leaves the bytes before the
	// first escape as they are: most names are told apart without it.
	inner := raw[1 : len(raw)-1]
	k := strings.IndexByte(inner, '\\')
	if len(name) > len(inner) || k > len(name) || inner[:k] != name[:k] {
		return false
	}
	return unescape(raw) == name
}

// Is reports whether the value is the string s, without allocating when
// it has no escapes.
func (v Val) Is(s string) bool {
	if v.Kind() != '"' {
		return false
	}
	return nameIs(v.Raw(), s, v.Escaped())
}

// Int returns a number's value as gjson's Int reads an integer (its
// integer part), and whether the value is a number.
func (v Val) Int() (int64, bool) {
	if !v.IsNumber() {
		return 0, false
	}
	raw := v.Raw()
	if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		return 0, true
	}
	return int64(f), true
}

// Name returns the raw literal of the value's member name, quotes
// included ("" for an element or the root, and for a value read from raw
// text).
func (v Val) Name() string {
	if v.t == nil || v.n < 0 {
		return ""
	}
	nd := &v.t.nodes[v.n]
	return v.t.s[nd.nameAt:nd.nameTo]
}

// recorded returns v's children on the tape, and whether they are
// recorded.
func (v Val) recorded() ([]int32, bool) {
	if v.t == nil || v.n < 0 {
		return nil, false
	}
	nd := &v.t.nodes[v.n]
	if nd.nkids < 0 {
		return nil, false
	}
	return v.t.kids[nd.kids : nd.kids+nd.nkids], true
}

func (v Val) node(k int32) Val {
	nd := &v.t.nodes[k]
	return Val{t: v.t, n: k, start: nd.start, end: nd.end}
}

func (v Val) sub(s string) Val {
	start := v.start + int32(viewPos(v.Raw(), s))
	return Val{t: v.t, n: -1, start: start, end: start + int32(len(s))}
}

// viewPos returns where the view sub starts in the text raw it views
// (0 for an empty sub).
func viewPos(raw, sub string) int {
	off, _ := view.Offset(raw, sub)
	return off
}

// Len returns the number of an array's elements or an object's members (0
// for any other value).
func (v Val) Len() int {
	if kids, ok := v.recorded(); ok {
		return len(kids)
	}
	n := 0
	switch v.Kind() {
	case '[':
		for pos, ok := 0, true; ; n++ {
			if _, pos, ok = NextElem(v.Raw(), pos); !ok {
				return n
			}
		}
	case '{':
		for pos, ok := 0, true; ; n++ {
			if _, _, pos, ok = NextMember(v.Raw(), pos); !ok {
				return n
			}
		}
	}
	return 0
}

// Index returns element i of an array (absent when there is none).
func (v Val) Index(i int) Val {
	if v.Kind() != '[' || i < 0 {
		return Val{}
	}
	if kids, ok := v.recorded(); ok {
		if i >= len(kids) {
			return Val{}
		}
		return v.node(kids[i])
	}
	raw := v.Raw()
	for pos, k := 0, 0; ; k++ {
		el, next, ok := NextElem(raw, pos)
		if !ok {
			return Val{}
		}
		if k == i {
			return v.sub(el)
		}
		pos = next
	}
}

// Get returns the member of an object named name (compared by value;
// absent when there is none, or when v is not an object).
func (v Val) Get(name string) Val {
	if v.Kind() != '{' {
		return Val{}
	}
	if kids, ok := v.recorded(); ok {
		for _, k := range kids {
			nd := &v.t.nodes[k]
			if nameIs(v.t.s[nd.nameAt:nd.nameTo], name, nd.flags&tEscName != 0) {
				return v.node(k)
			}
		}
		return Val{}
	}
	raw := v.Raw()
	for pos := 0; ; {
		k, val, next, ok := NextMember(raw, pos)
		if !ok {
			return Val{}
		}
		if nameIs(k, name, strings.IndexByte(k, '\\') >= 0) {
			return v.sub(val)
		}
		pos = next
	}
}

// Path returns the value at a path of member names and array indexes
// separated by dots ("thinking.type", "content.0.type"); a token of digits
// indexes an array. Names holding a dot cannot be reached this way.
func (v Val) Path(path string) Val {
	for v.Exists() {
		tok, rest, more := strings.Cut(path, ".")
		if v.Kind() == '[' {
			i, err := strconv.Atoi(tok)
			if err != nil {
				return Val{}
			}
			v = v.Index(i)
		} else {
			v = v.Get(tok)
		}
		if !more {
			return v
		}
		path = rest
	}
	return Val{}
}

// ForEach calls fn for each element of an array (name "") or member of an
// object (name its raw literal, quotes included), in order, with its
// position, until fn returns false.
func (v Val) ForEach(fn func(i int, name string, el Val) bool) {
	if kids, ok := v.recorded(); ok {
		for i, k := range kids {
			el := v.node(k)
			if !fn(i, el.Name(), el) {
				return
			}
		}
		return
	}
	raw := v.Raw()
	switch v.Kind() {
	case '[':
		for pos, i := 0, 0; ; i++ {
			el, next, ok := NextElem(raw, pos)
			if !ok || !fn(i, "", v.sub(el)) {
				return
			}
			pos = next
		}
	case '{':
		for pos, i := 0, 0; ; i++ {
			name, val, next, ok := NextMember(raw, pos)
			if !ok || !fn(i, name, v.sub(val)) {
				return
			}
			pos = next
		}
	}
}

// Result returns the value as gjson reads it, for the readers written on
// gjson: its raw text was validated by the pass that found it.
func (v Val) Result() gjson.Result {
	if v.t == nil {
		return gjson.Result{}
	}
	raw := v.Raw()
	r := gjson.Result{Raw: raw, Index: int(v.start)}
	switch raw[0] {
	case '{', '[':
		r.Type = gjson.JSON
	case '"':
		r.Type, r.Str = gjson.String, v.Str()
	case 't':
		r.Type = gjson.True
	case 'f':
		r.Type = gjson.False
	case 'n':
		r.Type = gjson.Null
	default:
		r = gjson.Parse(raw)
		r.Index = int(v.start)
	}
	return r
}

// Each calls fn for each element of an array or the value of each member
// of an object, with its position, until fn returns false; a value that is
// neither is passed once, at position 0, as gjson's ForEach passes it
// (the readers and rules the tape serves were written on it).
func (v Val) Each(fn func(i int, el Val) bool) {
	switch v.Kind() {
	case 0:
	case '[', '{':
		v.ForEach(func(i int, _ string, el Val) bool { return fn(i, el) })
	default:
		fn(0, v)
	}
}

// At returns the member or element of v whose raw text lies at
// [start, end) of the text (absent when none does): how a reader that
// kept a value's place finds it again on the tape.
func (v Val) At(start, end int) Val {
	var found Val
	v.ForEach(func(_ int, _ string, el Val) bool {
		if el.Start() == start && el.End() == end {
			found = el
			return false
		}
		return el.Start() < start
	})
	return found
}

// Detached returns the value as gjson reads it, on a copy of its raw text:
// for a reader written on gjson that keeps what it reads without copying
// it (a tape views text its caller may change afterwards).
func (v Val) Detached() gjson.Result {
	if v.t == nil {
		return gjson.Result{}
	}
	r := gjson.Parse(strings.Clone(v.Raw()))
	r.Index = int(v.start)
	return r
}

// ExtraMembers is [ExtraMembers] on an object of the tape: the same bytes,
// found from the members the tape recorded instead of reading the object
// again (nil when every member is known, the common case).
func (v Val) ExtraMembers(known ...string) []byte {
	out := v.AppendExtraMembers(nil, known...)
	if len(out) == 0 {
		return nil
	}
	return out
}

// AppendExtraMembers appends the bytes ExtraMembers returns to dst (dst as
// it was when every member is known).
func (v Val) AppendExtraMembers(dst []byte, known ...string) []byte {
	kids, ok := v.recorded()
	if !ok || v.Kind() != '{' {
		return append(dst, ExtraMembers(v.Raw(), known...)...)
	}
	start := len(dst)
	var seenBuf [4]string
	seen := seenBuf[:0]
	for _, k := range kids {
		nd := &v.t.nodes[k]
		name := v.t.s[nd.nameAt:nd.nameTo]
		keep := true
		for _, n := range known {
			if keyEquals(name, n) {
				keep = false
				break
			}
		}
		for _, s := range seen {
			if keep && sameName(s, name) {
				keep = false
			}
		}
		if !keep {
			continue
		}
		if len(dst) == start {
			dst = append(dst, '{')
		} else {
			dst = append(dst, ',')
		}
		dst = append(dst, name...)
		dst = append(dst, ':')
		dst = append(dst, v.t.s[nd.start:nd.end]...)
		seen = append(seen, name)
	}
	if len(dst) == start {
		return dst
	}
	return append(dst, '}')
}
