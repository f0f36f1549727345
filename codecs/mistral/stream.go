package mistral

import (
	"bytes"
	"encoding/json"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/chatstream"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/stream"
	"github.com/tidwall/gjson"
)

// NewFrameDecoder returns a decoder for chat.completion.chunk streams.
func (c Codec) NewFrameDecoder() codecs.FrameDecoder {
	return &StreamDecoder{Provider: c.Provider, Limits: c.Limits}
}

// StreamDecoder is the Mistral stream decoder. The zero value is ready to
// use; Provider and Limits play the roles of the [Codec] fields. It
// implements [codecs.FrameDecoder].
//
// Consecutive thinking chunks form one reasoning item, which ends as soon
// as another block opens; text between two thinking runs splits them.
// Chunks of other types are kept verbatim. `[DONE]` is accepted and
// ignored: the stream is complete at a finish_reason, and a chunk after it
// is malformed.
type StreamDecoder struct {
	// Provider is recorded in the turn's provenance; "" means "mistral".
	Provider string
	// Limits bound what the decoder keeps; zero fields take defaults.
	Limits replay.Limits

	host    chatstream.Host
	core    *chatstream.Decoder
	scratch []byte
	parts   []string // the text parts of the thinking chunk being read, views of the frame
}

func (s *StreamDecoder) dec() *chatstream.Decoder {
	if s.core == nil {
		s.host = chatstream.Host{API: API, Provider: Codec{Provider: s.Provider}.provider(),
			Error: chunkError, Keys: deltaKeys, Delta: s.delta, NoCallExtra: true, DoneIgnored: true,
			RejectAfterFinish: true, EndOnSwitch: true}
		s.core = chatstream.New(&s.host, s.Limits, 0)
	}
	return s.core
}

// SetLimits implements [codecs.FrameDecoder].
func (s *StreamDecoder) SetLimits(lim replay.Limits) { s.dec().SetLimits(lim) }

// Decode implements [codecs.FrameDecoder].
func (s *StreamDecoder) Decode(typ, data []byte, dst []stream.Event) ([]stream.Event, error) {
	return s.dec().Decode(typ, data, dst)
}

// Finish implements [codecs.FrameDecoder].
func (s *StreamDecoder) Finish() (*replay.Turn, error) { return s.dec().Finish() }

func chunkError(c chatstream.Chunk) *replay.ProviderError {
	if !(len(c.Error) > 0 && c.Error[0] == '{') && !jsonw.StringEquals(c.Object, "error") {
		return nil
	}
	return providerError(gjson.Parse(c.Raw))
}

var deltaKeys = []string{"content"}

// delta reads the content of a delta (dv holds the values of deltaKeys): a
// string, or an array of chunks. String values are read raw and unquoted
// straight into the builders, so that an escaped delta costs no
// allocation.
func (s *StreamDecoder) delta(d *chatstream.Decoder, dv []string, ptr string, dst []stream.Event) ([]stream.Event, error) {
	switch raw := dv[0]; {
	case raw == "" || raw == "null":
		return dst, nil
	case raw[0] == '"':
		return d.TextRaw(raw, dst)
	case raw[0] == '[':
		var err error
		var cv [3]string // in chunkKeys order
		for ch, pos, ok := jsonw.NextMembers(raw, 0, chunkKeys, cv[:]); ok; ch, pos, ok = jsonw.NextMembers(raw, pos, chunkKeys, cv[:]) {
			if dst, err = s.contentChunk(d, ch, &cv, ptr, dst); err != nil {
				return dst, err
			}
		}
		return dst, nil
	}
	return dst, d.Malformed(ptr+"/content", "expected a string, an array or null")
}

var chunkKeys = []string{"type", "text", "thinking"}

// contentChunk reads one chunk of the content array of the delta at ptr
// (the pointer is built only for an error); cv holds its members in
// chunkKeys order.
func (s *StreamDecoder) contentChunk(d *chatstream.Decoder, ch string, cv *[3]string, ptr string, dst []stream.Event) ([]stream.Event, error) {
	if ch[0] == '"' {
		return d.TextRaw(ch, dst)
	}
	if ch[0] != '{' {
		return dst, d.Malformed(ptr+"/content", "expected chunk objects")
	}
	switch {
	case jsonw.StringEquals(cv[0], "text"):
		if !isString(cv[1]) {
			return dst, d.Malformed(ptr+"/content", "expected a string text")
		}
		return d.TextRaw(cv[1], dst)
	case jsonw.StringEquals(cv[0], "thinking"):
		th := cv[2]
		if th == "" || (th[0] != '[' && th[0] != '"') {
			return dst, d.Malformed(ptr+"/content", "expected thinking to be an array")
		}
		if s.textParts(th) {
			return s.thinking(d, ch, th, ptr, dst)
		}
	}
	// Another chunk type (or thinking that is not all text): kept verbatim
	// as its own block.
	kind := jsonw.Unquote(cv[0])
	if kind == "" {
		kind = "chunk"
	}
	pos := len(d.Turn().Blocks)
	if err := d.Budget().Item(pos, len(ch), len(ch)+len(kind)); err != nil {
		return dst, err
	}
	_, dst, err := d.Open(&replay.Native{Kind: kind, Raw: json.RawMessage(ch)}, dst)
	return dst, err
}

// textParts reports whether thinking (a string, or an array) holds only
// text parts with string text, and keeps the texts of an array in s.parts.
func (s *StreamDecoder) textParts(th string) bool {
	s.parts = s.parts[:0]
	if th[0] == '"' {
		return true
	}
	var pv [2]string
	for _, pos, ok := jsonw.NextMembers(th, 0, partKeys, pv[:]); ok; _, pos, ok = jsonw.NextMembers(th, pos, partKeys, pv[:]) {
		if !jsonw.StringEquals(pv[0], "text") || !isString(pv[1]) {
			return false
		}
		s.parts = append(s.parts, pv[1])
	}
	return true
}

var partKeys = []string{"type", "text"}

// thinking appends a thinking chunk's text parts (s.parts, or th when it
// is a string) to the open reasoning item, opening one when needed.
func (s *StreamDecoder) thinking(d *chatstream.Decoder, ch, th, ptr string, dst []stream.Event) ([]stream.Event, error) {
	st := d.Last(0)
	var err error
	if st == nil {
		it := &replay.ReasoningText{}
		it.Format = formats.Mistral
		if st, dst, err = d.NewItem(it, 0, dst); err != nil {
			return dst, err
		}
	}
	if err := s.setExtra(d, st, ch); err != nil {
		return dst, err
	}
	loc := chatstream.Loc{Base: ptr, Member: "content"}
	if th[0] == '"' {
		return d.AppendRaw(st, th, loc, true, dst)
	}
	for _, p := range s.parts {
		if dst, err = d.AppendRaw(st, p, loc, true, dst); err != nil {
			return dst, err
		}
	}
	clear(s.parts)
	return dst, nil
}

// setExtra keeps the thinking chunk's other members (`closed`) on the item,
// allocating only when they change.
func (s *StreamDecoder) setExtra(d *chatstream.Decoder, st *chatstream.Item, ch string) error {
	buf := jsonw.AppendExtraMembers(s.scratch[:0], ch, "type", "thinking")
	s.scratch = buf
	m := st.It.Meta()
	if bytes.Equal(buf, m.Extra) {
		return nil
	}
	if len(buf) == 0 {
		m.Extra = nil
		return nil
	}
	if err := d.Budget().Item(st.Block, len(buf), len(buf)); err != nil {
		return err
	}
	m.Extra = json.RawMessage(append([]byte(nil), buf...))
	return nil
}

func isString(raw string) bool { return len(raw) >= 2 && raw[0] == '"' }
