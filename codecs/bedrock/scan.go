package bedrock

import (
	"github.com/reasonreplay/replay/internal/jsonw"
)

// event holds what the stream decoder reads of one ConverseStream event:
// raw JSON texts, "" for a member that is absent (or under a parent that
// is not an object), as gjson's lookups gave them. scan fills it in the
// one pass that validates the event.
type event struct {
	payload string // the event's payload
	members int    // members of a JSON Lines event's wrapper object
	typ     string // the wrapper's member name, escapes decoded
	// members of the payload
	index, start, usage string
	delta               string
	// members of delta
	text, rc, tu string
	// members of delta.reasoningContent and delta.toolUse
	rcText, rcSig, rcRed, tuInput string
	// the payload's padding "p" (ConverseStream pads events to hide
	// their sizes), read to be a hole of the shape; the decoder ignores it
	pad string
}

// fields returns the raw texts of e, for [shapeview.Views].
func (e *event) fields() [14]*string {
	return [...]*string{&e.payload, &e.typ, &e.index, &e.start, &e.usage, &e.delta, &e.text, &e.rc, &e.tu,
		&e.rcText, &e.rcSig, &e.rcRed, &e.tuInput, &e.pad}
}

// scan reads a frame's data in sc (reset on it) in one pass and reports
// whether it is valid JSON. With wrapped (a frame without an event type)
// the data is `{"<eventType>":payload}`: its members are counted and the
// first is read; else the data is the payload.
func scan(sc *jsonw.Scanner, e *event, wrapped bool) bool {
	*e = event{}
	if !wrapped {
		scanPayload(sc, e)
		return sc.End()
	}
	var top jsonw.Object
	if !sc.Object(&top) {
		return sc.End()
	}
	for name, ok := sc.Member(&top); ok; name, ok = sc.Member(&top) {
		e.members++
		if e.members == 1 {
			e.typ = name
			scanPayload(sc, e)
		}
	}
	return sc.End()
}

// scanPayload reads the payload at sc's position.
func scanPayload(sc *jsonw.Scanner, e *event) {
	e.payload = object(sc, func(name string) {
		switch name {
		case "contentBlockIndex":
			e.index = sc.Value()
		case "start":
			e.start = sc.Value()
		case "usage":
			e.usage = sc.Value()
		case "delta":
			e.delta = scanDelta(sc, e)
		case "p":
			e.pad = sc.Value()
		}
	})
}

// scanDelta reads a contentBlockDelta's delta and returns its text.
func scanDelta(sc *jsonw.Scanner, e *event) string {
	return object(sc, func(name string) {
		switch name {
		case "text":
			e.text = sc.Value()
		case "reasoningContent":
			e.rc = object(sc, func(name string) {
				switch name {
				case "text":
					e.rcText = sc.Value()
				case "signature":
					e.rcSig = sc.Value()
				case "redactedContent":
					e.rcRed = sc.Value()
				}
			})
		case "toolUse":
			e.tu = object(sc, func(name string) {
				if name == "input" {
					e.tuInput = sc.Value()
				}
			})
		}
	})
}

// object reads the value at sc's position and returns its text; when it
// is an object, member is called on each member's name with sc at its
// value, which it reads or leaves for the next Member to skip.
func object(sc *jsonw.Scanner, member func(name string)) string {
	mark := sc.Mark()
	var o jsonw.Object
	if !sc.Object(&o) {
		return sc.Value()
	}
	for name, ok := sc.Member(&o); ok; name, ok = sc.Member(&o) {
		member(name)
	}
	return sc.Since(mark)
}
