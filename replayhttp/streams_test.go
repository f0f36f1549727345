package replayhttp_test

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/binary"
	"hash/crc32"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// eventStream encodes JSON Lines (one `{"<type>": payload}` object a line)
// as the AWS binary event stream Bedrock sends: one message per line, the
// type in the :event-type header.
func eventStream(t *testing.T, jsonl []byte) []byte {
	t.Helper()
	var out []byte
	for _, line := range bytes.Split(bytes.TrimSpace(jsonl), []byte("\n")) {
		var typ, payload string
		gjson.ParseBytes(line).ForEach(func(k, v gjson.Result) bool {
			typ, payload = k.Str, v.Raw
			return false
		})
		require.NotEmpty(t, typ)
		var h []byte
		for _, x := range [][2]string{{":message-type", "event"}, {":event-type", typ}, {":content-type", "application/json"}} {
			h = append(h, byte(len(x[0])))
			h = append(h, x[0]...)
			h = append(h, 7)
			h = binary.BigEndian.AppendUint16(h, uint16(len(x[1])))
			h = append(h, x[1]...)
		}
		msg := binary.BigEndian.AppendUint32(nil, uint32(12+len(h)+len(payload)+4))
		msg = binary.BigEndian.AppendUint32(msg, uint32(len(h)))
		msg = binary.BigEndian.AppendUint32(msg, crc32.ChecksumIEEE(msg))
		msg = append(append(msg, h...), payload...)
		out = append(out, binary.BigEndian.AppendUint32(msg, crc32.ChecksumIEEE(msg))...)
	}
	return out
}

// sseToArray rewrites an SSE fixture as the JSON array Gemini answers
// streamGenerateContent with when alt=sse is not asked for.
func sseToArray(sse []byte) []byte {
	var parts []string
	for _, line := range strings.Split(string(sse), "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			parts = append(parts, d)
		}
	}
	return []byte("[" + strings.Join(parts, "\r\n,\r\n") + "\r\n]")
}

func fixture(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile("../testdata/" + path)
	require.NoError(t, err)
	return b
}

// want decodes a fixture with the codec directly: what the middleware
// must capture from the same stream in another framing.
func want(t *testing.T, api, provider, model string, framing stream.Framing, b []byte) string {
	t.Helper()
	c, err := replay.Lookup(api, provider, model)
	require.NoError(t, err)
	tu, err := stream.Decode(bytes.NewReader(b), c, stream.Options{Framing: framing})
	require.NoError(t, err)
	return string(tu.AppendJSON(nil))
}

// captureStream serves body with contentType at path and returns the
// bytes the caller read and the captured turn document.
func captureStream(t *testing.T, path, contentType string, body []byte) ([]byte, string) {
	t.Helper()
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		w.Header().Set("Content-Type", contentType)
		for len(body) > 0 { // in small writes, so the reader sees pieces
			n := min(7, len(body))
			_, _ = w.Write(body[:n])
			body = body[n:]
		}
	})
	served := append([]byte(nil), body...)
	ctx, call := replayhttp.WithCapture(context.Background())
	resp := post(t, &http.Client{Transport: &replayhttp.Transport{}}, ctx, srv.URL+path, `{"messages":[{"role":"user","content":[{"text":"hi"}]}]}`)
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, served, got, "the caller's bytes are the provider's")
	tu, err := call.Turn()
	require.NoError(t, err)
	return got, string(tu.AppendJSON(nil))
}

func TestCaptureBedrockConverseStream(t *testing.T) {
	jsonl := fixture(t, "bedrock-converse/claude-tool-use.jsonl")
	model := "anthropic.claude-sonnet-4-5-20250929-v1:0"
	_, doc := captureStream(t, "/model/"+model+"/converse-stream", "application/vnd.amazon.eventstream", eventStream(t, jsonl))
	assert.Equal(t, want(t, "bedrock-converse", "bedrock", model, stream.FramingJSONL, jsonl), doc)
	assert.Contains(t, doc, `"signature"`)
}

func TestCaptureBedrockInvokeModelStream(t *testing.T) {
	jsonl := fixture(t, "anthropic/bedrock-chunks.jsonl")
	model := "anthropic.claude-sonnet-4-5-20250929-v1:0"
	_, doc := captureStream(t, "/model/"+model+"/invoke-with-response-stream", "application/vnd.amazon.eventstream", eventStream(t, jsonl))
	assert.Equal(t, want(t, "anthropic", "bedrock", model, stream.FramingJSONL, jsonl), doc)
	assert.Contains(t, doc, `"type":"reasoning.text"`)
}

func TestCaptureGeminiJSONArrayStream(t *testing.T) {
	for _, name := range []string{"stream-thought-signatures.sse", "stream-parallel-calls.sse", "stream-25-signed-text.sse"} {
		sse := fixture(t, "gemini/"+name)
		_, doc := captureStream(t, "/v1beta/models/gemini-3-pro-preview:streamGenerateContent", "application/json; charset=UTF-8", sseToArray(sse))
		assert.Equal(t, want(t, "gemini", "", "gemini-3-pro-preview", stream.FramingSSE, sse), doc, name)
	}
}

// A JSON array cut before its end gives the partial turn, incomplete,
// with an error wrapping io.ErrUnexpectedEOF.
func TestCaptureGeminiJSONArrayCut(t *testing.T) {
	arr := sseToArray(fixture(t, "gemini/stream-thought-signatures.sse"))
	cut := arr[:bytes.LastIndex(arr, []byte("\r\n,\r\n"))]
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) { serveJSON(w, string(cut)) })
	ctx, call := replayhttp.WithCapture(context.Background())
	resp := post(t, &http.Client{Transport: &replayhttp.Transport{}}, ctx, srv.URL+"/v1beta/models/gemini-3-pro-preview:streamGenerateContent", `{"contents":[]}`)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	tu, err := call.Turn()
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.False(t, tu.Complete)
	assert.NotEmpty(t, tu.Blocks)
}

// A caller that asked for a compressed response (it set Accept-Encoding,
// so net/http leaves the body alone) reads the server's bytes as they
// came; the middleware decodes its own copy and captures the turn, for
// gzip and for deflate (zlib and raw), streamed and not.
func TestCompressedResponses(t *testing.T) {
	stream := anthropicSSE(sigFor(9), "toolu_09")
	for _, coding := range []string{"gzip", "deflate-zlib", "deflate-raw"} {
		var enc bytes.Buffer
		var zw io.WriteCloser
		switch coding {
		case "gzip":
			zw = gzip.NewWriter(&enc)
		case "deflate-zlib":
			zw = zlib.NewWriter(&enc)
		default:
			zw, _ = flate.NewWriter(&enc, flate.DefaultCompression)
		}
		_, _ = zw.Write([]byte(stream))
		require.NoError(t, zw.Close())
		wire := enc.Bytes()
		srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Content-Encoding", strings.Split(coding, "-")[0])
			for i := 0; i < len(wire); i += 7 { // in pieces, as a stream arrives
				_, _ = w.Write(wire[i:min(i+7, len(wire))])
				w.(http.Flusher).Flush()
			}
		})
		c := &http.Client{Transport: &replayhttp.Transport{}}
		ctx, call := replayhttp.WithCapture(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(anthropicFirst))
		req.Header.Set("Accept-Encoding", "gzip, deflate")
		resp, err := c.Do(req)
		require.NoError(t, err)
		got, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, wire, got, "%s: the caller reads the bytes the server sent", coding)
		tu, err := call.Turn()
		require.NoError(t, err, coding)
		assert.True(t, tu.Complete, coding)
		require.NotEmpty(t, tu.Items(), coding)
	}
}
