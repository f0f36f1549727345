package gemini

import (
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/engine"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/stream"
)

// NewFrameDecoder returns a fresh stream decoder seeded with the codec's
// Provider, Candidate and Limits.
func (c Codec) NewFrameDecoder() codecs.FrameDecoder {
	return &StreamDecoder{Provider: c.Provider, Candidate: c.Candidate, Limits: c.Limits}
}

// StreamDecoder decodes a streamGenerateContent stream (SSE with alt=sse, or
// one response per JSONL line). Its zero value is ready to use. Create one
// per stream, with [Codec.NewFrameDecoder] or directly.
type StreamDecoder struct {
	// Provider, Candidate and Limits are as in [Codec].
	Provider  string
	Candidate int
	Limits    replay.Limits

	run  engine.Run
	r    responder
	perr *replay.ProviderError
	done bool

	// ch is the response being read; fields are its fields, found again
	// in a matched response.
	ch     chunk
	fields []*string
}

// stream is the decoder as the engine drives it (see [engine.Codec]).
type decoder StreamDecoder

// SetLimits replaces the decoder's limits with the non-zero fields of l
// (see [codecs.FrameDecoder].SetLimits). Call it before the first frame.
func (d *StreamDecoder) SetLimits(l replay.Limits) { d.run.SetLimits((*decoder)(d), l) }

// Decode decodes one stream event: a whole GenerateContentResponse.
func (d *StreamDecoder) Decode(typ, data []byte, dst []stream.Event) ([]stream.Event, error) {
	return d.run.Decode((*decoder)(d), typ, data, dst)
}

// Finish returns the turn. A stream without a finishReason on its
// candidate returns the partial turn and an error wrapping
// io.ErrUnexpectedEOF.
func (d *StreamDecoder) Finish() (*replay.Turn, error) { return d.run.Finish((*decoder)(d)) }

func (d *decoder) Start(r *engine.Run) {
	r.Budget = kit.NewBudget(API, d.Limits, 0)
	d.r.provider, d.r.candidate = d.Provider, d.Candidate
	d.r.b.bud, d.r.b.run = &r.Budget, r
	d.r.b.emit = true
}

// Full reads a response in full, validated and extracted in one pass, in
// place, and applies it.
func (d *decoder) Full(r *engine.Run, f engine.Frame, text string, dst []stream.Event) ([]stream.Event, error) {
	if text == "" || text == "[DONE]" {
		// Gemini sends no [DONE]; some gateways add one.
		return dst, nil
	}
	var sc jsonw.Scanner
	sc.Reset(text)
	valid, object := d.ch.read(&sc)
	if !valid {
		return dst, r.Malformed("", "expected a JSON GenerateContentResponse")
	}
	if !object {
		return dst, r.Malformed("", "expected a JSON object")
	}
	dst, err := d.apply(dst)
	if err == nil {
		d.learn(text)
	}
	return dst, err
}

// Matched applies a response like the last one read in full: the engine
// has put the fields of d.ch at their places in it.
func (d *decoder) Matched(r *engine.Run, m *engine.Match, dst []stream.Event) ([]stream.Event, error) {
	return d.apply(dst)
}

// apply applies the response in d.ch.
func (d *decoder) apply(dst []stream.Event) ([]stream.Event, error) {
	b := &d.r.b
	b.ev = dst
	defer func() { b.ev = nil }()
	pe, err := d.r.response(&d.ch)
	if err != nil {
		return b.ev, err
	}
	if pe != nil {
		d.perr = pe
		b.unfinished()
		return append(b.ev, stream.Event{Kind: stream.EventError, Block: -1, Err: pe}), pe
	}
	if d.r.finish != "" {
		if err := b.close(); err != nil {
			return b.ev, err
		}
		if !d.done {
			d.done = true
			b.push(stream.Event{Kind: stream.EventDone, Block: -1})
		}
	}
	return b.ev, nil
}

// learn learns the shape of text, a response read in full into d.ch and
// applied without error, so that the next response like it is read by
// matching. Its holes are the text of each text part (text to append,
// whatever the value; the first is decoded as it is matched) and, as many
// as there is room for, the counts of usageMetadata (kept verbatim, by the
// same code either way); the counts of the prompt, which do not change
// during a response, come last. Nothing that decides what a part is (its
// members, the thought flag, a signature, an index or a finishReason) is a
// hole.
func (d *decoder) learn(text string) {
	ch := &d.ch
	var buf [jsonw.MaxHoles]string
	holes := buf[:0]
	for i := range ch.parts {
		if f := &ch.parts[i]; f.fc == "" && isString(f.text) {
			if len(holes) == jsonw.MaxHoles {
				return
			}
			holes = append(holes, f.text)
		}
	}
	value := min(len(holes), 1) - 1 // the first text, if any
	holes = usageCounts(ch.usage, holes)
	if d.fields == nil {
		d.fields = make([]*string, 0, 16)
	}
	d.fields = ch.fields(d.fields[:0])
	d.run.Learn(text, holes, value, d.fields)
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

// End ends the stream.
func (d *decoder) End(r *engine.Run) (*replay.Turn, error) {
	t := &replay.Turn{Provenance: replay.Provenance{API: API}}
	b := &d.r.b
	if r.Err() == nil && d.done {
		if err := b.close(); err != nil {
			r.Fail(err)
		}
	}
	if r.Err() != nil || !d.done {
		b.unfinished()
	}
	d.r.finishTurn(t)
	switch {
	case d.perr != nil:
		t.Error = d.perr
		return t, d.perr
	case r.Err() != nil:
		return t, r.Err()
	case !d.done:
		return t, kit.EndedBefore(API, r.Events(), "a finishReason")
	}
	t.Complete = true
	return t, nil
}
