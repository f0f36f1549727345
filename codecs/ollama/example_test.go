package ollama_test

import (
	"fmt"
	"strings"

	"github.com/reasonreplay/replay/codecs/ollama"
	"github.com/reasonreplay/replay/stream"
)

// Decode an /api/chat stream (JSON Lines) and write the assistant message
// of the next request, thinking included.
func Example() {
	events := `{"model":"qwen3:8b","created_at":"2026-11-20T10:00:00Z","message":{"role":"assistant","content":"","thinking":"17+25"},"done":false}
{"model":"qwen3:8b","created_at":"2026-11-20T10:00:01Z","message":{"role":"assistant","content":"","thinking":" is 42."},"done":false}
{"model":"qwen3:8b","created_at":"2026-11-20T10:00:02Z","message":{"role":"assistant","content":"42"},"done":false}
{"model":"qwen3:8b","created_at":"2026-11-20T10:00:03Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","eval_count":9}
`
	c := ollama.Codec{}
	turn, err := stream.Decode(strings.NewReader(events), c, stream.Options{Framing: stream.FramingJSONL})
	if err != nil {
		fmt.Println(err)
		return
	}
	msg, _ := c.Encode(turn)
	fmt.Println(turn.Complete, turn.FinishReason, string(turn.Usage))
	fmt.Println(string(msg))
	// Output:
	// true stop {"eval_count":9}
	// {"role":"assistant","content":"42","thinking":"17+25 is 42."}
}
