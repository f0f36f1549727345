package anthropic

import (
	"sort"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/patchtest"
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
// as patchtest.RefFilterArray so that the reference cannot drift), kept
// as the reference FuzzStrip compares Strip with.
func refStrip(raw []byte) ([]byte, []codecs.Change) {
	out, removed := patchtest.RefFilterArray(raw, "content", func(b gjson.Result) bool {
		t := b.Get("type").Str
		return t == "thinking" || t == "redacted_thinking"
	})
	return out, patchtest.RefRemoved(removed, "thinking block removed")
}
