package view

import "unsafe"

// Arena holds the strings a decoder keeps and the texts it grows, carved
// from chunks that it owns, each twice the size of the one before (from
// 512 bytes to 1 MB): each string or text gets a region of a chunk of its
// own. A text grows in place, by what it needs, while its region ends the
// chunk's used part and the chunk has room; otherwise it moves to a region
// twice its size, and its old bytes stay as they were. So no byte handed
// out in a string is ever written again, and every string stays valid as
// long as anything holds it. The zero Arena is ready.
//
// A decoder keeps its texts one after the other (a block's text grows
// while it is the block being streamed), so a text is copied only when it
// moves to the next chunk: the arena's memory is about what the decoder
// keeps, with no copy per doubling. Chunks double with what the arena
// holds, so a small stream allocates little, and the largest stays a
// fraction of a long turn's text; texts that interleave still grow by
// doubling, each move leaving its old bytes behind.
type Arena struct {
	buf []byte // the current chunk; buf[:len(buf)] is handed out
}

// The chunk sizes of an arena: the first, and the largest; a region larger
// than a quarter of the largest is allocated on its own.
const (
	arenaFirst = 512
	arenaMax   = 1 << 20
)

// region returns an empty slice with room for n bytes that no other
// region shares.
func (a *Arena) region(n int) []byte {
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

// Clone returns a copy of s that shares no memory with s ("" for "").
func (a *Arena) Clone(s string) string {
	if s == "" {
		return ""
	}
	r := append(a.region(len(s)), s...)
	return unsafe.String(unsafe.SliceData(r), len(r))
}

// Text is a growing text: its bytes so far, in a region of an [Arena] with
// room to grow. The zero Text is empty.
type Text struct {
	b []byte
}

// Len returns the length of the text so far.
func (t *Text) Len() int { return len(t.b) }

// String returns the text so far. It stays what it is as the text grows
// (the bytes are never written again).
func (t *Text) String() string {
	if len(t.b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(t.b), len(t.b))
}

// Truncate cuts t back to its first n bytes. Only bytes written since t
// had n bytes may be cut, and only when no String call has handed them
// out since (a delta refused before anything saw it).
func (t *Text) Truncate(n int) { t.b = t.b[:n] }

// Reset empties t. Its next bytes go to a new region: the old one's bytes
// may be held by strings already handed out.
func (t *Text) Reset() { t.b = nil }

// Grow makes room in t for n more bytes, moving it to a larger region of
// a when its own is full.
func (a *Arena) Grow(t *Text, n int) {
	if cap(t.b)-len(t.b) < n {
		a.grow(t, n)
	}
}

// grow is Grow for a text without room for n more bytes.
func (a *Arena) grow(t *Text, n int) {
	size := max(2*cap(t.b), len(t.b)+n, 32)
	// A region that ends the chunk's used part, with room after it for
	// what it needs, grows in place (the bytes after it were never handed
	// out): to twice its size when the chunk has the room, else to the
	// chunk's end, so that the next writes find room without coming back.
	if c := cap(t.b); c > 0 && len(a.buf) > 0 && cap(a.buf)-len(a.buf) >= len(t.b)+n-c {
		start := uintptr(unsafe.Pointer(unsafe.SliceData(t.b)))
		base := uintptr(unsafe.Pointer(unsafe.SliceData(a.buf)))
		if start >= base && start+uintptr(c) == base+uintptr(len(a.buf)) {
			by := min(size-c, cap(a.buf)-len(a.buf))
			a.buf = a.buf[:len(a.buf)+by]
			t.b = unsafe.Slice(unsafe.SliceData(t.b), c+by)[:len(t.b)]
			return
		}
	}
	t.b = append(a.region(size), t.b...)
}

// Write appends s to t.
func (a *Arena) Write(t *Text, s string) {
	a.Grow(t, len(s))
	t.b = append(t.b, s...)
}

// Tail returns t's bytes with room for n more, for a caller that appends
// to them itself: it must only append (never write below the length it
// was given) and hand the result to [Text.Set].
func (a *Arena) Tail(t *Text, n int) []byte {
	a.Grow(t, n)
	return t.b
}

// Set makes b, what [Arena.Tail] returned for t with bytes appended, t's
// bytes.
func (t *Text) Set(b []byte) {
	if len(b) < len(t.b) {
		panic("view: Text.Set with fewer bytes than the text holds")
	}
	t.b = b
}
