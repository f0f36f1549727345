// Package contentpatch splices reasoning elements into the content array of
// an assistant message a caller built, for APIs whose reasoning travels in
// that array beside the text (Mistral thinking chunks, Cohere thinking
// blocks), changing nothing else in the message.
package contentpatch

import (
	"slices"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/view"
)

// Spec says how one API's content array is read and written.
type Spec struct {
	// API names the codec in errors.
	API string
	// Reasoning is the `type` of the API's reasoning elements; those already
	// in the message are replaced.
	Reasoning string
	// StringText says a content element that is a plain JSON string is
	// text (Mistral), beside the objects of type "text": reasoning goes
	// before the text element that followed it in the turn.
	StringText bool
	// Append writes block i of the turn to dst when it is reasoning the API
	// carries (preceded by a comma unless dst ends a '[' or is empty), and
	// returns dst unchanged otherwise. Text blocks are not passed to it.
	Append func(dst []byte, b replay.Block, i int) ([]byte, error)
}

// elems walks the elements of a message's content that Patch keeps: those
// of its array that are not reasoning, or the one text element a string
// content stands for.
type elems struct {
	s     *Spec
	arr   string // the content array, or "" for none
	str   string // the string content, or ""
	pos   int
	index int  // the elements returned so far
	wrap  bool // the string content's element
}

// next returns the next element kept, and whether it is text.
func (e *elems) next() (el string, text, ok bool) {
	if e.str != "" {
		el, e.str = e.str, ""
		e.index++
		return el, true, true
	}
	for e.arr != "" {
		el, pos, ok := jsonw.NextElem(e.arr, e.pos)
		if !ok {
			e.arr = ""
			break
		}
		e.pos = pos
		reasoning, text := e.s.kind(el)
		if !reasoning {
			e.index++
			return el, text, true
		}
	}
	return "", false, false
}

// kind reports whether the content element el is reasoning, and whether it
// is text.
func (s *Spec) kind(el string) (reasoning, text bool) {
	if el[0] != '{' {
		return false, s.StringText && el[0] == '"'
	}
	for name, val, pos, ok := jsonw.NextMember(el, 0); ok; name, val, pos, ok = jsonw.NextMember(el, pos) {
		if jsonw.StringEquals(name, "type") {
			return jsonw.StringEquals(val, s.Reasoning), jsonw.StringEquals(val, "text")
		}
	}
	return false, false
}

// appendElem appends the element el: a string content is written as a
// text element holding it.
func (e *elems) appendElem(dst []byte, el string) []byte {
	if e.wrap {
		dst = append(dst, `{"type":"text","text":`...)
		dst = append(dst, el...)
		return append(dst, '}')
	}
	return append(dst, el...)
}

func (e *elems) size(el string) int {
	if e.wrap {
		return len(el) + len(`{"type":"text","text":}`)
	}
	return len(el)
}

// before writes the elements from e's place up to the one of index stop
// (to the last when stop is negative) before out[p:], the reasoning written
// since p, with the commas that join them.
func (e *elems) before(out []byte, p, stop int) []byte {
	m := *e
	n, size := 0, 0
	for stop < 0 || m.index < stop {
		el, _, ok := m.next()
		if !ok {
			break
		}
		size += m.size(el)
		n++
	}
	if n == 0 {
		return out
	}
	size += n // the commas between them, and the one before or after
	pend := len(out) - p
	out = slices.Grow(out, size)[:len(out)+size]
	copy(out[p+size:], out[p:p+pend])
	lead := out[p-1] == '[' // the reasoning has no comma before it
	dst := out[:p]
	if !lead {
		dst = append(dst, ',')
	}
	for k := 0; k < n; k++ {
		el, _, _ := e.next()
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = e.appendElem(dst, el)
	}
	if lead {
		out[p+size-1] = ',' // dst ends there
	}
	return out
}

// Patch adds t's reasoning to msg. A string content becomes one text
// element holding the same string. Each reasoning element goes before the
// text element that followed it in t (matched by rank among the text
// elements); one followed by no text goes at the end of the array. msg is
// read once, and the result written in one buffer: the elements the
// message had are copied through as they were.
func (s Spec) Patch(msg []byte, t *replay.Turn) ([]byte, error) {
	if !jsonw.ValidBytes(msg) {
		return nil, codecs.Malformed(s.API, -1, "", "expected a JSON message")
	}
	return s.PatchChecked(msg, t)
}

// PatchChecked is Patch of a message the caller has checked is valid JSON
// ([jsonw.ValidBytes]).
func (s Spec) PatchChecked(msg []byte, t *replay.Turn) ([]byte, error) {
	str := view.String(msg)
	open := 0
	for open < len(str) && (str[open] == ' ' || str[open] == '\t' || str[open] == '\n' || str[open] == '\r') {
		open++
	}
	if str[open] != '{' {
		return nil, codecs.Malformed(s.API, -1, "", "expected a message object")
	}
	content, members := "", false
	for name, val, pos, ok := jsonw.NextMember(str, 0); ok; name, val, pos, ok = jsonw.NextMember(str, pos) {
		members = true
		if jsonw.StringEquals(name, "content") {
			content = val // the first: a valid message has one
			break
		}
	}
	e := elems{s: &s}
	switch {
	case content == "" || content[0] == 'n':
	case content[0] == '"':
		if content != `""` {
			e.str, e.wrap = content, true
		}
	case content[0] == '[':
		e.arr = content
	default:
		return nil, codecs.Malformed(s.API, -1, "/content", "expected a string, an array or null")
	}
	size := len(msg) + 32
	for _, b := range t.Blocks {
		switch b := b.(type) {
		case *replay.ReasoningText:
			size += len(b.Text) + len(b.Text)/8 + 64 + len(b.Extra)
		case *replay.Opaque:
			size += len(b.Raw) + 1
		case *replay.Native:
			size += len(b.Raw) + 1
		}
	}
	out := make([]byte, 0, size)
	var rest string // what follows the content's value
	if content != "" {
		a, _ := view.Offset(str, content)
		out = append(out, str[:a]...)
		rest = str[a+len(content):]
	} else {
		end := strings.LastIndexByte(str, '}')
		out = append(out, str[:end]...)
		if members {
			out = append(out, ',')
		}
		out = append(out, `"content":`...)
		rest = str[end:]
	}
	out = append(out, '[')
	w := e        // writes the elements
	texts := e    // finds the text element of each rank
	pending := -1 // where the reasoning not yet placed starts in out
	for i, b := range t.Blocks {
		x, ok := b.(*replay.Text)
		if !ok {
			if pending < 0 {
				pending = len(out)
			}
			var err error
			if out, err = s.Append(out, b, i); err != nil {
				return nil, err
			}
			continue
		}
		if x.Text == "" {
			continue
		}
		// The next text element: the reasoning pending goes before it.
		var el string
		for ok = false; ; {
			var text bool
			if el, text, ok = texts.next(); !ok || text {
				break
			}
		}
		if pending < 0 || len(out) == pending || !ok {
			if pending >= 0 && len(out) == pending {
				pending = -1
			}
			continue
		}
		out = w.before(out, pending, texts.index-1)
		out = w.appendElem(jsonw.Comma(out), el)
		w.next()
		pending = -1
	}
	if pending >= 0 && len(out) > pending {
		out = w.before(out, pending, -1)
	} else {
		for el, _, ok := w.next(); ok; el, _, ok = w.next() {
			out = w.appendElem(jsonw.Comma(out), el)
		}
	}
	out = append(out, ']')
	return append(out, rest...), nil
}
