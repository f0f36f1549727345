package chatcompat

import (
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// hostileMessages are assistant messages a request may carry, each with
// what sends a reader of a request's messages off its one-piece path:
// escapes, surrogate pairs and lone halves, <think> tags in content, a
// tool call sent in two fragments of one index, arguments as an object.
var hostileMessages = []string{
	`{"role":"assistant","content":"plain","reasoning_content":"think first"}`,
	`{"role":"assistant","content":"a\n\"b\"\u00e9","reasoning_content":"line\nnext\t\u00e9 \/ end"}`,
	`{"role":"assistant","content":"x","reasoning_content":"pair \ud83d\ude00 and lone \ud800 here"}`,
	`{"role":"assistant","content":"ends high \ud83d","reasoning_content":"ends high \ud83d"}`,
	`{"role":"assistant","content":"<think>tagged\nreasoning</think>the answer \u00e9"}`,
	`{"role":"assistant","content":"\\u escaped backslash \\ud83d","reasoning":"via reasoning \\ud800"}`,
	`{"role":"assistant","content":"","reasoning_content":"call","tool_calls":[{"id":"call_\u0031","type":"function","function":{"name":"f\u006e","arguments":"{\"a\":\"\u00e9\"}"}}]}`,
	`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":"}},{"index":0,"function":{"arguments":"1}"}}]}`,
	`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":\ud83d"}},{"index":0,"function":{"arguments":"\ude00}"}}]}`,
	`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":{"a":1}}},{"index":0,"function":{"arguments":"more"}}]}`,
	`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"},"extra_content":{"google":{"thought_signature":"c2ln"}}},{"id":"c2","type":"function","function":{"name":"g","arguments":"{}"},"x":1}]}`,
	`{"role":"assistant","content":"a","reasoning_details":[{"type":"reasoning.text","text":"cumulative text"},{"type":"reasoning.text","text":"cumulative text grows"}]}`,
	`{"role":"assistant","content":"only text"}`,
	`{"role":"assistant"}`,
}

// Every message read from a request (into the request's Alloc, strings
// written in one piece decoded into its arena) is the turn the same reader
// makes of it alone in a response body, where each value is its own.
func TestRequestMessagesReadAsBody(t *testing.T) {
	for _, p := range Profiles() {
		c := Codec{Profile: p}
		var msgs []string
		for _, m := range hostileMessages {
			msgs = append(msgs, `{"role":"user","content":"q"}`, m)
		}
		body := []byte(`{"model":"m","messages":[` + strings.Join(msgs, ",") + `]}`)
		h, _, err := c.DecodeRequest(body)
		require.NoError(t, err, p.Name)
		require.Len(t, h.Turns, len(hostileMessages), p.Name)
		for i, m := range hostileMessages {
			want, err := c.Decode([]byte(`{"model":"m","choices":[{"message":` + m + `,"finish_reason":"stop"}]}`))
			require.NoError(t, err, "%s: message %d", p.Name, i)
			got := h.Turns[i]
			assert.Equal(t, want.Blocks, got.Blocks, "%s: message %d: %s", p.Name, i, m)
			assert.Equal(t, want.Complete, got.Complete, "%s: message %d", p.Name, i)
		}
	}
}

// Reading a request's messages allocates less than once per message:
// the turns, their blocks and strings come from the request's Alloc.
func TestRequestMessagesAllocate(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts")
	}
	var msgs []string
	const n = 200
	for i := 0; i < n; i++ {
		msgs = append(msgs, `{"role":"user","content":"q\n"}`,
			`{"role":"assistant","content":"the answer\n","reasoning_content":"think\n\"hard\"","tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]}`,
			`{"role":"tool","tool_call_id":"call_1","content":"r"}`)
	}
	body := []byte(`{"model":"deepseek-v4-flash","messages":[` + strings.Join(msgs, ",") + `]}`)
	c := New(APIDeepSeek, "", "deepseek-v4-flash")
	var h replay.History
	allocs := testing.AllocsPerRun(5, func() {
		var err error
		h, _, err = c.DecodeRequest(body)
		require.NoError(t, err)
	})
	require.Len(t, h.Turns, n)
	assert.Less(t, allocs/n, 1.0, "allocations per assistant message")
}

// FuzzRequestMessageAsBody holds a request's reading of any assistant
// message to the body reader's reading of it alone: both read it or both
// refuse it, and what they read is the same.
func FuzzRequestMessageAsBody(f *testing.F) {
	for _, m := range hostileMessages {
		f.Add(m)
	}
	f.Fuzz(func(t *testing.T, m string) {
		if len(m) > 1<<14 || !jsonw.Valid(m) {
			return
		}
		msg := gjson.Parse(m)
		if !msg.IsObject() || msg.Get("role").Str != "assistant" || msg.Get("content").IsArray() {
			return
		}
		c := New(APIDeepSeek, "", "deepseek-v4-flash")
		h, _, rerr := c.DecodeRequest([]byte(`{"model":"m","messages":[{"role":"user","content":"q"},` + m + `,` + m + `,{"role":"assistant","content":"end"}]}`))
		want, berr := c.Decode([]byte(`{"model":"m","choices":[{"message":` + m + `,"finish_reason":"stop"}]}`))
		require.Equal(t, berr == nil, rerr == nil, "body: %v; request: %v", berr, rerr)
		if berr != nil {
			return
		}
		require.Len(t, h.Turns, 3)
		for _, got := range h.Turns[:2] { // the last may be read as cut
			assert.Equal(t, want.Blocks, got.Blocks)
		}
	})
}
