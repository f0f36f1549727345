package openrouter_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/openrouter"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/stream"
)

// FuzzStream feeds arbitrary bytes as an SSE stream: the decoder never
// panics, the same bytes split in two give the same turn, a complete turn
// has no unfinished block, and its document reads back identically.
func FuzzStream(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.sse"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err == nil {
			f.Add(b, uint16(len(b)/2))
		}
	}
	for _, b := range hostileSeeds() {
		f.Add(b, uint16(len(b)/3))
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		whole := codectest.FeedPush(newFD(), stream.Options{}, [][]byte{data})
		c := int(cut)
		if c > len(data) {
			c = len(data)
		}
		split := codectest.FeedPush(newFD(), stream.Options{}, [][]byte{data[:c], data[c:]})
		a, b := whole.Turn.AppendJSON(nil), split.Turn.AppendJSON(nil)
		if !bytes.Equal(a, b) {
			t.Fatalf("split at %d changed the turn:\n%s\n%s", c, a, b)
		}
		if (whole.Err == nil) != whole.Turn.Complete {
			t.Fatalf("complete=%v with err=%v", whole.Turn.Complete, whole.Err)
		}
		if whole.Err != nil {
			for _, it := range whole.Turn.Items() {
				if it.Replayable() {
					t.Fatalf("an item of a failed stream is replayable: %s", it.AppendJSON(nil))
				}
			}
		}
		back, err := replay.UnmarshalTurn(a)
		if err != nil {
			t.Fatalf("document does not read back: %v\n%s", err, a)
		}
		if got := back.AppendJSON(nil); !bytes.Equal(got, a) {
			t.Fatalf("document round trip differs:\n%s\n%s", a, got)
		}
	})
}

// hostileSeeds are streams that reach the hostile paths: nesting at and
// past the depth limit (in a delta, and in tool call arguments assembled
// from fragments), and lone surrogate halves in signed and unsigned text.
func hostileSeeds() [][]byte {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	return [][]byte{
		sse(`{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":` + deep(9990) + `}}]}`),
		sse(`{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"`+strings.Repeat("[", 20000)+`"}}]}`,
			`{"tool_calls":[{"index":0,"function":{"arguments":"`+strings.Repeat("]", 20000)+`"}}]}`),
		sse(`{"x":` + deep(10001) + `}`),
		sse(detailDelta(`,"text":"a\ud83c"`), detailDelta(`,"text":"\udf0a","signature":"c2ln"`)),
		sse(detailDelta(`,"text":"a\ud83c"`), detailDelta(`,"text":"b","signature":"c2ln\udc00"`)),
		sse(`{"reasoning":"\ud800"}`, `{"content":"\udc00x"}`),
	}
}

// FuzzDecode feeds arbitrary bodies: no panic, and a decoded turn encodes
// to a message whose reasoning decodes back to the same replayable items.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c := openrouter.Codec{}
		tu, err := c.Decode(body)
		if err != nil {
			return
		}
		msg, err := c.Encode(tu)
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		again, err := c.Decode(append(append([]byte(`{"choices":[{"message":`), msg...), `}]}`...))
		if err != nil {
			t.Fatalf("re-decode of %s: %v", msg, err)
		}
		var want [][]byte
		for _, it := range tu.Items() {
			if it.Replayable() {
				want = append(want, it.AppendWire(nil))
			}
		}
		got := again.Items()
		if len(got) != len(want) {
			t.Fatalf("%d items back, want %d\n%s", len(got), len(want), msg)
		}
		for i := range got {
			if g := got[i].AppendWire(nil); !bytes.Equal(g, want[i]) {
				t.Fatalf("item %d changed:\n%s\n%s", i, want[i], g)
			}
		}
	})
}
