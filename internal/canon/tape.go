package canon

import (
	"slices"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/view"
)

// Val writes the canonical form of v, a value of a tape (jsonw.Tape),
// exactly as Value writes the form of its raw text: the structure comes
// from the tape where it recorded it, and each string is read once. It
// reports false when v is absent.
func (w *Writer) Val(v jsonw.Val) bool {
	if !v.Exists() {
		return false
	}
	w.val(v)
	w.flush(true)
	return true
}

// vmember is a member of an object being written by val.
type vmember struct {
	name string
	v    jsonw.Val
}

// val is value on a tape's value; it reports whether v was an object
// holding only skipped members (written as nothing).
func (w *Writer) val(v jsonw.Val) (empty bool) {
	switch v.Kind() {
	case 'n', 't', 'f':
		w.buf = append(w.buf, v.Kind())
	case '"':
		w.buf = append(w.buf, 's')
		raw := v.Raw()
		if !v.Escaped() {
			w.str(raw[1 : len(raw)-1])
			break
		}
		w.scratch, _ = jsonw.AppendUnquoted(w.scratch[:0], raw)
		w.strBytes(w.scratch)
	case '[':
		w.buf = append(w.buf, '[')
		v.ForEach(func(_ int, _ string, el jsonw.Val) bool {
			w.val(el)
			return true
		})
		w.buf = append(w.buf, ']')
	case '{':
		return w.objectVal(v)
	default:
		w.buf = append(w.buf, 'd')
		w.buf = appendNumber(w.buf, v.Raw())
		w.buf = append(w.buf, ';')
	}
	w.flush(false)
	return false
}

// objectVal is object on a tape's value.
func (w *Writer) objectVal(v jsonw.Val) (empty bool) {
	base := len(w.vmembers)
	had := false
	v.ForEach(func(_ int, name string, el jsonw.Val) bool {
		had = true
		n := jsonw.UnquoteView(name)
		if len(name) == 2 {
			n = ""
		}
		if w.skip == nil || !w.skip(n) {
			w.vmembers = append(w.vmembers, vmember{n, el})
		}
		return true
	})
	ms := w.vmembers[base:]
	if len(ms) == 0 && had {
		w.vmembers = w.vmembers[:base]
		return true
	}
	cmp := func(a, b vmember) int { return cmpMember(member{name: a.name}, member{name: b.name}) }
	if !slices.IsSortedFunc(ms, cmp) {
		slices.SortFunc(ms, cmp)
	}
	w.buf = append(w.buf, '{')
	for i := range ms {
		m := w.vmembers[base+i] // w.vmembers may grow under the recursion
		w.str(m.name)
		if w.val(m.v) {
			w.buf = append(w.buf, 'e')
		}
	}
	w.buf = append(w.buf, '}')
	clear(w.vmembers[base:])
	w.vmembers = w.vmembers[:base]
	return false
}

// strBytes is str for a byte slice.
func (w *Writer) strBytes(b []byte) {
	if len(b) == 0 {
		w.str("")
		return
	}
	w.str(view.String(b))
}
