package replayhttp

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/benchreq"
	"github.com/reasonreplay/replay/internal/canon"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// chainOfRaw is the conversation's chain as the raw text defines it: each
// bound member and element written from its bytes, each model turn by a
// fresh writer of what it shows. chain must name every conversation as it
// does (stored keys depend on it).
func chainOfRaw(r *codecs.Request) []string {
	skip := func(name string) bool { return slices.Contains(r.Invisible, name) }
	w := canon.New(sha256.New(), skip)
	w.Tag('v', "replay conversation v1")
	for _, b := range r.Bound {
		w.Tag('b', "")
		if b.End > b.Start {
			w.Value(string(r.Body[b.Start:b.End]))
		}
	}
	d := make([]string, len(r.Elements)+1)
	sum := func() string { return hex.EncodeToString(w.Sum(nil)[:16]) }
	d[0] = sum()
	for i, e := range r.Elements {
		switch {
		case e.Turn < 0:
			w.Tag('m', "")
			w.Value(string(r.Body[e.Start:e.End]))
		case i == 0 || r.Elements[i-1].Turn != e.Turn:
			t := r.History.Turns[e.Turn]
			tw := canon.New(sha256.New(), skip)
			tw.Tag('t', t.VisibleText())
			for _, b := range t.Blocks {
				switch b := b.(type) {
				case *replay.ToolCall:
					tw.Tag('c', b.ID)
					tw.Tag('n', b.Name)
					args := strings.TrimSpace(b.Arguments)
					switch {
					case args == "":
						tw.Tag('j', "")
						tw.Value("{}")
					case jsonw.Valid(args):
						tw.Tag('j', "")
						tw.Value(args)
					default:
						tw.Tag('r', args)
					}
				case *replay.Native:
					tw.Tag('x', b.Kind)
					if jsonw.ValidBytes(b.Raw) {
						tw.Value(string(b.Raw))
					}
				}
			}
			w.Tag('a', hex.EncodeToString(tw.Sum(nil)[:16]))
		}
		d[i+1] = sum()
	}
	return d
}

// The chain read from the request's tape names every conversation as its
// raw text does, for every codec's request shape.
func TestChainFromTheTape(t *testing.T) {
	for _, s := range benchreq.Shapes() {
		body, _ := s.Sized(40 << 10)
		rec, ok := codecs.Recognise(replay.Default(), http.MethodPost, &url.URL{Scheme: "https", Host: "x", Path: s.Path}, s.API, gjson.GetBytes(body, "model").Str)
		require.True(t, ok)
		r, err := rec.Codec.ReadRequest(body)
		require.NoError(t, err)
		assert.Equal(t, chainOfRaw(r), chain(r), s.API)
	}
	// A cache marker moved, a long escaped text, an element read from its
	// raw text (no tape).
	body := []byte(`{"model":"claude-opus-5-5","system":[{"type":"text","text":"S","cache_control":{"type":"ephemeral"}}],"messages":[` +
		`{"role":"user","content":[{"type":"text","text":"` + strings.Repeat(`a \"b\"\n`, 300) + `","cache_control":{"type":"ephemeral"}}]},` +
		`{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t1","name":"n","input":{"b":1,"a":[2]}}]}]}`)
	rec, ok := codecs.Recognise(replay.Default(), http.MethodPost, &url.URL{Scheme: "https", Host: "api.anthropic.com", Path: "/v1/messages"}, "", "")
	require.True(t, ok)
	r, err := rec.Codec.ReadRequest(body)
	require.NoError(t, err)
	want := chainOfRaw(r)
	assert.Equal(t, want, chain(r))
	raw := *r
	raw.History = replay.History{Turns: r.History.Turns, Request: r.Body, Pointers: r.History.Pointers}
	assert.Equal(t, want, chain(&raw), "without a tape")
}
