// Package arena holds the growing texts of a stream decoder's blocks one
// after another in one buffer, so that a text grown piece by piece is not
// copied at each doubling of a buffer of its own.
package arena

import (
	"unsafe"

	"github.com/reasonreplay/replay/internal/jsonw"
)

// Arena holds the texts of a decoder's blocks one after another in one
// buffer: the text that ends it grows there in place, so a growing text is
// not copied at each doubling of a buffer of its own. No byte once written
// is rewritten (a full buffer is left for a new one), so every string a
// text gave out stays what it was.
type Arena struct{ buf []byte }

// Text is a block's growing text, the bytes buf[at:at+n]: in the arena's
// buffer while it is the last text written there, else (own) in a buffer
// of its own, grown by append.
type Text struct {
	buf   []byte
	at, n int
	own   bool
}

// Len returns the text's length in bytes.
func (t *Text) Len() int { return t.n }

// String returns the text; it stays valid as the text grows.
func (t *Text) String() string {
	if t.n == 0 {
		return ""
	}
	return unsafe.String(&t.buf[t.at], t.n)
}

// Write appends to t the value of the JSON string literal raw, what
// jsonw.WriteUnquoted writes for it: val when decoded (raw's value,
// decoded by matching).
func (a *Arena) Write(t *Text, raw string, val []byte, decoded bool) {
	room := len(raw) // the value is never longer
	if decoded {
		room = len(val)
	}
	var b []byte
	switch {
	case t.own:
		b = t.buf[:t.n]
	case t.n == 0 || (len(a.buf) == t.at+t.n && unsafe.SliceData(a.buf) == unsafe.SliceData(t.buf)):
		// Empty, or the text that ends the arena: it grows there.
		if cap(a.buf)-len(a.buf) < room {
			nb := make([]byte, 0, max(2*cap(a.buf), 2*(t.n+room), 1024))
			nb = append(nb, t.String()...)
			a.buf, t.at = nb, 0
		} else if t.n == 0 {
			t.at = len(a.buf)
		}
		b = a.buf
	default:
		// Another text was written after it: it goes on alone.
		b = append(make([]byte, 0, 2*(t.n+room)), t.String()...)
		t.own, t.at = true, 0
	}
	if decoded {
		b = append(b, val...)
	} else {
		b, _ = jsonw.AppendUnquoted(b, raw)
	}
	t.buf, t.n = b, len(b)-t.at
	if !t.own {
		a.buf = b
	}
}
