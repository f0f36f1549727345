package stream_test

import (
	"fmt"
	"strings"

	"github.com/reasonreplay/replay"
	_ "github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/reasonreplay/replay/stream"
)

// A streamed Anthropic response read with its codec: the events as they
// arrive, then the turn, its thinking block signed.
func Example() {
	body := `event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Six times seven."}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCkYIBhgCKkA"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"42"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: message_stop
data: {"type":"message_stop"}

`
	codec, err := replay.Lookup("anthropic", "anthropic", "claude-sonnet-4-5")
	if err != nil {
		panic(err)
	}
	s := stream.New(strings.NewReader(body), codec, stream.Options{})
	for s.Next() {
		ev := s.Event()
		fmt.Printf("%s %d %q\n", ev.Kind, ev.Block, ev.Delta)
	}
	turn, err := s.Turn()
	if err != nil {
		panic(err)
	}
	th := turn.Items()[0].(*replay.ReasoningText)
	fmt.Println(th.Text, th.Signature.Value(), th.Replayable())
	// Output:
	// reasoning_start 0 ""
	// reasoning_delta 0 "Six times seven."
	// reasoning_end 0 ""
	// text_delta 1 "42"
	// done -1 ""
	// Six times seven. EqQBCkYIBhgCKkA true
}
