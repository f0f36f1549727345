package mistral_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/mistral"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/stream"
)

// FuzzStream feeds arbitrary SSE to the stream decoder, whole and byte by
// byte: no panic, the same turn both ways, typed errors, and nothing
// replayable from a failed stream.
func FuzzStream(f *testing.F) {
	for _, name := range []string{"magistral-thinking.sse", "small-mixed-delta.jsonl", "thinking-tool-call.jsonl",
		"cut-mid-thinking.jsonl", "stream-error.jsonl"} {
		f.Add(read(f, name))
	}
	// hostile: nesting at and past the limit, lone surrogate halves
	f.Add([]byte(`{"x":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "}\n"))
	f.Add([]byte(`{"choices":[{"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"a\ud83c"}]}]}}]}` + "\n" +
		`{"choices":[{"delta":{"content":"\udc00","tool_calls":[{"id":"c\ud800","function":{"name":"f","arguments":` + strings.Repeat("[", 9990) + strings.Repeat("]", 9990) + `}}]}}]}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := mistral.Codec{}
		opts := stream.Options{Framing: stream.FramingJSONL}
		whole := codectest.FeedPush(c.NewFrameDecoder(), opts, [][]byte{data})
		var bytes [][]byte
		for i := range data {
			bytes = append(bytes, data[i:i+1])
		}
		split := codectest.FeedPull(c.NewFrameDecoder(), opts, bytes)
		if string(whole.Document()) != string(split.Document()) {
			t.Fatalf("whole and byte-by-byte feeds differ")
		}
		if whole.Err == nil {
			if _, err := c.Encode(whole.Turn); err != nil && !errors.Is(err, replay.ErrMalformed) {
				t.Fatalf("encode: %v", err)
			}
			return
		}
		if whole.Turn.Complete {
			t.Fatalf("a failed stream gave a complete turn")
		}
		for _, it := range whole.Turn.Items() {
			if it.Replayable() {
				t.Fatalf("a failed stream gave a replayable item")
			}
		}
		var pe *replay.ProviderError
		var le *replay.LimitError
		if !errors.Is(whole.Err, replay.ErrMalformed) && !errors.Is(whole.Err, io.ErrUnexpectedEOF) &&
			!errors.As(whole.Err, &pe) && !errors.As(whole.Err, &le) {
			t.Fatalf("untyped error: %v", whole.Err)
		}
	})
}

// FuzzDecode feeds arbitrary bodies to Decode and re-decodes what Encode
// writes: typed errors only, and an encoded turn always reads back.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"magistral-thinking.json", "thinking-tool-call.json", "error-body.json"} {
		f.Add(read(f, name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := mistral.Codec{}
		tu, err := c.Decode(data)
		if err != nil {
			var pe *replay.ProviderError
			var le *replay.LimitError
			if !errors.Is(err, replay.ErrMalformed) && !errors.As(err, &pe) && !errors.As(err, &le) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		enc, err := c.Encode(tu)
		if err != nil {
			if !errors.Is(err, replay.ErrMalformed) {
				t.Fatalf("encode: %v", err)
			}
			return
		}
		if _, err := c.Decode([]byte(`{"choices":[{"message":` + string(enc) + `,"finish_reason":"stop"}]}`)); err != nil {
			t.Fatalf("re-decode of %s: %v", enc, err)
		}
	})
}
