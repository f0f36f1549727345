package replay

import (
	"strings"

	"github.com/reasonreplay/replay/internal/jsonw"
)

// This file walks a JSON text that checkJSON has validated, for the
// document readers: it finds where each member and element is
// (jsonw.NextMember, NextElem) and decodes nothing until a reader keeps a
// string (see reader.str). A value a reader reads where it stands (a turn's
// blocks, each block) is not stepped over first: the reader finds where it
// starts (nextName, elemWalk) and says where it ended (memberIter.end). What it reads is what gjson reads: names
// decoded as gjson decodes them (jsonw.AppendStr), and the raw text of
// each value without the white space around it.

// jv is one value of a validated JSON text: its raw text, "" when absent.
type jv string

func (v jv) exists() bool { return v != "" }

func (v jv) kind() byte {
	if v == "" {
		return 0
	}
	return v[0]
}

func (v jv) isObject() bool { return v.kind() == '{' }
func (v jv) isArray() bool  { return v.kind() == '[' }
func (v jv) isString() bool { return v.kind() == '"' }
func (v jv) isNull() bool   { return v.kind() == 'n' }
func (v jv) isBool() bool   { c := v.kind(); return c == 't' || c == 'f' }
func (v jv) isTrue() bool   { return v.kind() == 't' }
func (v jv) isNumber() bool { c := v.kind(); return c == '-' || '0' <= c && c <= '9' }

// str returns the value of the string v (v must be one): a view of the
// text when it has no escapes, else decoded anew.
func (v jv) str() string {
	s := string(v[1 : len(v)-1])
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	return string(jsonw.AppendStr(nil, string(v)))
}

// get returns the value of v's first member named name (absent when v is
// not an object or has none).
func (v jv) get(name string) jv {
	if !v.isObject() {
		return ""
	}
	for it := members(v); it.next(); {
		if it.name == name {
			return it.val
		}
	}
	return ""
}

// memberIter walks the members of an object (jsonw.NextMember). A value
// need not be exact (see rest): the walk stops at the object's end, and
// end is then where that is.
type memberIter struct {
	s    string
	pos  int
	name string // the member's name, decoded
	raw  string // the member's name as written, quotes included
	val  jv
	at   int // where val starts in s (nextName)
	end  int // the object's length, once next or nextName has reported no more
}

// members returns an iterator over the members of the object v.
func members(v jv) memberIter { return memberIter{s: string(v)} }

// next moves to the next member and reports whether there is one.
func (it *memberIter) next() bool {
	raw, val, pos, ok := jsonw.NextMember(it.s, it.pos)
	if !ok {
		it.end = jsonw.CloseEnd(it.s, it.pos)
		return false
	}
	it.raw, it.name, it.val, it.pos = raw, jv(raw).str(), jv(val), pos
	return true
}

// nextName moves to the next member's name and reports whether there is
// one; its value is then stepped over (skip) or read where it stands
// (rest, then consumed).
func (it *memberIter) nextName() bool {
	raw, at, ok := jsonw.NextName(it.s, it.pos)
	if !ok {
		it.end = jsonw.CloseEnd(it.s, it.pos)
		return false
	}
	it.raw, it.name, it.at = raw, jv(raw).str(), at
	return true
}

// skip steps over the value of the member nextName found and sets val.
func (it *memberIter) skip() {
	end := jsonw.StepValue(it.s, it.at)
	it.val, it.pos = jv(it.s[it.at:end]), jsonw.AfterValue(it.s, end)
}

// rest returns the text from the value of the member nextName found to
// the end of the object's text.
func (it *memberIter) rest() jv { return jv(it.s[it.at:]) }

// consumed moves past the value of the member nextName found, n bytes
// long, and sets val.
func (it *memberIter) consumed(n int) {
	it.val, it.pos = jv(it.s[it.at:it.at+n]), jsonw.AfterValue(it.s, it.at+n)
}

// elemIter walks the elements of an array (jsonw.NextElem).
type elemIter struct {
	s   string
	pos int
	val jv
}

// elems returns an iterator over the elements of the array v.
func elems(v jv) elemIter { return elemIter{s: string(v)} }

// next moves to the next element and reports whether there is one.
func (it *elemIter) next() bool {
	val, pos, ok := jsonw.NextElem(it.s, it.pos)
	if !ok {
		return false
	}
	it.val, it.pos = jv(val), pos
	return true
}

// elemWalk walks the elements of an array, each read where it stands by
// the caller, who says how long it was (jsonw.NextValue).
type elemWalk struct {
	s   string
	pos int
	at  int
}

// next moves to the next element and returns the text from it to the end
// of the array's text, or false when there are no more.
func (w *elemWalk) next() (jv, bool) {
	at, ok := jsonw.NextValue(w.s, w.pos)
	if !ok {
		return "", false
	}
	w.at = at
	return jv(w.s[at:]), true
}

// consumed moves past the element next returned, n bytes long.
func (w *elemWalk) consumed(n int) { w.pos = jsonw.AfterValue(w.s, w.at+n) }

// skipWS returns the offset of the first byte at or after i that is not
// JSON white space.
func skipWS(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}
