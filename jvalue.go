package replay

import (
	"strings"

	"github.com/reasonreplay/replay/internal/jsonw"
)

// This file walks a JSON text that checkJSON has validated, for the
// document readers: it finds where each member and element is
// (jsonw.NextMember, NextElem) and decodes nothing until a reader keeps a
// string (see reader.str). What it reads is what gjson reads: names
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

// memberIter walks the members of an object (jsonw.NextMember).
type memberIter struct {
	s    string
	pos  int
	name string // the member's name, decoded
	raw  string // the member's name as written, quotes included
	val  jv
}

// members returns an iterator over the members of the object v.
func members(v jv) memberIter { return memberIter{s: string(v)} }

// next moves to the next member and reports whether there is one.
func (it *memberIter) next() bool {
	raw, val, pos, ok := jsonw.NextMember(it.s, it.pos)
	if !ok {
		return false
	}
	it.raw, it.name, it.val, it.pos = raw, jv(raw).str(), jv(val), pos
	return true
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

// skipWS returns the offset of the first byte at or after i that is not
// JSON white space.
func skipWS(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}
