package cohere

import (
	"strconv"

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

// scan reads the event in r (reset on its text) in one pass and reports
// whether the text is valid JSON; object is false when it is valid but not
// an object. e is meaningful only when both are true.
func scan(r *jsonw.Reader, e *event) (valid, object bool) {
	*e = event{}
	if !r.Object() {
		return r.End(), false
	}
	for {
		name, ok := r.Member()
		if !ok {
			break
		}
		switch jsonw.Name(name) {
		case "type":
			e.typ = r.Raw()
		case "index":
			e.index = r.Raw()
		case "delta":
			scanDelta(r, e)
		default:
			r.Skip()
		}
	}
	return r.End(), true
}

// scanDelta reads the event's delta.
func scanDelta(r *jsonw.Reader, e *event) {
	if !r.Object() {
		r.Skip()
		return
	}
	for {
		name, ok := r.Member()
		if !ok {
			break
		}
		switch jsonw.Name(name) {
		case "message":
			scanMessage(r, e)
		case "finish_reason":
			e.finish = r.Raw()
		case "usage":
			e.usage = r.Raw()
		case "error":
			e.errMsg = r.Raw()
		default:
			r.Skip()
		}
	}
}

// scanMessage reads delta.message.
func scanMessage(r *jsonw.Reader, e *event) {
	if !r.Object() {
		r.Skip()
		return
	}
	for {
		name, ok := r.Member()
		if !ok {
			return
		}
		switch jsonw.Name(name) {
		case "content":
			e.content = members(r, func(k string) *string {
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
			e.plan = r.Raw()
		case "tool_calls":
			members(r, func(k string) *string {
				switch k {
				case "id":
					return &e.callID
				case "function":
					e.fnName, e.fnArgs = "", ""
					members(r, func(k string) *string {
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
			e.citations = r.Raw()
		default:
			r.Skip()
		}
	}
}

// skipped is returned by a members callback that has read the value
// itself.
var skipped string

// members reads the value at r's cursor and returns its text; when it is
// an object, each member's raw value goes to the string slot field names
// (nil: skipped; &skipped: already read by field).
func members(r *jsonw.Reader, field func(name string) *string) string {
	start := r.Offset()
	if !r.Object() {
		return r.Raw()
	}
	for {
		name, ok := r.Member()
		if !ok {
			break
		}
		switch p := field(jsonw.Name(name)); p {
		case nil:
			r.Skip()
		case &skipped:
		default:
			*p = r.Raw()
		}
	}
	return r.Text(start)
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

// index reads a non-negative integer as gjson's Int did (a number equal to
// its integer part).
func index(raw string) (int, bool) {
	if len(raw) > 0 && len(raw) < 16 {
		n, err := strconv.Atoi(raw)
		if err == nil {
			return n, n >= 0
		}
	}
	idx := gjson.Parse(raw)
	if raw == "" || idx.Type != gjson.Number || idx.Int() < 0 || float64(idx.Int()) != idx.Num {
		return 0, false
	}
	return int(idx.Int()), true
}
