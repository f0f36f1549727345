package mistral

import (
	"strconv"

	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/contentpatch"
	"github.com/reasonreplay/replay/internal/kit"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
)

// Encode writes t as a Mistral assistant message:
// `{"role":"assistant","content":[...],"tool_calls":[...]}`. Reasoning text
// becomes a thinking chunk (its inner text in one part, then its other
// members such as `closed`), visible text a text chunk, and verbatim
// chunks go back as they came. Signatures, encrypted items and summaries
// have no Mistral field and are left out, as are unfinished items and
// calls. With no content chunk, content is "".
func (c Codec) Encode(t *replay.Turn) ([]byte, error) {
	if t == nil {
		return nil, kit.NoTurn(API, "encode")
	}
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
		if !b.Replayable() {
			return dst, nil
		}
		dst = jsonw.Comma(dst)
		dst = append(dst, `{"type":"thinking","thinking":[{"type":"text","text":`...)
		dst = jsonw.String(dst, b.Text)
		dst = append(dst, "}]"...)
		dst = jsonw.Members(dst, b.Extra)
		dst = append(dst, '}')
	case *replay.Opaque:
		if b.Unfinished || b.Format != formats.Mistral {
			return dst, nil
		}
		if !jsonw.ValidBytes(b.Raw) {
			return nil, codecs.Malformed(API, -1, "/blocks/"+strconv.Itoa(i), "opaque item is not valid JSON")
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
		if !jsonw.ValidBytes(b.Raw) {
			return nil, codecs.Malformed(API, -1, "/blocks/"+strconv.Itoa(i), "native block is not valid JSON")
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
	if t == nil {
		return nil, kit.NoTurn(API, "patch")
	}
	if err := kit.CheckBody(API, msg, "an assistant message to patch"); err != nil {
		return nil, err
	}
	return patchSpec.PatchChecked(msg, t)
}

var patchSpec = contentpatch.Spec{
	API:       API,
	Reasoning: "thinking",
	// A plain string chunk is text too.
	StringText: true,
	Append: func(dst []byte, b replay.Block, i int) ([]byte, error) {
		switch b := b.(type) {
		case *replay.ReasoningText, *replay.Opaque:
			return appendChunk(dst, b, i)
		case *replay.Native:
			if b.Kind == "thinking" { // thinking with parts other than text
				return appendChunk(dst, b, i)
			}
		}
		return dst, nil
	},
}
