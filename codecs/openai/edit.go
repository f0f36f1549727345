package openai

import (
	"strings"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/view"
)

// Patch and Strip read a run of input items (or a request's input array)
// in one walk with jsonw's Step functions, each item's members read where
// they stand, and write one output buffer. They read as gjson reads (the
// first member of a name, names and values compared with their escapes
// decoded, a member that is not a string read as "") and write what they
// wrote on gjson and sjson: the array's items joined by bare commas.

// runItem is what one walk over an item of a run finds, as offsets in the
// text: where it is, and the value of its first member of each name the
// patch and the strip read (at < 0 when absent; for id, its name too).
type runItem struct {
	at, end         int
	idName          int
	idAt, idEnd     int
	callAt, callEnd int
	typeAt, typeEnd int
	roleAt, roleEnd int
}

// scanItem walks the item that starts at s[at] once; ok is false when it
// is not valid JSON there.
func scanItem(s string, at int) (it runItem, ok bool) {
	it = runItem{at: at, idAt: -1, callAt: -1, typeAt: -1, roleAt: -1}
	if s[at] != '{' {
		it.end = jsonw.StepValue(s, at)
		return it, it.end > at
	}
	for pos := at + 1; ; {
		nameAt, nameEnd, vAt := jsonw.StepMember(s, pos)
		if vAt < 0 {
			it.end = nameEnd
			return it, nameAt >= 0
		}
		end := jsonw.StepValue(s, vAt)
		if end < 0 {
			return it, false
		}
		switch name := s[nameAt:nameEnd]; {
		case jsonw.StrIs(name, "id"):
			if it.idAt < 0 {
				it.idName, it.idAt, it.idEnd = nameAt, vAt, end
			}
		case jsonw.StrIs(name, "call_id"):
			if it.callAt < 0 {
				it.callAt, it.callEnd = vAt, end
			}
		case jsonw.StrIs(name, "type"):
			if it.typeAt < 0 {
				it.typeAt, it.typeEnd = vAt, end
			}
		case jsonw.StrIs(name, "role"):
			if it.roleAt < 0 {
				it.roleAt, it.roleEnd = vAt, end
			}
		}
		pos = end
	}
}

// strIs reports whether s[at:end] is a string whose value is want (ASCII),
// as gjson's Str compares: false when absent or not a string.
func strIs(s string, at, end int, want string) bool {
	return at >= 0 && s[at] == '"' && jsonw.StrIs(s[at:end], want)
}

// str returns gjson's Str of the value s[at:end]: a string's value ("" for
// none, or a value that is not a string). A value with escapes is decoded
// in scratch, valid until scratch is written again.
func str(s string, at, end int, scratch *[]byte) string {
	if at < 0 || s[at] != '"' {
		return ""
	}
	v := s[at+1 : end-1]
	if strings.IndexByte(v, '\\') < 0 {
		return v
	}
	*scratch = jsonw.AppendStr((*scratch)[:0], s[at:end])
	return view.String(*scratch)
}

// memberStr returns gjson's Str of the first member name (ASCII) of the
// JSON object el, as a string of its own.
func memberStr(el, name string) string {
	if it, ok := scanMember(el, name); ok {
		var b []byte
		return strings.Clone(str(el, it.at, it.end, &b))
	}
	return ""
}

// itemHas reports whether the JSON object el has a member name (ASCII).
func itemHas(el, name string) bool {
	_, ok := scanMember(el, name)
	return ok
}

// span is a value's offsets.
type span struct{ at, end int }

// scanMember finds the value of the first member name (ASCII) of the JSON
// object el.
func scanMember(el, name string) (span, bool) {
	if el == "" || el[0] != '{' {
		return span{}, false
	}
	for pos := 1; ; {
		nameAt, nameEnd, vAt := jsonw.StepMember(el, pos)
		if vAt < 0 {
			return span{}, false
		}
		end := jsonw.StepValue(el, vAt)
		if end < 0 {
			return span{}, false
		}
		if jsonw.StrIs(el[nameAt:nameEnd], name) {
			return span{vAt, end}, true
		}
		pos = end
	}
}

// skipWS returns the offset of the first byte of s from i that is not
// JSON white space.
func skipWS(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}
