package chatcompat

import (
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/require"
)

// chunks renders deltas as an SSE stream ending in finish_reason and [DONE].
func chunks(deltas ...string) []byte {
	var b strings.Builder
	for _, d := range deltas {
		b.WriteString(`data: {"choices":[{"index":0,"delta":` + d + `}]}` + "\n\n")
	}
	b.WriteString(`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n")
	return []byte(b.String())
}

// Regression: a surrogate pair whose halves arrive in two deltas (a host
// that cuts text by UTF-16 code units) decoded to two U+FFFD.
func TestSurrogatePairAcrossDeltas(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stream []byte
		want   string // the turn's blocks, rendered by render
	}{
		{"reasoning", chunks(`{"reasoning_content":"a\ud83c"}`, `{"reasoning_content":"\udf0ab"}`),
			"R[a\U0001F30Ab]"},
		{"content", chunks(`{"content":"x\ud83d"}`, `{"content":"\ude00"}`, `{"content":"y"}`),
			"T[x\U0001F600y]"},
		{"arguments", chunks(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{\"e\":\"\ud83c"}}]}`,
			`{"tool_calls":[{"index":0,"function":{"arguments":"\udf0a\"}"}}]}`),
			"C[{\"e\":\"\U0001F30A\"}]"},
		{"pair inside one delta", chunks(`{"content":"\ud83c\udf0a"}`), "T[\U0001F30A]"},
		{"lone high then another channel", chunks(`{"reasoning_content":"r\ud83c"}`, `{"content":"\udf0a"}`),
			"R[r\uFFFD] T[\uFFFD]"},
		{"lone high then no low", chunks(`{"content":"a\ud83c"}`, `{"content":"b"}`), "T[a\uFFFDb]"},
		{"lone high at the end", chunks(`{"content":"a\ud83c"}`), "T[a\uFFFD]"},
		{"lone low", chunks(`{"content":"\udf0a"}`), "T[\uFFFD]"},
		{"two highs", chunks(`{"content":"\ud83c"}`, `{"content":"\ud83c"}`, `{"content":"\udf0a"}`),
			"T[\uFFFD\U0001F30A]"},
		{"escaped backslash is not an escape", chunks(`{"content":"a\\ud83c"}`, `{"content":"\udf0a"}`),
			`T[a\ud83c` + "\uFFFD]"},
		{"literal replacement character kept", chunks(`{"content":"\ufffd"}`, `{"content":"\udf0a"}`),
			"T[\uFFFD\uFFFD]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := codectest.SweepStream(t, New(APIGeneric, "vllm", "").NewFrameDecoder, stream.Options{}, tc.stream)
			require.NoError(t, res.Err)
			require.Equal(t, tc.want, render(res.Turn))
		})
	}
}

func render(tu *replay.Turn) string {
	var parts []string
	for _, b := range tu.Blocks {
		switch x := b.(type) {
		case *replay.ReasoningText:
			parts = append(parts, "R["+x.Text+"]")
		case *replay.Text:
			parts = append(parts, "T["+x.Text+"]")
		case *replay.ToolCall:
			parts = append(parts, "C["+x.Arguments+"]")
		}
	}
	return strings.Join(parts, " ")
}
