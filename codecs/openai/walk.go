package openai

import (
	"strings"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/view"
	"github.com/tidwall/gjson"
)

// The readers of output items take members and elements of JSON already
// validated in full (a body by jsonw.ValidBytes, a stream event by its
// Scanner). gjson finds them by reading every byte of every string it
// passes; get, forEach and count find them with jsonw's raw walk, which
// steps over strings eight bytes at a time, and read each value found as
// gjson reads it, so that the values are the same.

// value returns the JSON value raw (one valid value, exactly its bytes) as
// gjson reads it; "" is the value that does not exist.
func value(raw string) gjson.Result {
	if raw == "" {
		return gjson.Result{}
	}
	if raw[0] == '"' {
		v := raw[1 : len(raw)-1]
		if strings.IndexByte(v, '\\') >= 0 {
			v = view.String(jsonw.AppendStr(make([]byte, 0, len(v)), raw)) // as gjson decodes it, in bytes of its own
		}
		return gjson.Result{Type: gjson.String, Raw: raw, Str: v}
	}
	return gjson.Parse(raw)
}

// get returns obj.Get(key) for key a plain member name (no path syntax):
// the value of obj's member key, nothing when obj is not an object or has
// no such member.
func get(obj gjson.Result, key string) gjson.Result {
	if obj.Type != gjson.JSON {
		return gjson.Result{}
	}
	return value(jsonw.RawMember(obj.Raw, key))
}

// forEach calls fn with each member of the object v (its name and value)
// or element of the array v (its index and value), in order, until fn
// returns false, as v.ForEach does; a v that is neither is passed whole,
// with a zero key.
func forEach(v gjson.Result, fn func(k, v gjson.Result) bool) {
	if v.Type != gjson.JSON {
		v.ForEach(fn)
		return
	}
	raw := v.Raw
	i := 0
	for i < len(raw) && raw[i] <= ' ' {
		i++
	}
	if i == len(raw) {
		return
	}
	if raw[i] == '[' {
		k := gjson.Result{Type: gjson.Number}
		for e, p, ok := jsonw.NextElem(raw, 0); ok; e, p, ok = jsonw.NextElem(raw, p) {
			if !fn(k, value(e)) {
				return
			}
			k.Num++
		}
		return
	}
	for name, val, p, ok := jsonw.NextMember(raw, 0); ok; name, val, p, ok = jsonw.NextMember(raw, p) {
		if !fn(value(name), value(val)) {
			return
		}
	}
}

// count returns v.Get("#").Int(): the number of elements of the array v,
// 0 when v is not an array.
func count(v gjson.Result) int {
	if !v.IsArray() {
		return 0
	}
	n := 0
	for _, p, ok := jsonw.NextElem(v.Raw, 0); ok; _, p, ok = jsonw.NextElem(v.Raw, p) {
		n++
	}
	return n
}

// forEachRaw is forEach with each value as its raw text (read it with
// value), so that a reader decodes only the strings it uses.
func forEachRaw(v gjson.Result, fn func(k gjson.Result, raw string) bool) {
	if v.Type != gjson.JSON || !v.IsObject() {
		forEach(v, func(k, x gjson.Result) bool { return fn(k, x.Raw) })
		return
	}
	for name, val, p, ok := jsonw.NextMember(v.Raw, 0); ok; name, val, p, ok = jsonw.NextMember(v.Raw, p) {
		if !fn(value(name), val) {
			return
		}
	}
}

// isStr reports whether raw, a JSON value, is a string: value(raw).Type
// is gjson.String.
func isStr(raw string) bool { return len(raw) > 0 && raw[0] == '"' }
