package replay

import (
	"fmt"
	"io"

	"github.com/reasonreplay/replay/internal/jsonw"
)

// This file writes the turn document (reader.go reads it). The JSON forms
// of one reasoning item are in item_json.go.

// MarshalJSON returns the turn document.
func (t *Turn) MarshalJSON() ([]byte, error) { return t.AppendJSON(nil), nil }

// AppendJSON appends the turn document to dst. The output is deterministic:
// members in a fixed order, unknown members after known ones in source
// order, strings escaped minimally.
func (t *Turn) AppendJSON(dst []byte) []byte { return t.appendJSON(dst, nil) }

// appendJSON appends the turn document to dst. With flush set, it hands
// flush what it has appended so far, between two blocks, whenever that is
// flushChunk bytes or more, and goes on appending to the slice flush
// returns: the document is then the concatenation of the pieces.
func (t *Turn) appendJSON(dst []byte, flush func([]byte) []byte) []byte {
	dst = append(dst, '{')
	dst = jsonw.Key(dst, "version")
	dst = jsonw.Int(dst, DocumentVersion)
	dst = jsonw.Key(dst, "provenance")
	dst = append(dst, '{')
	p := t.Provenance
	for _, kv := range [...]struct{ k, v string }{
		{"api", p.API}, {"provider", p.Provider}, {"upstream", p.Upstream}, {"model", p.Model},
		{"requested_model", p.RequestedModel}, {"account", p.Account}, {"prefix_hash", p.PrefixHash},
		{"legacy_prefix_hash", p.LegacyPrefixHash}, {"chain_hash", p.ChainHash},
	} {
		if kv.v != "" {
			dst = jsonw.Key(dst, kv.k)
			dst = jsonw.String(dst, kv.v)
		}
	}
	dst = append(dst, '}')
	dst = jsonw.Key(dst, "complete")
	dst = jsonw.Bool(dst, t.Complete)
	if t.FinishReason != "" {
		dst = jsonw.Key(dst, "finish_reason")
		dst = jsonw.String(dst, t.FinishReason)
	}
	if e := t.Error; e != nil {
		dst = jsonw.Key(dst, "error")
		dst = appendProviderError(dst, e)
	}
	if len(t.Usage) > 0 {
		dst = jsonw.Key(dst, "usage")
		dst = append(dst, t.Usage...)
	}
	if len(t.Transformations) > 0 {
		dst = jsonw.Key(dst, "transformations")
		dst = append(dst, '[')
		for _, x := range t.Transformations {
			dst = jsonw.Comma(dst)
			dst = appendTransformation(dst, x)
		}
		dst = append(dst, ']')
	}
	dst = jsonw.Key(dst, "blocks")
	dst = append(dst, '[')
	for _, b := range t.Blocks {
		dst = jsonw.Comma(dst)
		if flush != nil && len(dst) >= flushChunk {
			dst = flush(dst)
		}
		dst = appendBlock(dst, b)
	}
	dst = append(dst, ']')
	return append(dst, '}')
}

// flushChunk is the size of the pieces appendJSON hands to its flush.
const flushChunk = 32 << 10

// WriteTo writes the turn document to w, the bytes AppendJSON appends, in
// pieces of some tens of kilobytes cut between blocks, so that a turn of
// any size is written without its document ever being held whole. It
// returns the number of bytes written and the first error of w.
func (t *Turn) WriteTo(w io.Writer) (int64, error) {
	var (
		n   int64
		err error
	)
	write := func(b []byte) []byte {
		if err == nil {
			var m int
			m, err = w.Write(b)
			n += int64(m)
		}
		return b[:0]
	}
	last := t.appendJSON(make([]byte, 0, flushChunk+flushChunk/2), write)
	write(last)
	return n, err
}

func appendProviderError(dst []byte, e *ProviderError) []byte {
	dst = append(dst, '{')
	if e.API != "" {
		dst = jsonw.Key(dst, "api")
		dst = jsonw.String(dst, e.API)
	}
	if e.Status != 0 {
		dst = jsonw.Key(dst, "status")
		dst = jsonw.Int(dst, e.Status)
	}
	for _, kv := range [...]struct{ k, v string }{
		{"type", e.Type}, {"code", e.Code}, {"message", e.Message},
		{"provider", e.Provider}, {"raw", e.Raw},
	} {
		if kv.v != "" {
			dst = jsonw.Key(dst, kv.k)
			dst = jsonw.String(dst, kv.v)
		}
	}
	return append(dst, '}')
}

func appendBlock(dst []byte, b Block) []byte {
	switch b := b.(type) {
	case ReasoningItem:
		return appendItem(dst, b, false)
	case *Text:
		dst = append(dst, `{"type":"text","text":`...)
		dst = jsonw.String(dst, b.Text)
		if b.ID != "" {
			dst = jsonw.Key(dst, "id")
			dst = jsonw.String(dst, b.ID)
		}
		dst = appendExtra(dst, b.Extra, textNames)
		return append(dst, '}')
	case *ToolCall:
		dst = append(dst, `{"type":"tool_call","id":`...)
		dst = jsonw.String(dst, b.ID)
		dst = jsonw.Key(dst, "name")
		dst = jsonw.String(dst, b.Name)
		dst = jsonw.Key(dst, "arguments")
		dst = jsonw.String(dst, b.Arguments)
		if b.ItemID != "" {
			dst = jsonw.Key(dst, "item_id")
			dst = jsonw.String(dst, b.ItemID)
		}
		if b.Unfinished {
			dst = append(dst, `,"unfinished":true`...)
		}
		dst = appendExtra(dst, b.Extra, toolCallNames)
		return append(dst, '}')
	case *Compaction:
		return appendCompaction(dst, b)
	case *Native:
		dst = append(dst, `{"type":"native","kind":`...)
		dst = jsonw.String(dst, b.Kind)
		dst = jsonw.Key(dst, "raw")
		if len(b.Raw) == 0 {
			dst = append(dst, "null"...)
		} else {
			dst = append(dst, b.Raw...)
		}
		if b.Unfinished {
			dst = append(dst, `,"unfinished":true`...)
		}
		return append(dst, '}')
	}
	panic(fmt.Sprintf("replay: unknown Block type %T", b))
}

// UnmarshalJSON reads a turn document.
func (t *Turn) UnmarshalJSON(data []byte) error {
	nt, err := UnmarshalTurn(data)
	if err != nil {
		return err
	}
	*t = *nt
	return nil
}

func appendCompaction(dst []byte, b *Compaction) []byte {
	dst = append(dst, `{"type":"compaction"`...)
	if b.Format != "" {
		dst = jsonw.Key(dst, "format")
		dst = jsonw.String(dst, string(b.Format))
	}
	if b.ID != "" {
		dst = jsonw.Key(dst, "id")
		dst = jsonw.String(dst, b.ID)
	}
	dst = appendOptString(dst, "content", b.Content)
	dst = appendOptString(dst, "signature", b.Signature)
	if b.Data != "" {
		dst = jsonw.Key(dst, "data")
		dst = jsonw.String(dst, b.Data)
	}
	if b.Unfinished {
		dst = append(dst, `,"unfinished":true`...)
	}
	dst = appendExtra(dst, b.Extra, compactionNames)
	return append(dst, '}')
}

var transformationNames = []string{"type", "reason", "path", "extra"}

func appendTransformation(dst []byte, x Transformation) []byte {
	dst = append(dst, `{"type":`...)
	dst = jsonw.String(dst, x.Type)
	for _, kv := range [...]struct{ k, v string }{{"reason", x.Reason}, {"path", x.Path}} {
		if kv.v != "" {
			dst = jsonw.Key(dst, kv.k)
			dst = jsonw.String(dst, kv.v)
		}
	}
	dst = appendExtra(dst, x.Extra, transformationNames)
	return append(dst, '}')
}
