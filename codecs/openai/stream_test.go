package openai_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/openai"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/require"
)

const dir = "../../testdata/openai"

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	return b
}

func sweep(t *testing.T, name string, c openai.Codec) codectest.Result {
	t.Helper()
	opts := stream.Options{}
	if strings.HasSuffix(name, ".jsonl") {
		opts.Framing = stream.FramingJSONL
	}
	res := codectest.SweepStream(t, c.NewFrameDecoder, opts, read(t, name))
	codectest.RoundTripDocument(t, res.Turn)
	base := strings.TrimSuffix(name, filepath.Ext(name))
	codectest.Golden(t, filepath.Join(dir, "golden", base+".stream.json"), res.Document())
	codectest.Golden(t, filepath.Join(dir, "golden", base+".events.txt"), []byte(strings.Join(codectest.EventSummary(res.Events), "\n")+"\n"))
	return res
}

const (
	encDone   = "gAAAAABqZ1Rk1x9Vb2tQ9mNvY2t0b2tlbi1vbmUtZm9yLXRlc3RzLW9ubHk-Zm9vYmFyYmF6cXV4X19fX19fX19fX19fX19fX19fX19fX19fX19fX18="
	rsID      = "rs_0a1b2c3d4e5f60718293a4b5c6d7e8f9"
	msgID     = "msg_0a1b2c3d4e5f60718293a4b5c6d7e8fa"
	summary0  = "**Checking the kettle**\n\nThe user wants tea at 85 °C; green tea scalds above that."
	summary1  = "**Planning steps**\n\nWarm the pot, then pour — “gently”."
	finalText = "Heat the water to 85 °C, then steep for two minutes."
)

func TestStreamSummaryEncrypted(t *testing.T) {
	res := sweep(t, "summary-encrypted.sse", openai.Codec{})
	require.NoError(t, res.Err)
	tu := res.Turn
	require.True(t, tu.Complete)
	require.Equal(t, "gpt-5.5-mini", tu.Provenance.Model)
	require.Len(t, tu.Blocks, 4)
	s0 := tu.Blocks[0].(*replay.Summary)
	s1 := tu.Blocks[1].(*replay.Summary)
	enc := tu.Blocks[2].(*replay.Encrypted)
	txt := tu.Blocks[3].(*replay.Text)
	require.Equal(t, summary0, s0.Summary)
	require.Equal(t, summary1, s1.Summary)
	require.Equal(t, 1, s1.Index.Value())
	// The .done copy, not the shorter .added one nor the re-minted one.
	require.Equal(t, encDone, enc.Data)
	for _, it := range []replay.ReasoningItem{s0, s1, enc} {
		require.Equal(t, rsID, it.Meta().ID.Value())
		require.Equal(t, formats.OpenAIResponses, it.Meta().Format)
		require.True(t, it.Replayable())
	}
	require.Equal(t, finalText, txt.Text)
	require.Equal(t, msgID, txt.ID)
	require.JSONEq(t, `{"phase":"final_answer","annotations":[]}`, string(txt.Extra))
	require.Equal(t, summary0, codectest.MergedDeltas(res.Events, stream.EventReasoningDelta)[0])
	require.Equal(t, finalText, codectest.MergedDeltas(res.Events, stream.EventTextDelta)[3])
	require.Equal(t, stream.EventDone, res.Events[len(res.Events)-1].Kind)
}

func TestStreamDuplicateSequence(t *testing.T) {
	want := sweep(t, "summary-encrypted.sse", openai.Codec{})
	got := sweep(t, "duplicate-sequence.sse", openai.Codec{})
	require.NoError(t, got.Err)
	require.Equal(t, string(want.Document()), string(got.Document()))
	require.Equal(t, codectest.EventSummary(want.Events), codectest.EventSummary(got.Events))
}

func TestStreamTwoReasoningCallsXAI(t *testing.T) {
	res := sweep(t, "two-reasoning-calls.sse", openai.Codec{Provider: "xai"})
	require.NoError(t, res.Err)
	tu := res.Turn
	require.Equal(t, "xai", tu.Provenance.Provider)
	require.Len(t, tu.Blocks, 4)
	e0 := tu.Blocks[0].(*replay.Encrypted)
	c0 := tu.Blocks[1].(*replay.ToolCall)
	e1 := tu.Blocks[2].(*replay.Encrypted)
	c1 := tu.Blocks[3].(*replay.ToolCall)
	require.Equal(t, formats.XAIResponses, e0.Format)
	require.Equal(t, "rs_5d1e9f0a-1111-4a2b-9c3d-000000000001_us-east-1", e0.ID.Value())
	require.Equal(t, "eXhBSS1ibG9iLW9uZS1mb3ItdGVzdHMtb25seS0xMjM0NTY3ODkw", e0.Data)
	require.Equal(t, "eXhBSS1ibG9iLXR3by1mb3ItdGVzdHMtb25seS0wOTg3NjU0MzIx", e1.Data)
	require.Equal(t, replay.ToolCall{ID: "call_Wx1", Name: "get_weather", Arguments: `{"city":"Lyon"}`,
		ItemID: "fc_5d1e9f0a-1111-4a2b-9c3d-000000000001_a"}, *c0)
	require.Equal(t, `{"tz":"Europe/Paris"}`, c1.Arguments)
	require.Equal(t, `{"tz":"Europe/Paris"}`, codectest.MergedDeltas(res.Events, stream.EventToolCallDelta)[3])
}

func TestStreamReasoningTextOutOfOrderJSONL(t *testing.T) {
	res := sweep(t, "reasoning-text-out-of-order.jsonl", openai.Codec{Provider: "lmstudio"})
	require.NoError(t, res.Err)
	tu := res.Turn
	require.Len(t, tu.Blocks, 3)
	r0 := tu.Blocks[0].(*replay.ReasoningText)
	r1 := tu.Blocks[1].(*replay.ReasoningText)
	require.Equal(t, "The user asks for 17*3. ", r0.Text)
	require.Equal(t, "17*3 = 51.", r1.Text)
	// The id of the stream's items, not the one response.completed lists.
	require.Equal(t, "rs_local_9k2", r1.ID.Value())
	require.Equal(t, formats.LMStudioResponses, r0.Format)
	require.Equal(t, "51", tu.Blocks[2].(*replay.Text).Text)
}

func TestStreamFailed(t *testing.T) {
	res := sweep(t, "failed.sse", openai.Codec{})
	var pe *replay.ProviderError
	require.ErrorAs(t, res.Err, &pe)
	require.Equal(t, "server_error", pe.Code)
	require.Equal(t, "The model failed to generate a response.", pe.Message)
	require.False(t, res.Turn.Complete)
	s := res.Turn.Blocks[0].(*replay.Summary)
	require.Equal(t, "**Weighing options**", s.Summary)
	require.True(t, s.Unfinished)
	require.False(t, s.Replayable())
	require.Equal(t, stream.EventError, res.Events[len(res.Events)-1].Kind)
}

func TestStreamErrorEvent(t *testing.T) {
	res := sweep(t, "error-event.sse", openai.Codec{})
	var pe *replay.ProviderError
	require.ErrorAs(t, res.Err, &pe)
	require.Equal(t, "rate_limit_exceeded", pe.Code)
	require.Equal(t, "Rate limit reached for requests per min.", pe.Message)
	require.False(t, res.Turn.Complete)
}

func TestStreamTruncated(t *testing.T) {
	res := sweep(t, "truncated.sse", openai.Codec{})
	require.True(t, errors.Is(res.Err, io.ErrUnexpectedEOF))
	require.False(t, res.Turn.Complete)
	// The reasoning item finished before the cut: it stays replayable.
	enc := res.Turn.Blocks[2].(*replay.Encrypted)
	require.Equal(t, encDone, enc.Data)
	require.True(t, enc.Replayable())
	require.IsType(t, &replay.Text{}, res.Turn.Blocks[3])
}

func TestStreamMalformed(t *testing.T) {
	for _, in := range []string{
		"data: {not json\n\n",
		"data: [1,2]\n\n",
		`data: {"type":"response.output_text.delta","output_index":-1,"delta":"x"}` + "\n\n",
		`data: {"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":0,"delta":5}` + "\n\n",
		`data: {"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","summary":"x"}}` + "\n\n",
	} {
		_, err := stream.Decode(strings.NewReader(in), openai.Codec{}, stream.Options{})
		require.ErrorIs(t, err, replay.ErrMalformed, in)
	}
}

func TestStreamLimits(t *testing.T) {
	in := `data: {"type":"response.output_text.delta","output_index":5000,"content_index":0,"delta":"x"}` + "\n\n"
	fd := &openai.StreamDecoder{Limits: replay.Limits{MaxBlocks: 10}}
	_, err := stream.Decode(strings.NewReader(in), kit.Decoding(fd), stream.Options{})
	var le *replay.LimitError
	require.ErrorAs(t, err, &le)
	require.Equal(t, 10, le.Limit)
	in = `data: {"type":"response.output_text.delta","output_index":0,"content_index":0,"delta":"0123456789"}` + "\n\n"
	fd = &openai.StreamDecoder{Limits: replay.Limits{MaxItem: 4}}
	_, err = stream.Decode(strings.NewReader(in), kit.Decoding(fd), stream.Options{})
	require.ErrorAs(t, err, &le)
	require.Equal(t, "item size", le.What)
}

func TestTightLimits(t *testing.T) {
	for _, name := range []string{"summary-encrypted.sse", "two-reasoning-calls.sse"} {
		codectest.SweepLimits(t, openai.Codec{}.NewFrameDecoder, stream.FramingSSE, read(t, name))
	}
	codectest.SweepLimits(t, openai.Codec{}.NewFrameDecoder, stream.FramingJSONL, read(t, "reasoning-text-out-of-order.jsonl"))
	for _, name := range []string{"summary-encrypted.json", "server-tools.json"} {
		codectest.CheckBodyLimits(t, func(l replay.Limits) replay.ReasoningCodec { return openai.Codec{Limits: l} }, read(t, name))
	}
}

// An item id counts against the item limit on its own, in a body and in
// a stream.
func TestItemIDLimit(t *testing.T) {
	body := []byte(`{"object":"response","status":"completed","output":[{"type":"reasoning","id":"rs_0123456789abcdef","summary":[]}]}`)
	_, err := openai.Codec{Limits: replay.Limits{MaxItem: 8}}.Decode(body)
	var le *replay.LimitError
	require.ErrorAs(t, err, &le)
	require.Equal(t, replay.LimitError{What: "item size", Limit: 8, API: openai.API, Event: -1, Block: 0}, *le)

	events := `{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_0123456789abcdef","call_id":"c","name":"f"}}` + "\n"
	_, err = stream.Decode(strings.NewReader(events), openai.Codec{},
		stream.Options{Framing: stream.FramingJSONL, Limits: replay.Limits{MaxItem: 8}})
	require.ErrorAs(t, err, &le)
	require.Equal(t, replay.LimitError{What: "item size", Limit: 8, API: openai.API, Event: 0, Block: 0}, *le)
}
