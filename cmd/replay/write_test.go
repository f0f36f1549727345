package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriteTurnIsTheIndentedDocument: decode writes the document while it
// is made, indented as it goes; the bytes are those of the whole document
// indented with json.Indent (writeJSON of AppendJSON), compact or not, on
// fixtures of every API (complete and partial turns) and on a tool-loop
// stream long enough to be written in many pieces.
func TestWriteTurnIsTheIndentedDocument(t *testing.T) {
	dir := t.TempDir()
	loop := filepath.Join(dir, "loop.sse")
	require.NoError(t, os.WriteFile(loop, toolLoop(50, 150), 0o600))
	files := []string{loop}
	for _, pat := range []string{"../../testdata/*/*.sse", "../../testdata/*/*.jsonl", "../../testdata/*/*.json"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	turns, partial := 0, 0
	for _, name := range files {
		e := &env{stdin: bytes.NewReader(nil), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
		src, err := open(e, name)
		require.NoError(t, err, name)
		f := &inputFlags{api: "auto", framing: "auto"}
		tu, _ := f.readTurn(e, "decode", src, false)
		src.close()
		if tu == nil {
			continue // not a response (a request, an empty body)
		}
		turns++
		if !tu.Complete {
			partial++
		}
		for _, compact := range []bool{false, true} {
			var want, got bytes.Buffer
			writeJSON(&want, tu.AppendJSON(nil), compact)
			writeTurn(&got, tu, compact)
			require.Equal(t, want.String(), got.String(), "%s compact=%v", name, compact)
		}
	}
	assert.Greater(t, turns, 100, "fixtures decoded")
	assert.Greater(t, partial, 5, "partial turns among them")

	// The long stream through the command, against the document indented
	// whole.
	code, out, errOut := runCLI("", "decode", "--stream", "--api", "openrouter", loop)
	require.Equal(t, 0, code, errOut)
	tu, err := stream.Decode(bytes.NewReader(toolLoop(50, 150)), mustCodec(t, "openrouter"), stream.Options{})
	require.NoError(t, err)
	doc := tu.AppendJSON(nil)
	require.Greater(t, len(doc), 200<<10, "the document is written in many pieces")
	assert.Equal(t, string(indent(doc)), out)
}

func mustCodec(t *testing.T, api string) replay.ReasoningCodec {
	c, err := lookup(api, "", "")
	require.NoError(t, err)
	return c
}
