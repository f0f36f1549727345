package replayhttp

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/reqbody"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func bodyRequest(body io.Reader, n int64) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, "https://api.anthropic.com/v1/messages", body)
	req.ContentLength = n
	return req
}

// A body is read whole whatever its Content-Length says, within the limit;
// a body the proxy read whole is taken as it is, not copied.
func TestReadBody(t *testing.T) {
	text := strings.Repeat("0123456789", 1000)
	for _, n := range []int64{-1, 0, 5, int64(len(text)), int64(len(text)) + 7} {
		got, err := readBody(bodyRequest(strings.NewReader(text), n), 20000)
		require.NoError(t, err, n)
		assert.Equal(t, text, string(got), n)
	}
	_, err := readBody(bodyRequest(strings.NewReader(text), int64(len(text))), 9999)
	var le *replay.LimitError
	require.True(t, errors.As(err, &le))

	b := []byte(text)
	got, err := readBody(bodyRequest(reqbody.New(b), int64(len(b))), 20000)
	require.NoError(t, err)
	assert.Same(t, &b[0], &got[0], "taken, not copied")
	_, err = readBody(bodyRequest(reqbody.New(b), int64(len(b))), 9999)
	require.True(t, errors.As(err, &le))

	rb := reqbody.New(b)
	head := make([]byte, 3)
	_, _ = rb.Read(head)
	got, err = readBody(bodyRequest(rb, -1), 20000)
	require.NoError(t, err)
	assert.Equal(t, text[3:], string(got), "a body partly read is read on")
}

// A body read by the proxy reaches the upstream byte for byte.
func TestReqbodyReads(t *testing.T) {
	b := []byte(`{"a":1}`)
	got, err := io.ReadAll(reqbody.New(b))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(b, got))
}
