package replayhttp

import (
	"bytes"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/reasonreplay/replay/internal/benchreq"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/view"
	"github.com/stretchr/testify/require"
)

// modelLast rewrites body with its top-level "model" member moved to the
// end, as anthropic-sdk-go and openai-go write it (after the messages), and
// with the model named model; ok is false for a body without one.
func modelLast(body []byte, model string) ([]byte, bool) {
	s := view.String(body)
	raw := jsonw.RawMember(s, "model")
	if raw == "" {
		return nil, false
	}
	var out []byte
	out = append(out, '{')
	first := true
	for pos := 0; ; {
		k, v, next, ok := jsonw.NextMember(s, pos)
		if !ok {
			break
		}
		pos = next
		if k == `"model"` {
			continue
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(append(append(out, k...), ':'), v...)
	}
	out = append(out, `,"model":"`+model+`"}`...)
	return out, true
}

// The model a request names is found in the tape of the tenant's body
// before when the two share it, before the messages or after them, and
// searched for when they do not; every request is recognised with the
// model it names and reads as it reads cold.
func TestRecogniseFindsModel(t *testing.T) {
	tried := 0
	for _, s := range benchreq.Shapes() {
		t.Run(s.API, func(t *testing.T) {
			tr := &Transport{Tenant: func(*http.Request) string { return "tenant" }}
			out := (&http.Request{Method: http.MethodPost, URL: &url.URL{Scheme: "https", Host: "api.example.com", Path: s.Path}, Header: http.Header{}}).WithContext(t.Context())
			for _, step := range []struct {
				turns  int
				model  string
				last   bool
				shared bool // found in the tape before
			}{
				{3, "model-a", true, false},
				{4, "model-a", true, true},   // after the messages, in the bytes shared at the end
				{5, "model-b", true, false},  // another model: searched
				{5, "model-b", false, false}, // moved to the front: searched
				{6, "model-b", false, true},  // before the messages, in the bytes shared at the start
			} {
				body, ok := modelLast(s.Request(step.turns), step.model)
				if !ok {
					t.Skip("the shape's body names no model")
				}
				if !step.last { // the model back in front
					member := `"model":"` + step.model + `"`
					body = slices.Concat([]byte("{"+member+","), bytes.TrimSuffix(body[1:], []byte(","+member+"}")), []byte("}"))
				}
				require.True(t, jsonw.ValidBytes(body))
				raw, near := tr.findModel(out, body)
				require.Equal(t, `"`+step.model+`"`, raw, "%d turns", step.turns)
				fromTape := false
				if near.prev != nil {
					_, fromTape = near.prev.MemberAfter(view.String(body), near.shared, "model")
				}
				require.Equal(t, step.shared, fromTape, "%d turns: taken from the tape before", step.turns)
				api, named, ok := tr.Recognise(out, body)
				require.True(t, ok)
				require.Equal(t, step.model, named)
				c, model := tr.recognise(out, body, false, true)
				require.Equal(t, c.codec.API(), api, "what RoundTrip reads it as")
				require.NotNil(t, c)
				require.NotNil(t, c.req, "%d turns", step.turns)
				require.Equal(t, step.model, model)
				require.Equal(t, step.model, c.target.Model)
				cold, err := c.codec.ReadRequest(bytes.Clone(body))
				require.NoError(t, err)
				require.Equal(t, cold.Elements, c.req.Elements)
				require.Equal(t, cold.History.Turns, c.req.History.Turns)
			}
			tried++
		})
	}
	require.Positive(t, tried)
}

// Recognise names the model a route names before the one its body does,
// and recognises only what RoundTrip reads.
func TestRecogniseRoute(t *testing.T) {
	tr := &Transport{}
	req := func(method, path string) *http.Request {
		return &http.Request{Method: method, URL: &url.URL{Scheme: "https", Host: "generativelanguage.googleapis.com", Path: path}, Header: http.Header{}}
	}
	body := []byte(`{"contents":[],"model":"in-the-body"}`)
	api, model, ok := tr.Recognise(req(http.MethodPost, "/v1beta/models/gemini-3-pro:streamGenerateContent"), body)
	require.True(t, ok)
	require.Equal(t, "gemini", api)
	require.Equal(t, "gemini-3-pro", model)
	api, model, ok = tr.Recognise(req(http.MethodGet, "/v1beta/models/gemini-3-pro:streamGenerateContent"), body)
	require.False(t, ok)
	require.Empty(t, api)
	require.Equal(t, "in-the-body", model)
	api, model, ok = tr.Recognise(req(http.MethodPost, "/not/an/api"), body)
	require.False(t, ok)
	require.Empty(t, api)
	require.Equal(t, "in-the-body", model)
}

// A body that ends with the bytes of the body before from a member name
// on, the name's quote escaped (a member named x"model, with the model
// before), names the model it names, not the one before.
func TestRecogniseEscapedName(t *testing.T) {
	s := benchreq.Anthropic()
	tr := &Transport{Tenant: func(*http.Request) string { return "tenant" }}
	out := (&http.Request{Method: http.MethodPost, URL: &url.URL{Scheme: "https", Host: "api.example.com", Path: s.Path}, Header: http.Header{}}).WithContext(t.Context())
	first, ok := modelLast(s.Request(3), "model-a")
	require.True(t, ok)
	c, _ := tr.recognise(out, first, false, true)
	require.NotNil(t, c)
	require.NotNil(t, c.req)

	next, ok := modelLast(s.Request(4), "model-a")
	require.True(t, ok)
	tail := []byte(`,"model":"model-a"}`)
	require.True(t, bytes.HasSuffix(next, tail))
	body := slices.Concat([]byte(`{"model":"model-b",`), next[1:len(next)-len(tail)], []byte(`,"x\"model":"model-a"}`))
	require.True(t, jsonw.ValidBytes(body))

	_, named, ok := tr.Recognise(out, body)
	require.True(t, ok)
	require.Equal(t, "model-b", named, "the model the upstream reads")
	c, model := tr.recognise(out, body, false, true)
	require.Equal(t, "model-b", model)
	require.Equal(t, "model-b", c.target.Model)
}
