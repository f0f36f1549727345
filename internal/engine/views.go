package engine

import (
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/view"
)

// views records where a codec's fields, views of the event it learned,
// lie in that event, so that they can be found again in an event that
// matched its shape. A matched event has the same bytes outside the
// holes, so every value a full read would find lies at the same place,
// moved by what the holes before it grew or shrank: find puts each field
// there, and the fields then hold exactly what a full read of the new
// event would have put in them.
type views struct {
	lens [jsonw.MaxHoles]int // each hole's length in the learned text
	nh   int
	at   []span
}

// span is a field's place in the learned text: the field, its start and
// end, and how many holes end at or before each (the holes that move
// them), for a field that was not "".
type span struct {
	p            *string
	hStart, hEnd uint8
	start, end   int
}

// learn records the places of *fields[i] in s, whose holes (in the order
// they lie in s) start at the offsets at. Every field must be "" or a
// view of s that holds each hole whole or not at all; learn reports false
// otherwise.
func (v *views) learn(s string, at []int, holes []string, fields []*string) bool {
	var he [jsonw.MaxHoles]int
	for h, x := range holes {
		he[h], v.lens[h] = at[h]+len(x), len(x)
	}
	v.nh = len(holes)
	if cap(v.at) < len(fields) {
		v.at = make([]span, 0, len(fields))
	}
	v.at = v.at[:0]
	for _, p := range fields {
		x := *p
		if x == "" {
			continue
		}
		off, ok := view.Offset(s, x)
		if !ok {
			return false
		}
		sp := span{p: p, start: off, end: off + len(x)}
		for h := range holes {
			if sp.start < he[h] && at[h] < sp.end && (sp.start > at[h] || sp.end < he[h]) {
				return false // the field cuts a hole
			}
			if he[h] <= sp.start {
				sp.hStart++
			}
			if he[h] <= sp.end {
				sp.hEnd++
			}
		}
		v.at = append(v.at, sp)
	}
	return true
}

// find puts each field that was not "" when learned at its place in t, a
// text that matched the learned shape with the hole values raws (in the
// order they lie in t); the others it leaves as they are (the codec's
// struct still holds the learned event's fields, "" for those).
func (v *views) find(t string, raws []string) {
	// moved[k] is how far the first k holes moved what follows them (k is
	// at most MaxHoles: the mask only spares the bounds checks).
	var moved [movedLen]int
	for h := 0; h < v.nh && h < jsonw.MaxHoles; h++ {
		moved[h+1] = moved[h] + len(raws[h]) - v.lens[h]
	}
	for k := range v.at {
		sp := &v.at[k]
		*sp.p = t[sp.start+moved[sp.hStart&(movedLen-1)] : sp.end+moved[sp.hEnd&(movedLen-1)]]
	}
}

// movedLen is the power of two above jsonw.MaxHoles.
const movedLen = 8

var _ [movedLen - 1 - jsonw.MaxHoles]struct{} // movedLen > MaxHoles
