package openrouter_test

import (
	"fmt"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/openrouter"
	"github.com/reasonreplay/replay/stream"
)

// Decode a streamed turn, look at its reasoning, and write it back as the
// assistant message of the next request.
func Example() {
	events := `: OPENROUTER PROCESSING

data: {"model":"anthropic/claude-sonnet-4.5","choices":[{"delta":{"reasoning":"Add them.","reasoning_details":[{"type":"reasoning.text","text":"Add them.","format":"anthropic-claude-v1","index":0}]}}]}

data: {"choices":[{"delta":{"reasoning_details":[{"type":"reasoning.text","text":"","signature":"c2lnbmVk","format":"anthropic-claude-v1","index":0}]}}]}

data: {"choices":[{"delta":{"content":"4"},"finish_reason":"stop"}]}

data: [DONE]

`
	c := openrouter.Codec{}
	turn, err := stream.Decode(strings.NewReader(events), c, stream.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, it := range turn.Items() {
		th := it.(*replay.ReasoningText)
		fmt.Printf("%s %q signed=%v replayable=%v\n", th.Format, th.Text, th.Signed(), th.Replayable())
	}
	msg, _ := c.Encode(turn)
	fmt.Println(string(msg))
	// Output:
	// anthropic-claude-v1 "Add them." signed=true replayable=true
	// {"role":"assistant","content":"4","reasoning_details":[{"type":"reasoning.text","text":"Add them.","signature":"c2lnbmVk","format":"anthropic-claude-v1","index":0}]}
}
