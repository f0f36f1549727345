package conversation_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/reasonreplay/replay"
	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/reasonreplay/replay/conversation"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const openrouterBody = `{"id":"gen-1","object":"chat.completion","model":"anthropic/claude-sonnet-4.5","provider":"Anthropic","choices":[{"index":0,"finish_reason":"tool_calls",` +
	`"message":{"role":"assistant","content":"Let me check.","reasoning":"Weather lookup.",` +
	`"reasoning_details":[{"type":"reasoning.text","text":"Weather lookup.","signature":"EqQBsig","format":"anthropic-claude-v1","index":0}],` +
	`"tool_calls":[{"id":"toolu_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Zürich\"}"}}]}}]}`

const (
	userMsg = `{"role":"user","content":"Weather in Zürich?"}`
	toolMsg = `{"role":"tool","tool_call_id":"toolu_1","content":"18°C"}`
)

func decode(t *testing.T, api, body string) *replay.Turn {
	t.Helper()
	c, err := replay.Lookup(api, "", "")
	require.NoError(t, err)
	tu, err := c.Decode([]byte(body))
	require.NoError(t, err)
	return tu
}

func openrouterConversation(t *testing.T) *conversation.Conversation {
	t.Helper()
	c, err := conversation.New("openrouter", nil)
	require.NoError(t, err)
	require.NoError(t, c.Append(json.RawMessage(userMsg)))
	require.NoError(t, c.AppendTurn(decode(t, "openrouter", openrouterBody)))
	require.NoError(t, c.Append(json.RawMessage(toolMsg)))
	return c
}

func TestMessagesSameIssuer(t *testing.T) {
	c := openrouterConversation(t)
	assert.Equal(t, "openrouter", c.API())
	assert.Equal(t, 3, c.Len())
	p, err := c.Messages(replay.Target{Model: "anthropic/claude-sonnet-4.5", Tools: true}, nil)
	require.NoError(t, err)
	want := `[` + userMsg + `,` +
		`{"role":"assistant","content":"Let me check.","tool_calls":[{"id":"toolu_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Zürich\"}"}}],` +
		`"reasoning_details":[{"type":"reasoning.text","text":"Weather lookup.","signature":"EqQBsig","format":"anthropic-claude-v1","index":0}]},` +
		toolMsg + `]`
	assert.Equal(t, want, string(p.List()))
	require.Len(t, p.Messages, 3)
	assert.Equal(t, userMsg, string(p.Messages[0]))
	assert.Equal(t, []string{"/messages/1"}, p.Pointers)
	assert.Empty(t, p.Notices)
	assert.Empty(t, p.Renamed)
	assert.True(t, p.Report.Clean())
	assert.Equal(t, 1, p.Report.Signed)

	again, err := c.Messages(replay.Target{Model: "anthropic/claude-sonnet-4.5", Tools: true}, nil)
	require.NoError(t, err)
	assert.Equal(t, want, string(again.List()), "Messages does not change the conversation")
}

// Switching to another chat host: the foreign reasoning is not sent, the
// notice says so, and the audit says what the target will make of it.
func TestMessagesOtherChatHost(t *testing.T) {
	c := openrouterConversation(t)
	p, err := c.Messages(replay.Target{API: "deepseek", Model: "deepseek-chat", Tools: true}, nil)
	require.NoError(t, err)
	want := `[` + userMsg + `,` +
		`{"role":"assistant","content":"Let me check.","tool_calls":[{"id":"toolu_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Zürich\"}"}}]},` +
		toolMsg + `]`
	assert.Equal(t, want, string(p.List()))
	require.Len(t, p.Notices, 1)
	assert.Equal(t, replay.Notice{Turn: 0, Block: 0, Case: replay.CaseForeignText, Action: replay.Drop,
		Reason: "anthropic-claude-v1 reasoning is foreign to deepseek deepseek-chat"}, p.Notices[0])
	require.Len(t, p.Report.Violations, 1)
	v := p.Report.Violations[0]
	assert.Equal(t, "deepseek/reasoning-content-missing", v.Rule)
	assert.Equal(t, "/messages/1", v.Pointer)

	// to-text keeps the reasoning as plain text, which the target takes.
	p, err = c.Messages(replay.Target{API: "deepseek", Model: "deepseek-chat", Tools: true}, replay.Policy{replay.CaseForeignText: replay.ToText})
	require.NoError(t, err)
	assert.Equal(t, replay.ToText, p.Notices[0].Action)
	assert.Equal(t, `{"role":"assistant","content":"Weather lookup.\n\nLet me check.","tool_calls":[{"id":"toolu_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Zürich\"}"}}]}`, string(p.Messages[1]))
}

func TestMessagesOtherShape(t *testing.T) {
	c := openrouterConversation(t)
	p, err := c.Messages(replay.Target{API: "anthropic", Model: "claude-sonnet-4-5"}, nil)
	assert.Nil(t, p)
	require.ErrorIs(t, err, conversation.ErrShape)
	var ce *conversation.Error
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "messages", ce.Op)
	assert.Equal(t, "conversation: messages: the target's requests are not in the conversation's shape: anthropic, not openrouter", err.Error())

	_, err = c.Messages(replay.Target{API: "no-such-api"}, nil)
	assert.ErrorIs(t, err, replay.ErrUnknownAPI)
}

func TestAppendRefusesModelElements(t *testing.T) {
	for api, el := range map[string]string{
		"openrouter":       `{"role":"assistant","content":"hi"}`,
		"anthropic":        `{"role":"assistant","content":[{"type":"text","text":"hi"}]}`,
		"gemini":           `{"role":"model","parts":[{"text":"hi"}]}`,
		"openai-responses": `{"type":"reasoning","id":"rs_1","summary":[]}`,
	} {
		c, err := conversation.New(api, nil)
		require.NoError(t, err)
		err = c.Append(json.RawMessage(userMsg), json.RawMessage(el))
		require.ErrorIs(t, err, conversation.ErrModelElement, api)
		assert.Equal(t, "conversation: append: element 1: a model element is appended with its turn", err.Error())
		assert.Equal(t, 0, c.Len(), "nothing is appended")
	}
	c, _ := conversation.New("anthropic", nil)
	assert.ErrorIs(t, c.Append(json.RawMessage(`[1]`)), replay.ErrMalformed)
	assert.ErrorIs(t, c.AppendTurn(nil), replay.ErrMalformed)
	_, err := conversation.New("no-such-api", nil)
	assert.ErrorIs(t, err, replay.ErrUnknownAPI)
}

// A Responses turn spans several input items; the function call output
// follows them.
func TestMessagesResponsesItems(t *testing.T) {
	body := `{"id":"resp_1","object":"response","status":"completed","model":"gpt-5","output":[` +
		`{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Looking up."}],"encrypted_content":"gAAAblob"},` +
		`{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{}","status":"completed"}]}`
	c, err := conversation.New("openai-responses", nil)
	require.NoError(t, err)
	require.NoError(t, c.Append(json.RawMessage(userMsg)))
	require.NoError(t, c.AppendTurn(decode(t, "openai-responses", body)))
	out := `{"type":"function_call_output","call_id":"call_1","output":"18°C"}`
	require.NoError(t, c.Append(json.RawMessage(out)))
	p, err := c.Messages(replay.Target{Model: "gpt-5", Tools: true}, nil)
	require.NoError(t, err)
	assert.Equal(t, `[`+userMsg+`,`+
		`{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Looking up."}],"encrypted_content":"gAAAblob"},`+
		`{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{}"},`+
		out+`]`, string(p.List()))
	assert.Equal(t, []string{"/input/1"}, p.Pointers)
	assert.Len(t, p.Messages, 4)
	assert.True(t, p.Report.Clean(), "%v", p.Report.Violations)
}

func TestMessagesAnthropic(t *testing.T) {
	body := `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[` +
		`{"type":"thinking","thinking":"Call the tool.","signature":"EqQBsig"},` +
		`{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Zürich"}}],"stop_reason":"tool_use"}`
	c, err := conversation.New("anthropic", nil)
	require.NoError(t, err)
	require.NoError(t, c.Append(json.RawMessage(userMsg)))
	require.NoError(t, c.AppendTurn(decode(t, "anthropic", body)))
	result := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"18°C"}]}`
	require.NoError(t, c.Append(json.RawMessage(result)))
	p, err := c.Messages(replay.Target{Model: "claude-sonnet-4-5", Tools: true, Thinking: true}, nil)
	require.NoError(t, err)
	assert.Equal(t, `[`+userMsg+`,`+
		`{"role":"assistant","content":[{"type":"thinking","thinking":"Call the tool.","signature":"EqQBsig"},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Zürich"}}]},`+
		result+`]`, string(p.List()))
	assert.True(t, p.Report.Clean(), "%v", p.Report.Violations)

	// The same history on Bedrock's Anthropic Messages: Claude signatures
	// are the family's.
	p, err = c.Messages(replay.Target{Provider: "bedrock", Model: "anthropic.claude-sonnet-4-5", Tools: true, Thinking: true}, nil)
	require.NoError(t, err)
	assert.Contains(t, string(p.Messages[1]), `"signature":"EqQBsig"`)
	assert.Empty(t, p.Notices)
}

func TestErrorWithoutIndex(t *testing.T) {
	e := &conversation.Error{Op: "new", Index: -1, Err: errors.New("x")}
	assert.Equal(t, "conversation: new: x", e.Error())
}
