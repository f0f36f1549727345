package readafter_test

import (
	"testing"

	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/reasonreplay/replay/codecs/gemini"
	"github.com/reasonreplay/replay/internal/benchreq"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/readafter"
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
