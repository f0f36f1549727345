package readafter_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/reasonreplay/replay/codecs/gemini"
	"github.com/reasonreplay/replay/internal/benchreq"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/readafter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A codec that registered its reader reads after an earlier tape; one that
// did not is read by its ReadRequest. Either way the request is the one
// ReadRequest gives.
func TestRead(t *testing.T) {
	s := benchreq.Anthropic()
	prevBody, body := s.Request(3), s.Request(4)
	var prev jsonw.Tape
	require.True(t, prev.ResetBytes(prevBody))
	for _, c := range []codecs.HTTPCodec{anthropic.Codec{}, anthropic.Codec{Provider: "vertex"}} {
		got, err := readafter.Read(c, body, &prev)
		require.NoError(t, err)
		want, err := c.ReadRequest(body)
		require.NoError(t, err)
		require.Equal(t, want.Elements, got.Elements)
		require.Equal(t, want.History.Turns, got.History.Turns)
		require.Equal(t, want.Target, got.Target)
		require.NotNil(t, got.History.RequestTape(got.History.Request))
		require.Equal(t, string(body), got.History.RequestTape(got.History.Request).Text(), "the tape is the body's")
	}
	g := gemini.Codec{}
	var gs *benchreq.Shape
	for _, sh := range benchreq.Shapes() {
		if sh.API == g.API() {
			gs = sh
		}
	}
	require.NotNil(t, gs)
	gb := gs.Request(3)
	got, err := readafter.Read(g, gb, &prev)
	require.NoError(t, err)
	want, err := g.ReadRequest(gb)
	require.NoError(t, err)
	require.Equal(t, want.Elements, got.Elements)
	// A malformed body fails as ReadRequest fails.
	_, err = readafter.Read(anthropic.Codec{}, []byte(`{"messages":[`), &prev)
	_, werr := anthropic.Codec{}.ReadRequest([]byte(`{"messages":[`))
	require.Equal(t, werr, err)
}

// Only the codecs that promise it read their turns from their own bytes,
// under a key that tells their configurations apart.
func TestTurnKey(t *testing.T) {
	require.Equal(t, anthropic.Codec{}, readafter.TurnKey(anthropic.Codec{}))
	require.NotEqual(t, readafter.TurnKey(anthropic.Codec{}), readafter.TurnKey(anthropic.Codec{Provider: "vertex"}))
	require.Nil(t, readafter.TurnKey(gemini.Codec{}))
}

// Anthropic's reader takes, from the tape of the body before, the turns
// of the messages the two bodies share byte for byte, the last one
// included only while it stays the last: the turns are those a cold read
// gives, and shared turns are the same turns. A codec of another
// configuration, or an edited message, reads afresh.
func TestReadReusesTurns(t *testing.T) {
	s := benchreq.Anthropic()
	c := anthropic.Codec{}
	snapOf := func(r *codecs.Request) *jsonw.Tape {
		snap := r.History.RequestTape(r.History.Request).Snapshot(string(r.History.Request))
		require.NotNil(t, snap)
		return snap
	}
	first, err := readafter.Read(c, s.Request(5), nil)
	require.NoError(t, err)
	body := s.Request(6)
	got, err := readafter.Read(c, body, snapOf(first))
	require.NoError(t, err)
	want, err := c.ReadRequest(body)
	require.NoError(t, err)
	require.Equal(t, want.History.Turns, got.History.Turns)
	ft, gt := first.History.Turns, got.History.Turns
	require.Greater(t, len(gt), len(ft))
	for k := range ft[:len(ft)-1] {
		assert.Same(t, ft[k], gt[k], "turn %d: shared", k)
	}
	assert.NotSame(t, ft[len(ft)-1], gt[len(ft)-1], "the last turn before is not the last now")

	again, err := readafter.Read(c, body, snapOf(got))
	require.NoError(t, err)
	for k := range gt {
		assert.Same(t, gt[k], again.History.Turns[k], "the same body: turn %d shared", k)
	}

	other, err := readafter.Read(anthropic.Codec{Provider: "vertex"}, body, snapOf(got))
	require.NoError(t, err)
	for k := range gt {
		assert.NotSame(t, gt[k], other.History.Turns[k], "another configuration: turn %d read again", k)
	}
	assert.Equal(t, "vertex", other.History.Turns[0].Provenance.Provider)

	// An edit in the first assistant message: it and all after it are
	// past the bytes the bodies share.
	at := bytes.Index(body, []byte(`"thinking":"`)) + len(`"thinking":"`)
	edited := slices.Clone(body)
	edited[at] ^= 1
	ed, err := readafter.Read(c, edited, snapOf(got))
	require.NoError(t, err)
	wantEd, err := c.ReadRequest(edited)
	require.NoError(t, err)
	require.Equal(t, wantEd.History.Turns, ed.History.Turns)
	for k := range gt {
		assert.NotSame(t, gt[k], ed.History.Turns[k], "turn %d after the edit: read again", k)
	}
}
