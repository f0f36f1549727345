package patchtest

import (
	"strconv"

	"github.com/reasonreplay/replay/codecs"
	"github.com/tidwall/gjson"
)

// RefFilterArray is kit.FilterArray as the Strip of anthropic and bedrock
// called it, frozen so that their references cannot drift.
func RefFilterArray(raw []byte, name string, drop func(el gjson.Result) bool) ([]byte, []string) {
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
	res := make([]byte, 0, len(raw))
	res = append(res, raw[:arr.Index]...)
	res = append(res, '[')
	res = append(res, out...)
	res = append(res, ']')
	res = append(res, raw[arr.Index+len(arr.Raw):]...)
	return res, removed
}

// RefRemoved is kit.Removed, frozen with RefFilterArray.
func RefRemoved(ptrs []string, detail string) []codecs.Change {
	out := make([]codecs.Change, len(ptrs))
	for i, p := range ptrs {
		out[i] = codecs.Change{Pointer: p, Removed: true, Detail: detail}
	}
	return out
}
