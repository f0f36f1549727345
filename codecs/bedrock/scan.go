package bedrock

import (
	"strconv"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
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
}

// scan reads a frame's data in r (reset on it) in one pass and reports
// whether it is valid JSON. With wrapped (a frame without an event type)
// the data is `{"<eventType>":payload}`: its members are counted and the
// first is read; else the data is the payload.
func scan(r *jsonw.Reader, e *event, wrapped bool) bool {
	*e = event{}
	if !wrapped {
		scanPayload(r, e)
		return r.End()
	}
	if !r.Object() {
		return r.End()
	}
	for {
		name, ok := r.Member()
		if !ok {
			break
		}
		e.members++
		if e.members > 1 {
			r.Skip()
			continue
		}
		e.typ = jsonw.Name(name)
		scanPayload(r, e)
	}
	return r.End()
}

// scanPayload reads the payload at r's cursor.
func scanPayload(r *jsonw.Reader, e *event) {
	start := r.Offset()
	if !r.Object() {
		e.payload = r.Raw()
		return
	}
	for {
		name, ok := r.Member()
		if !ok {
			break
		}
		switch jsonw.Name(name) {
		case "contentBlockIndex":
			e.index = r.Raw()
		case "start":
			e.start = r.Raw()
		case "usage":
			e.usage = r.Raw()
		case "delta":
			e.delta = scanDelta(r, e)
		default:
			r.Skip()
		}
	}
	e.payload = r.Text(start)
}

// scanDelta reads a contentBlockDelta's delta and returns its text.
func scanDelta(r *jsonw.Reader, e *event) string {
	return object(r, func(name string) {
		switch name {
		case "text":
			e.text = r.Raw()
		case "reasoningContent":
			e.rc = object(r, func(name string) {
				switch name {
				case "text":
					e.rcText = r.Raw()
				case "signature":
					e.rcSig = r.Raw()
				case "redactedContent":
					e.rcRed = r.Raw()
				default:
					r.Skip()
				}
			})
		case "toolUse":
			e.tu = object(r, func(name string) {
				if name == "input" {
					e.tuInput = r.Raw()
				} else {
					r.Skip()
				}
			})
		default:
			r.Skip()
		}
	})
}

// object reads the value at r's cursor and returns its text; when it is an
// object, member is called on each member's name (escapes decoded) with
// the cursor at its value, which it must read.
func object(r *jsonw.Reader, member func(name string)) string {
	start := r.Offset()
	if !r.Object() {
		return r.Raw()
	}
	for {
		name, ok := r.Member()
		if !ok {
			break
		}
		member(jsonw.Name(name))
	}
	return r.Text(start)
}

// index reads a non-negative integer as gjson's Int did (a number equal to
// its integer part).
func index(raw string) (int, bool) {
	if len(raw) > 0 && len(raw) < 16 {
		if n, err := strconv.Atoi(raw); err == nil {
			return n, n >= 0
		}
	}
	idx := gjson.Parse(raw)
	if raw == "" || idx.Type != gjson.Number || idx.Int() < 0 || float64(idx.Int()) != idx.Num {
		return 0, false
	}
	return int(idx.Int()), true
}
