package gemini

import (
	"testing"
	"unicode/utf8"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/stream"
)

// FuzzStream feeds arbitrary bytes as an SSE stream: no panic, the same turn
// however the bytes are split, and nothing unfinished is replayable.
func FuzzStream(f *testing.F) {
	f.Add([]byte("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\",\"thought\":true},{\"functionCall\":{\"name\":\"f\",\"willContinue\":true},\"thoughtSignature\":\"QQ==\"}]}}]}\n\ndata: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.a\",\"stringValue\":\"x\"}]}}]},\"finishReason\":\"STOP\"}]}\n\n"))
	// Issue 11: paths (deep, indexed, quoted, revisited) and lone surrogates.
	f.Add([]byte("data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\",\"willContinue\":true}},{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.a.b.c[0].d\",\"stringValue\":\"x\"},{\"jsonPath\":\"$.a.b.c[0].d\",\"stringValue\":\"y\"},{\"jsonPath\":\"$['q r'][0]\",\"numberValue\":1},{\"jsonPath\":\"$.a\",\"nullValue\":\"NULL_VALUE\"}]}}]},\"finishReason\":\"STOP\"}]}\n\n"))
	f.Add([]byte("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\",\"thoughtSignature\":\"QQ\\ud800==\"}]},\"finishReason\":\"STOP\"}]}\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		whole := codectest.FeedPush(newFD(), stream.Options{}, [][]byte{data})
		split := codectest.FeedPull(newFD(), stream.Options{}, codectest.Splits(data)[4].Chunks)
		if string(whole.Document()) != string(split.Document()) {
			t.Fatalf("split feed differs:\n%s\n%s", whole.Document(), split.Document())
		}
		checkTurn(t, whole.Turn, utf8.Valid(data))
	})
}

// FuzzDecode feeds arbitrary bytes as a whole body.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"candidates":[{"content":{"parts":[{"text":"","thoughtSignature":"QQ=="}]},"finishReason":"STOP"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tu, err := Codec{}.Decode(data)
		if err != nil {
			return
		}
		checkTurn(t, tu, utf8.Valid(data))
	})
}

// checkTurn checks that nothing unfinished is replayable and, for valid
// UTF-8 input (JSON cannot carry invalid UTF-8 through a re-encode), that
// encode -> decode -> encode is stable.
func checkTurn(t *testing.T, tu *replay.Turn, utf8ok bool) {
	for _, b := range tu.Blocks {
		if it, ok := b.(replay.ReasoningItem); ok && it.Meta().Unfinished && it.Replayable() {
			t.Fatalf("unfinished item is replayable: %#v", it)
		}
	}
	enc, err := Codec{}.Encode(tu)
	if err != nil || !utf8ok {
		return
	}
	back, err := Codec{}.Decode(asBody(enc))
	if err != nil {
		t.Fatalf("encoded turn does not decode: %v\n%s", err, enc)
	}
	again, err := Codec{}.Encode(back)
	if err != nil || string(again) != string(enc) {
		t.Fatalf("encode unstable: %v\n%s\n%s", err, enc, again)
	}
}

// FuzzShape feeds arbitrary SSE whole and reshaped (no two events in a
// row of one shape): the events read by matching the shape of the last
// one give the same turn, error and events as when every event is read in
// full.
func FuzzShape(f *testing.F) {
	f.Add([]byte(gchunk(`{"text":"a"}`, "", 1) + gchunk(`{"text":"b"}`, "", 2) + gchunk(`{"text":"c"}`, `,"finishReason":"STOP"`, 3)))
	f.Fuzz(func(t *testing.T, data []byte) {
		codectest.SameAsReshaped(t, newFD, stream.Options{}, data)
	})
}
