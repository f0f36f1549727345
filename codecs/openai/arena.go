package openai

import (
	"strings"
	"unsafe"

	"github.com/reasonreplay/replay/internal/jsonw"
)

// A stream decoder builds, per output item, a handful of small objects
// (the item, its blocks, their turn blocks), a few kept strings (ids,
// names, encrypted content) and one growing text per block. Allocated one
// by one, they cost a dozen allocations or more per item, which a tool loop
// of short items pays on every item. They are carved instead from chunks
// that the decoder owns: the objects from a slab per type, the kept strings
// from a strings arena, the texts from a texts arena. Nothing handed out is
// ever written again, so every string and pointer stays valid for as long
// as the turn that holds it.

// slab hands out zeroed values of T from chunks of growing size.
type slab[T any] struct {
	free []T
	n    int // values handed out so far
}

// slabMax is the most values a slab chunk holds.
const slabMax = 64

// new returns a pointer to a zero T.
func (s *slab[T]) new() *T {
	if len(s.free) == 0 {
		s.free = make([]T, min(max(s.n, 2), slabMax))
	}
	p := &s.free[0]
	s.free = s.free[1:]
	s.n++
	return p
}

// arena copies strings and grows texts in chunks of growing size: each
// string or text gets a region of a chunk of its own, written once and
// never again.
type arena struct {
	buf []byte // the current chunk; buf[:len(buf)] is handed out
}

// The chunk sizes of an arena: the first, and the largest; a region larger
// than a quarter of the largest is allocated on its own.
const (
	arenaFirst = 512
	arenaMax   = 32 << 10 // the largest small-object size class
)

// region returns an empty slice with room for n bytes that no other region
// shares.
func (a *arena) region(n int) []byte {
	if n > arenaMax/4 {
		return make([]byte, 0, n)
	}
	if cap(a.buf)-len(a.buf) < n {
		size := min(max(2*cap(a.buf), arenaFirst), arenaMax)
		for size < 4*n && size < arenaMax {
			size *= 2
		}
		a.buf = make([]byte, 0, size)
	}
	at := len(a.buf)
	a.buf = a.buf[:at+n]
	return a.buf[at : at : at+n]
}

// clone returns a copy of s that shares no memory with it ("" for "").
func (a *arena) clone(s string) string {
	if s == "" {
		return ""
	}
	r := append(a.region(len(s)), s...)
	return unsafe.String(unsafe.SliceData(r), len(r))
}

// text is a block's growing text: its bytes so far in a region of an
// arena with room to grow in place. Bytes once written are never written
// again (a region too small is left for a larger one), so the strings
// String returns, and the deltas cut from them, stay valid.
type text struct {
	b []byte
}

// Len returns the length of the text so far.
func (t *text) Len() int { return len(t.b) }

// String returns the text so far.
func (t *text) String() string {
	if len(t.b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(t.b), len(t.b))
}

// grow makes room in t for n more bytes, moving it to a larger region of a
// when its own is full.
func (a *arena) grow(t *text, n int) {
	if cap(t.b)-len(t.b) >= n {
		return
	}
	size := max(2*cap(t.b), len(t.b)+n, 32)
	// A region that ends the chunk's used part, with room after it, grows
	// in place: the bytes after it were never handed out.
	if c := cap(t.b); c > 0 && len(a.buf) > 0 && cap(a.buf)-len(a.buf) >= size-c {
		start := uintptr(unsafe.Pointer(unsafe.SliceData(t.b)))
		base := uintptr(unsafe.Pointer(unsafe.SliceData(a.buf)))
		if start >= base && start+uintptr(c) == base+uintptr(len(a.buf)) {
			a.buf = a.buf[:len(a.buf)+size-c]
			t.b = unsafe.Slice(unsafe.SliceData(t.b), size)[:len(t.b)]
			return
		}
	}
	r := a.region(size)
	t.b = append(r, t.b...)
}

// write appends s to t.
func (a *arena) write(t *text, s string) {
	a.grow(t, len(s))
	t.b = append(t.b, s...)
}

// writeUnquoted appends to t the value of the JSON string literal raw
// (valid JSON), as jsonw.WriteUnquoted writes it.
func (a *arena) writeUnquoted(t *text, raw string) {
	a.grow(t, len(raw)-2) // the value is no longer than that
	t.b, _ = jsonw.AppendUnquoted(t.b, raw)
}

// truncate cuts t back to its first n bytes, bytes written since it had n
// and never handed out.
func (t *text) truncate(n int) { t.b = t.b[:n] }

// reset empties t; its next bytes go to a new region (the old one's bytes
// may be held by deltas already handed out).
func (t *text) reset() { t.b = nil }

// internType returns the item type s without a copy when it is one the
// decoder knows, else a copy of it.
func internType(s string) string {
	switch s {
	case "reasoning":
		return "reasoning"
	case "message":
		return "message"
	case "function_call":
		return "function_call"
	case "custom_tool_call":
		return "custom_tool_call"
	case "compaction":
		return "compaction"
	}
	return strings.Clone(s)
}
