package openai_test

import (
	"fmt"
	"strings"

	"github.com/reasonreplay/replay/codecs/openai"
	"github.com/reasonreplay/replay/stream"
)

func Example() {
	events := `data: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}}

data: {"type":"response.reasoning_summary_text.delta","sequence_number":2,"output_index":0,"summary_index":0,"delta":"Adding."}

data: {"type":"response.output_item.done","sequence_number":3,"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"Adding."}],"encrypted_content":"gAAAA-blob"}}

data: {"type":"response.output_item.done","sequence_number":4,"output_index":1,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"add","arguments":"{\"a\":1}","status":"completed"}}

data: {"type":"response.completed","sequence_number":5,"response":{"status":"completed","output":[]}}

`
	c := openai.Codec{}
	turn, err := stream.Decode(strings.NewReader(events), c, stream.Options{})
	if err != nil {
		panic(err)
	}
	input, _ := c.Encode(turn)
	fmt.Println(string(input))
	// Output:
	// [{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Adding."}],"encrypted_content":"gAAAA-blob"},{"type":"function_call","id":"fc_1","call_id":"call_1","name":"add","arguments":"{\"a\":1}"}]
}
