package engine

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fields is what a decoder might read of an event: the raw values of
// typ, index, delta (an object holding the text), text, n and a member
// absent from every event.
type fields struct{ typ, index, delta, text, n, absent string }

func (f *fields) views() []*string {
	return []*string{&f.typ, &f.index, &f.delta, &f.text, &f.n, &f.absent}
}

// read reads s in full with a Scanner, as a codec's full path does.
func read(t testing.TB, s string) fields {
	t.Helper()
	f, ok := scan(s)
	require.True(t, ok, s)
	return f
}

func scan(s string) (fields, bool) {
	var f fields
	var sc jsonw.Scanner
	sc.Reset(s)
	var top jsonw.Object
	if !sc.Object(&top) {
		return f, false
	}
	for name, ok := sc.Member(&top); ok; name, ok = sc.Member(&top) {
		switch name {
		case "type":
			f.typ = sc.Value()
		case "index":
			f.index = sc.Value()
		case "n":
			f.n = sc.Value()
		case "delta":
			mark := sc.Mark()
			var d jsonw.Object
			if !sc.Object(&d) {
				f.delta = sc.Value()
				continue
			}
			for name, ok := sc.Member(&d); ok; name, ok = sc.Member(&d) {
				if name == "text" {
					f.text = sc.Value()
				}
			}
			f.delta = sc.Since(mark)
		}
	}
	return f, sc.End()
}

// toy is a codec on the engine: it appends each delta's text to one text
// and learns a delta event with its text, its counter n and its padding p
// as holes, in that order (the text decoded while matching), and its
// fields as views.
type toy struct {
	ev       fields
	text     Text
	learn    bool
	pad      bool
	refuse   bool
	done     bool
	full     int
	matched  []string // the holes of each matched event, by the toy's index
	seen     []fields // the fields of each matched event, copied
	decoded  []string // the value a match decoded, "-" for none
	starts   int
	endErr   error
	endEvent int
}

func (c *toy) Start(r *Run) {
	c.starts++
	r.Budget = kit.NewBudget("toy", replay.Limits{MaxItem: 64}, 0)
}

func (c *toy) Full(r *Run, f Frame, s string, dst []stream.Event) ([]stream.Event, error) {
	c.full++
	if s == "" {
		return dst, nil
	}
	var ok bool
	if c.ev, ok = scan(s); !ok {
		return dst, r.Malformed("", "not a JSON object")
	}
	dst, err := c.apply(r, dst)
	if err == nil && c.learn && jsonw.UnquoteView(c.ev.typ) == "delta" {
		holes := []string{c.ev.text, c.ev.n}
		if c.pad {
			i := strings.Index(s, `"p":`)
			end := strings.IndexByte(s[i+5:], '"')
			holes = append(holes, s[i+4:i+6+end])
		}
		r.Learn(s, holes, 0, c.ev.views())
	}
	return dst, err
}

func (c *toy) Matched(r *Run, m *Match, dst []stream.Event) ([]stream.Event, error) {
	if c.refuse {
		return dst, ReadInFull
	}
	var hs []string
	for i := 0; i < m.Len(); i++ {
		hs = append(hs, m.Raw(i))
	}
	c.matched = append(c.matched, strings.Join(hs, " "))
	v, ok := m.Value()
	if !ok {
		v = "-"
	}
	c.decoded = append(c.decoded, v)
	f := c.ev
	for _, p := range f.views() {
		*p = strings.Clone(*p)
	}
	c.seen = append(c.seen, f)
	return c.apply(r, dst)
}

func (c *toy) apply(r *Run, dst []stream.Event) ([]stream.Event, error) {
	switch jsonw.UnquoteView(c.ev.typ) {
	case "delta":
		k := c.text.Len()
		r.WriteRaw(&c.text, c.ev.text)
		if err := r.Budget.Item(0, c.text.Len(), c.text.Len()-k); err != nil {
			return dst, err
		}
		return append(dst, stream.Event{Kind: stream.EventTextDelta, Delta: c.text.String()[k:]}), nil
	case "stop":
		c.done = true
		r.Stop()
	case "fail":
		return dst, errors.New("fail event")
	}
	return dst, nil
}

func (c *toy) End(r *Run) (*replay.Turn, error) {
	c.endErr, c.endEvent = r.Err(), r.Events()
	return r.Close(&replay.Turn{Blocks: []replay.Block{&replay.Text{Text: c.text.String()}}}, c.done, "stop")
}

// feed decodes each payload as one frame of type typ, writing over the
// frame's bytes after the call (as the stream core does), and returns the
// deltas and the first error.
func feed(r *Run, c Codec, typ string, payloads ...string) (deltas []string, err error) {
	for _, p := range payloads {
		data, ft := []byte(p), []byte(typ)
		var evs []stream.Event
		evs, err = r.Decode(c, ft, data, nil)
		clear(data)
		clear(ft)
		for _, e := range evs {
			deltas = append(deltas, e.Delta)
		}
		if err != nil {
			return deltas, err
		}
	}
	return deltas, nil
}

func delta(text, n, pad string) string {
	return `{"type":"delta","n":` + n + `,"index":2,"delta":{"text":"` + text + `","k":1},"p":"` + pad + `"}`
}

// The views a full read would find are found again in a matched event,
// holes handed back by the codec's index whatever their order in the
// text, and the text hole decoded while matching.
func TestMatchedAsFull(t *testing.T) {
	c := &toy{learn: true, pad: true}
	var r Run
	evs := []string{
		delta("one", "7", "abc"),
		delta(`a longer \"text\" \u00e9`, "123456", ""),
		delta("", "-1.5e3", "abcdefghijkl"),
		delta(`\ud83d\ude00`, "8", "x"),
	}
	deltas, err := feed(&r, c, "", evs...)
	require.NoError(t, err)
	assert.Equal(t, []string{"one", `a longer "text" é`, "", "😀"}, deltas)
	assert.Equal(t, 1, c.full)
	assert.Equal(t, 3, r.Matched())
	assert.Equal(t, []string{
		`"a longer \"text\" \u00e9" 123456 ""`,
		`"" -1.5e3 "abcdefghijkl"`,
		`"\ud83d\ude00" 8 "x"`}, c.matched)
	// A surrogate-half escape is left to the codec's own unescaper.
	assert.Equal(t, []string{`a longer "text" é`, "", "-"}, c.decoded)
	// Each match put every field where a full read of it would.
	require.Len(t, c.seen, 3)
	for i, f := range c.seen {
		assert.Equal(t, read(t, evs[i+1]), f)
	}
	// Views kept past their frame read the bytes written over it.
	assert.Equal(t, strings.Repeat("\x00", len(`"delta"`)), c.ev.typ)
	assert.Equal(t, "one"+`a longer "text" é`+"😀", c.text.String())
}

// An event of another shape, or of another frame type, is read in full,
// and forgets the shape.
func TestOtherShapesReadInFull(t *testing.T) {
	c := &toy{learn: true}
	var r Run
	_, err := feed(&r, c, "d", delta("a", "1", "p"), delta("b", "2", "p"))
	require.NoError(t, err)
	assert.Equal(t, 1, c.full)
	_, err = feed(&r, c, "other", delta("c", "3", "p"))
	require.NoError(t, err)
	assert.Equal(t, 2, c.full, "another frame type")
	_, err = feed(&r, c, "other", `{"type":"note","n":1}`, delta("d", "4", "p"))
	require.NoError(t, err)
	assert.Equal(t, 4, c.full, "an event of another shape, then the delta again")
	_, err = feed(&r, c, "other", delta("e", "4", "q"))
	require.NoError(t, err)
	assert.Equal(t, 5, c.full, "a byte outside the holes differs")
	assert.Equal(t, 1, r.Matched())
	assert.Equal(t, "abcde", c.text.String())
}

// A codec that refuses a match has the event read in full.
func TestReadInFull(t *testing.T) {
	c := &toy{learn: true, refuse: true}
	var r Run
	deltas, err := feed(&r, c, "", delta("a", "1", "p"), delta("b", "2", "p"), delta("c", "3", "p"))
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c"}, deltas)
	assert.Equal(t, 3, c.full)
	assert.Equal(t, 0, r.Matched())
}

// Errors are sticky; Finish runs End once, with the first error and the
// number of frames; a frame after Finish is refused.
func TestStickyErrorsAndFinish(t *testing.T) {
	c := &toy{learn: true}
	var r Run
	_, err := feed(&r, c, "", delta("a", "1", "p"), `{"type":"fail"}`)
	require.EqualError(t, err, "fail event")
	_, err2 := feed(&r, c, "", delta("b", "2", "p"))
	assert.Same(t, err, err2)
	assert.Equal(t, 2, r.Events(), "frames after the error are not counted")
	tu, ferr := r.Finish(c)
	assert.Same(t, err, ferr)
	assert.Same(t, err, c.endErr)
	assert.Equal(t, 2, c.endEvent)
	assert.False(t, tu.Complete)
	tu2, ferr2 := r.Finish(c)
	assert.Same(t, tu, tu2)
	require.ErrorIs(t, ferr2, replay.ErrMalformed)
	assert.Contains(t, ferr2.Error(), "Finish called twice")
	assert.Equal(t, 1, c.starts)

	var r2 Run
	c2 := &toy{}
	_, err = r2.Finish(c2)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	_, err = feed(&r2, c2, "", delta("a", "1", "p"))
	require.ErrorIs(t, err, replay.ErrMalformed)
	assert.Contains(t, err.Error(), "event after Finish")
}

// After Stop every frame counts as an event and is ignored, even one that
// is not JSON; Fail records an error that later calls return.
func TestStopAndFail(t *testing.T) {
	c := &toy{learn: true}
	var r Run
	_, err := feed(&r, c, "", delta("a", "1", "p"), `{"type":"stop"}`, "not json", delta("b", "2", "p"))
	require.NoError(t, err)
	assert.Equal(t, 4, r.Events())
	assert.Equal(t, "a", c.text.String())
	tu, err := r.Finish(c)
	require.NoError(t, err)
	assert.True(t, tu.Complete)

	var r2 Run
	c2 := &toy{}
	_, err = feed(&r2, c2, "", delta("a", "1", "p"))
	require.NoError(t, err)
	boom := errors.New("boom")
	r2.Fail(boom)
	r2.Fail(errors.New("later"))
	_, err = feed(&r2, c2, "", delta("b", "1", "p"))
	assert.Same(t, boom, err)
	_, err = r2.Finish(c2)
	assert.Same(t, boom, err)
}

// A limit hit inside a run of matched events is the error a full read
// gives, at the same event.
func TestLimitInsideAMatchedRun(t *testing.T) {
	run := func(learn bool) (string, int) {
		c := &toy{learn: learn}
		var r Run
		evs := make([]string, 30)
		for i := range evs {
			evs[i] = delta("abc", "1", "p")
		}
		_, err := feed(&r, c, "", evs...)
		require.Error(t, err)
		return err.Error(), r.Matched()
	}
	full, none := run(false)
	matched, some := run(true)
	assert.Equal(t, full, matched)
	assert.Equal(t, 0, none)
	assert.Equal(t, 21, some, "MaxItem 64 is passed at the 22nd delta, matched")
	assert.Contains(t, matched, "event 21")
}

// SetLimits replaces the non-zero limits and forgets the shape (a full
// read checks what a match relies on against the limits).
func TestSetLimitsForgets(t *testing.T) {
	c := &toy{learn: true}
	var r Run
	_, err := feed(&r, c, "", delta("a", "1", "p"), delta("b", "1", "p"))
	require.NoError(t, err)
	assert.Equal(t, 1, r.Matched())
	r.SetLimits(c, replay.Limits{MaxItem: 2})
	assert.Equal(t, 2, r.Budget.Limits().MaxItem)
	assert.NotZero(t, r.Budget.Limits().MaxTurn)
	_, err = feed(&r, c, "", delta("c", "1", "p"))
	var le *replay.LimitError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, 1, r.Matched(), "read in full")
	assert.Equal(t, 1, c.starts)
}

// Decoded hands out the value a match decoded for any literal with the
// hole's bytes (the same bytes have the same value), for no other, and
// only during the match: Unquote and WriteRaw write what WriteUnquoted
// writes either way.
func TestDecodedOnlyForTheHoleDuringTheMatch(t *testing.T) {
	var r Run
	var got []string
	probe := &probeCodec{check: func(r *Run, m *Match) {
		hole := m.Raw(0)
		v, ok := r.Decoded(hole)
		got = append(got, strings.Clone(v)) // v views a buffer the next match reuses
		assert.True(t, ok)
		v2, ok := r.Decoded(strings.Clone(hole)) // the same bytes elsewhere
		assert.True(t, ok)
		assert.Equal(t, v, v2)
		_, ok = r.Decoded(`"other"`)
		assert.False(t, ok)
		var b strings.Builder
		r.Unquote(&b, hole)
		r.Unquote(&b, `"x\ty"`)
		var want strings.Builder
		jsonw.WriteUnquoted(&want, hole)
		jsonw.WriteUnquoted(&want, `"x\ty"`)
		assert.Equal(t, want.String(), b.String())
		var tx Text
		r.WriteRaw(&tx, hole)
		r.WriteRaw(&tx, `"x\ty"`)
		assert.Equal(t, want.String(), tx.String())
	}}
	_, err := feed(&r, probe, "", `{"t":"a\nb"}`, `{"t":"c\"d"}`, `{"t":"e"}`)
	require.NoError(t, err)
	assert.Equal(t, []string{"c\"d", "e"}, got)
	_, ok := r.Decoded(`"e"`)
	assert.False(t, ok, "after the match")
}

// probeCodec learns every event {"t":...} with its t as the decoded hole
// and calls check on each match.
type probeCodec struct {
	check func(*Run, *Match)
}

func (p *probeCodec) Start(r *Run) { r.Budget = kit.NewBudget("probe", replay.Limits{}, 0) }
func (p *probeCodec) Full(r *Run, f Frame, s string, dst []stream.Event) ([]stream.Event, error) {
	i := strings.Index(s, `"t":`)
	r.Learn(s, []string{s[i+4 : len(s)-1]}, 0, nil)
	return dst, nil
}
func (p *probeCodec) Matched(r *Run, m *Match, dst []stream.Event) ([]stream.Event, error) {
	p.check(r, m)
	return dst, nil
}
func (p *probeCodec) End(r *Run) (*replay.Turn, error) { return &replay.Turn{}, nil }

// A twin hole is compared with its first copy, not scanned: events that
// mirror one text in two members match while the copies agree.
func TestTwin(t *testing.T) {
	var r Run
	var got []string
	c := &twinCodec{check: func(m *Match) {
		v, _ := m.Value()
		got = append(got, m.Raw(0)+" "+m.Raw(1)+" "+v)
	}}
	ev := func(a, b string) string { return `{"mirror":"` + a + `","text":"` + b + `"}` }
	_, err := feed(&r, c, "", ev("x", "x"), ev(`y\n`, `y\n`), ev("z", "w"), ev("u", "u"))
	require.NoError(t, err)
	// z and w differ: read in full, and learned again without a twin.
	assert.Equal(t, []string{`"y\n" "y\n" y` + "\n", `"u" "u" u`}, got)
	assert.Equal(t, 2, c.full)
}

// twinCodec learns {"mirror":M,"text":T} with T as hole 0 (decoded) and M
// as hole 1, a twin of T when the two are equal.
type twinCodec struct {
	check func(*Match)
	full  int
}

func (c *twinCodec) Start(r *Run) { r.Budget = kit.NewBudget("twin", replay.Limits{}, 0) }
func (c *twinCodec) Full(r *Run, f Frame, s string, dst []stream.Event) ([]stream.Event, error) {
	c.full++
	m := s[len(`{"mirror":`):strings.Index(s, `,"text"`)]
	x := s[strings.Index(s, `"text":`)+7 : len(s)-1]
	if r.Learn(s, []string{x, m}, 0, nil) && m == x && !r.Twin(1, 0) {
		return dst, errors.New("the twin was not recorded")
	}
	return dst, nil
}
func (c *twinCodec) Matched(r *Run, m *Match, dst []stream.Event) ([]stream.Event, error) {
	c.check(m)
	return dst, nil
}
func (c *twinCodec) End(r *Run) (*replay.Turn, error) { return &replay.Turn{}, nil }

func TestLearnRefuses(t *testing.T) {
	s := `{"type":"delta","delta":{"text":"one two"}}`
	f := read(t, s)
	var r Run
	other := strings.Clone(f.typ)
	assert.False(t, r.Learn(s, []string{f.text}, 0, []*string{&other}), "a view of another text")
	cut := f.text[1:4]
	assert.False(t, r.Learn(s, []string{f.text}, 0, []*string{&cut}), "a view inside a hole")
	over := s[strings.Index(s, `delta":{`)-1 : strings.Index(s, "two")]
	assert.False(t, r.Learn(s, []string{f.text}, 0, []*string{&over}), "a view ending inside a hole")
	assert.False(t, r.Learn(s, []string{f.text, f.text, f.text, f.text, f.text}, 0, nil), "too many holes")
	assert.False(t, r.Learn(s, []string{f.text, f.text}, 0, nil), "the same hole twice")
	assert.False(t, r.Learn(s, []string{strings.Clone(f.text)}, 0, nil), "a hole of another text")
	assert.False(t, r.Learn(s, []string{f.text}, 1, nil), "a value hole that is not one")
	assert.False(t, r.Learn(s, []string{f.typ[1:3]}, -1, nil), "not a value")
	assert.True(t, r.Learn(s, []string{f.text}, 0, []*string{&f.delta, &f.typ, &f.text}))
}

// trimSpace trims JSON white space, and only that.
func TestTrimSpace(t *testing.T) {
	for c := 0; c < 256; c++ {
		data := []byte{byte(c), 'x', byte(c)}
		got := string(trimSpace(data))
		want := strings.Trim(string(data), " \t\r\n")
		if got != want {
			t.Fatalf("trimSpace(%q) = %q, want %q", data, got, want)
		}
	}
	assert.Equal(t, "", string(trimSpace([]byte(" \r\n\t "))))
	assert.Equal(t, "{}", string(trimSpace([]byte("\n {} \r"))))
}
