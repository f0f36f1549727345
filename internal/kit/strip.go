package kit

import (
	"strconv"

	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
)

// Pointers are the JSON Pointers prefix+i of a message's elements, the
// first of them made once.
type Pointers struct {
	prefix string
	first  [64]string
}

// NewPointers makes the pointers prefix+i ("/content/", "/parts/", "/").
func NewPointers(prefix string) *Pointers {
	p := &Pointers{prefix: prefix}
	for i := range p.first {
		p.first[i] = prefix + strconv.Itoa(i)
	}
	return p
}

// At returns the pointer of element i.
func (p *Pointers) At(i int) string {
	if i < len(p.first) {
		return p.first[i]
	}
	return p.prefix + strconv.Itoa(i)
}

// noChanges is what DropElems reports when it removes nothing: empty, not
// nil, as the Strip it replaced reported.
var noChanges = []codecs.Change{}

// DropElems is a Strip that removes the elements of raw's array member
// name whose member key drop reports (jsonw.DropElems): raw itself, and no
// allocation, when none goes; else one Change with detail per element
// removed, its pointer one of ptrs.
func DropElems(raw []byte, name, key string, drop func(val string) bool, ptrs *Pointers, detail string) ([]byte, []codecs.Change) {
	var buf [4]int
	out, removed := jsonw.DropElems(raw, name, key, drop, buf[:0])
	if len(removed) == 0 {
		return raw, noChanges
	}
	changes := make([]codecs.Change, len(removed))
	for i, j := range removed {
		changes[i] = codecs.Change{Pointer: ptrs.At(j), Removed: true, Detail: detail}
	}
	return out, changes
}
