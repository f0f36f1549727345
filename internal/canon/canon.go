// Package canon writes the canonical form of a JSON value: the form two
// encodings of the same value share whatever their white space, member
// order or string escapes, so that a digest of it names the value and not
// its bytes. The middleware hashes a conversation's visible content this
// way: an agent that rebuilds a message with its members in another order
// still names the same conversation.
//
// The form is binary and unambiguous: null, true and false are one byte
// each; a number is the float64 it reads as, between a tag and a
// terminator; a string is
// its decoded bytes behind their length; an array its elements in order; an
// object its members sorted by decoded name. Members the caller skips are
// left out wherever they occur, and an array element that was an object
// holding only skipped members is left out with them (a cache marker block
// that moved is no change).
package canon

import (
	"encoding/binary"
	"hash"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/view"
)

// Writer writes canonical forms into a hash. The zero value is not
// usable; make one with [New]. A Writer reuses its buffers: it is not
// safe for concurrent use.
type Writer struct {
	h        hash.Hash
	skip     func(name string) bool
	buf      []byte
	members  []member
	vmembers []vmember // Val's members
	scratch  []byte    // a string's decoded value
}

type member struct{ name, val string }

// New returns a Writer that writes into h, leaving out the object members
// skip reports (skip may be nil).
func New(h hash.Hash, skip func(name string) bool) *Writer {
	return &Writer{h: h, skip: skip, buf: make([]byte, 0, 4096)}
}

// Sum appends the hash of everything written so far to b, as
// hash.Hash's Sum does; writing may go on after it.
func (w *Writer) Sum(b []byte) []byte {
	w.flush(true)
	return w.h.Sum(b)
}

// Tag writes one byte and a string as a string value: a separator
// between the parts a caller hashes, that no value's form can be confused
// with.
func (w *Writer) Tag(tag byte, s string) {
	w.buf = append(w.buf, tag)
	w.str(s)
	w.flush(false)
}

// TagLen begins what Tag(tag, s) writes for a string s of n bytes that
// the caller then writes in pieces with Piece: the form of a string
// joined from several without joining them.
func (w *Writer) TagLen(tag byte, n int) {
	w.buf = append(w.buf, tag)
	w.buf = binary.AppendUvarint(w.buf, uint64(n))
}

// Piece writes the next piece of the string TagLen began.
func (w *Writer) Piece(s string) {
	if len(s) < bigString {
		w.buf = append(w.buf, s...)
		w.flush(false)
		return
	}
	w.flush(true)
	w.h.Write(view.Bytes(s))
}

// Value writes the canonical form of raw, which must be valid JSON (as
// jsonw.Valid accepts: the depth is bounded there). It reports false,
// having written part of the form, when raw is not.
func (w *Writer) Value(raw string) bool {
	_, ok := w.value(raw)
	w.flush(true)
	return ok
}

// flush writes what the Writer holds into the hash: all of it when force
// is set, else when it is large.
func (w *Writer) flush(force bool) {
	if len(w.buf) > 0 && (force || len(w.buf) >= 4096) {
		w.h.Write(w.buf)
		w.buf = w.buf[:0]
	}
}

func (w *Writer) str(s string) {
	w.buf = binary.AppendUvarint(w.buf, uint64(len(s)))
	if len(s) < bigString {
		w.buf = append(w.buf, s...)
		return
	}
	// A long string goes into the hash from where it is, not through buf.
	w.flush(true)
	w.h.Write(view.Bytes(s))
}

// bigString is the length from which a string is written into the hash
// where it is rather than copied into the buffer first.
const bigString = 512

// Reset makes w write into h (reset by the caller) from the start, as a
// Writer New made, keeping its buffers.
func (w *Writer) Reset(h hash.Hash) {
	w.h, w.buf = h, w.buf[:0]
}

// SetSkip sets the members left out from now on (see [New]).
func (w *Writer) SetSkip(skip func(name string) bool) { w.skip = skip }

var vmemberSize = int(reflect.TypeFor[vmember]().Size())

// Footprint returns the bytes the writer's buffers hold.
func (w *Writer) Footprint() int {
	return cap(w.buf) + cap(w.scratch) + cap(w.members)*32 + cap(w.vmembers)*vmemberSize
}

// value writes raw's form; empty reports an object whose members were all
// skipped (and there was at least one), for which nothing was written.
func (w *Writer) value(raw string) (empty, ok bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return false, false
	}
	switch raw[0] {
	case 'n':
		w.buf = append(w.buf, 'n')
	case 't':
		w.buf = append(w.buf, 't')
	case 'f':
		w.buf = append(w.buf, 'f')
	case '"':
		w.buf = append(w.buf, 's')
		if strings.IndexByte(raw, '\\') < 0 {
			w.str(raw[1 : len(raw)-1])
		} else {
			// Decoded into the writer's scratch, written at once.
			w.scratch, _ = jsonw.AppendUnquoted(w.scratch[:0], raw)
			w.str(view.String(w.scratch))
		}
	case '[':
		w.buf = append(w.buf, '[')
		for pos := 0; ; {
			el, next, more := jsonw.NextElem(raw, pos)
			if !more {
				break
			}
			pos = next
			// An object of skipped members only writes nothing, and is
			// left out of its array.
			if _, ok := w.value(el); !ok {
				return false, false
			}
		}
		w.buf = append(w.buf, ']')
	case '{':
		return w.object(raw)
	default:
		w.buf = append(w.buf, 'd')
		w.buf = appendNumber(w.buf, raw)
		w.buf = append(w.buf, ';')
	}
	w.flush(false)
	return false, true
}

func (w *Writer) object(raw string) (empty, ok bool) {
	base := len(w.members)
	had := false
	for pos := 0; ; {
		name, val, next, more := jsonw.NextMember(raw, pos)
		if !more {
			break
		}
		pos = next
		had = true
		n := jsonw.UnquoteView(name)
		if len(name) == 2 {
			n = ""
		}
		if w.skip != nil && w.skip(n) {
			continue
		}
		w.members = append(w.members, member{n, val})
	}
	ms := w.members[base:]
	if len(ms) == 0 && had {
		w.members = w.members[:base]
		return true, true
	}
	if !slices.IsSortedFunc(ms, cmpMember) {
		slices.SortFunc(ms, cmpMember)
	}
	w.buf = append(w.buf, '{')
	for i := range ms {
		m := w.members[base+i] // w.members may grow under the recursion
		w.str(m.name)
		e, ok := w.value(m.val)
		if !ok {
			w.members = w.members[:base]
			return false, false
		}
		if e {
			w.buf = append(w.buf, 'e')
		}
	}
	w.buf = append(w.buf, '}')
	w.members = w.members[:base]
	return false, true
}

// appendNumber writes a number as the float64 it reads as: 1, 1.0 and
// 1e0 are one number (a client that parsed and re-serialised a value
// writes it the way its language does), and so are two literals too long
// for a float64 to tell apart, as they are to most JSON readers.
func appendNumber(b []byte, raw string) []byte {
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		return append(b, raw...)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return strconv.AppendFloat(b, f, 'f', -1, 64)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

func cmpMember(a, b member) int { return strings.Compare(a.name, b.name) }
