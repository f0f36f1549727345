package ollama

import (
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/engine"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/stream"
)

// NewFrameDecoder returns a decoder for an /api/chat stream (JSON Lines), seeded
// with the codec's Provider, Model and Limits.
func (c Codec) NewFrameDecoder() codecs.FrameDecoder {
	return &StreamDecoder{Provider: c.Provider, Model: c.Model, Limits: c.Limits}
}

// StreamDecoder decodes an /api/chat stream, one JSON line at a time. The
// zero value is ready to use; Provider, Model and Limits play the roles of
// the [Codec] fields. It implements [codecs.FrameDecoder].
//
// A run of thinking pieces is one reasoning item, a run of content one
// text block (content's <think> tags split out), a tool call one block;
// each ends when a piece of another kind comes. The stream is complete at
// the line with `"done": true`; an `{"error":...}` line ends it with a
// provider error.
type StreamDecoder struct {
	// Provider and Model are recorded in the turn's provenance.
	Provider string
	Model    string
	// Limits bound what the decoder keeps; zero fields take defaults.
	Limits replay.Limits

	run    engine.Run
	turn   replay.Turn
	b      builder
	ev     event
	fields [15]*string // the fields of ev, found again in a matched line
	done   bool
}

// stream is the decoder as the engine drives it (see [engine.Codec]).
type decoder StreamDecoder

// SetLimits implements [codecs.FrameDecoder].
func (d *StreamDecoder) SetLimits(l replay.Limits) { d.run.SetLimits((*decoder)(d), l) }

// Decode implements [codecs.FrameDecoder].
func (d *StreamDecoder) Decode(typ, data []byte, dst []stream.Event) ([]stream.Event, error) {
	return d.run.Decode((*decoder)(d), typ, data, dst)
}

// Finish implements [codecs.FrameDecoder].
func (d *StreamDecoder) Finish() (*replay.Turn, error) { return d.run.Finish((*decoder)(d)) }

func (d *decoder) Start(r *engine.Run) {
	r.Budget = kit.NewBudget(API, d.Limits, 0)
	d.turn.Provenance = replay.Provenance{API: API, Provider: Codec{Provider: d.Provider}.provider(), Model: d.Model}
	d.b = builder{bud: &r.Budget, run: r, turn: &d.turn, emit: true}
}

// Full reads a line in full (validated and read in one pass) and applies
// it; a line that only carries a piece of thinking or content is learned,
// so that the lines like it are read by matching: their holes are that
// piece (decoded as it is matched) and created_at.
func (d *decoder) Full(r *engine.Run, f engine.Frame, s string, dst []stream.Event) ([]stream.Event, error) {
	if s == "" {
		return dst, nil
	}
	if !d.ev.scan(s) {
		return dst, r.Malformed("", "expected a JSON line (a chat response)")
	}
	if !d.ev.object {
		return dst, r.Malformed("", "expected a JSON object (a chat response line)")
	}
	dst, err := d.apply(r, dst)
	if err == nil {
		d.learn(s)
	}
	return dst, err
}

// Matched applies a line like the last one learned: the engine has put
// its fields at their places in it.
func (d *decoder) Matched(r *engine.Run, m *engine.Match, dst []stream.Event) ([]stream.Event, error) {
	return d.apply(r, dst)
}

// learn learns the line s, applied without error, when it is a piece of
// thinking or content and nothing else.
func (d *decoder) learn(s string) {
	ev := &d.ev
	if ev.done != "false" || ev.err != "" || (ev.toolCalls != "" && ev.toolCalls != "null") {
		return
	}
	var buf [3]string
	holes := buf[:0]
	value := -1
	for _, x := range [...]string{ev.thinking, ev.content} {
		if len(x) >= 2 && x[0] == '"' {
			if value < 0 && len(x) > 2 {
				value = len(holes)
			}
			holes = append(holes, x)
		}
	}
	if len(holes) == 0 {
		return
	}
	if c := ev.createdAt; len(c) >= 2 && c[0] == '"' {
		holes = append(holes, c)
	}
	d.fields = ev.fields()
	d.run.Learn(s, holes, value, d.fields[:])
}

// apply applies the line read into d.ev.
func (d *decoder) apply(r *engine.Run, dst []stream.Event) ([]stream.Event, error) {
	ev, b := &d.ev, &d.b
	b.ev = dst
	defer func() { b.ev = nil }()
	if ev.err != "" {
		pe := providerError(ev.err)
		d.turn.Error = pe
		r.Stop()
		return append(b.ev, stream.Event{Kind: stream.EventError, Block: -1, Err: pe}), pe
	}
	if err := b.message(ev, "/message"); err != nil {
		return b.ev, err
	}
	switch ev.done {
	case "", "false":
		return b.ev, nil
	case "true":
	default:
		return b.ev, r.Malformed("/done", "expected true or false")
	}
	if err := b.finish(ev); err != nil {
		return b.ev, err
	}
	d.done = true
	r.Stop() // nothing after the last line changes the turn
	return append(b.ev, stream.Event{Kind: stream.EventDone, Block: -1}), nil
}

// End ends the stream: a stream cut before its last line, or ended by an
// error, leaves its open block unfinished.
func (d *decoder) End(r *engine.Run) (*replay.Turn, error) {
	if !d.done {
		if r.Err() == nil {
			d.b.emit = false
			if err := d.b.flush(); err != nil {
				r.Fail(err)
			}
		}
		d.b.close(false)
	}
	return r.Close(&d.turn, d.done, `the line with "done": true`)
}

// event is what a line (or a body) holds: raw JSON values, views of its
// text, "" for a member that is absent (or under a parent that is not an
// object).
type event struct {
	object                                     bool
	model, createdAt, done, doneReason, err    string
	message, thinking, content, toolCalls      string
	totalDur, loadDur, promptN, promptDur, evN string
	evalDur                                    string
}

// fields returns the raw values of e, for the engine to find again in a
// matched line.
func (e *event) fields() [15]*string {
	return [...]*string{&e.model, &e.createdAt, &e.done, &e.doneReason, &e.err, &e.message, &e.thinking,
		&e.content, &e.toolCalls, &e.totalDur, &e.loadDur, &e.promptN, &e.promptDur, &e.evN, &e.evalDur}
}

// counters are the names of the usage counters of a last line, in the
// order usage writes them.
var counters = [...]string{"total_duration", "load_duration", "prompt_eval_count", "prompt_eval_duration", "eval_count", "eval_duration"}

func (e *event) counter(i int) *string {
	return [...]*string{&e.totalDur, &e.loadDur, &e.promptN, &e.promptDur, &e.evN, &e.evalDur}[i]
}

// usage returns the counters the line has, as one JSON object (nil for
// none).
func (e *event) usage() []byte {
	var out []byte
	for i, name := range counters {
		v := *e.counter(i)
		if v == "" {
			continue
		}
		if out == nil {
			out = append(out, '{')
		}
		out = jsonw.Key(out, name)
		out = append(out, v...)
	}
	if out != nil {
		out = append(out, '}')
	}
	return out
}

// scan reads the JSON text s into e in one pass that validates it (see
// [jsonw.Scanner]); it reports false when s is not valid JSON. e.object
// says whether s is an object; the rest is meaningful only then.
func (e *event) scan(s string) bool {
	*e = event{}
	var sc jsonw.Scanner
	sc.Reset(s)
	var top jsonw.Object
	if !sc.Object(&top) {
		return sc.End()
	}
	e.object = true
	for name, ok := sc.Member(&top); ok; name, ok = sc.Member(&top) {
		var dst *string
		switch name {
		case "model":
			dst = &e.model
		case "created_at":
			dst = &e.createdAt
		case "done":
			dst = &e.done
		case "done_reason":
			dst = &e.doneReason
		case "error":
			dst = &e.err
		case "message":
			mark := sc.Mark()
			var o jsonw.Object
			if !sc.Object(&o) {
				e.message = sc.Value()
				continue
			}
			for n, ok := sc.Member(&o); ok; n, ok = sc.Member(&o) {
				switch n {
				case "thinking":
					e.thinking = sc.Value()
				case "content":
					e.content = sc.Value()
				case "tool_calls":
					e.toolCalls = sc.Value()
				}
			}
			e.message = sc.Since(mark)
			continue
		default:
			for i, c := range counters {
				if name == c {
					dst = e.counter(i)
				}
			}
			if dst == nil {
				continue
			}
		}
		*dst = sc.Value()
	}
	return sc.End()
}
