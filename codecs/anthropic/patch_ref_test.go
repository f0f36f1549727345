package anthropic

import (
	"sort"
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// refPatch is Patch as it was written on gjson and sjson, kept as the
// reference FuzzPatch compares Patch with: every input must give the same
// bytes, or the same error.
func refPatch(c Codec, msg []byte, t *replay.Turn) ([]byte, error) {
	if t == nil {
		return nil, bodyErr("", "no turn to patch from")
	}
	if !jsonw.ValidBytes(msg) || !gjson.ParseBytes(msg).IsObject() {
		return nil, bodyErr("", "expected an assistant message object")
	}
	content := gjson.GetBytes(msg, "content")
	var elems []string
	switch {
	case content.Type == gjson.String:
		elems = []string{string(jsonw.String([]byte(`{"type":"text","text":`), content.Str)) + "}"}
	case content.IsArray():
		content.ForEach(func(_, v gjson.Result) bool {
			elems = append(elems, v.Raw)
			return true
		})
	case !content.Exists():
	default:
		return nil, bodyErr("/content", "expected a content array or string")
	}
	toolAt := map[string]int{}
	var textAt []int
	for j, e := range elems {
		switch gjson.Get(e, "type").Str {
		case "thinking", "redacted_thinking":
			return nil, bodyErr("/content/"+itoa(j), "the message already holds thinking blocks")
		case "tool_use":
			toolAt[gjson.Get(e, "id").Str] = j
		case "text":
			textAt = append(textAt, j)
		}
	}
	nText := 0
	for _, b := range t.Blocks {
		if _, ok := b.(*replay.Text); ok {
			nText++
		}
	}
	useText := nText == len(textAt)
	type insert struct {
		at  int
		raw []byte
	}
	var ins []insert
	at, ti := 0, 0
	for _, b := range t.Blocks {
		switch b := b.(type) {
		case replay.ReasoningItem:
			if c.sendable(t, b) {
				ins = append(ins, insert{at: at, raw: appendItem(nil, b)})
			}
		case *replay.ToolCall:
			if j, ok := toolAt[b.ID]; ok {
				at = j + 1
			}
		case *replay.Text:
			if useText {
				at = textAt[ti] + 1
			}
			ti++
		}
	}
	if len(ins) == 0 {
		return append([]byte(nil), msg...), nil
	}
	sort.SliceStable(ins, func(a, b int) bool { return ins[a].at < ins[b].at })
	arr := []byte{'['}
	k := 0
	for j := 0; j <= len(elems); j++ {
		for k < len(ins) && ins[k].at == j {
			arr = jsonw.Comma(arr)
			arr = append(arr, ins[k].raw...)
			k++
		}
		if j < len(elems) {
			arr = jsonw.Comma(arr)
			arr = append(arr, elems[j]...)
		}
	}
	arr = append(arr, ']')
	out, err := sjson.SetRawBytes(append([]byte(nil), msg...), "content", arr)
	if err != nil {
		return nil, bodyErr("/content", "cannot set the content: %v", err)
	}
	return out, nil
}

// refStrip is Strip as it was written on gjson (kit.FilterArray, copied
// here as refFilterArray so that the reference cannot drift), kept as the
// reference FuzzStrip compares Strip with.
func refStrip(raw []byte) ([]byte, []codecs.Change) {
	out, removed := refFilterArray(raw, "content", func(b gjson.Result) bool {
		t := b.Get("type").Str
		return t == "thinking" || t == "redacted_thinking"
	})
	return out, refRemoved(removed, "thinking block removed")
}

// refFilterArray is kit.FilterArray as Strip called it.
func refFilterArray(raw []byte, name string, drop func(el gjson.Result) bool) ([]byte, []string) {
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

// refRemoved is kit.Removed.
func refRemoved(ptrs []string, detail string) []codecs.Change {
	out := make([]codecs.Change, len(ptrs))
	for i, p := range ptrs {
		out[i] = codecs.Change{Pointer: p, Removed: true, Detail: detail}
	}
	return out
}
