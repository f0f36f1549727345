package openai_test

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/openai"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// reparse decodes encoded input items as if they were a response's output.
func reparse(t *testing.T, c openai.Codec, items []byte) *replay.Turn {
	t.Helper()
	body := append(append([]byte(`{"object":"response","status":"completed","output":`), items...), '}')
	tu, err := c.Decode(body)
	require.NoError(t, err)
	return tu
}

func blocksDoc(tu *replay.Turn) string {
	t2 := replay.Turn{Blocks: tu.Blocks}
	return string(gjson.GetBytes(t2.AppendJSON(nil), "blocks").Raw)
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    openai.Codec
	}{
		{"summary-encrypted.sse", openai.Codec{}},
		{"two-reasoning-calls.sse", openai.Codec{Provider: "xai"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := sweep(t, tc.name, tc.c)
			out, err := tc.c.Encode(res.Turn)
			require.NoError(t, err)
			require.True(t, gjson.ValidBytes(out))
			codectest.Golden(t, dir+"/golden/"+tc.name+".input.json", codectest.Indent(out))
			back := reparse(t, tc.c, out)
			require.Equal(t, blocksDoc(res.Turn), blocksDoc(back), "decode -> encode -> decode")
			// No output-only status on what is sent back.
			gjson.ParseBytes(out).ForEach(func(_, el gjson.Result) bool {
				require.False(t, el.Get("status").Exists(), el.Raw)
				return true
			})
		})
	}
}

func TestEncodeServerToolsAndOrder(t *testing.T) {
	c := openai.Codec{Provider: "azure"}
	tu, err := c.Decode(read(t, "server-tools.json"))
	require.NoError(t, err)
	out, err := c.Encode(tu)
	require.NoError(t, err)
	codectest.Golden(t, dir+"/golden/server-tools.input.json", codectest.Indent(out))
	var types []string
	gjson.ParseBytes(out).ForEach(func(_, el gjson.Result) bool {
		types = append(types, el.Get("type").Str+":"+el.Get("id").Str)
		return true
	})
	// The first reasoning item has no encrypted content: it is left out in
	// stateless mode and its follower loses its id; the web search call is
	// verbatim (its status is an input field).
	require.Equal(t, []string{"web_search_call:", "reasoning:rs_st_3", "message:msg_st_4", "custom_tool_call:ctc_st_5", "message:msg_st_6"}, types)
	require.Equal(t, "completed", gjson.GetBytes(out, "0.status").Str)
	require.Equal(t, "gAAAAABst3", gjson.GetBytes(out, "1.encrypted_content").Str)
	require.Equal(t, "ls -la", gjson.GetBytes(out, "3.input").Str)
	require.False(t, gjson.GetBytes(out, "4.status").Exists())
}

func TestEncodeStored(t *testing.T) {
	res := sweep(t, "summary-encrypted.sse", openai.Codec{})
	out, err := openai.Codec{Stored: true}.Encode(res.Turn)
	require.NoError(t, err)
	require.JSONEq(t, `[{"type":"item_reference","id":"`+rsID+`"},
		{"type":"message","role":"assistant","id":"`+msgID+`","content":[{"type":"output_text","text":"`+finalText+`","annotations":[]}],"phase":"final_answer"}]`, string(out))
}

func TestEncodeDropsUnfinishedAndForeign(t *testing.T) {
	res := sweep(t, "two-reasoning-calls.sse", openai.Codec{Provider: "xai"})
	// To OpenAI, xAI items are foreign: left out, calls sent without ids.
	out, err := openai.Codec{}.Encode(res.Turn)
	require.NoError(t, err)
	require.JSONEq(t, `[{"type":"function_call","call_id":"call_Wx1","name":"get_weather","arguments":"{\"city\":\"Lyon\"}"},
		{"type":"function_call","call_id":"call_Wx2","name":"get_time","arguments":"{\"tz\":\"Europe/Paris\"}"}]`, string(out))
	// An unfinished reasoning item is never sent.
	res.Turn.Blocks[2].(*replay.Encrypted).Unfinished = true
	out, err = openai.Codec{Provider: "xai"}.Encode(res.Turn)
	require.NoError(t, err)
	require.Equal(t, "reasoning", gjson.GetBytes(out, "0.type").Str)
	require.Equal(t, "fc_5d1e9f0a-1111-4a2b-9c3d-000000000001_a", gjson.GetBytes(out, "1.id").Str)
	require.Equal(t, "function_call", gjson.GetBytes(out, "2.type").Str)
	require.False(t, gjson.GetBytes(out, "2.id").Exists())
	require.Equal(t, int64(3), gjson.GetBytes(out, "#").Int())
}

func TestPatch(t *testing.T) {
	c := openai.Codec{Provider: "xai"}
	res := sweep(t, "two-reasoning-calls.sse", c)
	in := []byte(`{"model":"grok-4.7","store":false,"input":[
  {"role":"user","content":"Weather and time in Lyon?"},
  {"type":"function_call","call_id":"call_Wx1","name":"get_weather","arguments":"{\"city\":\"Lyon\"}"},
  {"type":"function_call_output","call_id":"call_Wx1","output":"14 °C"},
  {"type":"function_call","id":"fc_5d1e9f0a-1111-4a2b-9c3d-000000000001_b","call_id":"call_Wx2","name":"get_time","arguments":"{}"},
  {"type":"function_call_output","call_id":"call_Wx2","output":"10:02"}]}`)
	out, err := c.Patch(in, res.Turn)
	require.NoError(t, err)
	var seq []string
	gjson.GetBytes(out, "input").ForEach(func(_, el gjson.Result) bool {
		seq = append(seq, el.Get("type").Str+":"+el.Get("id").Str+el.Get("call_id").Str)
		return true
	})
	// The first call was rebuilt without its fc_ id: it gets it back, or
	// the provider would refuse its reasoning item without its follower.
	require.Equal(t, []string{":", "reasoning:rs_5d1e9f0a-1111-4a2b-9c3d-000000000001_us-east-1", "function_call:fc_5d1e9f0a-1111-4a2b-9c3d-000000000001_acall_Wx1",
		"function_call_output:call_Wx1", "reasoning:rs_5d1e9f0a-1111-4a2b-9c3d-000000000001_b",
		"function_call:fc_5d1e9f0a-1111-4a2b-9c3d-000000000001_bcall_Wx2", "function_call_output:call_Wx2"}, seq)
	require.Equal(t, "eXhBSS1ibG9iLW9uZS1mb3ItdGVzdHMtb25seS0xMjM0NTY3ODkw", gjson.GetBytes(out, "input.1.encrypted_content").Str)
	require.Equal(t, "grok-4.7", gjson.GetBytes(out, "model").Str)
	// Elements are kept byte for byte; the id is added first.
	require.Contains(t, string(out), `{"type":"function_call_output","call_id":"call_Wx1","output":"14 °C"}`)
	require.Contains(t, string(out), `{"id":"fc_5d1e9f0a-1111-4a2b-9c3d-000000000001_a","type":"function_call","call_id":"call_Wx1","name":"get_weather","arguments":"{\"city\":\"Lyon\"}"}`)
	// Patching again adds nothing.
	again, err := c.Patch(out, res.Turn)
	require.NoError(t, err)
	require.Equal(t, gjson.GetBytes(out, "input.#").Int(), gjson.GetBytes(again, "input.#").Int())
	// A bare array works too; a follower not in it gets no reasoning.
	arr, err := c.Patch([]byte(`[{"type":"function_call","call_id":"call_Wx2","name":"get_time","arguments":"{}"}]`), res.Turn)
	require.NoError(t, err)
	require.Equal(t, "rs_5d1e9f0a-1111-4a2b-9c3d-000000000001_b", gjson.GetBytes(arr, "0.id").Str)
	require.Equal(t, int64(2), gjson.GetBytes(arr, "#").Int())
	_, err = c.Patch([]byte(`{"input":3}`), res.Turn)
	require.ErrorIs(t, err, replay.ErrMalformed)
}
