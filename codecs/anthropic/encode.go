package anthropic

import (
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
)

// sendable reports whether Encode and Patch write the reasoning item of
// turn t: it is of the codec's format family ([Codec.Format]; an item of
// format unknown only from this API), and [replay.ReasoningItem].Replayable.
func (c Codec) sendable(t *replay.Turn, it replay.ReasoningItem) bool {
	own := c.Format()
	f := it.Meta().Format
	switch {
	case !it.Replayable():
		return false
	case own == replay.FormatUnknown || f == "" || f == replay.FormatUnknown:
		if own != replay.FormatUnknown || (f != "" && f != replay.FormatUnknown) || !sameAPI(t) {
			return false
		}
	case f.Family() != own.Family():
		return false
	}
	switch it.(type) {
	case *replay.ReasoningText, *replay.Encrypted:
		return true
	}
	return false
}

// sameAPI reports whether t came from this API, so that its native blocks
// and the extra members of its text and tool blocks may be written back.
func sameAPI(t *replay.Turn) bool {
	return t.Provenance.API == "" || strings.EqualFold(t.Provenance.API, API)
}

// sendableCompaction reports whether Encode writes a compaction block of
// turn t: finished, from this API, minted by the codec's issuer.
func (c Codec) sendableCompaction(t *replay.Turn, x *replay.Compaction) bool {
	f := x.Format
	if f == "" {
		f = replay.FormatUnknown
	}
	return !x.Unfinished && sameAPI(t) && f.Family() == c.Format().Family()
}

// appendCompaction writes a compaction block: its content and signature
// as captured (absent stays absent, null stays null), then its other
// members.
func appendCompaction(dst []byte, x *replay.Compaction) []byte {
	dst = append(dst, `{"type":"compaction"`...)
	for _, f := range [...]struct {
		k string
		v replay.Opt[string]
	}{{"content", x.Content}, {"signature", x.Signature}} {
		switch f.v.Presence() {
		case replay.Present:
			dst = jsonw.Key(dst, f.k)
			dst = jsonw.String(dst, f.v.Value())
		case replay.Null:
			dst = jsonw.Key(dst, f.k)
			dst = append(dst, "null"...)
		}
	}
	dst = jsonw.Members(dst, x.Extra)
	return append(dst, '}')
}

// appendItem writes a thinking or redacted_thinking block.
func appendItem(dst []byte, it replay.ReasoningItem) []byte {
	switch it := it.(type) {
	case *replay.ReasoningText:
		dst = append(dst, `{"type":"thinking","thinking":`...)
		dst = jsonw.String(dst, it.Text)
		dst = jsonw.Key(dst, "signature")
		dst = jsonw.String(dst, it.Signature.Value())
		dst = jsonw.Members(dst, it.Extra)
	case *replay.Encrypted:
		dst = append(dst, `{"type":"redacted_thinking","data":`...)
		dst = jsonw.String(dst, it.Data)
		dst = jsonw.Members(dst, it.Extra)
	}
	return append(dst, '}')
}

// Encode writes the turn as the assistant message of the next request:
// `{"role":"assistant","content":[...]}` with every block in its original
// order. Thinking blocks keep their text (`"thinking":""` when it was
// empty), signature and unknown members; redacted_thinking keeps its data;
// tool_use keeps its id, name and input; a compaction block keeps its
// content and signature, and a signed (on-demand) one is written first.
// Left out: reasoning items that are
// not [replay.ReasoningItem].Replayable or not Claude's, unfinished tool calls and server
// blocks, empty text blocks (the API rejects them), and native blocks of a
// turn from another API.
func (c Codec) Encode(t *replay.Turn) ([]byte, error) {
	if t == nil {
		return nil, bodyErr("", "no turn to encode")
	}
	dst := []byte(`{"role":"assistant","content":[`)
	dst, err := c.appendContent(dst, t)
	if err != nil {
		return nil, err
	}
	return append(dst, "]}"...), nil
}

func (c Codec) appendContent(dst []byte, t *replay.Turn) ([]byte, error) {
	same := sameAPI(t)
	// An on-demand (signed) compaction block goes first.
	for _, b := range t.Blocks {
		if x, ok := b.(*replay.Compaction); ok && x.Signature.Value() != "" && c.sendableCompaction(t, x) {
			dst = jsonw.Comma(dst)
			dst = appendCompaction(dst, x)
		}
	}
	for i, b := range t.Blocks {
		switch b := b.(type) {
		case *replay.Compaction:
			if b.Signature.Value() == "" && c.sendableCompaction(t, b) {
				dst = jsonw.Comma(dst)
				dst = appendCompaction(dst, b)
			}
		case replay.ReasoningItem:
			if !c.sendable(t, b) {
				continue
			}
			dst = jsonw.Comma(dst)
			dst = appendItem(dst, b)
		case *replay.Text:
			if b.Text == "" {
				continue
			}
			dst = jsonw.Comma(dst)
			dst = append(dst, `{"type":"text","text":`...)
			dst = jsonw.String(dst, b.Text)
			if same {
				dst = jsonw.Members(dst, b.Extra)
			}
			dst = append(dst, '}')
		case *replay.ToolCall:
			if b.Unfinished {
				continue
			}
			args := b.Arguments
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			if !jsonw.Valid(args) || !gjson.Parse(args).IsObject() {
				return nil, bodyErr("/blocks/"+itoa(i)+"/arguments", "tool_use input must be a JSON object")
			}
			dst = jsonw.Comma(dst)
			dst = append(dst, `{"type":"tool_use","id":`...)
			dst = jsonw.String(dst, b.ID)
			dst = jsonw.Key(dst, "name")
			dst = jsonw.String(dst, b.Name)
			dst = jsonw.Key(dst, "input")
			dst = append(dst, args...)
			if same {
				dst = jsonw.Members(dst, b.Extra)
			}
			dst = append(dst, '}')
		case *replay.Native:
			if b.Unfinished || !same || len(b.Raw) == 0 {
				continue
			}
			dst = jsonw.Comma(dst)
			dst = append(dst, b.Raw...)
		}
	}
	return dst, nil
}
