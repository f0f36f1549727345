package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// A body in a regular file is read into one buffer of the file's size;
// from standard input it is read growing, to the same bytes.
func TestBodyReadIntoOneBuffer(t *testing.T) {
	body := []byte(`{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("x", 300<<10) + `"}]}`)
	path := filepath.Join(t.TempDir(), "body.json")
	require.NoError(t, os.WriteFile(path, body, 0o600))
	e := &env{stdin: strings.NewReader(string(body))}
	for _, name := range []string{path, "-"} {
		src, err := open(e, name)
		require.NoError(t, err)
		got, err := src.all()
		require.NoError(t, err)
		require.NoError(t, src.close())
		require.Equal(t, string(body), string(got), name)
		if name == path {
			assert.Equal(t, int64(len(body)), src.size)
			assert.Equal(t, len(body)+1, cap(got), "one buffer, of the file's size and a byte to see its end")
		} else {
			assert.Zero(t, src.size, "standard input has no size")
		}
	}
}

// failingReader returns its bytes, then err.
type failingReader struct {
	data []byte
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// A stream whose reader fails part way prints the partial turn, marked
// incomplete, and says the reader's error: the event whose lines were
// all read but whose blank line never came is not decoded.
func TestStreamReadError(t *testing.T) {
	data, err := os.ReadFile("../../testdata/anthropic/thinking.sse")
	require.NoError(t, err)
	cut := strings.Index(string(data), "event: content_block_stop")
	require.Positive(t, cut)
	// The next event's lines, without the blank line that ends it.
	rest := string(data[cut:])
	cut += strings.Index(rest, "\n\n") + 1
	var out, errb strings.Builder
	code := run(&env{stdin: &failingReader{data: data[:cut], err: errors.New("connection reset")}, stdout: &out, stderr: &errb},
		[]string{"decode", "--compact", "-"})
	assert.Equal(t, exitCannot, code)
	assert.Equal(t, "replay decode: reading stream: connection reset (the partial turn was printed, marked incomplete)\n", errb.String())
	assert.False(t, gjson.Get(out.String(), "complete").Bool())
	require.True(t, gjson.Get(out.String(), "blocks.0.text").Exists(), out.String())
	assert.True(t, gjson.Get(out.String(), "blocks.0.unfinished").Bool(), "the block's stop event was not read: %s", out.String())
}
