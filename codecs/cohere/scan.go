package cohere

import (
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
)

// event holds what the decoder reads of one stream event: raw JSON texts,
// "" for a member that is absent (or under a parent that is not an
// object), as gjson's path lookups gave them. scan fills it in the one
// pass that validates the event.
type event struct {
	typ, index string
	// delta.message.content and its members
	content, ctype, thinking, text string
	plan                           string // delta.message.tool_plan
	// delta.message.tool_calls, its id and its function's name and
	// arguments
	callID, fnName, fnArgs string
	citations              string // delta.message.citations
	// members of delta read by message-end
	finish, usage, errMsg string
}

// fields returns the raw texts of e, for [shapeview.Views].
func (e *event) fields() [14]*string {
	return [...]*string{&e.typ, &e.index, &e.content, &e.ctype, &e.thinking, &e.text, &e.plan,
		&e.callID, &e.fnName, &e.fnArgs, &e.citations, &e.finish, &e.usage, &e.errMsg}
}

// scan reads the event in sc (reset on its text) in one pass and reports
// whether the text is valid JSON; object is false when it is valid but not
// an object. e is meaningful only when both are true.
func scan(sc *jsonw.Scanner, e *event) (valid, object bool) {
	*e = event{}
	var top jsonw.Object
	if !sc.Object(&top) {
		return sc.End(), false
	}
	for name, ok := sc.Member(&top); ok; name, ok = sc.Member(&top) {
		switch name {
		case "type":
			e.typ = sc.Value()
		case "index":
			e.index = sc.Value()
		case "delta":
			scanDelta(sc, e)
		}
	}
	return sc.End(), true
}

// scanDelta reads the event's delta.
func scanDelta(sc *jsonw.Scanner, e *event) {
	var o jsonw.Object
	if !sc.Object(&o) {
		return
	}
	for name, ok := sc.Member(&o); ok; name, ok = sc.Member(&o) {
		switch name {
		case "message":
			scanMessage(sc, e)
		case "finish_reason":
			e.finish = sc.Value()
		case "usage":
			e.usage = sc.Value()
		case "error":
			e.errMsg = sc.Value()
		}
	}
}

// scanMessage reads delta.message.
func scanMessage(sc *jsonw.Scanner, e *event) {
	var o jsonw.Object
	if !sc.Object(&o) {
		return
	}
	for name, ok := sc.Member(&o); ok; name, ok = sc.Member(&o) {
		switch name {
		case "content":
			e.content = members(sc, func(k string) *string {
				switch k {
				case "type":
					return &e.ctype
				case "thinking":
					return &e.thinking
				case "text":
					return &e.text
				}
				return nil
			})
		case "tool_plan":
			e.plan = sc.Value()
		case "tool_calls":
			members(sc, func(k string) *string {
				switch k {
				case "id":
					return &e.callID
				case "function":
					e.fnName, e.fnArgs = "", ""
					members(sc, func(k string) *string {
						switch k {
						case "name":
							return &e.fnName
						case "arguments":
							return &e.fnArgs
						}
						return nil
					})
					return &skipped
				}
				return nil
			})
		case "citations":
			e.citations = sc.Value()
		}
	}
}

// skipped is returned by a members callback that has read the value
// itself.
var skipped string

// members reads the value at sc's position and returns its text; when it
// is an object, each member's raw value goes to the string slot field
// names (nil: skipped; &skipped: already read by field).
func members(sc *jsonw.Scanner, field func(name string) *string) string {
	mark := sc.Mark()
	var o jsonw.Object
	if !sc.Object(&o) {
		return sc.Value()
	}
	for name, ok := sc.Member(&o); ok; name, ok = sc.Member(&o) {
		switch p := field(name); p {
		case nil, &skipped: // skipped by the next Member, or read by field
		default:
			*p = sc.Value()
		}
	}
	return sc.Since(mark)
}

// str is gjson's Result.String of the raw JSON text raw ("" when absent),
// without allocating for a string with no escapes: the value, a view of
// the frame.
func str(raw string) string {
	if len(raw) >= 2 && raw[0] == '"' {
		if s := raw[1 : len(raw)-1]; !hasByte(s, '\\') {
			return s
		}
	}
	if raw == "" {
		return ""
	}
	return gjson.Parse(raw).String()
}

func hasByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}
