package replay_test

import (
	"fmt"
	"strings"

	"github.com/reasonreplay/replay"
	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/stream"
)

// Decode a streamed turn, store it as a document, read it back, audit it
// and write it into the next request.
func Example() {
	events := `data: {"model":"anthropic/claude-sonnet-4.5","provider":"Anthropic","choices":[{"delta":{"reasoning_details":[{"type":"reasoning.text","text":"Call the tool.","format":"anthropic-claude-v1","index":0}]}}]}

data: {"choices":[{"delta":{"reasoning_details":[{"type":"reasoning.text","signature":"RXFvS0JnZ0w=","format":"anthropic-claude-v1","index":0}]}}]}

data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"toolu_1","function":{"name":"lookup","arguments":"{\"q\":\"go\"}"}}]},"finish_reason":"tool_calls"}]}

data: [DONE]

`
	codec, err := replay.Lookup("openrouter", "", "")
	if err != nil {
		panic(err)
	}
	turn, err := stream.Decode(strings.NewReader(events), codec, stream.Options{})
	if err != nil {
		panic(err)
	}

	doc := turn.AppendJSON(nil) // store this
	stored, err := replay.UnmarshalTurn(doc)
	if err != nil {
		panic(err)
	}

	report := replay.AuditReplay(replay.History{Turns: []*replay.Turn{stored}},
		replay.Target{API: "openrouter", Model: "anthropic/claude-sonnet-4.5", Tools: true})
	fmt.Println("violations:", len(report.Violations), "signed:", report.Signed)

	msg, err := codec.Encode(stored)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(msg))
	// Output:
	// violations: 0 signed: 1
	// {"role":"assistant","content":null,"tool_calls":[{"id":"toolu_1","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"go\"}"}}],"reasoning_details":[{"type":"reasoning.text","text":"Call the tool.","signature":"RXFvS0JnZ0w=","format":"anthropic-claude-v1","index":0}]}
}

// Presence of a signature is explicit: absent, null and empty differ, and
// only a non-empty signature signs.
func ExampleOpt() {
	for _, sig := range []replay.Opt[string]{{}, replay.NullOf[string](), replay.Some(""), replay.Some("c2ln")} {
		t := &replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: formats.AnthropicClaude}, Signature: sig}
		fmt.Println(sig.Presence(), t.Signed(), t.Replayable())
	}
	// Output:
	// absent false false
	// null false false
	// present false false
	// present true true
}
