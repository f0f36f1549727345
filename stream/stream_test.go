package stream_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// echo is a minimal FrameDecoder: each frame's data is visible text, "END"
// completes the turn. It keeps the last frame's bytes without copying, to
// show that the core clobbers frames.
type echo struct {
	text   strings.Builder
	done   bool
	kept   []byte
	types  []string
	limits []replay.Limits // every SetLimits call
}

func (e *echo) SetLimits(l replay.Limits) { e.limits = append(e.limits, l) }

func (e *echo) Decode(typ, data []byte, dst []stream.Event) ([]stream.Event, error) {
	e.kept = data
	e.types = append(e.types, string(typ))
	if string(data) == "END" {
		e.done = true
		return append(dst, stream.Event{Kind: stream.EventDone, Block: -1}), nil
	}
	start := e.text.Len()
	e.text.Write(data)
	return append(dst, stream.Event{Kind: stream.EventTextDelta, Block: 0, Delta: e.text.String()[start:]}), nil
}

func (e *echo) Finish() (*replay.Turn, error) {
	t := &replay.Turn{Blocks: []replay.Block{&replay.Text{Text: e.text.String()}}, Complete: e.done}
	if !e.done {
		return t, fmt.Errorf("echo: %w", io.ErrUnexpectedEOF)
	}
	return t, nil
}

type failing struct {
	data string
	err  error
}

func (f *failing) Read(p []byte) (int, error) {
	if f.data == "" {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestStreamPull(t *testing.T) {
	fd := &echo{}
	s := stream.New(strings.NewReader("event: a\ndata: he\n\ndata: llo\n\ndata: END\n\n"), kit.Decoding(fd), stream.Options{})
	var deltas []string
	for s.Next() {
		if ev := s.Event(); ev.Kind == stream.EventTextDelta {
			deltas = append(deltas, ev.Delta)
		}
	}
	require.NoError(t, s.Err())
	tu, err := s.Turn()
	require.NoError(t, err)
	assert.Equal(t, []string{"he", "llo"}, deltas)
	assert.Equal(t, "hello", tu.VisibleText())
	assert.True(t, tu.Complete)
	assert.Equal(t, []string{"a", "", ""}, fd.types)
	assert.Equal(t, "\x00\x00\x00", string(fd.kept), "the frame is clobbered once the decoder returns")
}

func TestStreamReaderErrorWrapped(t *testing.T) {
	_, err := stream.Decode(&failing{data: "data: he\n\n", err: context.Canceled}, kit.Decoding(&echo{}), stream.Options{})
	require.ErrorIs(t, err, context.Canceled)
	s := stream.New(&failing{data: "data: he\n\ndata: partial", err: context.DeadlineExceeded}, kit.Decoding(&echo{}), stream.Options{})
	tu, err := s.Turn()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, "he", tu.VisibleText())
	assert.False(t, tu.Complete)
	// Sticky.
	assert.False(t, s.Next())
	_, err2 := s.Turn()
	assert.Equal(t, err, err2)
}

func TestStreamEndsEarly(t *testing.T) {
	tu, err := stream.Decode(strings.NewReader("data: he\n\n"), kit.Decoding(&echo{}), stream.Options{})
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.False(t, tu.Complete)
}

func TestStreamEventLimit(t *testing.T) {
	_, err := stream.Decode(strings.NewReader("data: 0123456789\n\n"), kit.Decoding(&echo{}), stream.Options{Limits: replay.Limits{MaxEvent: 4}})
	var le *replay.LimitError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, 4, le.Limit)
	assert.Equal(t, "event size", le.What)

	d := stream.NewDecoder(kit.Decoding(&echo{}), stream.Options{Limits: replay.Limits{MaxEvent: 4}})
	_, err = d.Write([]byte("data: 0123456789\n\n"))
	require.ErrorAs(t, err, &le)
	_, err = d.Write([]byte("data: x\n\n"))
	require.ErrorAs(t, err, &le, "sticky")
	tu, err := d.Close()
	require.ErrorAs(t, err, &le)
	assert.False(t, tu.Complete)
}

func TestDecoderPushJSONL(t *testing.T) {
	d := stream.NewDecoder(kit.Decoding(&echo{}), stream.Options{Framing: stream.FramingJSONL})
	var got []string
	for _, chunk := range []string{"he", "\nl", "lo\r\nEN", "D"} {
		_, err := d.Write([]byte(chunk))
		require.NoError(t, err)
		for ev, ok := d.Next(); ok; ev, ok = d.Next() {
			got = append(got, ev.Kind.String()+":"+ev.Delta)
		}
	}
	tu, err := d.Close()
	require.NoError(t, err)
	for ev, ok := d.Next(); ok; ev, ok = d.Next() {
		got = append(got, ev.Kind.String()+":"+ev.Delta)
	}
	assert.Equal(t, []string{"text_delta:he", "text_delta:llo", "done:"}, got)
	assert.Equal(t, "hello", tu.VisibleText())
}

func TestParseFraming(t *testing.T) {
	f, err := stream.ParseFraming("jsonl")
	require.NoError(t, err)
	assert.Equal(t, stream.FramingJSONL, f)
	_, err = stream.ParseFraming("xml")
	assert.Error(t, err)
	assert.Equal(t, "<invalid EventKind>", stream.EventKind(200).String())
}

// The core hands the caller's limits to the decoder once, before the first
// frame, in both forms, and leaves the decoder's own alone when the caller
// set none.
func TestCoreHandsLimitsToTheDecoder(t *testing.T) {
	lim := replay.Limits{MaxItem: 7}
	push := &echo{}
	d := stream.NewDecoder(kit.Decoding(push), stream.Options{Limits: lim})
	_, err := d.Write([]byte("data: END\n\n"))
	require.NoError(t, err)
	_, err = d.Close()
	require.NoError(t, err)
	assert.Equal(t, []replay.Limits{lim}, push.limits)

	pull := &echo{}
	_, err = stream.Decode(strings.NewReader("data: END\n\n"), kit.Decoding(pull), stream.Options{Limits: lim})
	require.NoError(t, err)
	assert.Equal(t, []replay.Limits{lim}, pull.limits)

	none := &echo{}
	_, err = stream.Decode(strings.NewReader("data: END\n\n"), kit.Decoding(none), stream.Options{})
	require.NoError(t, err)
	assert.Empty(t, none.limits)
}
