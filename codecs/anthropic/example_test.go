package anthropic_test

import (
	"fmt"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/reasonreplay/replay/stream"
)

func Example() {
	events := `event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"7 * 6 = 42."}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCkYIBxgC"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01A","name":"record","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"n\": 42}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use"}}

event: message_stop
data: {"type":"message_stop"}

`
	c := anthropic.Codec{Provider: "anthropic"}
	turn, err := stream.Decode(strings.NewReader(events), c, stream.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	th := turn.Blocks[0].(*replay.ReasoningText)
	fmt.Println(th.Text, th.Signature.Value(), th.Replayable())

	msg, _ := c.Encode(turn)
	fmt.Println(string(msg))
	// Output:
	// 7 * 6 = 42. EqQBCkYIBxgC true
	// {"role":"assistant","content":[{"type":"thinking","thinking":"7 * 6 = 42.","signature":"EqQBCkYIBxgC"},{"type":"tool_use","id":"toolu_01A","name":"record","input":{"n": 42}}]}
}
