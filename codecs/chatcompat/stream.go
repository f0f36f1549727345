package chatcompat

import (
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/chatstream"
	"github.com/reasonreplay/replay/internal/gemsig"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/view"
	"github.com/reasonreplay/replay/stream"
	"github.com/reasonreplay/replay/think"
	"github.com/tidwall/gjson"
)

// StreamDecoder decodes a chat completion stream, one SSE data payload (or
// JSONL line) at a time. The zero value decodes with the generic profile;
// it implements [codecs.FrameDecoder].
type StreamDecoder struct {
	// API is the API name used in errors and provenance
	// ("openai-compatible" when empty).
	API string
	// Profile holds the host's rules.
	Profile Profile
	// Limits bound what the decoder keeps; zero fields take defaults.
	Limits replay.Limits

	r *reader
}

// SetLimits implements [codecs.FrameDecoder].
func (d *StreamDecoder) SetLimits(lim replay.Limits) { d.dec().core.SetLimits(lim) }

// Decode implements [codecs.FrameDecoder].
func (d *StreamDecoder) Decode(typ, data []byte, dst []stream.Event) ([]stream.Event, error) {
	return d.dec().core.Decode(typ, data, dst)
}

// Finish implements [codecs.FrameDecoder].
func (d *StreamDecoder) Finish() (*replay.Turn, error) { return d.dec().core.Finish() }

func (d *StreamDecoder) dec() *reader {
	if d.r == nil {
		d.r = newReader(d.API, d.Profile, d.Limits, 0)
	}
	return d.r
}

// Item labels: where a reasoning item came from.
const (
	labelNative = iota // a native reasoning field
	labelTag           // <think> tags in content
)

// reader is the host side of one message's decoding: the profile's
// reasoning fields, content split by package think, and Gemini signatures
// on tool calls. A body, a request message and a stream each get one.
type reader struct {
	profile Profile
	host    chatstream.Host
	core    *chatstream.Decoder

	split     *think.Splitter // made at the first content
	segs      []think.Segment
	native    bool // the message has native reasoning
	contentHi rune // a surrogate half held at the end of content
	scratch   strings.Builder
	events    []stream.Event // the events of a whole message, which no one reads
	unq       []byte         // a request message's content, decoded
}

// newReader returns the reader for api and profile; event is 0 for a
// stream, -1 for a body or a request message.
func newReader(api string, p Profile, lim replay.Limits, event int) *reader {
	if api == "" {
		api = APIGeneric
	}
	if p.Name == "" {
		p = generic
	}
	r := &reader{profile: p}
	r.host = chatstream.Host{API: api, Provider: p.Provider, Error: r.chunkError,
		Keys: deltaKeys, Delta: r.delta, Content: r.content, Call: r.call, Flush: r.flush}
	r.core = chatstream.New(&r.host, lim, event)
	return r
}

func (r *reader) chunkError(c chatstream.Chunk) *replay.ProviderError {
	if c.Error == "" || c.Error == "null" {
		return nil
	}
	return providerError(r.host.API, gjson.Parse(c.Error))
}

var (
	deltaKeys = []string{"reasoning_details", "reasoning_content", "reasoning", "content"}
	textKeys  = []string{"type", "text"}
)

// delta reads the reasoning and content of one delta (or a whole message):
// dv holds the values of deltaKeys. One native reasoning field per chunk:
// mirrored text counts once.
func (r *reader) delta(d *chatstream.Decoder, dv []string, ptr string, dst []stream.Event) ([]stream.Event, error) {
	dst, read, err := r.details(dv[0], dst)
	if err != nil {
		return dst, err
	}
	if !read {
		for i, f := range dv[1:3] {
			if isString(f) && len(f) > 2 {
				if dst, err = r.nativeRaw(f, chatstream.Loc{Base: ptr, Member: deltaKeys[1+i]}, dst); err != nil {
					return dst, err
				}
				break
			}
		}
	}
	switch c := dv[3]; {
	case isString(c):
		return d.Content(c, dst)
	case c != "" && c != "null":
		return dst, d.Malformed(ptr+"/content", "expected a string or null (content arrays are not read by this codec)")
	}
	return dst, nil
}

// details reads the text items of reasoning_details (MiniMax), which may
// be cumulative: a fragment that extends the text so far (8 bytes or more)
// adds only its new suffix.
func (r *reader) details(rd string, dst []stream.Event) ([]stream.Event, bool, error) {
	read := false
	var err error
	var dv [2]string
	for _, pos, ok := jsonw.NextMembers(rd, 0, textKeys, dv[:]); ok; _, pos, ok = jsonw.NextMembers(rd, pos, textKeys, dv[:]) {
		if !jsonw.StringEquals(dv[0], string(replay.KindText)) {
			continue
		}
		t := dv[1]
		if !isString(t) || len(t) <= 2 {
			continue
		}
		read = true
		var st *chatstream.Item
		if st, dst, err = r.nativeItem(dst); err != nil {
			return dst, read, err
		}
		s := jsonw.Unquote(t)
		if have := st.Len(); have >= 8 && len(s) > have && strings.HasPrefix(s, st.String()) {
			s = s[have:]
		}
		if dst, err = r.core.AppendString(st, s, dst); err != nil {
			return dst, read, err
		}
	}
	return dst, read, nil
}

// nativeItem returns the open native reasoning item, opening one when
// needed; the first native reasoning releases tags held in content.
func (r *reader) nativeItem(dst []stream.Event) (*chatstream.Item, []stream.Event, error) {
	if !r.native {
		r.native = true
		// a host that parses reasoning does not pre-open tags in content
		r.segs = r.segs[:0]
		if r.split != nil {
			r.segs = r.split.Release(r.segs)
		}
		var err error
		if dst, err = r.segments(dst); err != nil {
			return nil, dst, err
		}
	}
	if st := r.core.Last(labelNative); st != nil {
		return st, dst, nil
	}
	return r.newItem(labelNative, dst)
}

func (r *reader) newItem(label int, dst []stream.Event) (*chatstream.Item, []stream.Event, error) {
	al := r.core.Alloc() // nil but for a request: then each value is its own
	it := al.ReasoningText()
	it.Format = r.profile.Format
	if label == labelTag {
		if al != nil {
			it.Extra = al.CloneBytes(sourceContent)
		} else {
			it.Extra = []byte(sourceContent)
		}
	}
	return r.core.NewItem(it, label, dst)
}

// sourceContent is the Extra of an item read from <think> tags in content.
const sourceContent = `{"source":"content"}`

func (r *reader) nativeRaw(raw string, loc chatstream.Loc, dst []stream.Event) ([]stream.Event, error) {
	st, dst, err := r.nativeItem(dst)
	if err != nil {
		return dst, err
	}
	return r.core.AppendRaw(st, raw, loc, true, dst)
}

// content feeds the JSON string raw to the <think> splitter.
func (r *reader) content(_ *chatstream.Decoder, raw string, dst []stream.Event) ([]stream.Event, error) {
	if len(raw) <= 2 {
		return dst, nil
	}
	s := raw[1 : len(raw)-1]
	switch {
	case strings.IndexByte(s, '\\') < 0 && r.contentHi == 0:
	case r.contentHi == 0 && r.core.Alloc() != nil && !jsonw.SurrogateEscape(raw):
		// a request's message: its content is decoded into a buffer the
		// next message reuses (the splitter copies what it holds, and the
		// core what it keeps), the same bytes as below
		r.unq, _ = jsonw.AppendUnquoted(r.unq[:0], raw)
		s = view.String(r.unq)
	default:
		r.scratch.Reset()
		jsonw.WriteUnquotedJoin(&r.scratch, raw, &r.contentHi)
		s = r.scratch.String()
	}
	if s == "" {
		return dst, nil
	}
	if r.split == nil {
		r.split = &think.Splitter{}
		if sp, err := think.New(think.Options{Start: r.profile.Start}); err == nil {
			r.split = sp
		}
	}
	r.segs = r.split.WriteString(r.segs[:0], s)
	return r.segments(dst)
}

// segments turns the splitter's output into blocks.
func (r *reader) segments(dst []stream.Event) ([]stream.Event, error) {
	var err error
	for _, sg := range r.segs {
		s := view.String(sg.Text) // copied by the core
		if !sg.Reasoning {
			if dst, err = r.core.Text(s, dst); err != nil {
				return dst, err
			}
			continue
		}
		if r.native {
			continue // native reasoning is authoritative
		}
		st := r.core.Last(labelTag)
		if st == nil {
			if st, dst, err = r.newItem(labelTag, dst); err != nil {
				return dst, err
			}
		}
		if dst, err = r.core.AppendString(st, s, dst); err != nil {
			return dst, err
		}
	}
	r.segs = r.segs[:0]
	return dst, nil
}

// flush writes out what content holds when the message ends: a held
// surrogate half (U+FFFD) and the splitter's tail.
func (r *reader) flush(_ *chatstream.Decoder, dst []stream.Event) ([]stream.Event, error) {
	r.segs = r.segs[:0]
	if r.split == nil {
		return dst, nil // no content: nothing held
	}
	if r.contentHi != 0 {
		r.contentHi = 0
		r.segs = r.split.WriteString(r.segs, "\uFFFD")
	}
	r.segs = r.split.Close(r.segs)
	return r.segments(dst)
}

var toolCallKnown = []string{"index", "id", "type", "function"}

// call reads a new tool call's Gemini thought signature (OpenAI
// compatibility: extra_content.google.thought_signature, or Vertex AI's
// extra_content.vertex.thought_signature) into a bound signature item
// placed before the call, and returns the call's other members.
func (r *reader) call(d *chatstream.Decoder, raw string, loc chatstream.Loc, dst []stream.Event) ([]byte, []stream.Event, error) {
	tc := gjson.Parse(raw)
	sig, at, ok, err := gemsig.ReadExtra(tc)
	if err != nil {
		return nil, dst, d.Malformed(loc.String()+at.Pointer(), "%v", err)
	}
	if !ok {
		key, dst, err := d.BindRawSignature(raw, loc, dst)
		if err != nil || key == "" {
			return jsonw.ExtraMembers(raw, toolCallKnown...), dst, err
		}
		return jsonw.ExtraMembers(raw, append(toolCallKnown[:len(toolCallKnown):len(toolCallKnown)], key)...), dst, nil
	}
	if err := d.Exact(tc.Get(at.Path()).Raw, loc.With(at.Pointer()[1:]), "a thought signature"); err != nil {
		return nil, dst, err
	}
	stripped, err := gemsig.Strip([]byte(raw))
	if err != nil {
		return nil, dst, d.Malformed(loc.String(), "%v", err)
	}
	pos := len(d.Turn().Blocks)
	id, err := d.Keep(pos, tc.Get("id").Str)
	if err != nil {
		return nil, dst, err
	}
	if sig, err = d.Keep(pos, sig); err != nil {
		return nil, dst, err
	}
	it := gemsig.ItemAt(sig, id, at)
	if pos, dst, err = d.Open(it, dst); err != nil {
		return nil, dst, err
	}
	dst = append(dst, stream.Event{Kind: stream.EventReasoningStart, Block: pos, Item: it},
		stream.Event{Kind: stream.EventReasoningEnd, Block: pos, Item: it})
	return jsonw.ExtraMembers(string(stripped), toolCallKnown...), dst, nil
}

func isString(raw string) bool { return len(raw) >= 2 && raw[0] == '"' }
