package chatcompat

import (
	"strings"
	"testing"

	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/require"
)

// FuzzStream feeds arbitrary bytes as a stream, whole and in cuts: never a
// panic, the same turn document and error for every cut, and an unfinished
// item is never replayable.
func FuzzStream(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"<think>a</think>b\"}}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"reasoning\":\"x\",\"reasoning_content\":\"x\"}}]}\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"arguments\":\"{\"}}]}}]}\n\n"))
	f.Add([]byte("data: {\"error\":{\"message\":\"m\",\"code\":429}}\n\n"))
	// hostile: nesting at and past the limit, lone and split surrogate halves
	f.Add([]byte("data: {\"x\":" + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "}\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"arguments\":" + strings.Repeat("[", 9990) + strings.Repeat("]", 9990) + "}}]}}]}\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"a\\ud83c\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"reasoning_content\":\"\\udf0a\",\"content\":\"\\udc00\"}}]}\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"thoughtSignature\":\"s\\ud800\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}}]}\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		newFD := func() codecs.FrameDecoder { return New(APIGeneric, "", "").NewFrameDecoder() }
		want := codectest.FeedPush(newFD(), stream.Options{}, [][]byte{data})
		for _, sp := range codectest.Splits(data)[1:4] {
			got := codectest.FeedPush(newFD(), stream.Options{}, sp.Chunks)
			require.Equal(t, string(want.Document()), string(got.Document()), sp.Name)
			require.Equal(t, want.Err == nil, got.Err == nil, sp.Name)
		}
		if want.Err != nil {
			for _, it := range want.Turn.Items() {
				require.False(t, it.Replayable())
			}
		}
	})
}

// FuzzDecode reads arbitrary bodies: a turn or a typed error, never a panic.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"choices":[{"message":{"content":"<think>r</think>v","reasoning_content":"r"}}]}`))
	f.Add([]byte(`{"error":{"message":"m","type":"t","code":"c"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		tu, err := New(APIGeneric, "", "").Decode(body)
		if err == nil {
			require.NotNil(t, tu)
			_, err = New(APIGeneric, "", "").Encode(tu)
			require.NoError(t, err)
		}
	})
}
