package anthropic_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/schema"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

const dir = "../../testdata/anthropic"

func readFile(name string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, name)) }

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	return b
}

// refBlock is one content block as an independent reading of a fixture
// (encoding/json, arrival order concatenation per index) says it is.
type refBlock struct {
	Type, Text, Sig, Data, ID, Name string
	SigPresent, Stopped             bool
}

// oracle reads a fixture's events with encoding/json, unwrapping Bedrock
// chunks, and accumulates every block by index.
func oracle(t testing.TB, data []byte) []*refBlock {
	t.Helper()
	var out []*refBlock
	for _, line := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		line = strings.TrimPrefix(line, "data: ")
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var ev map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &ev))
		if ch, ok := ev["chunk"].(map[string]any); ok {
			raw, err := base64.StdEncoding.DecodeString(ch["bytes"].(string))
			require.NoError(t, err)
			ev = nil
			require.NoError(t, json.Unmarshal(raw, &ev))
		}
		str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
		switch ev["type"] {
		case "content_block_start":
			cb := ev["content_block"].(map[string]any)
			b := &refBlock{Type: str(cb, "type"), Data: str(cb, "data"), ID: str(cb, "id"), Name: str(cb, "name")}
			b.Text = str(cb, "thinking") + str(cb, "text")
			_, b.SigPresent = cb["signature"]
			b.Sig = str(cb, "signature")
			out = append(out, b)
		case "content_block_delta":
			b := out[int(ev["index"].(float64))]
			d := ev["delta"].(map[string]any)
			switch d["type"] {
			case "thinking_delta":
				b.Text += str(d, "thinking")
			case "text_delta":
				b.Text += str(d, "text")
			case "input_json_delta":
				b.Text += str(d, "partial_json")
			case "signature_delta":
				b.SigPresent = true
				b.Sig += str(d, "signature")
			}
		case "content_block_stop":
			out[int(ev["index"].(float64))].Stopped = true
		}
	}
	return out
}

// checkAgainstOracle requires every block of the turn to hold exactly what
// the independent reading of the fixture holds, in index order.
func checkAgainstOracle(t *testing.T, tu *replay.Turn, ref []*refBlock) {
	t.Helper()
	require.Len(t, tu.Blocks, len(ref))
	for i, r := range ref {
		switch b := tu.Blocks[i].(type) {
		case *replay.ReasoningText:
			require.Equal(t, "thinking", r.Type, "block %d", i)
			assert.Equal(t, r.Text, b.Text, "block %d text", i)
			assert.Equal(t, r.Sig, b.Signature.Value(), "block %d signature", i)
			assert.Equal(t, r.SigPresent, b.Signature.IsPresent(), "block %d signature presence", i)
			assert.Equal(t, formats.AnthropicClaude, b.Format)
			assert.Equal(t, replay.Some(i), b.Index)
			assert.Equal(t, !r.Stopped || !tu.Complete, b.Unfinished, "block %d unfinished", i)
		case *replay.Encrypted:
			require.Equal(t, "redacted_thinking", r.Type, "block %d", i)
			assert.Equal(t, r.Data, b.Data, "block %d data", i)
		case *replay.Text:
			require.Equal(t, "text", r.Type, "block %d", i)
			assert.Equal(t, r.Text, b.Text, "block %d text", i)
		case *replay.ToolCall:
			require.Equal(t, "tool_use", r.Type, "block %d", i)
			assert.Equal(t, r.ID, b.ID)
			assert.Equal(t, r.Name, b.Name)
			want := r.Text
			if want == "" {
				want = "{}"
			}
			assert.Equal(t, want, b.Arguments, "block %d arguments", i)
		case *replay.Native:
			assert.Equal(t, r.Type, b.Kind, "block %d", i)
		default:
			t.Fatalf("block %d: unexpected %T", i, b)
		}
	}
}

type streamCase struct {
	name    string
	framing stream.Framing
	err     func(t *testing.T, err error)
}

func noErr(t *testing.T, err error) { require.NoError(t, err) }

func eofErr(t *testing.T, err error) {
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	var re *replay.Error
	require.ErrorAs(t, err, &re)
	assert.Equal(t, anthropic.API, re.API)
}

func overloaded(t *testing.T, err error) {
	var pe *replay.ProviderError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "overloaded_error", pe.Type)
	assert.Equal(t, "Overloaded", pe.Message)
	assert.Equal(t, anthropic.API, pe.API)
}

var streamCases = []streamCase{
	{"thinking.sse", stream.FramingSSE, noErr},
	{"redacted-x2.sse", stream.FramingSSE, noErr},
	{"interleaved-tools.sse", stream.FramingSSE, noErr},
	{"mixed-redacted.sse", stream.FramingSSE, noErr},
	{"parallel-tools.sse", stream.FramingSSE, noErr},
	{"utf8.sse", stream.FramingSSE, noErr},
	{"split-signature.sse", stream.FramingSSE, noErr},
	{"omitted.jsonl", stream.FramingJSONL, noErr},
	{"text-first.sse", stream.FramingSSE, noErr},
	{"error-midstream.sse", stream.FramingSSE, overloaded},
	{"cut-before-signature.sse", stream.FramingSSE, eofErr},
	{"bedrock-chunks.jsonl", stream.FramingJSONL, noErr},
	{"server-tools.sse", stream.FramingSSE, noErr},
	{"unsigned-proxy.sse", stream.FramingSSE, noErr},
	{"omitted-between-tools.sse", stream.FramingSSE, noErr},
}

func sweep(t *testing.T, c streamCase) codectest.Result {
	t.Helper()
	data := read(t, c.name)
	res := codectest.SweepStream(t, func() codecs.FrameDecoder { return anthropic.Codec{Provider: "anthropic"}.NewFrameDecoder() },
		stream.Options{Framing: c.framing}, data)
	c.err(t, res.Err)
	doc := res.Document()
	base := strings.TrimSuffix(strings.TrimSuffix(c.name, ".sse"), ".jsonl")
	codectest.Golden(t, filepath.Join(dir, "golden", base+".turn.json"), doc)
	require.NoError(t, schema.Validate(schema.Turn, doc))
	codectest.RoundTripDocument(t, res.Turn)
	checkAgainstOracle(t, res.Turn, oracle(t, data))
	// The events rebuild every text.
	for kind, get := range map[stream.EventKind]func(replay.Block) (string, bool){
		stream.EventReasoningDelta: func(b replay.Block) (string, bool) {
			if x, ok := b.(*replay.ReasoningText); ok {
				return x.Text, true
			}
			return "", false
		},
		stream.EventTextDelta: func(b replay.Block) (string, bool) {
			if x, ok := b.(*replay.Text); ok {
				return x.Text, true
			}
			return "", false
		},
		stream.EventToolCallDelta: func(b replay.Block) (string, bool) {
			if x, ok := b.(*replay.ToolCall); ok {
				return strings.TrimPrefix(x.Arguments, "{}"), true
			}
			return "", false
		},
	} {
		merged := codectest.MergedDeltas(res.Events, kind)
		for i, b := range res.Turn.Blocks {
			if want, ok := get(b); ok {
				assert.Equal(t, want, merged[i], "%s deltas of block %d", kind, i)
			}
		}
	}
	return res
}

func TestStreamFixtures(t *testing.T) {
	for _, c := range streamCases {
		t.Run(c.name, func(t *testing.T) { sweep(t, c) })
	}
}

func TestStreamOneThinking(t *testing.T) {
	res := sweep(t, streamCases[0])
	tu := res.Turn
	th := tu.Blocks[0].(*replay.ReasoningText)
	assert.True(t, th.Replayable())
	assert.True(t, tu.Complete)
	assert.Equal(t, "end_turn", tu.FinishReason)
	assert.Equal(t, "claude-sonnet-4-5-20250929", tu.Provenance.Model)
	assert.Equal(t, "anthropic", tu.Provenance.Provider)
	assert.Equal(t, anthropic.API, tu.Provenance.API)
	// message_delta's output count merged over message_start's usage.
	assert.Equal(t, int64(412), gjson.GetBytes(tu.Usage, "input_tokens").Int())
	assert.Equal(t, int64(96), gjson.GetBytes(tu.Usage, "output_tokens").Int())
	kinds := make([]stream.EventKind, 0, len(res.Events))
	for _, ev := range res.Events {
		kinds = append(kinds, ev.Kind)
	}
	assert.Equal(t, []stream.EventKind{stream.EventReasoningStart, stream.EventReasoningDelta, stream.EventReasoningDelta,
		stream.EventReasoningEnd, stream.EventTextDelta, stream.EventTextDelta, stream.EventDone}, kinds)
}

func TestStreamSplitSignatureIsAppended(t *testing.T) {
	data := read(t, "split-signature.sse")
	var pieces []string
	for _, line := range strings.Split(string(data), "\n") {
		if v := gjson.Get(strings.TrimPrefix(line, "data: "), "delta.signature"); v.Exists() {
			pieces = append(pieces, v.Str)
		}
	}
	require.Len(t, pieces, 4)
	res := sweep(t, streamCases[6])
	th := res.Turn.Blocks[0].(*replay.ReasoningText)
	assert.Equal(t, strings.Join(pieces, ""), th.Signature.Value())
	assert.Len(t, th.Signature.Value(), len(pieces[0])+len(pieces[1])+len(pieces[2])+len(pieces[3]))
}

func TestStreamInterleavedAndParallel(t *testing.T) {
	res := sweep(t, streamCases[2])
	var types []string
	for _, b := range res.Turn.Blocks {
		types = append(types, fmtBlock(b))
	}
	assert.Equal(t, []string{"thinking", "tool_use:toolu_01Hq8VnZ3kXr5LmT2sPbYc4D", "thinking", "tool_use:toolu_01Mw6RtY8cJd3FgK9nQxZa2E"}, types)
	assert.JSONEq(t, `{"from":"EUR","to":"JPY"}`, res.Turn.Blocks[1].(*replay.ToolCall).Arguments)

	res = sweep(t, streamCases[4])
	calls := res.Turn.ToolCalls()
	require.Len(t, calls, 3)
	assert.Equal(t, `{"city": "Oslo"}`, calls[0].Arguments)
	assert.Equal(t, `{"city": "Lima"}`, calls[1].Arguments)
	assert.Equal(t, `{"city": "Pune", "units": "metric"}`, calls[2].Arguments)
}

func fmtBlock(b replay.Block) string {
	switch b := b.(type) {
	case *replay.ReasoningText:
		return "thinking"
	case *replay.Encrypted:
		return "redacted"
	case *replay.Text:
		return "text"
	case *replay.ToolCall:
		return "tool_use:" + b.ID
	case *replay.Native:
		return "native:" + b.Kind
	}
	return "?"
}

func TestStreamUTF8(t *testing.T) {
	res := sweep(t, streamCases[5])
	th := res.Turn.Blocks[0].(*replay.ReasoningText)
	assert.Equal(t, "Überlegung: 東京 → 大阪, ü ß é… emoji 😀🎉 and a combining e\u0301.", th.Text)
	assert.Equal(t, "Réponse : 東京から大阪へ 🚄", res.Turn.Blocks[1].(*replay.Text).Text)
}

func TestStreamOmittedDisplay(t *testing.T) {
	res := sweep(t, streamCases[7])
	th := res.Turn.Blocks[0].(*replay.ReasoningText)
	assert.Equal(t, "", th.Text)
	assert.NotEmpty(t, th.Signature.Value())
	assert.True(t, th.Replayable(), "a signed block with omitted text is replayable")
	assert.Equal(t, "claude-sonnet-5", res.Turn.Provenance.Model)
}

func TestStreamTextFirst(t *testing.T) {
	res := sweep(t, streamCases[8])
	var types []string
	for _, b := range res.Turn.Blocks {
		types = append(types, fmtBlock(b))
	}
	assert.Equal(t, []string{"text", "thinking", "text"}, types)
	assert.Equal(t, "\n\nThe answer is 5.", res.Turn.VisibleText())
}

func TestStreamErrorMidstream(t *testing.T) {
	res := sweep(t, streamCases[9])
	tu := res.Turn
	require.NotNil(t, tu.Error)
	assert.Equal(t, "overloaded_error", tu.Error.Type)
	assert.False(t, tu.Complete)
	th := tu.Blocks[0].(*replay.ReasoningText)
	assert.False(t, th.Replayable(), "nothing of an errored turn is replayable")
	assert.Equal(t, "Step one is", tu.Blocks[1].(*replay.Text).Text)
	last := res.Events[len(res.Events)-1]
	assert.Equal(t, stream.EventError, last.Kind)
}

func TestStreamCutBeforeSignature(t *testing.T) {
	res := sweep(t, streamCases[10])
	tu := res.Turn
	assert.False(t, tu.Complete)
	th := tu.Blocks[0].(*replay.ReasoningText)
	assert.True(t, th.Unfinished)
	assert.Equal(t, replay.Present, th.Signature.Presence())
	assert.Equal(t, "", th.Signature.Value())
	assert.False(t, th.Replayable())
	assert.Equal(t, "Let me think about the edge cases of the parser before I answer", th.Text)
}

func TestStreamBedrockEnvelope(t *testing.T) {
	res := sweep(t, streamCases[11])
	assert.Equal(t, "bedrock", res.Turn.Provenance.Provider)
	assert.True(t, res.Turn.Complete)
	assert.True(t, res.Turn.Blocks[0].(*replay.ReasoningText).Replayable())
}

func TestStreamServerTools(t *testing.T) {
	res := sweep(t, streamCases[12])
	nat := res.Turn.Blocks[1].(*replay.Native)
	assert.Equal(t, "server_tool_use", nat.Kind)
	assert.JSONEq(t, `{"query": "lunar eclipse 2027"}`, gjson.GetBytes(nat.Raw, "input").Raw)
	assert.Equal(t, "srvtoolu_01Pp3Qq4Rr5Ss6Tt7Uu8Vv9W", gjson.GetBytes(nat.Raw, "id").Str)
	res2 := res.Turn.Blocks[2].(*replay.Native)
	assert.Equal(t, "web_search_tool_result", res2.Kind)
	txt := res.Turn.Blocks[3].(*replay.Text)
	assert.Equal(t, "total lunar eclipse", gjson.GetBytes(txt.Extra, "citations.0.cited_text").Str)
	assert.Empty(t, res.Turn.ToolCalls(), "server tools are not client calls")
}

func TestStreamUnsignedProxy(t *testing.T) {
	res := sweep(t, streamCases[13])
	th := res.Turn.Blocks[0].(*replay.ReasoningText)
	assert.Equal(t, replay.Absent, th.Signature.Presence())
	assert.False(t, th.Replayable())
	assert.True(t, res.Turn.Complete, "the stream itself completed")
}

func TestStreamZeroValueDecoder(t *testing.T) {
	data := read(t, "thinking.sse")
	tu, err := stream.Decode(bytes.NewReader(data), kit.Decoding(&anthropic.StreamDecoder{}), stream.Options{})
	require.NoError(t, err)
	assert.Equal(t, "", tu.Provenance.Provider)
	assert.True(t, tu.Blocks[0].(replay.ReasoningItem).Replayable())
}

func TestStreamMalformed(t *testing.T) {
	start := `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`
	for name, lines := range map[string][]string{
		"not json":              {`{"type":`},
		"type not a string":     {`{"type":3}`},
		"no index":              {`{"type":"content_block_start","content_block":{"type":"text","text":""}}`},
		"negative index":        {`{"type":"content_block_stop","index":-1}`},
		"fractional index":      {`{"type":"content_block_stop","index":0.5}`},
		"delta before start":    {`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}`},
		"started twice":         {start, start},
		"delta after stop":      {start, `{"type":"content_block_stop","index":0}`, `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"x"}}`},
		"wrong delta for block": {start, `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}`},
		"delta text not string": {start, `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":5}}`},
		"block without type":    {`{"type":"content_block_start","index":0,"content_block":{}}`},
		"tool_use without id":   {`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","name":"x"}}`},
		"redacted without data": {`{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking"}}`},
		"bad base64 chunk":      {`{"chunk":{"bytes":"!!!"}}`},
		"chunk not json":        {`{"chunk":{"bytes":"` + base64.StdEncoding.EncodeToString([]byte("nope")) + `"}}`},
	} {
		t.Run(name, func(t *testing.T) {
			data := []byte(strings.Join(lines, "\n") + "\n")
			res := codectest.SweepStream(t, func() codecs.FrameDecoder { return anthropic.Codec{}.NewFrameDecoder() },
				stream.Options{Framing: stream.FramingJSONL}, data)
			require.ErrorIs(t, res.Err, replay.ErrMalformed)
			var re *replay.Error
			require.ErrorAs(t, res.Err, &re)
			assert.Equal(t, len(lines)-1, re.Event)
			assert.False(t, res.Turn.Complete)
		})
	}
}

func TestStreamStickyError(t *testing.T) {
	d := anthropic.Codec{}.NewFrameDecoder()
	_, err := d.Decode(nil, []byte(`{"type":`), nil)
	require.ErrorIs(t, err, replay.ErrMalformed)
	_, err2 := d.Decode(nil, []byte(`{"type":"ping"}`), nil)
	assert.Same(t, err, err2)
	_, err3 := d.Finish()
	assert.Same(t, err, err3)
}

func TestStreamEventTypeFromFrame(t *testing.T) {
	// A proxy that drops the type member but keeps the SSE event line.
	data := "event: error\ndata: {\"error\":{\"type\":\"api_error\",\"message\":\"Internal server error\"}}\n\n"
	tu, err := stream.Decode(strings.NewReader(data), anthropic.Codec{}, stream.Options{})
	var pe *replay.ProviderError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "api_error", pe.Type)
	assert.Same(t, pe, tu.Error)
}

func TestStreamBedrockException(t *testing.T) {
	data := `{"internalServerException":{"message":"The system encountered an unexpected error."}}` + "\n"
	tu, err := stream.Decode(strings.NewReader(data), anthropic.Codec{}, stream.Options{Framing: stream.FramingJSONL})
	var pe *replay.ProviderError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "internalServerException", pe.Type)
	assert.Equal(t, "The system encountered an unexpected error.", pe.Message)
	assert.Equal(t, "bedrock", tu.Provenance.Provider)
}

func TestStreamLimits(t *testing.T) {
	data := read(t, "thinking.sse")
	_, err := stream.Decode(bytes.NewReader(data), anthropic.Codec{Limits: replay.Limits{MaxItem: 20}}, stream.Options{})
	var le *replay.LimitError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "item size", le.What)
	assert.Equal(t, 20, le.Limit)

	_, err = stream.Decode(bytes.NewReader(data), anthropic.Codec{Limits: replay.Limits{MaxBlocks: 1}}, stream.Options{})
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "block count", le.What)
}

func TestStreamUnclosedBlockAtStop(t *testing.T) {
	data := strings.Join([]string{
		`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqSig"}}`,
		`{"type":"message_stop"}`, ""}, "\n")
	tu, err := stream.Decode(strings.NewReader(data), anthropic.Codec{}, stream.Options{Framing: stream.FramingJSONL})
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.False(t, tu.Complete)
	assert.False(t, tu.Blocks[0].(replay.ReasoningItem).Replayable(), "a block never closed is not replayable, even signed")
}

func TestStreamIgnoresUnknownEvents(t *testing.T) {
	data := strings.Join([]string{
		`{"type":"message_start","message":{"model":"claude-x"}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"future_delta","x":1}}`,
		`{"type":"future_event"}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"message_stop"}`,
		`{"type":"ping"}`, ""}, "\n")
	tu, err := stream.Decode(strings.NewReader(data), anthropic.Codec{}, stream.Options{Framing: stream.FramingJSONL})
	require.NoError(t, err)
	assert.True(t, tu.Complete)
	assert.Equal(t, "claude-x", tu.Provenance.Model)
	require.Len(t, tu.Blocks, 1)
}

func TestFinishTwice(t *testing.T) {
	d := anthropic.Codec{}.NewFrameDecoder()
	_, err := d.Finish()
	require.True(t, errors.Is(err, io.ErrUnexpectedEOF))
	_, err = d.Finish()
	require.ErrorIs(t, err, replay.ErrMalformed)
}

func TestTightLimits(t *testing.T) {
	for _, name := range []string{"thinking.sse", "interleaved-tools.sse", "redacted-x2.sse"} {
		codectest.SweepLimits(t, anthropic.Codec{}.NewFrameDecoder, stream.FramingSSE, read(t, name))
	}
	codectest.SweepLimits(t, anthropic.Codec{}.NewFrameDecoder, stream.FramingJSONL, read(t, "bedrock-chunks.jsonl"))
	codectest.CheckBodyLimits(t, func(l replay.Limits) replay.ReasoningCodec { return anthropic.Codec{Limits: l} }, read(t, "message.json"))
}

// Strings that are not deltas count too: the initial thinking and
// signature of content_block_start, a tool call's id, and citations.
func TestLimitsOnStartAndCitations(t *testing.T) {
	at := func(lines ...string) error {
		data := strings.Join(lines, "\n") + "\n"
		_, err := stream.Decode(strings.NewReader(data), anthropic.Codec{},
			stream.Options{Framing: stream.FramingJSONL, Limits: replay.Limits{MaxItem: 8}})
		return err
	}
	var le *replay.LimitError
	err := at(`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"0123456789","signature":""}}`)
	require.ErrorAs(t, err, &le)
	assert.Equal(t, replay.LimitError{What: "item size", Limit: 8, API: anthropic.API, Event: 0, Block: 0}, *le)

	err = at(`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_0123456789","name":"f","input":{}}}`)
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "item size", le.What)

	err = at(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"type":"char_location","cited_text":"a"}}}`)
	require.ErrorAs(t, err, &le)
	assert.Equal(t, replay.LimitError{What: "item size", Limit: 8, API: anthropic.API, Event: 2, Block: 0}, *le)
}
