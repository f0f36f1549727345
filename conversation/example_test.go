package conversation_test

import (
	"encoding/json"
	"fmt"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/openrouter"
	"github.com/reasonreplay/replay/conversation"
)

// A conversation built by hand on OpenRouter, prepared for the same model
// and then for DeepSeek: the Claude reasoning goes back to Claude only, and
// the audit says what DeepSeek will make of the history.
func Example() {
	c, _ := conversation.New("openrouter", nil)
	_ = c.Append(json.RawMessage(`{"role":"user","content":"Weather in Zürich?"}`))
	turn, _ := openrouter.Codec{}.Decode([]byte(`{"object":"chat.completion","model":"anthropic/claude-sonnet-4.5","choices":[{"index":0,"finish_reason":"tool_calls","message":{` +
		`"role":"assistant","content":"","reasoning_details":[{"type":"reasoning.text","text":"Call the tool.","signature":"EqQBsig","format":"anthropic-claude-v1","index":0}],` +
		`"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}}]}`))
	_ = c.AppendTurn(turn)
	_ = c.Append(json.RawMessage(`{"role":"tool","tool_call_id":"call_1","content":"18°C"}`))

	same, _ := c.Messages(replay.Target{Model: "anthropic/claude-sonnet-4.5", Tools: true}, nil)
	fmt.Println(string(same.Messages[1]))

	other, _ := c.Messages(replay.Target{API: "deepseek", Model: "deepseek-chat", Tools: true}, nil)
	fmt.Println(string(other.Messages[1]))
	fmt.Println(other.Notices[0].Case, other.Notices[0].Action)
	fmt.Println(other.Report.Violations[0].Rule, other.Report.Violations[0].Pointer)
	// Output:
	// {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{}"}}],"reasoning_details":[{"type":"reasoning.text","text":"Call the tool.","signature":"EqQBsig","format":"anthropic-claude-v1","index":0}]}
	// {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}
	// foreign-visible-text drop
	// deepseek/reasoning-content-missing /messages/1
}
