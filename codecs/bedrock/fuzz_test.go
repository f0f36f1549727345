package bedrock_test

import (
	"errors"
	"io"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/bedrock"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/stream"
)

// FuzzStream feeds arbitrary JSONL to the stream decoder, whole and byte by
// byte: it must never panic, the two feeds must agree, and a turn that
// decoded without error must encode.
func FuzzStream(f *testing.F) {
	for _, name := range []string{"claude-thinking.jsonl", "claude-tool-use.jsonl", "redacted-tool-use.jsonl",
		"kimi-unsigned-tool-use.jsonl", "cut-mid-reasoning.jsonl", "stream-exception.jsonl"} {
		f.Add(read(f, name))
	}
	opts := stream.Options{Framing: stream.FramingJSONL}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := bedrock.Codec{Model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0"}
		whole := codectest.FeedPush(c.NewFrameDecoder(), opts, [][]byte{data})
		var bytes [][]byte
		for i := range data {
			bytes = append(bytes, data[i:i+1])
		}
		split := codectest.FeedPull(c.NewFrameDecoder(), opts, bytes)
		if string(whole.Document()) != string(split.Document()) {
			t.Fatalf("whole and byte-by-byte feeds differ:\n%s\n%s", whole.Document(), split.Document())
		}
		if whole.Err == nil {
			if _, err := c.Encode(whole.Turn); err != nil && !errors.Is(err, replay.ErrMalformed) {
				t.Fatalf("encode: %v", err)
			}
			return
		}
		if whole.Turn.Complete {
			t.Fatalf("a failed stream gave a complete turn: %v", whole.Err)
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
// writes.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"claude-thinking.json", "redacted-tool-use.json", "qwen-unsigned.json", "error-validation.json"} {
		f.Add(read(f, name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := bedrock.Codec{}
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
		if _, err := c.Decode(asResponse(enc)); err != nil {
			t.Fatalf("re-decode of %s: %v", enc, err)
		}
	})
}

// FuzzShape feeds arbitrary JSONL whole and reshaped (no two events in a
// row of one shape): the events read by matching the shape of the last
// one give the same turn, error and events as when every event is read in
// full.
func FuzzShape(f *testing.F) {
	f.Add([]byte(converseRuns()))
	f.Add(read(f, "claude-thinking.jsonl"))
	f.Add(read(f, "kimi-think-tags.jsonl"))
	opts := stream.Options{Framing: stream.FramingJSONL}
	f.Fuzz(func(t *testing.T, data []byte) {
		codectest.SameAsReshaped(t, bedrock.Codec{Model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0"}.NewFrameDecoder, opts, data)
		codectest.SameAsReshaped(t, bedrock.Codec{Model: "moonshot.kimi-k2-thinking"}.NewFrameDecoder, opts, data)
	})
}
