package gemini

import (
	"fmt"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
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
	defer func() { b.ev = nil }()
	data := f.Data
	if t := trimSpace(data); len(t) == 0 || string(t) == "[DONE]" {
		// Gemini sends no [DONE]; some gateways add one.
		return dst, nil
	}
	if !jsonw.ValidBytes(data) {
		d.err = replay.Malformed(API, n, "", "expected a JSON GenerateContentResponse")
		return dst, d.err
	}
	root := view(data)
	if !isObject(root[skipSpace(root, 0):]) {
		d.err = replay.Malformed(API, n, "", "expected a JSON object")
		return dst, d.err
	}
	pe, err := d.r.response(root)
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
	return b.ev, nil
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
