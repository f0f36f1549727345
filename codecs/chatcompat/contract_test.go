package chatcompat

import (
	"fmt"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/stretchr/testify/require"
)

func audit(c Codec, h replay.History, tg replay.Target) []replay.Violation {
	return c.Contract().Audit(h, tg).Violations
}

func TestRuleDeepSeekLoopMissing(t *testing.T) {
	c := New(APIDeepSeek, "", "deepseek-chat")
	tg := replay.Target{Tools: true, Thinking: true}
	// trigger: the last turn (in the tool loop) lost its reasoning
	h := replay.History{Turns: []*replay.Turn{turnWith("a", true, formats.DeepSeek), turnWith("", true, "")}}
	v := audit(c, h, tg)
	require.Len(t, v, 1)
	require.Equal(t, "deepseek/reasoning-content-missing", v[0].Rule)
	require.Equal(t, 1, v[0].Turn)
	require.Equal(t, "Missing `reasoning_content` field in the assistant message at message index N. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls", v[0].Predicted)
	// with the request: the message index is known
	h.Request = []byte(`{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":null,"reasoning_content":"a","tool_calls":[{"id":"c"}]},{"role":"tool","content":"r"},{"role":"assistant","content":null,"tool_calls":[{"id":"d"}]}]}`)
	v = audit(c, h, tg)
	require.Len(t, v, 1)
	require.Equal(t, "/messages/3", v[0].Pointer)
	require.Contains(t, v[0].Predicted, "at message index 3.")
	// non-trigger: an older turn before the loop may lack it; or no tools
	h = replay.History{Turns: []*replay.Turn{turnWith("", false, ""), turnWith("b", true, formats.DeepSeek)}}
	require.Empty(t, audit(c, h, tg))
	h = replay.History{Turns: []*replay.Turn{turnWith("", true, "")}}
	require.Empty(t, audit(c, h, replay.Target{}))
}

func TestRuleDeepSeekV4(t *testing.T) {
	c := New(APIDeepSeek, "", "deepseek-v4-pro")
	tg := replay.Target{Tools: true}
	req := `{"tools":[{}],"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"hi"},{"role":"user","content":"q2"},{"role":"assistant","content":"x","reasoning_content":null}]}`
	v := audit(c, replay.History{Request: []byte(req)}, tg)
	require.Len(t, v, 2)
	require.Equal(t, "deepseek/reasoning-content-missing", v[0].Rule)
	require.Equal(t, "/messages/1", v[0].Pointer)
	require.Equal(t, "The `reasoning_content` in the thinking mode must be passed back to the API.", v[0].Predicted)
	require.Equal(t, "deepseek/reasoning-content-null", v[1].Rule)
	require.Equal(t, "/messages/3/reasoning_content", v[1].Pointer)
	// non-trigger: "" back-filled
	ok := `{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"hi","reasoning_content":""}]}`
	require.Empty(t, audit(c, replay.History{Request: []byte(ok)}, tg))
	// and the encoder back-fills it for a turn without reasoning
	msg, err := c.Encode(turnWith("", false, ""))
	require.NoError(t, err)
	require.Contains(t, string(msg), `"reasoning_content":""`)
}

func TestRuleDeepSeekForbidden(t *testing.T) {
	c := New(APIDeepSeek, "deepseek", "deepseek-r1")
	bad := `{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"4","reasoning_content":"2+2"}]}`
	v := audit(c, replay.History{Request: []byte(bad)}, replay.Target{})
	require.Len(t, v, 1)
	require.Equal(t, "deepseek/reasoning-content-forbidden", v[0].Rule)
	require.Equal(t, "/messages/1/reasoning_content", v[0].Pointer)
	good := `{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"4"}]}`
	require.Empty(t, audit(c, replay.History{Request: []byte(good)}, replay.Target{}))
}

func TestRuleKimiMissing(t *testing.T) {
	c := New(APIGeneric, "moonshot", "kimi-k2-thinking")
	h := replay.History{Turns: []*replay.Turn{turnWith("", true, ""), turnWith("", false, "")}}
	v := audit(c, h, replay.Target{Thinking: true})
	require.Len(t, v, 1)
	require.Equal(t, "kimi/reasoning-content-missing", v[0].Rule)
	require.Equal(t, 0, v[0].Turn)
	require.Equal(t, "thinking is enabled but reasoning_content is missing in assistant tool call message at index N", v[0].Predicted)
	h = replay.History{Turns: []*replay.Turn{turnWith("plan", true, formats.Kimi), turnWith("", false, "")}}
	require.Empty(t, audit(c, h, replay.Target{Thinking: true}))
}

func TestContractSummaries(t *testing.T) {
	for _, c := range []Codec{New(APIDeepSeek, "", ""), New(APIXAI, "", ""), New(APIGeneric, "zai", ""), New(APIGeneric, "minimax", "")} {
		rc := c.Contract()
		require.Equal(t, c.API(), rc.API)
		require.Contains(t, rc.Summary, "Source: "+c.Profile.Source)
	}
}

// TestThinkingDisabledNeedsNoReasoning: DeepSeek (V3.2 and V4,
// deepseek-chat included) and Kimi with thinking {"type":"disabled"}
// require no reasoning_content: no violation, where the same request with
// thinking on is rejected.
func TestThinkingDisabledNeedsNoReasoning(t *testing.T) {
	msgs := `"messages":[{"role":"user","content":"q"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"r"}]`
	for _, tc := range []struct {
		c         Codec
		rule, msg string
	}{
		{New(APIDeepSeek, "", "deepseek-chat"), "deepseek/reasoning-content-missing", "Missing `reasoning_content` field in the assistant message at message index 1. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls"},
		{New(APIDeepSeek, "", "deepseek-v4-flash"), "deepseek/reasoning-content-missing", "The `reasoning_content` in the thinking mode must be passed back to the API."},
		{New(APIGeneric, "moonshot", "kimi-k2.6"), "kimi/reasoning-content-missing", "thinking is enabled but reasoning_content is missing in assistant tool call message at index 1"},
	} {
		tg := replay.Target{Tools: true, Thinking: true}
		on := replay.History{Request: []byte(`{"model":"` + tc.c.Model + `","tools":[{}],"thinking":{"type":"enabled"},` + msgs + `}`)}
		v := audit(tc.c, on, tg)
		require.Len(t, v, 1, tc.c.Model)
		require.Equal(t, tc.rule, v[0].Rule)
		require.Equal(t, tc.msg, v[0].Predicted)
		off := replay.History{Request: []byte(`{"model":"` + tc.c.Model + `","tools":[{}],"thinking":{"type":"disabled"},` + msgs + `}`)}
		require.Empty(t, audit(tc.c, off, replay.Target{Tools: true}), tc.c.Model)
	}
}

// TestPreservedThinking: Qwen3.6 preserve_thinking, Kimi keep "all" and
// GLM clear_thinking false make the host read earlier turns' thinking; the
// audit follows what the request says.
func TestPreservedThinking(t *testing.T) {
	hist := `"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"first"},{"role":"user","content":"q2"},{"role":"assistant","content":"second","reasoning_content":"kept"},{"role":"user","content":"q3"}]`
	const msg = "the request sets %s but this assistant message has no reasoning_content: the host reads no thinking for it"
	for _, tc := range []struct {
		c             Codec
		on, off       string
		sev           replay.Severity
		preserve, pre string
	}{
		{New(APIGeneric, "dashscope", "qwen3.6-plus"), `"chat_template_kwargs":{"preserve_thinking":true},`, `"chat_template_kwargs":{"preserve_thinking":false},`, replay.SeverityDegrade, "preserve_thinking", ""},
		{New(APIGeneric, "moonshot", "kimi-k2.6"), `"thinking":{"type":"enabled","keep":"all"},`, `"thinking":{"type":"enabled"},`, replay.SeverityDegrade, `thinking.keep "all"`, ""},
		{New(APIGeneric, "zai", "glm-5"), `"clear_thinking":false,`, `"clear_thinking":true,`, replay.SeverityRisk, "clear_thinking false", "The `reasoning_text` in the thinking mode must be passed back to the API."},
	} {
		v := audit(tc.c, replay.History{Request: []byte(`{` + tc.on + hist + `}`)}, replay.Target{Thinking: true})
		require.Len(t, v, 1, tc.c.Profile.Name)
		require.Equal(t, "chat/preserved-thinking-missing", v[0].Rule)
		require.Equal(t, tc.sev, v[0].Severity)
		require.Equal(t, "/messages/1", v[0].Pointer)
		require.Equal(t, fmt.Sprintf(msg, tc.preserve), v[0].Message)
		require.Equal(t, tc.pre, v[0].Predicted)
		require.Empty(t, audit(tc.c, replay.History{Request: []byte(`{` + tc.off + hist + `}`)}, replay.Target{Thinking: true}), tc.c.Profile.Name)
		require.Empty(t, audit(tc.c, replay.History{Request: []byte(`{` + tc.on + `"thinking":{"type":"disabled"},` + hist + `}`)}, replay.Target{}), tc.c.Profile.Name)
	}
	// Qwen sends nothing back by default; with Preserve it writes the field.
	c := New(APIGeneric, "dashscope", "qwen3.6-plus")
	tu := turnWith("plan", false, formats.Qwen)
	msgOut, err := c.Encode(tu)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":"done"}`, string(msgOut))
	c.Preserve = true
	msgOut, err = c.Encode(tu)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":"done","reasoning_content":"plan"}`, string(msgOut))
}
