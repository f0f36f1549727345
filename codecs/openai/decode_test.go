package openai_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/openai"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/stretchr/testify/require"
)

func decodeBody(t *testing.T, name string, c openai.Codec) (*replay.Turn, error) {
	t.Helper()
	tu, err := c.Decode(read(t, name))
	if tu != nil {
		codectest.RoundTripDocument(t, tu)
		codectest.Golden(t, filepath.Join(dir, "golden", strings.TrimSuffix(name, ".json")+".body.json"), codectest.Indent(tu.AppendJSON(nil)))
	}
	return tu, err
}

func TestDecodeBodyMatchesStream(t *testing.T) {
	tu, err := decodeBody(t, "summary-encrypted.json", openai.Codec{})
	require.NoError(t, err)
	st := sweep(t, "summary-encrypted.sse", openai.Codec{})
	require.True(t, tu.Complete)
	// Same turn as the stream, apart from usage (the fixtures differ there).
	tu2 := *tu
	tu2.Usage = st.Turn.Usage
	require.Equal(t, string(st.Turn.AppendJSON(nil)), string(tu2.AppendJSON(nil)))
	require.Len(t, tu.Blocks, 4)
	for i := 0; i < 3; i++ {
		require.Equal(t, string(st.Turn.Blocks[i].(replay.ReasoningItem).AppendJSON(nil)),
			string(tu.Blocks[i].(replay.ReasoningItem).AppendJSON(nil)))
	}
	require.Equal(t, *st.Turn.Blocks[3].(*replay.Text), *tu.Blocks[3].(*replay.Text))
}

func TestDecodeBodyServerTools(t *testing.T) {
	tu, err := decodeBody(t, "server-tools.json", openai.Codec{Provider: "azure"})
	require.NoError(t, err)
	kinds := []string{}
	for _, b := range tu.Blocks {
		switch x := b.(type) {
		case *replay.Native:
			kinds = append(kinds, "native:"+x.Kind)
		case replay.ReasoningItem:
			kinds = append(kinds, string(x.Kind())+":"+x.Meta().ID.Value())
			require.Equal(t, formats.AzureOpenAIResponses, x.Meta().Format)
		case *replay.Text:
			kinds = append(kinds, "text:"+x.ID)
		case *replay.ToolCall:
			kinds = append(kinds, "call:"+x.ItemID)
		}
	}
	require.Equal(t, []string{"native:reasoning", "native:web_search_call", "reasoning.summary:rs_st_3",
		"reasoning.encrypted:rs_st_3", "text:msg_st_4", "text:msg_st_4", "call:ctc_st_5", "native:message"}, kinds)
	require.JSONEq(t, `{"annotations":[{"type":"url_citation","url":"https://example.org/tea","start_index":0,"end_index":6,"title":"Tea"}]}`,
		string(tu.Blocks[4].(*replay.Text).Extra))
	ctc := tu.Blocks[6].(*replay.ToolCall)
	require.Equal(t, "ls -la", ctc.Arguments)
	require.Equal(t, "call_ctc", ctc.ID)
}

func TestDecodeBodyIncomplete(t *testing.T) {
	tu, err := decodeBody(t, "incomplete.json", openai.Codec{})
	var pe *replay.ProviderError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "max_output_tokens", pe.Code)
	require.False(t, tu.Complete)
	require.Equal(t, "max_output_tokens", tu.FinishReason)
	enc := tu.Blocks[0].(*replay.Encrypted)
	require.True(t, enc.Unfinished)
	require.False(t, enc.Replayable())
}

func TestDecodeBodyError(t *testing.T) {
	tu, err := openai.Codec{}.Decode(read(t, "error.json"))
	require.Nil(t, tu)
	var pe *replay.ProviderError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "invalid_request_error", pe.Type)
	require.Equal(t, "Invalid 'input[2]': unknown item type.", pe.Message)
}

func TestDecodeBodyMalformed(t *testing.T) {
	for _, in := range []string{``, `[]`, `{"object":"response"}`, `{"output":{}}`, `{"output":[1]}`,
		`{"output":[{"type":"reasoning","summary":[{"text":1}]}]}`, `{"output":[{"type":"function_call","call_id":7}]}`,
		`{"output":[{"type":"reasoning","encrypted_content":3}]}`} {
		_, err := openai.Codec{}.Decode([]byte(in))
		require.ErrorIs(t, err, replay.ErrMalformed, in)
	}
}
