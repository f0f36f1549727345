package readafter_test

import (
	"bytes"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/reasonreplay/replay/codecs/gemini"
	"github.com/reasonreplay/replay/internal/benchreq"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/readafter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// Every codec's request, read after the tape of the body before, is the
// request its ReadRequest gives, and its tape was read after that one (it
// shares the bytes the two bodies share); a malformed body fails as
// ReadRequest fails.
func TestRead(t *testing.T) {
	for _, s := range benchreq.Shapes() {
		prevBody, body := s.Request(3), s.Request(4)
		rec, ok := codecs.Recognise(replay.Default(), http.MethodPost, &url.URL{Scheme: "https", Host: "api.example.com", Path: s.Path}, s.API, gjson.GetBytes(body, "model").Str)
		require.True(t, ok, s.API)
		c := rec.Codec
		var prev jsonw.Tape
		require.True(t, prev.ResetBytes(prevBody))
		snap := prev.Snapshot(string(prevBody))
		got, err := readafter.Read(c, body, snap)
		require.NoError(t, err, s.API)
		want, err := c.ReadRequest(body)
		require.NoError(t, err)
		require.Equal(t, want.Elements, got.Elements, s.API)
		require.Equal(t, want.History.Turns, got.History.Turns, s.API)
		require.Equal(t, want.Target, got.Target, s.API)
		tape := got.History.RequestTape(got.History.Request)
		require.NotNil(t, tape, s.API)
		require.Equal(t, string(body), tape.Text(), "%s: the tape is the body's", s.API)
		after, n := tape.Prefix()
		assert.Equal(t, jsonw.Shared(string(body), string(prevBody)), n, "%s: read after the tape before", s.API)
		assert.Equal(t, snap.Text(), after, s.API)
		_, n = want.History.RequestTape(want.History.Request).Prefix()
		assert.Zero(t, n, "%s: nothing lent, read cold", s.API)
	}
	_, err := readafter.Read(anthropic.Codec{}, []byte(`{"messages":[`), nil)
	_, werr := anthropic.Codec{}.ReadRequest([]byte(`{"messages":[`))
	require.Equal(t, werr, err)
	var prev jsonw.Tape
	require.True(t, prev.ResetBytes(benchreq.Anthropic().Request(3)))
	_, err = readafter.Read(anthropic.Codec{}, []byte(`{"messages":[`), &prev)
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
