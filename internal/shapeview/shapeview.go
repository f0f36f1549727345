// Package shapeview finds again, in a stream event that matched a learned
// [jsonw.Shape], the values a decoder read from the event it learned from.
//
// A decoder reads an event in full with a [jsonw.Scanner] into a struct of
// raw values (views of the event's text), learns the event's shape, and
// records where each of those views lies with [Views.Learn]. When the next
// event matches the shape, it has the same bytes outside the holes, so
// every value the full read would find lies at the same place, moved by
// what the holes before it grew or shrank: [Views.Find] puts each view
// there. The struct then holds exactly what a full read of the new event
// would have put in it, and the decoder runs the same code on it as on a
// full read.
package shapeview

import (
	"unsafe"

	"github.com/reasonreplay/replay/internal/jsonw"
)

// Views records where views of a learned text lie. Its zero value holds
// nothing; it keeps one buffer, reused by every [Views.Learn].
type Views struct {
	lens [jsonw.MaxHoles]int // each hole's length in the learned text
	nh   int
	n    int // views
	at   []span
}

// span is a view's place in the learned text: its start and end, and how
// many holes end at or before each (the holes that move them), for the
// view views[i] that was not "".
type span struct {
	i            int32
	hStart, hEnd uint16
	start, end   int
}

// Learn records the places of *views[i] in s, the text a jsonw.Shape
// learned with the given holes (the same views of s, in order). Every
// view must be "" or a view of s that holds each hole whole or not at
// all; Learn reports false otherwise (and when there are more than
// jsonw.MaxHoles holes), and the caller must not use v.
func (v *Views) Learn(s string, holes []string, views []*string) bool {
	if len(holes) > jsonw.MaxHoles {
		return false
	}
	var hs, he [jsonw.MaxHoles]int
	for h, x := range holes {
		off, ok := offset(s, x)
		if !ok {
			return false
		}
		hs[h], he[h], v.lens[h] = off, off+len(x), len(x)
	}
	v.nh, v.n = len(holes), len(views)
	if cap(v.at) < len(views) {
		v.at = make([]span, 0, len(views))
	}
	v.at = v.at[:0]
	for i, p := range views {
		x := *p
		if x == "" {
			continue
		}
		off, ok := offset(s, x)
		if !ok {
			return false
		}
		sp := span{i: int32(i), start: off, end: off + len(x)}
		for h := 0; h < len(holes); h++ {
			if sp.start < he[h] && hs[h] < sp.end && (sp.start > hs[h] || sp.end < he[h]) {
				return false // the view cuts a hole
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

// Find puts each view that was not "" when learned at its place in t, a
// text that matched the learned shape with the hole values raws (as
// jsonw.Shape.Match returned them); the others it leaves as they are (the
// caller's struct still holds the learned event's fields, "" for those).
// views must be the same fields, in the same order, as learned.
func (v *Views) Find(t string, raws []string, views []*string) {
	if len(views) != v.n {
		panic("shapeview: Find with other views than learned")
	}
	// moved[k] is how far the first k holes moved what follows them.
	var moved [jsonw.MaxHoles + 1]int
	for h := 0; h < v.nh; h++ {
		moved[h+1] = moved[h] + len(raws[h]) - v.lens[h]
	}
	for k := range v.at {
		sp := &v.at[k]
		*views[sp.i] = t[sp.start+moved[sp.hStart] : sp.end+moved[sp.hEnd]]
	}
}

// offset returns the offset of x in s when x is a view of s.
func offset(s, x string) (int, bool) {
	if len(s) == 0 {
		return 0, false
	}
	off := addr(x) - addr(s)
	if off > uintptr(len(s)) || uintptr(len(x)) > uintptr(len(s))-off {
		return 0, false
	}
	return int(off), true
}

// Order sorts holes, views of one text, by their place in it: the order
// jsonw.Shape.Learn takes them in.
func Order(holes []string) {
	for i := 1; i < len(holes); i++ {
		for j := i; j > 0 && addr(holes[j]) < addr(holes[j-1]); j-- {
			holes[j], holes[j-1] = holes[j-1], holes[j]
		}
	}
}

func addr(s string) uintptr { return uintptr(unsafe.Pointer(unsafe.StringData(s))) }
