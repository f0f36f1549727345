package openai_test

import (
	"bytes"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/openai"
	"github.com/reasonreplay/replay/stream"
)

func FuzzStream(f *testing.F) {
	for _, n := range []string{"summary-encrypted.sse", "two-reasoning-calls.sse", "failed.sse", "error-event.sse", "compaction.sse"} {
		f.Add(read(f, n))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := openai.Codec{}
		tu, _ := stream.Decode(bytes.NewReader(data), c, stream.Options{})
		if tu == nil {
			t.Fatal("nil turn")
		}
		out, err := c.Encode(tu)
		if err != nil {
			t.Fatal(err)
		}
		if !validJSON(out) {
			t.Fatalf("encode wrote invalid JSON: %s", out)
		}
		if !tu.Complete {
			for _, it := range tu.Items() {
				if it.Replayable() && it.Meta().Unfinished {
					t.Fatal("unfinished item is replayable")
				}
			}
		}
	})
}

func FuzzBody(f *testing.F) {
	for _, n := range []string{"summary-encrypted.json", "server-tools.json", "incomplete.json", "error.json", "compaction.json"} {
		f.Add(read(f, n))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := openai.Codec{}
		tu, err := c.Decode(data)
		if tu == nil {
			if err == nil {
				t.Fatal("nil turn without error")
			}
			return
		}
		out, err := c.Encode(tu)
		if err != nil || !validJSON(out) {
			t.Fatalf("encode: %v %s", err, out)
		}
		if _, err := replay.UnmarshalTurn(tu.AppendJSON(nil)); err != nil {
			t.Fatalf("document does not read back: %v", err)
		}
	})
}
