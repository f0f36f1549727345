package replayhttp

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/own"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func bodyRequest(body io.Reader, n int64) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, "https://api.anthropic.com/v1/messages", body)
	req.ContentLength = n
	return req
}

// A body is read whole whatever its Content-Length says, within the limit;
// a body the proxy read whole is taken as it is, not copied. The bytes are
// owned when the middleware read them, or when the body is this module's
// and says so (own.Body), never when another Bytes method gave them.
func TestReadBody(t *testing.T) {
	text := strings.Repeat("0123456789", 1000)
	for _, n := range []int64{-1, 0, 5, int64(len(text)), int64(len(text)) + 7} {
		got, owned, err := readBody(bodyRequest(strings.NewReader(text), n), 20000)
		require.NoError(t, err, n)
		assert.Equal(t, text, string(got), n)
		assert.True(t, owned, "read by the middleware")
	}
	_, _, err := readBody(bodyRequest(strings.NewReader(text), int64(len(text))), 9999)
	var le *replay.LimitError
	require.True(t, errors.As(err, &le))

	b := []byte(text)
	got, owned, err := readBody(bodyRequest(&held{Reader: bytes.NewReader(b), b: b}, int64(len(b))), 20000)
	require.NoError(t, err)
	assert.Same(t, &b[0], &got[0], "taken, not copied")
	assert.False(t, owned, "another's Bytes may be written again")
	_, _, err = readBody(bodyRequest(&held{Reader: bytes.NewReader(b), b: b}, int64(len(b))), 9999)
	require.True(t, errors.As(err, &le))

	got, owned, err = readBody(bodyRequest(&held{Reader: bytes.NewReader(b), b: b}, -1), 20000)
	require.NoError(t, err)
	assert.Equal(t, text, string(got), "a held body whose length is not told is read")
	assert.True(t, owned)
	assert.NotSame(t, &b[0], &got[0])

	got, owned, err = readBody(bodyRequest(&ownedBody{held{Reader: bytes.NewReader(b), b: b}}, int64(len(b))), 20000)
	require.NoError(t, err)
	assert.Same(t, &b[0], &got[0], "taken, not copied")
	assert.True(t, owned, "the body says its bytes are never written again")
	_, _, err = readBody(bodyRequest(&ownedBody{held{Reader: bytes.NewReader(b), b: b}}, int64(len(b))), 9999)
	require.True(t, errors.As(err, &le))
}

// ownedBody is a held body that says its bytes are never written again.
type ownedBody struct{ held }

func (h *ownedBody) HeldBytes(own.Token) []byte { return h.b }

// held is a body that holds its bytes, as the proxy's does.
type held struct {
	*bytes.Reader
	b []byte
}

func (h *held) Close() error  { return nil }
func (h *held) Bytes() []byte { return h.b }
