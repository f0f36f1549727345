package gemini_test

import (
	"fmt"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/gemini"
	"github.com/reasonreplay/replay/stream"
)

func Example() {
	events := `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Checking the flight first.","thought":true}]}}],"modelVersion":"gemini-3-flash-preview"}

data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"check_flight","args":{"flight":"AA100"},"id":"fc01"},"thoughtSignature":"U2lnbmF0dXJlQQ=="}]},"finishReason":"STOP"}],"modelVersion":"gemini-3-flash-preview"}

`
	c := gemini.Codec{}
	turn, err := stream.Decode(strings.NewReader(events), c, stream.Options{})
	if err != nil {
		panic(err)
	}
	for _, b := range turn.Blocks {
		switch b := b.(type) {
		case *replay.ReasoningText:
			fmt.Printf("thought %q signed=%v\n", b.Text, b.Signed())
		case *replay.Encrypted:
			fmt.Printf("signature %s attached=%v id=%s\n", b.Data, b.Attached, b.ID.Value())
		case *replay.ToolCall:
			fmt.Printf("call %s %s\n", b.Name, b.Arguments)
		}
	}
	next, _ := c.Encode(turn)
	fmt.Println(string(next))
	// Output:
	// thought "Checking the flight first." signed=false
	// signature U2lnbmF0dXJlQQ== attached=true id=fc01
	// call check_flight {"flight":"AA100"}
	// {"role":"model","parts":[{"functionCall":{"name":"check_flight","args":{"flight":"AA100"},"id":"fc01"},"thoughtSignature":"U2lnbmF0dXJlQQ=="}]}
}
