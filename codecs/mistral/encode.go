package mistral

import (
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
)

// Encode writes t as a Mistral assistant message:
// `{"role":"assistant","content":[...],"tool_calls":[...]}`. Reasoning text
// becomes a thinking chunk (its inner text in one part, then its other
// members such as `closed`), visible text a text chunk, and verbatim
// chunks go back as they came. Signatures, encrypted items and summaries
// have no Mistral field and are left out, as are unfinished items and
// calls. With no content chunk, content is "".
func (c Codec) Encode(t *replay.Turn) ([]byte, error) {
	dst := append([]byte(nil), `{"role":"assistant","content":`...)
	k := len(dst)
	dst = append(dst, '[')
	for i, b := range t.Blocks {
		var err error
		if dst, err = appendChunk(dst, b, i); err != nil {
			return nil, err
		}
	}
	if len(dst) == k+1 {
		dst = append(dst[:k], `""`...)
	} else {
		dst = append(dst, ']')
	}
	calls := false
	for _, b := range t.Blocks {
		tc, ok := b.(*replay.ToolCall)
		if !ok || tc.Unfinished {
			continue
		}
		if !calls {
			dst = append(dst, `,"tool_calls":[`...)
			calls = true
		} else {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"id":`...)
		dst = jsonw.String(dst, tc.ID)
		dst = append(dst, `,"type":"function","function":{"name":`...)
		dst = jsonw.String(dst, tc.Name)
		dst = append(dst, `,"arguments":`...)
		dst = jsonw.String(dst, tc.Arguments)
		dst = append(dst, "}}"...)
	}
	if calls {
		dst = append(dst, ']')
	}
	return append(dst, '}'), nil
}

// appendChunk appends the content chunk for b, or nothing.
func appendChunk(dst []byte, b replay.Block, i int) ([]byte, error) {
	switch b := b.(type) {
	case *replay.ReasoningText:
		if !replay.Replayable(b) {
			return dst, nil
		}
		dst = jsonw.Comma(dst)
		dst = append(dst, `{"type":"thinking","thinking":[{"type":"text","text":`...)
		dst = jsonw.String(dst, b.Text)
		dst = append(dst, "}]"...)
		dst = jsonw.Members(dst, b.Extra)
		dst = append(dst, '}')
	case *replay.Opaque:
		if b.Unfinished || b.Format != replay.FormatMistral {
			return dst, nil
		}
		if !gjson.Valid(string(b.Raw)) {
			return nil, replay.Malformed(API, -1, "/blocks/"+strconv.Itoa(i), "opaque item is not valid JSON")
		}
		dst = jsonw.Comma(dst)
		dst = append(dst, b.Raw...)
	case *replay.Text:
		if b.Text == "" {
			return dst, nil
		}
		dst = jsonw.Comma(dst)
		dst = append(dst, `{"type":"text","text":`...)
		dst = jsonw.String(dst, b.Text)
		dst = append(dst, '}')
	case *replay.Native:
		if b.Unfinished {
			return dst, nil
		}
		if !gjson.Valid(string(b.Raw)) {
			return nil, replay.Malformed(API, -1, "/blocks/"+strconv.Itoa(i), "native block is not valid JSON")
		}
		dst = jsonw.Comma(dst)
		dst = append(dst, b.Raw...)
	}
	return dst, nil
}

// Patch adds t's thinking chunks to msg, an assistant message the caller
// built, and changes nothing else. A string content becomes one text chunk
// holding the same string. Thinking chunks already in msg are replaced.
// Each item goes before the text chunk that followed it in t (matched by
// rank among the text chunks); an item followed by no text (only tool
// calls, or nothing) goes at the end of the content array.
func (c Codec) Patch(msg []byte, t *replay.Turn) ([]byte, error) {
	if !gjson.ValidBytes(msg) {
		return nil, replay.Malformed(API, -1, "", "expected a JSON message")
	}
	m := gjson.ParseBytes(msg)
	if !m.IsObject() {
		return nil, replay.Malformed(API, -1, "", "expected a message object")
	}
	content := m.Get("content")
	type elem struct {
		raw  string
		text bool
	}
	var elems []elem
	switch {
	case content.Type == gjson.String:
		if content.Str != "" {
			elems = append(elems, elem{raw: `{"type":"text","text":` + content.Raw + `}`, text: true})
		}
	case content.IsArray():
		content.ForEach(func(_, v gjson.Result) bool {
			switch v.Get("type").String() {
			case "thinking":
			case "text":
				elems = append(elems, elem{raw: v.Raw, text: true})
			default:
				elems = append(elems, elem{raw: v.Raw, text: v.Type == gjson.String})
			}
			return true
		})
	case !content.Exists() || content.Type == gjson.Null:
	default:
		return nil, replay.Malformed(API, -1, "/content", "expected a string, an array or null")
	}
	before := make([][]byte, len(elems)+1)
	var pending []byte
	rank := 0
	for i, b := range t.Blocks {
		switch b := b.(type) {
		case *replay.ReasoningText, *replay.Opaque:
			var err error
			if pending, err = appendChunk(pending, b, i); err != nil {
				return nil, err
			}
		case *replay.Text:
			if b.Text == "" {
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
		// Add the member at the end of the object.
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
		return nil, replay.Malformed(API, -1, "/content", "cannot locate the content member")
	}
	out := make([]byte, 0, len(msg)+len(arr))
	out = append(out, msg[:content.Index]...)
	out = append(out, arr...)
	return append(out, msg[endc:]...), nil
}
