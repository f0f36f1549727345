package openai_test

import (
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// outputItems are items a response's output and a request's input both
// carry, with escaped strings in every member a reader keeps.
var outputItems = []string{
	`{"type":"reasoning","id":"rs_\u0030","summary":[{"type":"summary_text","text":"line\none \"q\" \u00e9 \ud83d\ude00"},{"type":"summary_text","text":"plain"}],"encrypted_content":"gAAA\/BoQ2l"}`,
	`{"type":"reasoning","id":"rs_2","summary":[],"content":[{"type":"reasoning_text","text":"t\tx"}],"encrypted_content":null,"x":1}`,
	`{"type":"message","id":"msg_\u0031","role":"assistant","status":"completed","content":[{"type":"output_text","text":"a\nb \u00e9","annotations":[]},{"type":"output_text","text":"second"}],"phase":"final"}`,
	`{"type":"message","id":"msg_2","role":"assistant","content":[{"type":"refusal","refusal":"no"}]}`,
	`{"type":"function_call","id":"fc_\u0031","call_id":"call_\u0031","name":"look\u0075p","arguments":"{\"q\":\"\u00e9\\n\"}","status":"completed","extra":{"a":"\n"}}`,
	`{"type":"custom_tool_call","id":"ctc_1","call_id":"call_2","name":"run","input":"echo \"hi\"\n"}`,
}

// A request's items, read into its arena with their strings decoded
// there, are the blocks the response reader makes of the same items.
func TestRequestItemsReadAsOutput(t *testing.T) {
	items := strings.Join(outputItems, ",")
	want, err := openai.Codec{}.Decode([]byte(`{"id":"resp_1","object":"response","status":"completed","model":"gpt-5","output":[` + items + `]}`))
	require.NoError(t, err)
	h, _, err := openai.Codec{}.DecodeRequest([]byte(`{"model":"gpt-5","input":[{"role":"user","content":"q"},` + items + `]}`))
	require.NoError(t, err)
	require.Len(t, h.Turns, 1)
	require.NotEmpty(t, want.Blocks)
	assert.Equal(t, want.Blocks, h.Turns[0].Blocks)
}

// Each request item's strings are its own: read twice in one request,
// the lists the readers reuse leave the first item's blocks as they were.
func TestRequestItemsKeepTheirStrings(t *testing.T) {
	body := []byte(`{"model":"gpt-5","input":[` +
		`{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"first\n"},{"type":"summary_text","text":"second"}]},` +
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"one"},{"type":"output_text","text":"two"}]},` +
		`{"role":"user","content":"q"},` +
		`{"type":"reasoning","id":"rs_2","summary":[{"type":"summary_text","text":"third"}]},` +
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"three\n"}]}]}`)
	h, _, err := openai.Codec{}.DecodeRequest(body)
	require.NoError(t, err)
	var got [][]string
	for _, tu := range h.Turns {
		var texts []string
		for _, b := range tu.Blocks {
			texts = append(texts, blockText(b))
		}
		got = append(got, texts)
	}
	assert.Equal(t, [][]string{{"first\n", "second", "one", "two"}, {"third", "three\n"}}, got)
}

// blockText is the text a summary, reasoning text or visible text block
// holds.
func blockText(b replay.Block) string {
	switch b := b.(type) {
	case *replay.Summary:
		return b.Summary
	case *replay.ReasoningText:
		return b.Text
	case *replay.Text:
		return b.Text
	}
	return ""
}
