package gemini

import (
	"fmt"
	"unsafe"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/internal/shapeview"
)

// NewStream returns a fresh stream decoder seeded with the codec's
// Provider, Candidate and Limits.
func (c Codec) NewStream() replay.FrameDecoder {
	return &StreamDecoder{Provider: c.Provider, Candidate: c.Candidate, Limits: c.Limits}
}

// StreamDecoder decodes a streamGenerateContent stream (SSE with alt=sse, or
// one response per JSONL line). Its zero value is ready to use. Create one
// per stream, with [Codec.NewStream] or directly.
type StreamDecoder struct {
	// Provider, Candidate and Limits are as in [Codec].
	Provider  string
	Candidate int
	Limits    replay.Limits

	r        responder
	started  bool
	n        int
	err      error
	perr     *replay.ProviderError
	done     bool
	finished bool

	// ch is the response being read. shape is the last one read in full,
	// views where the fields of ch lie in it (fields, the fields of ch):
	// a next response like it is read by matching.
	ch      chunk
	shape   jsonw.Shape
	views   shapeview.Views
	fields  []*string
	matched int // responses read by matching, for the tests
	// textHole is 1 + the hole of the first text part's text, 0 for
	// none: its value is decoded while matching (see [builder.grow]).
	textHole int
}

// start seeds the decoder from its fields, once.
func (d *StreamDecoder) start() {
	if !d.started {
		d.started = true
		d.r.provider, d.r.candidate = d.Provider, d.Candidate
		d.r.b.bud = kit.NewBudget(API, d.Limits, 0)
		d.r.b.emit = true
	}
}

// SetLimits replaces the decoder's limits with the non-zero fields of l
// (see [replay.FrameDecoder].SetLimits). Call it before the first frame.
func (d *StreamDecoder) SetLimits(l replay.Limits) {
	d.start()
	d.r.b.bud.Override(l)
}

// Decode decodes one stream event: a whole GenerateContentResponse.
func (d *StreamDecoder) Decode(f replay.Frame, dst []replay.Event) ([]replay.Event, error) {
	if d.err != nil {
		return dst, d.err
	}
	d.start()
	n := d.n
	d.n++
	b := &d.r.b
	b.bud.Event = n
	b.ev = dst
	defer func() { b.ev, b.decRaw = nil, "" }()
	data := f.Data
	if t := trimSpace(data); len(t) == 0 || string(t) == "[DONE]" {
		// Gemini sends no [DONE]; some gateways add one.
		return dst, nil
	}
	// Read in place, validated and extracted in one pass; a response like
	// the last one read in full is read by matching its shape instead,
	// into the same chunk (see [jsonw.Shape]).
	text := view(data)
	ch := &d.ch
	var raws [jsonw.MaxHoles]string
	var matched bool
	b.dec, matched = d.shape.MatchValue(text, raws[:], d.textHole-1, b.dec[:0])
	if matched {
		d.matched++
		if h := d.textHole - 1; h >= 0 && !d.shape.Surrogate(h) {
			b.decRaw = raws[h]
		}
		d.views.Find(text, raws[:], d.fields)
	} else {
		d.shape.Forget()
		var sc jsonw.Scanner
		sc.Reset(text)
		valid, object := ch.read(&sc)
		if !valid {
			d.err = replay.Malformed(API, n, "", "expected a JSON GenerateContentResponse")
			return dst, d.err
		}
		if !object {
			d.err = replay.Malformed(API, n, "", "expected a JSON object")
			return dst, d.err
		}
	}
	pe, err := d.r.response(ch)
	if err != nil {
		d.err = err
		return b.ev, err
	}
	if pe != nil {
		d.perr = pe
		d.err = pe
		b.unfinished()
		ev := append(b.ev, replay.Event{Kind: replay.EventError, Block: -1, Err: pe})
		return ev, pe
	}
	if d.r.finish != "" {
		if err := b.close(); err != nil {
			d.err = err
			return b.ev, err
		}
		if !d.done {
			d.done = true
			b.push(replay.Event{Kind: replay.EventDone, Block: -1})
		}
	}
	if !matched {
		d.learn(text)
	}
	return b.ev, nil
}

// learn learns the shape of text, a response read in full into d.ch and
// applied without error, so that the next response like it is read by
// matching. Its holes are the text of each text part (text to append,
// whatever the value) and, as many as there is room for, the counts of
// usageMetadata (kept verbatim, by the same code either way); the counts
// of the prompt, which do not change during a response, come last.
// Nothing that decides what a part is (its members, the thought flag, a
// signature, an index or a finishReason) is a hole.
func (d *StreamDecoder) learn(text string) {
	ch := &d.ch
	var buf [jsonw.MaxHoles]string
	holes := buf[:0]
	first := ""
	for i := range ch.parts {
		if f := &ch.parts[i]; f.fc == "" && isString(f.text) {
			if len(holes) == jsonw.MaxHoles {
				return
			}
			if len(holes) == 0 {
				first = f.text
			}
			holes = append(holes, f.text)
		}
	}
	holes = usageCounts(ch.usage, holes)
	shapeview.Order(holes)
	d.textHole = 0
	for h, x := range holes {
		if first != "" && len(x) == len(first) && unsafe.StringData(x) == unsafe.StringData(first) {
			d.textHole = h + 1
		}
	}
	if d.fields == nil {
		d.fields = make([]*string, 0, 16)
	}
	d.fields = ch.fields(d.fields[:0])
	if !d.shape.Learn(text, holes) || !d.views.Learn(text, holes, d.fields) {
		d.shape.Forget()
	}
}

// promptCounts are the usageMetadata counts of the prompt: the same in
// every event of a response.
var promptCounts = [...]string{"promptTokenCount", "cachedContentTokenCount", "toolUsePromptTokenCount"}

// usageCounts appends to holes, up to jsonw.MaxHoles, the number members
// of the usageMetadata object usage (valid JSON): the counts of the
// output first, then those of the prompt.
func usageCounts(usage string, holes []string) []string {
	if !isObject(usage) {
		return holes
	}
	for pass := 0; pass < 2; pass++ {
		var sc jsonw.Scanner
		sc.Reset(usage)
		var o jsonw.Object
		sc.Object(&o)
		for name, ok := sc.Member(&o); ok && len(holes) < jsonw.MaxHoles; name, ok = sc.Member(&o) {
			prompt := false
			for _, p := range promptCounts {
				prompt = prompt || name == p
			}
			if prompt != (pass == 1) {
				continue
			}
			if v := sc.Value(); len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
				holes = append(holes, v)
			}
		}
	}
	return holes
}

// Finish returns the turn. A stream without a finishReason on its
// candidate returns the partial turn and an error wrapping
// io.ErrUnexpectedEOF.
func (d *StreamDecoder) Finish() (*replay.Turn, error) {
	if d.finished {
		return nil, fmt.Errorf("replay: %s: Finish called twice", API)
	}
	d.finished = true
	t := &replay.Turn{Provenance: replay.Provenance{API: API}}
	b := &d.r.b
	if d.err == nil && d.done {
		if err := b.close(); err != nil {
			d.err = err
		}
	}
	if d.err != nil || !d.done {
		b.unfinished()
	}
	d.r.finishTurn(t)
	switch {
	case d.perr != nil:
		t.Error = d.perr
		return t, d.perr
	case d.err != nil:
		return t, d.err
	case !d.done:
		return t, kit.EndedBefore(API, d.n, "a finishReason")
	}
	t.Complete = true
	return t, nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
