package kit

import (
	"strconv"

	"github.com/reasonreplay/replay/internal/jsonw"

	"github.com/reasonreplay/replay/codecs"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// FilterArray rebuilds the array member name of the JSON object raw
// without the elements drop reports, and returns the pointers (into raw)
// of the elements it removed. raw is returned unchanged when none goes.
func FilterArray(raw []byte, name string, drop func(el gjson.Result) bool) ([]byte, []string) {
	arr := gjson.GetBytes(raw, name)
	if !arr.IsArray() {
		return raw, nil
	}
	var out []byte
	var removed []string
	n, i := 0, -1
	arr.ForEach(func(_, el gjson.Result) bool {
		i++
		if drop(el) {
			removed = append(removed, "/"+name+"/"+strconv.Itoa(i))
			return true
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, el.Raw...)
		n++
		return true
	})
	if len(removed) == 0 {
		return raw, nil
	}
	// arr.Index is the array's place in raw: splice the new array in.
	res := make([]byte, 0, len(raw))
	res = append(res, raw[:arr.Index]...)
	res = append(res, '[')
	res = append(res, out...)
	res = append(res, ']')
	res = append(res, raw[arr.Index+len(arr.Raw):]...)
	return res, removed
}

// DeleteMember deletes the member name (a gjson path of plain names) of
// the JSON object raw, and returns the value it had.
func DeleteMember(raw []byte, name string) ([]byte, gjson.Result) {
	v := gjson.GetBytes(raw, name)
	if !v.Exists() {
		return raw, v
	}
	out, err := sjson.DeleteBytes(append([]byte(nil), raw...), name)
	if err != nil {
		return raw, gjson.Result{}
	}
	return out, v
}

// SetMember sets the member at path (a gjson path) of the JSON object raw
// to the raw JSON value val.
func SetMember(raw []byte, path string, val []byte) ([]byte, bool) {
	out, err := sjson.SetRawBytes(append([]byte(nil), raw...), path, val)
	if err != nil {
		return raw, false
	}
	return out, true
}

// Removed returns one Change for each pointer, all with the same detail.
func Removed(ptrs []string, detail string) []codecs.Change {
	out := make([]codecs.Change, len(ptrs))
	for i, p := range ptrs {
		out[i] = codecs.Change{Pointer: p, Removed: true, Detail: detail}
	}
	return out
}

// RenameIn renames the call ids of the tool results in the JSON object
// raw: the results are the elements of the array member blocks ("" for
// raw itself) that is reports, and the id is each one's member at path
// id. rename is asked each id in order; raw is returned unchanged when
// none changed.
func RenameIn(raw []byte, blocks string, is func(gjson.Result) bool, id string, rename func(string) (string, bool)) []byte {
	one := func(out []byte, path string, b gjson.Result) []byte {
		if !is(b) {
			return out
		}
		old := b.Get(id)
		n, ok := rename(old.Str)
		if !ok {
			return out
		}
		p := id
		if path != "" {
			p = path + "." + id
		}
		v, _ := SetMember(out, p, jsonw.String(nil, n))
		return v
	}
	if blocks == "" {
		return one(raw, "", gjson.ParseBytes(raw))
	}
	out := raw
	i := -1
	gjson.GetBytes(raw, blocks).ForEach(func(_, b gjson.Result) bool {
		i++
		out = one(out, blocks+"."+strconv.Itoa(i), b)
		return true
	})
	return out
}
