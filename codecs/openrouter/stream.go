package openrouter

import (
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/chatstream"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/stream"
	"github.com/tidwall/gjson"
)

// StreamDecoder decodes an OpenRouter chat completion stream, one SSE data
// payload at a time. The zero value is ready to use; it implements
// [codecs.FrameDecoder].
//
// reasoning_details fragments are merged into whole items: a fragment joins
// the most recent item of the same type when their `index` agrees and their
// ids do not conflict (an index alone is not unique: OpenAI upstreams send a
// summary and an encrypted item both at index 0). Text, summary, signature
// and data pieces are appended. The plain `delta.reasoning` string is read
// only when a chunk has no reasoning_details, so reasoning mirrored in both
// counts once, while a token repeated in consecutive chunks is kept.
// Unknown detail types are kept verbatim, one item per fragment. Unknown
// members of a detail are kept from the fragment that opened the item.
type StreamDecoder struct {
	// Limits bound what the decoder keeps; zero fields take defaults.
	Limits replay.Limits
	// Provider, when set, is recorded as the turn's provider instead of
	// "openrouter".
	Provider string

	core *chatstream.Decoder
}

// defaultHost is the host of every decoder whose Provider is unset: one
// value shared, not one per decoder.
var defaultHost = newHost("")

// Item labels: the kind of reasoning_details fragment an item was built
// from.
const (
	labelText = iota
	labelSummary
	labelEncrypted
	labelPlain // the plain `reasoning` / `reasoning_content` string
	labelOther // an unknown detail type, kept verbatim
)

func (d *StreamDecoder) dec() *chatstream.Decoder {
	if d.core == nil {
		host := &defaultHost
		if d.Provider != "" {
			h := newHost(d.Provider)
			host = &h
		}
		d.core = chatstream.New(host, d.Limits, 0)
	}
	return d.core
}

func newHost(provider string) chatstream.Host {
	if provider == "" {
		provider = "openrouter"
	}
	return chatstream.Host{API: API, Provider: provider, Upstream: true, FinishError: true,
		Error: chunkError, Keys: deltaKeys, Delta: readDelta, Call: readCall}
}

// readCall binds a Gemini thought signature that a gateway put directly on
// a new tool call (`thoughtSignature` / `thought_signature`) as a signature
// item before the call, and returns the call's other members.
func readCall(d *chatstream.Decoder, raw string, loc chatstream.Loc, dst []stream.Event) ([]byte, []stream.Event, error) {
	key, dst, err := d.BindRawSignature(raw, loc, dst)
	if err != nil || key == "" {
		return jsonw.ExtraMembers(raw, toolCallKnown...), dst, err
	}
	return jsonw.ExtraMembers(raw, append(toolCallKnown[:len(toolCallKnown):len(toolCallKnown)], key)...), dst, nil
}

// SetLimits implements [codecs.FrameDecoder].
func (d *StreamDecoder) SetLimits(lim replay.Limits) { d.dec().SetLimits(lim) }

// Decode implements [codecs.FrameDecoder].
func (d *StreamDecoder) Decode(typ, data []byte, dst []stream.Event) ([]stream.Event, error) {
	return d.dec().Decode(typ, data, dst)
}

// Finish implements [codecs.FrameDecoder].
func (d *StreamDecoder) Finish() (*replay.Turn, error) { return d.dec().Finish() }

func chunkError(c chatstream.Chunk) *replay.ProviderError {
	if c.Error == "" || c.Error == "null" {
		return nil
	}
	return providerError(gjson.Parse(c.Error), jsonw.Unquote(c.Provider))
}

var (
	deltaKeys = []string{"reasoning_details", "reasoning", "reasoning_content", "content"}
	// detailKnown: the members of a detail the decoder reads itself; the
	// order is the order of the values in detail.
	detailKnown = []string{"type", "text", "summary", "data", "signature", "id", "format", "index"}
)

// readDelta reads reasoning_details (else the plain reasoning string) and a
// string content of one delta: dv holds the values of deltaKeys.
func readDelta(d *chatstream.Decoder, dv []string, ptr string, dst []stream.Event) ([]stream.Event, error) {
	var err error
	k := 0
	var vals [8]string // in detailKnown order
	for det, pos, ok := jsonw.NextMembers(dv[0], 0, detailKnown, vals[:]); ok; det, pos, ok = jsonw.NextMembers(dv[0], pos, detailKnown, vals[:]) {
		if dst, err = detail(d, det, &vals, chatstream.Loc{Base: ptr, List: "reasoning_details", K: k}, dst); err != nil {
			return dst, err
		}
		k++
	}
	if k > 0 {
		// the plain strings mirror the details: read, not kept
		for _, r := range dv[1:3] {
			if isString(r) {
				d.Ignore(r)
			}
		}
	} else {
		r, member := dv[1], "reasoning"
		if !isString(r) || len(r) <= 2 {
			r, member = dv[2], "reasoning_content"
		}
		if isString(r) && len(r) > 2 {
			st := d.Last(labelPlain)
			if st == nil {
				if st, dst, err = d.NewItem(&replay.ReasoningText{}, labelPlain, dst); err != nil {
					return dst, err
				}
			}
			if dst, err = d.AppendRaw(st, r, chatstream.Loc{Base: ptr, Member: member}, true, dst); err != nil {
				return dst, err
			}
		}
	}
	if c := dv[3]; isString(c) {
		return d.TextRaw(c, dst)
	}
	return dst, nil
}

// detail merges one reasoning_details fragment (raw JSON, a view of the
// frame: nothing of it is kept without a copy) located at ptr; dv holds
// its members in detailKnown order.
func detail(d *chatstream.Decoder, det string, dv *[8]string, loc chatstream.Loc, dst []stream.Event) ([]stream.Event, error) {
	if det[0] != '{' {
		return dst, d.Malformed(loc.String(), "expected a reasoning detail object")
	}
	typ := dv[0]
	if !isString(typ) {
		return dst, d.Malformed(loc.String()+"/type", "expected a string type")
	}
	var label int
	switch {
	case jsonw.StringEquals(typ, string(replay.KindText)):
		label = labelText
	case jsonw.StringEquals(typ, string(replay.KindSummary)):
		label = labelSummary
	case jsonw.StringEquals(typ, string(replay.KindEncrypted)):
		label = labelEncrypted
	default:
		return otherDetail(d, det, loc.String(), dst)
	}
	index, id, err := detailPlace(d, dv[7], dv[5], loc)
	if err != nil {
		return dst, err
	}
	st := find(d, label, index, id)
	if st == nil {
		if st, dst, err = openDetail(d, det, label, index, id, dst); err != nil {
			return dst, err
		}
	} else if m := st.It.Meta(); !m.ID.IsPresent() && id.IsPresent() {
		if m.ID, err = keepOpt(d, st.Block, id); err != nil {
			return dst, err
		}
	}
	if err := d.Exact(dv[6], loc.With("format"), "a format"); err != nil {
		return dst, err
	}
	if m := st.It.Meta(); isString(dv[6]) && m.Format == "" {
		f, err := d.Budget().Keep(st.Block, jsonw.UnquoteView(dv[6]))
		if err != nil {
			return dst, err
		}
		m.Format = replay.Format(f)
	}
	field, body := "text", dv[1]
	switch label {
	case labelSummary:
		field, body = "summary", dv[2]
	case labelEncrypted:
		field, body = "data", dv[3]
	}
	switch {
	case isString(body):
		if len(body) > 2 {
			if dst, err = d.AppendRaw(st, body, loc.With(field), label != labelEncrypted, dst); err != nil {
				return dst, err
			}
		}
	case body != "" && body != "null":
		return dst, d.Malformed(loc.String()+"/"+field, "expected a string")
	}
	if label == labelText {
		return dst, signature(d, st, dv[4], loc)
	}
	return dst, nil
}

// otherDetail keeps a detail of an unknown type verbatim, as one item.
func otherDetail(d *chatstream.Decoder, det, ptr string, dst []stream.Event) ([]stream.Event, error) {
	if err := d.Budget().Item(len(d.Turn().Blocks), len(det), len(det)); err != nil {
		return dst, err
	}
	it, err := parseDetail(det, ptr)
	if err != nil {
		return dst, withAPI(err)
	}
	st, dst, err := d.NewItem(it, labelOther, dst)
	if err != nil {
		return dst, err
	}
	return d.EndItem(st, dst), nil
}

// detailPlace reads a fragment's index and id (the id a view of the frame).
func detailPlace(d *chatstream.Decoder, ix, idRaw string, loc chatstream.Loc) (replay.Opt[int], replay.Opt[string], error) {
	var index replay.Opt[int]
	switch {
	case ix == "null":
		index = replay.NullOf[int]()
	case ix != "":
		v, err := strconv.Atoi(ix)
		if err != nil {
			return index, replay.Opt[string]{}, d.Malformed(loc.String()+"/index", "expected an integer index")
		}
		index = replay.Some(v)
	}
	var id replay.Opt[string]
	if err := d.Exact(idRaw, loc.With("id"), "an item id"); err != nil {
		return index, id, err
	}
	switch {
	case isString(idRaw):
		id = replay.Some(jsonw.UnquoteView(idRaw))
	case idRaw == "null":
		id = replay.NullOf[string]()
	}
	return index, id, nil
}

// openDetail opens the item a fragment starts.
func openDetail(d *chatstream.Decoder, det string, label int, index replay.Opt[int], id replay.Opt[string], dst []stream.Event) (*chatstream.Item, []stream.Event, error) {
	var it replay.ReasoningItem
	switch label {
	case labelText:
		it = &replay.ReasoningText{}
	case labelSummary:
		it = &replay.Summary{}
	default:
		it = &replay.Encrypted{}
	}
	st, dst, err := d.NewItem(it, label, dst)
	if err != nil {
		return nil, dst, err
	}
	m := it.Meta()
	m.Index = index
	if m.ID, err = keepOpt(d, st.Block, id); err != nil {
		return nil, dst, err
	}
	if extra := jsonw.ExtraMembers(det, detailKnown...); len(extra) > 0 {
		if err := d.Budget().Item(st.Block, len(extra), len(extra)); err != nil {
			return nil, dst, err
		}
		m.Extra = extra
	}
	return st, dst, nil
}

func keepOpt(d *chatstream.Decoder, pos int, id replay.Opt[string]) (replay.Opt[string], error) {
	v, ok := id.Get()
	if !ok {
		return id, nil
	}
	kept, err := d.Budget().Keep(pos, v)
	return replay.Some(kept), err
}

// signature appends a text fragment's signature member.
func signature(d *chatstream.Decoder, st *chatstream.Item, sig string, loc chatstream.Loc) error {
	switch {
	case sig == "":
	case isString(sig):
		return d.AppendSig(st, sig, loc.With("signature"))
	case sig == "null":
		if st.SigP == replay.Absent {
			st.SigP = replay.Null
		}
	default:
		return d.Malformed(loc.String()+"/signature", "expected a string or null")
	}
	return nil
}

// find returns the item a fragment of this label, index and id merges into.
func find(d *chatstream.Decoder, label int, index replay.Opt[int], id replay.Opt[string]) *chatstream.Item {
	items := d.Items()
	for i := len(items) - 1; i >= 0; i-- {
		st := items[i]
		if st.Label != label {
			continue
		}
		m := st.It.Meta()
		if m.Index != index {
			return nil
		}
		if a, ok := m.ID.Get(); ok && a != "" {
			if b, ok := id.Get(); ok && b != "" && a != b {
				return nil
			}
		}
		return st
	}
	return nil
}

func isString(raw string) bool { return len(raw) >= 2 && raw[0] == '"' }
