package cohere_test

import (
	"errors"
	"io"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/cohere"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/stream"
)

// FuzzStream feeds arbitrary SSE to the stream decoder, whole and byte by
// byte: no panic, the same turn both ways, typed errors, and nothing
// replayable from a failed stream.
func FuzzStream(f *testing.F) {
	for _, name := range []string{"thinking.jsonl", "thinking-tool-call.jsonl",
		"cut-mid-thinking.jsonl", "stream-error.jsonl"} {
		f.Add(read(f, name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := cohere.Codec{}
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
	for _, name := range []string{"thinking.json", "thinking-tool-call.json", "error-body.json"} {
		f.Add(read(f, name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := cohere.Codec{}
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
		if _, err := c.Decode([]byte(`{"message":` + string(enc) + `}`)); err != nil {
			t.Fatalf("re-decode of %s: %v", enc, err)
		}
	})
}

// FuzzShape feeds arbitrary SSE whole and reshaped (no two events in a
// row of one shape): the events read by matching the shape of the last
// one give the same turn, error and events as when every event is read in
// full.
func FuzzShape(f *testing.F) {
	f.Add([]byte(runs()))
	f.Add(read(f, "thinking.sse"))
	f.Fuzz(func(t *testing.T, data []byte) {
		codectest.SameAsReshaped(t, cohere.Codec{}.NewFrameDecoder, stream.Options{}, data)
	})
}
