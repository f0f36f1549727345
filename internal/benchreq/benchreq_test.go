package benchreq_test

import (
	"bytes"
	"encoding/base64"
	"net/url"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/reasonreplay/replay/internal/benchreq"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// Every shape reads with its API's codec as the conversation it writes:
// one turn per generated turn, each with its reasoning, its text and its
// tool call.
func TestShapesRead(t *testing.T) {
	for _, s := range benchreq.Shapes() {
		t.Run(s.API, func(t *testing.T) {
			body, n := s.Sized(60 << 10)
			require.GreaterOrEqual(t, len(body), 60<<10)
			rec, ok := codecs.Recognise(replay.Default(), "POST", &url.URL{Scheme: "https", Host: "api.example.com", Path: s.Path}, s.API, gjson.GetBytes(body, "model").Str)
			require.True(t, ok)
			require.Equal(t, s.API, rec.Codec.API())
			r, err := rec.Codec.ReadRequest(body)
			require.NoError(t, err)
			require.Len(t, r.History.Turns, n)
			for k, tu := range r.History.Turns {
				want := benchreq.Turn(k)
				calls := tu.ToolCalls()
				require.Len(t, calls, 1, "turn %d", k)
				assert.Equal(t, want.Tool, calls[0].Name)
				items := 0
				for _, b := range tu.Blocks {
					if _, ok := b.(replay.ReasoningItem); ok {
						items++
					}
				}
				assert.Positive(t, items, "turn %d has reasoning", k)
				assert.True(t, tu.Complete, "turn %d", k)
			}
		})
	}
}

// The stream that answers the request for turn n is turn n as the next
// request carries it back.
func TestStreamIsTheNextTurn(t *testing.T) {
	s := benchreq.Anthropic()
	for _, n := range []int{0, 3, 7} {
		got, err := stream.Decode(bytes.NewReader(benchreq.Stream(n)), anthropic.Codec{}, stream.Options{})
		require.NoError(t, err)
		h, _, err := anthropic.Codec{}.DecodeRequest(s.Request(n + 1))
		require.NoError(t, err)
		want := h.Turns[n]
		enc := anthropic.Codec{}
		w, err := enc.Encode(want)
		require.NoError(t, err)
		g, err := enc.Encode(got)
		require.NoError(t, err)
		assert.Equal(t, string(w), string(g), "turn %d", n)
		assert.JSONEq(t, s.AssistantOf(n), string(g))
	}
}

// Every signature the conversation carries is standard base64 with its
// padding, as providers mint them: a realistic request reports no
// corrupt signature.
func TestSignaturesAreBase64(t *testing.T) {
	for k := 0; k < 200; k++ {
		sig := benchreq.Turn(k).Signature
		_, err := base64.StdEncoding.DecodeString(sig)
		require.NoError(t, err, "turn %d: %q", k, sig)
	}
	for _, s := range benchreq.Shapes() {
		body, _ := s.Sized(60 << 10)
		rep, err := replay.Default().AuditRequest(s.API, body)
		require.NoError(t, err)
		assert.Empty(t, rep.Violations, s.API)
	}
}

// A shape written with its model last carries the same members, the model
// after the conversation's array, and reads as the same request.
func TestModelLast(t *testing.T) {
	seen := 0
	for _, s := range benchreq.Shapes() {
		last := s.ModelLast()
		first := s.Request(3)
		if !gjson.GetBytes(first, "model").Exists() {
			assert.Nil(t, last, s.API)
			continue
		}
		require.NotNil(t, last, s.API)
		seen++
		body := last.Request(3)
		require.True(t, gjson.ValidBytes(body), s.API)
		assert.Len(t, body, len(first), s.API)
		var names []string
		gjson.ParseBytes(body).ForEach(func(k, _ gjson.Result) bool { names = append(names, k.Str); return true })
		conv := 0
		for i, n := range names {
			if gjson.GetBytes(body, n).IsArray() && conv == 0 {
				conv = i
			}
		}
		require.Less(t, conv+1, len(names), s.API)
		assert.Equal(t, "model", names[conv+1], "%s: the model right after the conversation", s.API)
		gjson.ParseBytes(first).ForEach(func(k, v gjson.Result) bool {
			assert.Equal(t, v.Raw, gjson.GetBytes(body, k.Str).Raw, "%s: %s", s.API, k.Str)
			return true
		})
	}
	assert.Positive(t, seen)
}
