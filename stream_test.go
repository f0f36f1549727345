package replay_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
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

func (e *echo) Decode(f replay.Frame, dst []replay.Event) ([]replay.Event, error) {
	e.kept = f.Data
	e.types = append(e.types, string(f.Type))
	if string(f.Data) == "END" {
		e.done = true
		return append(dst, replay.Event{Kind: replay.EventDone, Block: -1}), nil
	}
	start := e.text.Len()
	e.text.Write(f.Data)
	return append(dst, replay.Event{Kind: replay.EventTextDelta, Block: 0, Delta: e.text.String()[start:]}), nil
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
	s := replay.NewStream(strings.NewReader("event: a\ndata: he\n\ndata: llo\n\ndata: END\n\n"), fd, replay.StreamOptions{})
	var deltas []string
	for s.Next() {
		if ev := s.Event(); ev.Kind == replay.EventTextDelta {
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
	_, err := replay.DecodeStream(&failing{data: "data: he\n\n", err: context.Canceled}, &echo{}, replay.StreamOptions{})
	require.ErrorIs(t, err, context.Canceled)
	s := replay.NewStream(&failing{data: "data: he\n\ndata: partial", err: context.DeadlineExceeded}, &echo{}, replay.StreamOptions{})
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
	tu, err := replay.DecodeStream(strings.NewReader("data: he\n\n"), &echo{}, replay.StreamOptions{})
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.False(t, tu.Complete)
}

func TestStreamEventLimit(t *testing.T) {
	_, err := replay.DecodeStream(strings.NewReader("data: 0123456789\n\n"), &echo{}, replay.StreamOptions{Limits: replay.Limits{MaxEvent: 4}})
	var le *replay.LimitError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, 4, le.Limit)
	assert.Equal(t, "event size", le.What)

	d := replay.NewDecoder(&echo{}, replay.StreamOptions{Limits: replay.Limits{MaxEvent: 4}})
	_, err = d.Write([]byte("data: 0123456789\n\n"))
	require.ErrorAs(t, err, &le)
	_, err = d.Write([]byte("data: x\n\n"))
	require.ErrorAs(t, err, &le, "sticky")
	tu, err := d.Close()
	require.ErrorAs(t, err, &le)
	assert.False(t, tu.Complete)
}

func TestDecoderPushJSONL(t *testing.T) {
	d := replay.NewDecoder(&echo{}, replay.StreamOptions{Framing: replay.FramingJSONL})
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
	f, err := replay.ParseFraming("jsonl")
	require.NoError(t, err)
	assert.Equal(t, replay.FramingJSONL, f)
	_, err = replay.ParseFraming("xml")
	assert.Error(t, err)
	assert.Equal(t, "<invalid EventKind>", replay.EventKind(200).String())
}

// The core hands the caller's limits to the decoder once, before the first
// frame, in both forms, and leaves the decoder's own alone when the caller
// set none.
func TestCoreHandsLimitsToTheDecoder(t *testing.T) {
	lim := replay.Limits{MaxItem: 7}
	push := &echo{}
	d := replay.NewDecoder(push, replay.StreamOptions{Limits: lim})
	_, err := d.Write([]byte("data: END\n\n"))
	require.NoError(t, err)
	_, err = d.Close()
	require.NoError(t, err)
	assert.Equal(t, []replay.Limits{lim}, push.limits)

	pull := &echo{}
	_, err = replay.DecodeStream(strings.NewReader("data: END\n\n"), pull, replay.StreamOptions{Limits: lim})
	require.NoError(t, err)
	assert.Equal(t, []replay.Limits{lim}, pull.limits)

	none := &echo{}
	_, err = replay.DecodeStream(strings.NewReader("data: END\n\n"), none, replay.StreamOptions{})
	require.NoError(t, err)
	assert.Empty(t, none.limits)
}
