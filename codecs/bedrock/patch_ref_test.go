package bedrock

import (
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/internal/patchtest"
	"github.com/tidwall/gjson"
)

// refPatch is Patch as it was written on gjson, kept as the reference
// FuzzPatch compares Patch with: every input must give the same bytes, or
// the same error.
func refPatch(msg []byte, t *replay.Turn) ([]byte, error) {
	if t == nil {
		return nil, kit.NoTurn(API, "patch")
	}
	if !jsonw.ValidBytes(msg) {
		return nil, codecs.Malformed(API, -1, "", "expected a JSON message")
	}
	m := gjson.ParseBytes(msg)
	content := m.Get("content")
	if !m.IsObject() || !content.IsArray() {
		return nil, codecs.Malformed(API, -1, "/content", "expected a message object with a content array")
	}
	elems := refPatchElems(content)
	before, err := refPlaceItems(elems, t)
	if err != nil {
		return nil, err
	}
	arr := refJoinContent(elems, before)
	end := content.Index + len(content.Raw)
	if content.Index <= 0 || end > len(msg) || string(msg[content.Index:end]) != content.Raw {
		return nil, codecs.Malformed(API, -1, "/content", "cannot locate the content array")
	}
	out := make([]byte, 0, len(msg)+len(arr))
	out = append(out, msg[:content.Index]...)
	out = append(out, arr...)
	out = append(out, msg[content.Index+len(content.Raw):]...)
	return out, nil
}

type refPatchElem struct {
	raw    string
	toolID string
	text   bool
}

func refPatchElems(content gjson.Result) []refPatchElem {
	var elems []refPatchElem
	content.ForEach(func(_, v gjson.Result) bool {
		if v.Get("reasoningContent").Exists() {
			return true
		}
		e := refPatchElem{raw: v.Raw}
		if id := v.Get("toolUse.toolUseId"); id.Type == gjson.String {
			e.toolID = id.Str
		} else if v.Get("text").Exists() {
			e.text = true
		}
		elems = append(elems, e)
		return true
	})
	return elems
}

func refPlaceItems(elems []refPatchElem, t *replay.Turn) ([][]byte, error) {
	before := make([][]byte, len(elems)+1)
	var pending []byte
	put := func(at int) {
		before[at] = jsonw.Comma(before[at])
		before[at] = append(before[at], pending...)
		pending = pending[:0:0]
	}
	textRank := 0
	for i, b := range t.Blocks {
		switch b := b.(type) {
		case replay.ReasoningItem:
			var err error
			if pending, err = appendBlock(pending, b, i); err != nil {
				return nil, err
			}
		case *replay.ToolCall:
			if at := refToolElem(elems, b.ID); len(pending) > 0 && at >= 0 {
				put(at)
			}
		case *replay.Text:
			if b.Text == "" {
				continue
			}
			if at := refTextElem(elems, textRank); len(pending) > 0 && at >= 0 {
				put(at)
			}
			textRank++
		}
	}
	if len(pending) > 0 {
		put(len(elems))
	}
	return before, nil
}

func refToolElem(elems []refPatchElem, id string) int {
	for j, e := range elems {
		if e.toolID != "" && e.toolID == id {
			return j
		}
	}
	return -1
}

func refTextElem(elems []refPatchElem, rank int) int {
	k := 0
	for j, e := range elems {
		if e.text {
			if k == rank {
				return j
			}
			k++
		}
	}
	return -1
}

func refJoinContent(elems []refPatchElem, before [][]byte) []byte {
	arr := []byte{'['}
	for j := 0; j <= len(elems); j++ {
		if len(before[j]) > 0 {
			arr = jsonw.Comma(arr)
			arr = append(arr, before[j]...)
		}
		if j < len(elems) {
			arr = jsonw.Comma(arr)
			arr = append(arr, elems[j].raw...)
		}
	}
	return append(arr, ']')
}

// refStrip is Strip as it was written on gjson (kit.FilterArray, copied
// as patchtest.RefFilterArray so that the reference cannot drift).
func refStrip(raw []byte) ([]byte, []codecs.Change) {
	out, removed := patchtest.RefFilterArray(raw, "content", func(b gjson.Result) bool { return b.Get("reasoningContent").Exists() })
	return out, patchtest.RefRemoved(removed, "reasoning block removed")
}
