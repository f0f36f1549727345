package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
