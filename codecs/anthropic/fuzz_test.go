package anthropic_test

import (
	"bytes"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/reasonreplay/replay/stream"
	"github.com/tidwall/gjson"
)

// FuzzStream feeds arbitrary bytes as SSE and as JSONL. The decoder must not
// panic, must return a turn, must never hand out an unfinished or unsigned
// item as replayable, and whatever it encodes must be valid JSON.
func FuzzStream(f *testing.F) {
	for _, c := range streamCases {
		data, err := readFile(c.name)
		if err == nil {
			f.Add(data, c.framing == stream.FramingJSONL)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, jsonl bool) {
		opts := stream.Options{Limits: replay.Limits{MaxEvent: 1 << 16, MaxItem: 1 << 16, MaxBlocks: 64}}
		if jsonl {
			opts.Framing = stream.FramingJSONL
		}
		tu, err := stream.Decode(bytes.NewReader(data), anthropic.Codec{}, opts)
		if tu == nil {
			t.Fatal("nil turn")
		}
		for _, it := range tu.Items() {
			if it.Replayable() && (err != nil || it.Meta().Unfinished) {
				t.Fatalf("replayable item from a failed stream: %v", err)
			}
			if x, ok := it.(*replay.ReasoningText); ok && x.Replayable() && x.Signature.Value() == "" {
				t.Fatal("unsigned thinking is replayable")
			}
		}
		checkEncode(t, tu)
	})
}

// FuzzDecode feeds arbitrary response bodies.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"message.json", "error-body.json"} {
		if data, err := readFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"type":"message","content":[{"type":"thinking","thinking":"","signature":"x"},{"type":"tool_use","id":"a","name":"b","input":[1]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		tu, err := anthropic.Codec{}.Decode(body)
		if err != nil {
			return
		}
		checkEncode(t, tu)
	})
}

func checkEncode(t *testing.T, tu *replay.Turn) {
	msg, err := anthropic.Codec{}.Encode(tu)
	if err != nil {
		return // e.g. tool input that is not an object
	}
	if !gjson.ValidBytes(msg) {
		t.Fatalf("Encode wrote invalid JSON: %s", msg)
	}
	out, err := anthropic.Codec{}.Patch([]byte(`{"role":"assistant","content":[]}`), tu)
	if err != nil || !gjson.ValidBytes(out) {
		t.Fatalf("Patch: %v %s", err, out)
	}
}
