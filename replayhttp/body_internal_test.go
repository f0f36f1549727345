package replayhttp

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
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
	got, err := readBody(bodyRequest(&held{Reader: bytes.NewReader(b), b: b}, int64(len(b))), 20000)
	require.NoError(t, err)
	assert.Same(t, &b[0], &got[0], "taken, not copied")
	_, err = readBody(bodyRequest(&held{Reader: bytes.NewReader(b), b: b}, int64(len(b))), 9999)
	require.True(t, errors.As(err, &le))

	got, err = readBody(bodyRequest(&held{Reader: bytes.NewReader(b), b: b}, -1), 20000)
	require.NoError(t, err)
	assert.Equal(t, text, string(got), "a held body whose length is not told is read")
}

// held is a body that holds its bytes, as the proxy's does.
type held struct {
	*bytes.Reader
	b []byte
}

func (h *held) Close() error  { return nil }
func (h *held) Bytes() []byte { return h.b }
