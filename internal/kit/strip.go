package kit

import (
	"strconv"
	"sync"

	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
)

// Pointers are the JSON Pointers prefix+i of a message's elements, the
// first of them made once, when first asked for: a codec keeps its
// Pointers in a package variable, and a program that never strips a
// message (most never do) never makes them.
type Pointers struct {
	prefix string
	once   sync.Once
	first  *[64]string
}

// NewPointers returns the pointers prefix+i ("/content/", "/parts/", "/").
// It makes none of them yet.
func NewPointers(prefix string) *Pointers {
	return &Pointers{prefix: prefix}
}

// At returns the pointer of element i.
func (p *Pointers) At(i int) string {
	p.once.Do(p.make)
	if i < len(p.first) {
		return p.first[i]
	}
	return p.prefix + strconv.Itoa(i)
}

// make makes the first pointers.
func (p *Pointers) make() {
	first := new([64]string)
	for i := range first {
		first[i] = p.prefix + strconv.Itoa(i)
	}
	p.first = first
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
