package kit

import (
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/view"
)

// Alloc makes the turns of one request body, their blocks and the strings
// they keep, in a few allocations: a reader that counted what it is about
// to read ([Counts], from the tape, without reading the text) reserves it,
// then takes it piece by piece. What it hands out shares memory with the
// rest of what it handed out, so a turn kept alone keeps the others'
// memory alive: it serves the reading of one request, whose turns live
// and die together. Past what was reserved, an Alloc that reserved (or
// was made by [ConvAlloc]) takes more room in chunks that double; the
// zero Alloc allocates every value on its own, and so does a nil *Alloc
// for the blocks it hands out (Turn, ReasoningText, Encrypted, Text,
// ToolCall, Native), so that a reader shared with a stream decoder takes
// its blocks from an Alloc only when it reads a request.
type Alloc struct {
	turns   []replay.Turn
	texts   []replay.ReasoningText
	sums    []replay.Summary
	encs    []replay.Encrypted
	vis     []replay.Text
	calls   []replay.ToolCall
	natives []replay.Native
	blocks  []replay.Block // a pool: each turn takes a run
	used    int            // blocks taken
	strs    []byte         // kept strings, one after another; never rewritten
	grow    bool           // past what was reserved, allocate in chunks
}

// Counts is what a reader is about to make.
type Counts struct {
	Turns, Texts, Encrypted, Visible, Calls, Natives int
	// Blocks counts every block of every turn; Bytes bounds the bytes of
	// every string kept (the raw texts they are read from).
	Blocks, Bytes int
}

// Reserve makes room for what c counts.
func (a *Alloc) Reserve(c Counts) {
	a.turns = make([]replay.Turn, 0, c.Turns)
	a.texts = make([]replay.ReasoningText, 0, c.Texts)
	a.encs = make([]replay.Encrypted, 0, c.Encrypted)
	a.vis = make([]replay.Text, 0, c.Visible)
	a.calls = make([]replay.ToolCall, 0, c.Calls)
	a.natives = make([]replay.Native, 0, c.Natives)
	a.blocks, a.used = make([]replay.Block, c.Blocks), 0
	a.strs = make([]byte, 0, c.Bytes+24*c.Turns) // and the turns' pointers
	a.grow = true
}

// ConvAlloc returns an Alloc for reading the turns of a request's
// conversation array conv (on a tape), reserving what [ConvCounts] counts.
// What a reader takes past that comes in chunks that double, so a reader
// needs no count of its own kinds of blocks.
func ConvAlloc(conv jsonw.Val, isTurn func(jsonw.Val) bool) *Alloc {
	a := new(Alloc)
	a.Reserve(ConvCounts(conv, isTurn))
	return a
}

// ConvCounts counts, without reading their text, the turns of a request's
// conversation array conv (the elements isTurn picks), four blocks per
// turn, and the bytes of their raw texts, which bound the strings a
// reader keeps of them.
func ConvCounts(conv jsonw.Val, isTurn func(jsonw.Val) bool) Counts {
	var n Counts
	conv.ForEach(func(_ int, _ string, m jsonw.Val) bool {
		if isTurn(m) {
			n.Turns++
			n.Bytes += len(m.Raw())
		}
		return true
	})
	n.Blocks = 4 * n.Turns
	return n
}

// take returns the next reserved value of s, or a new one: one of a new
// chunk when grow is set.
func take[T any](s *[]T, grow bool) *T {
	n := len(*s)
	if n == cap(*s) {
		if !grow {
			return new(T)
		}
		*s, n = make([]T, 0, max(8, 2*n)), 0
	}
	*s = (*s)[:n+1]
	return &(*s)[n]
}

// takeOf returns the next value of the pool of a that pool picks: take's,
// or a new one from a nil Alloc.
func takeOf[T any](a *Alloc, pool func(*Alloc) *[]T) *T {
	if a == nil {
		return new(T)
	}
	return take(pool(a), a.grow)
}

// Turn returns a new turn.
func (a *Alloc) Turn() *replay.Turn {
	return takeOf(a, func(a *Alloc) *[]replay.Turn { return &a.turns })
}

// ReasoningText returns a new reasoning text item.
func (a *Alloc) ReasoningText() *replay.ReasoningText {
	return takeOf(a, func(a *Alloc) *[]replay.ReasoningText { return &a.texts })
}

// Summary returns a new summary item.
func (a *Alloc) Summary() *replay.Summary {
	return takeOf(a, func(a *Alloc) *[]replay.Summary { return &a.sums })
}

// Encrypted returns a new encrypted item.
func (a *Alloc) Encrypted() *replay.Encrypted {
	return takeOf(a, func(a *Alloc) *[]replay.Encrypted { return &a.encs })
}

// Text returns a new visible text block.
func (a *Alloc) Text() *replay.Text {
	return takeOf(a, func(a *Alloc) *[]replay.Text { return &a.vis })
}

// ToolCall returns a new tool call.
func (a *Alloc) ToolCall() *replay.ToolCall {
	return takeOf(a, func(a *Alloc) *[]replay.ToolCall { return &a.calls })
}

// Native returns a new native block.
func (a *Alloc) Native() *replay.Native {
	return takeOf(a, func(a *Alloc) *[]replay.Native { return &a.natives })
}

// Blocks returns an empty block list with room for n blocks.
func (a *Alloc) Blocks(n int) []replay.Block {
	if a.used+n > len(a.blocks) && a.grow {
		a.blocks, a.used = make([]replay.Block, max(n, 2*len(a.blocks), 16)), 0
	}
	if a.used+n <= len(a.blocks) {
		s := a.blocks[a.used : a.used : a.used+n]
		a.used += n
		return s
	}
	return make([]replay.Block, 0, n)
}

// room returns the arena with room for n more bytes.
func (a *Alloc) room(n int) {
	if cap(a.strs)-len(a.strs) < n {
		size := max(n, 1024)
		if a.grow {
			size = max(size, min(2*cap(a.strs), 1<<20))
		}
		a.strs = make([]byte, 0, size)
	}
}

// view returns the arena's bytes from start as a string.
func (a *Alloc) view(start int) string {
	if len(a.strs) == start {
		return ""
	}
	return view.String(a.strs[start:])
}

// Str keeps the value of the string v (decoded as gjson decodes it), as a
// string of the block at pos within the budget.
func (a *Alloc) Str(b *Budget, pos int, v jsonw.Val) (string, error) {
	raw := v.Raw()
	if !v.Escaped() && len(raw) >= 2 {
		return a.Raw(b, pos, raw[1:len(raw)-1])
	}
	a.room(len(raw))
	start := len(a.strs)
	a.strs = jsonw.AppendStr(a.strs, raw)
	if n := len(a.strs) - start; n > 0 {
		if err := b.Item(pos, n, n); err != nil {
			a.strs = a.strs[:start]
			return "", err
		}
	}
	return a.view(start), nil
}

// Value keeps the value of the string v (decoded as gjson decodes it;
// "" for any other value), counted against no budget: for a reader that
// counts what it keeps by blocks of its own.
func (a *Alloc) Value(v jsonw.Val) string {
	if !v.IsString() {
		return ""
	}
	raw := v.Raw()
	if !v.Escaped() {
		return a.Clone(raw[1 : len(raw)-1])
	}
	a.room(len(raw))
	start := len(a.strs)
	a.strs = jsonw.AppendStr(a.strs, raw)
	return a.view(start)
}

// KeepStr keeps the value of the JSON string literal raw (decoded as
// gjson decodes it) as a string of the block at pos within the budget,
// counted as [Budget.Keep] counts the decoded value, and checked before
// anything is kept.
func (a *Alloc) KeepStr(b *Budget, pos int, raw string) (string, error) {
	if len(raw) < 2 || strings.IndexByte(raw, '\\') < 0 {
		if len(raw) < 2 {
			raw = `""`
		}
		return a.Raw(b, pos, raw[1:len(raw)-1])
	}
	a.room(len(raw))
	start := len(a.strs)
	a.strs = jsonw.AppendStr(a.strs, raw)
	n := len(a.strs) - start
	if err := b.Item(pos, n, n); err != nil {
		a.strs = a.strs[:start]
		return "", err
	}
	return a.view(start), nil
}

// Unquoted keeps the value of the JSON string literal raw as
// [jsonw.AppendUnquoted] decodes it (an invalid escape or a lone surrogate
// half becomes U+FFFD, as encoding/json reads it), counted against no
// budget; "" when raw is not a string literal.
func (a *Alloc) Unquoted(raw string) string {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return ""
	}
	if strings.IndexByte(raw, '\\') < 0 {
		return a.Clone(raw[1 : len(raw)-1])
	}
	a.room(len(raw))
	start := len(a.strs)
	var ok bool
	if a.strs, ok = jsonw.AppendUnquoted(a.strs, raw); !ok {
		a.strs = a.strs[:start]
	}
	return a.view(start)
}

// Name keeps the value of a member name's literal (quotes included, as
// [jsonw.Val.ForEach] passes it), decoded as gjson decodes it, counted
// against no budget.
func (a *Alloc) Name(lit string) string {
	if len(lit) < 2 {
		return ""
	}
	if strings.IndexByte(lit, '\\') < 0 {
		return a.Clone(lit[1 : len(lit)-1])
	}
	a.room(len(lit))
	start := len(a.strs)
	a.strs = jsonw.AppendStr(a.strs, lit)
	return a.view(start)
}

// String keeps v as gjson's String reads it: a string's value, another
// value's raw text ("true", a number, an object), "" for null or an absent
// value; counted against no budget.
func (a *Alloc) String(v jsonw.Val) string {
	switch {
	case v.IsString():
		return a.Value(v)
	case !v.Exists() || v.IsNull():
		return ""
	}
	return a.Clone(v.Result().String())
}

// Join starts a string of several values, of n bytes at most: Append adds
// a string's value to it, and Joined returns it. Nothing else may be
// kept between Join and Joined.
func (a *Alloc) Join(n int) int {
	a.room(n)
	return len(a.strs)
}

// Append adds the value of the string v (decoded as gjson decodes it) to
// the string Join started.
func (a *Alloc) Append(v jsonw.Val) {
	a.strs = jsonw.AppendStr(a.strs, v.Raw())
}

// AppendRaw adds s as it is to the string Join started.
func (a *Alloc) AppendRaw(s string) { a.strs = append(a.strs, s...) }

// Joined returns the string Join started at start.
func (a *Alloc) Joined(start int) string { return a.view(start) }

// JoinedBytes returns the string Join started at start as bytes (their
// capacity is their length: appending to them copies); nil when empty.
func (a *Alloc) JoinedBytes(start int) []byte {
	if len(a.strs) == start {
		return nil
	}
	return a.strs[start:len(a.strs):len(a.strs)]
}

// Extra keeps the members of the object v not in known, as
// [jsonw.Val.ExtraMembers] writes them (nil when every member is known),
// counted against no budget.
func (a *Alloc) Extra(v jsonw.Val, known ...string) []byte {
	a.room(len(v.Raw()))
	start := len(a.strs)
	a.strs = v.AppendExtraMembers(a.strs, known...)
	return a.JoinedBytes(start)
}

// Keeper keeps the strings of a turn's blocks within its budget, in the
// arena of an Alloc: what a reader written on a budget's Keep (a copy of
// each string kept) uses to keep them in one allocation.
type Keeper struct {
	Budget
	Al *Alloc
}

// Keep counts s as a string of the block at pos, as [Budget.Keep] does,
// and returns a copy of it in the arena.
func (k *Keeper) Keep(pos int, s string) (string, error) { return k.Al.Raw(&k.Budget, pos, s) }

// CloneBytes keeps a copy of s as bytes (their capacity is their length:
// appending to them copies), counted against no budget; nil for "".
func (a *Alloc) CloneBytes(s string) []byte {
	if s == "" {
		return nil
	}
	a.room(len(s))
	start := len(a.strs)
	a.strs = append(a.strs, s...)
	return a.strs[start:len(a.strs):len(a.strs)]
}

// Raw keeps a copy of s as a string of the block at pos within the
// budget.
func (a *Alloc) Raw(b *Budget, pos int, s string) (string, error) {
	if err := b.Item(pos, len(s), len(s)); err != nil {
		return "", err
	}
	a.room(len(s))
	start := len(a.strs)
	a.strs = append(a.strs, s...)
	return a.view(start), nil
}

// Bytes keeps a copy of s as bytes of the block at pos within the budget
// (their capacity is their length: appending to them copies).
func (a *Alloc) Bytes(b *Budget, pos int, s string) ([]byte, error) {
	if err := b.Item(pos, len(s), len(s)); err != nil {
		return nil, err
	}
	a.room(len(s))
	start := len(a.strs)
	a.strs = append(a.strs, s...)
	return a.strs[start:len(a.strs):len(a.strs)], nil
}

// Clone keeps a copy of s, counted against no budget.
func (a *Alloc) Clone(s string) string {
	a.room(len(s))
	start := len(a.strs)
	a.strs = append(a.strs, s...)
	return a.view(start)
}

// Pointer keeps the JSON Pointer base + "/" + i.
func (a *Alloc) Pointer(base string, i int) string {
	a.room(len(base) + 21)
	start := len(a.strs)
	a.strs = append(a.strs, base...)
	a.strs = append(a.strs, '/')
	a.strs = strconv.AppendInt(a.strs, int64(i), 10)
	return a.view(start)
}
