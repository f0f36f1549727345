package replayhttp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/reasonreplay/replay/replayhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// RefuseMalformed refuses the bodies it names that are not valid JSON,
// recognised or not, before a byte is sent; valid ones, and the bodies it
// does not name, go through as they are.
func TestRefuseMalformed(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		serveJSON(w, anthropicJSON(sigFor(40), "toolu_40"))
	})
	tr := &replayhttp.Transport{RefuseMalformed: func(r *http.Request) bool { return r.Header.Get("Content-Type") == "application/json" }}
	c := &http.Client{Transport: tr}
	for _, tc := range []struct {
		path, body string
		refused    bool
	}{
		{"/v1/messages", anthropicFirst, false},
		{"/v1/messages", `{"model":"claude-sonnet-4-5","messages":[}`, true},
		{"/v1/messages", `{"model":"claude-sonnet-4-5","messages":"not a list"}`, false}, // valid JSON of another shape
		{"/v1/messages/count_tokens", `{"model":"claude-sonnet-4-5",`, true},             // not a generation request
		{"/v1/messages/count_tokens", `{"model":"claude-sonnet-4-5"}`, false},
	} {
		before := len(srv.received())
		ctx, call := replayhttp.WithCapture(context.Background())
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+tc.path, strings.NewReader(tc.body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if !tc.refused {
			require.NoError(t, err, tc.body)
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			require.Len(t, srv.received(), before+1)
			assert.Equal(t, tc.body, string(srv.received()[before]))
			continue
		}
		require.Error(t, err, tc.body)
		assert.True(t, errors.Is(err, replayhttp.ErrMalformedBody), "%v", err)
		assert.Len(t, srv.received(), before, "not a byte sent")
		if tc.path == "/v1/messages" {
			_, terr := call.Turn()
			assert.True(t, errors.Is(terr, replayhttp.ErrMalformedBody), "the call's capture has the error")
		}
	}
	// Without a content type it names, an invalid body goes as it is.
	resp := post(t, &http.Client{Transport: &replayhttp.Transport{RefuseMalformed: func(*http.Request) bool { return false }}}, context.Background(),
		srv.URL+"/v1/messages", `{"model":`)
	resp.Body.Close()
	assert.Equal(t, `{"model":`, string(srv.received()[len(srv.received())-1]))
}
