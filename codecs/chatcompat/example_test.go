package chatcompat_test

import (
	"fmt"

	"github.com/reasonreplay/replay/codecs/chatcompat"
)

func Example() {
	c := chatcompat.New(chatcompat.APIDeepSeek, "deepseek", "deepseek-v4-flash")
	turn, err := c.Decode([]byte(`{"model":"deepseek-v4-flash","choices":[{"finish_reason":"stop",
		"message":{"role":"assistant","content":"Paris.","reasoning_content":"The capital of France."}}]}`))
	if err != nil {
		panic(err)
	}
	msg, _ := c.Encode(turn)
	fmt.Println(c.Profile.Name)
	fmt.Println(string(msg))
	// Output:
	// deepseek-v4
	// {"role":"assistant","content":"Paris.","reasoning_content":"The capital of France."}
}
