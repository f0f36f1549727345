package ollama_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/ollama"
	"github.com/reasonreplay/replay/internal/codectest"
)

var streams = []string{"thinking.jsonl", "tool-loop.jsonl", "tool-call-no-id.jsonl", "think-tags.jsonl",
	"cut-mid-thinking.jsonl", "stream-error.jsonl", "last-piece.jsonl"}

// FuzzStream feeds arbitrary JSON Lines to the stream decoder, whole and
// byte by byte: no panic, the same turn both ways, typed errors, and
// nothing replayable from a failed stream.
func FuzzStream(f *testing.F) {
	for _, name := range streams {
		f.Add(read(f, name))
	}
	f.Add(shapeRuns())
	f.Add([]byte(`{"message":{"thinking":"a\ud83c"},"done":false}` + "\n" + `{"message":{"thinking":"\udc00","tool_calls":[{"id":"c","function":{"name":"f","arguments":` +
		strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}}]},"done":false}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := ollama.Codec{}
		whole := codectest.FeedPush(c.NewFrameDecoder(), jsonl, [][]byte{data})
		var bytes [][]byte
		for i := range data {
			bytes = append(bytes, data[i:i+1])
		}
		split := codectest.FeedPull(c.NewFrameDecoder(), jsonl, bytes)
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

// FuzzShape holds matching to the full read: a stream and the same stream
// with no two lines of one shape give the same turn, events and error.
func FuzzShape(f *testing.F) {
	f.Add(shapeRuns())
	for _, name := range streams {
		f.Add(read(f, name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		codectest.SameAsReshaped(t, ollama.Codec{}.NewFrameDecoder, jsonl, data)
	})
}

// FuzzDecode feeds arbitrary bodies to Decode and re-decodes what Encode
// writes: typed errors only, and an encoded turn always reads back.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"chat.json", "tool-call.json", "error.json"} {
		f.Add(read(f, name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := ollama.Codec{}
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
		if _, err := c.Decode([]byte(`{"message":` + string(enc) + `,"done":true}`)); err != nil {
			t.Fatalf("re-decode of %s: %v", enc, err)
		}
	})
}

// FuzzDecodeRequest feeds arbitrary request bodies to DecodeRequest and
// ReadRequest: typed errors only, the same turns both ways.
func FuzzDecodeRequest(f *testing.F) {
	for _, name := range []string{"history.request", "history-cut.request"} {
		f.Add(read(f, name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := ollama.Codec{}
		h, _, err := c.DecodeRequest(data)
		if err != nil {
			var le *replay.LimitError
			if !errors.Is(err, replay.ErrMalformed) && !errors.As(err, &le) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		r, err := c.ReadRequest(data)
		if err != nil {
			t.Fatalf("ReadRequest refused what DecodeRequest read: %v", err)
		}
		if len(r.History.Turns) != len(h.Turns) {
			t.Fatalf("%d turns, then %d", len(h.Turns), len(r.History.Turns))
		}
	})
}
