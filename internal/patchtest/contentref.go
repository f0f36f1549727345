package patchtest

import (
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
)

// RefSpec is contentpatch.Spec as it was written on gjson, kept with
// RefContentPatch as the reference the FuzzPatch targets of the codecs
// that patch through contentpatch hold Patch to. One decision differs from
// it: a content element that is not an object has no type (gjson looked
// for one in the text of a string that held a brace).
type RefSpec struct {
	API       string
	Reasoning string
	IsText    func(v gjson.Result) bool
	Append    func(dst []byte, b replay.Block, i int) ([]byte, error)
}

type refElem struct {
	raw  string
	text bool
}

// RefContentPatch is contentpatch.Spec.Patch as it was.
func (s RefSpec) RefContentPatch(msg []byte, t *replay.Turn) ([]byte, error) {
	if !jsonw.ValidBytes(msg) {
		return nil, codecs.Malformed(s.API, -1, "", "expected a JSON message")
	}
	m := gjson.ParseBytes(msg)
	if !m.IsObject() {
		return nil, codecs.Malformed(s.API, -1, "", "expected a message object")
	}
	content := m.Get("content")
	var elems []refElem
	switch {
	case content.Type == gjson.String:
		if content.Str != "" {
			elems = append(elems, refElem{raw: `{"type":"text","text":` + content.Raw + `}`, text: true})
		}
	case content.IsArray():
		content.ForEach(func(_, v gjson.Result) bool {
			if !v.IsObject() || v.Get("type").String() != s.Reasoning { // see RefSpec
				elems = append(elems, refElem{raw: v.Raw, text: s.IsText(v)})
			}
			return true
		})
	case !content.Exists() || content.Type == gjson.Null:
	default:
		return nil, codecs.Malformed(s.API, -1, "/content", "expected a string, an array or null")
	}
	before := make([][]byte, len(elems)+1)
	var pending []byte
	rank := 0
	for i, b := range t.Blocks {
		if x, ok := b.(*replay.Text); ok {
			if x.Text == "" {
				continue
			}
			r := rank
			rank++
			if len(pending) == 0 {
				continue
			}
			k := 0
			for j, e := range elems {
				if !e.text {
					continue
				}
				if k == r {
					before[j] = append(jsonw.Comma(before[j]), pending...)
					pending = nil
					break
				}
				k++
			}
			continue
		}
		var err error
		if pending, err = s.Append(pending, b, i); err != nil {
			return nil, err
		}
	}
	if len(pending) > 0 {
		before[len(elems)] = append(jsonw.Comma(before[len(elems)]), pending...)
	}
	arr := []byte{'['}
	for j := 0; j <= len(elems); j++ {
		if len(before[j]) > 0 {
			arr = append(jsonw.Comma(arr), before[j]...)
		}
		if j < len(elems) {
			arr = append(jsonw.Comma(arr), elems[j].raw...)
		}
	}
	arr = append(arr, ']')
	if !content.Exists() {
		end := len(msg) - 1
		for end > 0 && msg[end] != '}' {
			end--
		}
		out := append([]byte(nil), msg[:end]...)
		if len(m.Map()) > 0 {
			out = append(out, ',')
		}
		out = append(out, `"content":`...)
		out = append(out, arr...)
		return append(out, msg[end:]...), nil
	}
	endc := content.Index + len(content.Raw)
	if content.Index <= 0 || endc > len(msg) || string(msg[content.Index:endc]) != content.Raw {
		return nil, codecs.Malformed(s.API, -1, "/content", "cannot locate the content member")
	}
	out := make([]byte, 0, len(msg)+len(arr))
	out = append(out, msg[:content.Index]...)
	out = append(out, arr...)
	return append(out, msg[endc:]...), nil
}
