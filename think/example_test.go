package think_test

import (
	"fmt"

	"github.com/reasonreplay/replay/think"
)

func Example() {
	// A host that leaks reasoning into the content, streamed with the tags
	// cut across deltas; the answer explains the tag in inline code.
	var s think.Splitter
	var vis, reasoning []byte
	for _, delta := range []string{"<thi", "nk>The user wants", " a tag.</th", "ink>\n\nUse `<think>`."} {
		vis, reasoning = s.Append(vis, reasoning, []byte(delta))
	}
	vis, reasoning = s.Finish(vis, reasoning)
	fmt.Printf("reasoning: %q\nvisible: %q\n%+v\n", reasoning, vis, s.Stats())

	// DeepSeek-R1 raw output: the chat template opened the block.
	v, r, _, _ := think.Split("Two plus two.</think>4", think.Options{})
	fmt.Printf("%q %q\n", r, v)
	// Output:
	// reasoning: "The user wants a tag."
	// visible: "\n\nUse `<think>`."
	// {Delimiters:2 Blocks:1 Orphans:0 Unclosed:0}
	// "Two plus two." "4"
}
