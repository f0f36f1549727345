package conversation

import (
	"encoding/json"
	"testing"

	"github.com/reasonreplay/replay"
	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func call(id string) *replay.ToolCall { return &replay.ToolCall{ID: id, Name: "f", Arguments: "{}"} }

// Carry mints ids for a target whose tool results name their call (a call
// with none, or with an earlier call's); the renames are read from the
// carried turns, call for call, unfinished calls (which Carry drops) left
// out.
func TestRenamedReadsTheCarriedTurns(t *testing.T) {
	unfinished := call("cut")
	unfinished.Unfinished = true
	in := []*replay.Turn{
		{Blocks: []replay.Block{call("call_0"), call("")}},
		{Blocks: []replay.Block{unfinished, call("call_0"), call("call_1")}},
	}
	out := []*replay.Turn{
		{Blocks: []replay.Block{call("call_0"), call("minted_1")}},
		{Blocks: []replay.Block{call("minted_2"), call("call_1")}},
	}
	assert.Equal(t, [][]Renamed{
		{{Turn: 0, Call: 1, Old: "", New: "minted_1"}},
		{{Turn: 1, Call: 0, Old: "call_0", New: "minted_2"}},
	}, renamed(in, out))
}

// The tool results after a turn name the new ids: each renamed call once,
// in call order, whatever the API's result shape.
func TestRenameToolResults(t *testing.T) {
	two := func() []Renamed {
		return []Renamed{{Call: 0, Old: "call_0", New: "n0"}, {Call: 1, Old: "call_0", New: "n1"}}
	}
	cases := []struct{ api, in, want string }{
		{"openrouter", `{"role":"tool","tool_call_id":"call_0","content":"a"}`, `{"role":"tool","tool_call_id":"n0","content":"a"}`},
		{"anthropic", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_0","content":"a"},{"type":"text","text":"call_0"},{"type":"tool_result","tool_use_id":"call_0","content":"b"}]}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"n0","content":"a"},{"type":"text","text":"call_0"},{"type":"tool_result","tool_use_id":"n1","content":"b"}]}`},
		{"openai-responses", `{"type":"function_call_output","call_id":"call_0","output":"a"}`, `{"type":"function_call_output","call_id":"n0","output":"a"}`},
		{"bedrock-converse", `{"role":"user","content":[{"toolResult":{"toolUseId":"call_0","content":[{"text":"a"}]}}]}`,
			`{"role":"user","content":[{"toolResult":{"toolUseId":"n0","content":[{"text":"a"}]}}]}`},
		{"gemini", `{"role":"user","parts":[{"functionResponse":{"id":"call_0","name":"f","response":{}}}]}`,
			`{"role":"user","parts":[{"functionResponse":{"id":"n0","name":"f","response":{}}}]}`},
		{"openrouter", `{"role":"user","content":"call_0"}`, `{"role":"user","content":"call_0"}`},
	}
	codec := func(api string) replay.ReasoningCodec {
		c, err := replay.Lookup(api, "", "")
		require.NoError(t, err)
		return c
	}
	for _, c := range cases {
		p := two()
		assert.Equal(t, c.want, string(rename(codec(c.api), json.RawMessage(c.in), &p)), c.api)
	}
	// Two chat tool messages in a row take the two renames in order.
	p := two()
	first := rename(codec("deepseek"), json.RawMessage(`{"role":"tool","tool_call_id":"call_0","content":"a"}`), &p)
	second := rename(codec("deepseek"), json.RawMessage(`{"role":"tool","tool_call_id":"call_0","content":"b"}`), &p)
	assert.Equal(t, `{"role":"tool","tool_call_id":"n0","content":"a"}`, string(first))
	assert.Equal(t, `{"role":"tool","tool_call_id":"n1","content":"b"}`, string(second))
	assert.Empty(t, p)
	// A result that names no renamed call is left byte for byte.
	p = two()
	in := `{"role":"tool", "tool_call_id":"other","content":"a"}`
	assert.Equal(t, in, string(rename(codec("openrouter"), json.RawMessage(in), &p)))
	assert.Len(t, p, 2)
}
