package openrouter_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/codecs/openrouter"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/schema"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

const dir = "../../testdata/openrouter"

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	return b
}

// chunks returns the JSON payloads of an SSE fixture, parsed independently
// of the decoder (a line-based reading that is enough for our fixtures).
func chunks(t testing.TB, data []byte) []gjson.Result {
	t.Helper()
	var out []gjson.Result
	for _, line := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		p, ok := strings.CutPrefix(line, "data: ")
		if !ok || p == "[DONE]" {
			continue
		}
		require.True(t, gjson.Valid(p), "fixture payload is not JSON: %s", p)
		out = append(out, gjson.Parse(p))
	}
	return out
}

// concat joins, over all chunks, the string values at path.
func concat(cs []gjson.Result, path string) string {
	var b strings.Builder
	for _, c := range cs {
		switch v := c.Get(path); {
		case v.IsArray():
			for _, x := range v.Array() {
				b.WriteString(x.String())
			}
		case v.Type == gjson.String:
			b.WriteString(v.Str)
		}
	}
	return b.String()
}

func newFD() codecs.FrameDecoder { return openrouter.Codec{}.NewFrameDecoder() }

func sweep(t *testing.T, name string) codectest.Result {
	t.Helper()
	res := codectest.SweepStream(t, newFD, stream.Options{}, read(t, name))
	doc := res.Document()
	codectest.Golden(t, filepath.Join(dir, "golden", strings.TrimSuffix(name, ".sse")+".turn.json"), doc)
	require.NoError(t, schema.Validate(schema.Turn, doc))
	codectest.RoundTripDocument(t, res.Turn)
	return res
}

func TestStreamAnthropicUpstream(t *testing.T) {
	data := read(t, "claude-tool-loop.sse")
	cs := chunks(t, data)
	res := sweep(t, "claude-tool-loop.sse")
	require.NoError(t, res.Err)
	tu := res.Turn
	require.Len(t, tu.Blocks, 3)

	th := tu.Blocks[0].(*replay.ReasoningText)
	// The plain `reasoning` mirror carries the same text: it is the oracle,
	// and it must not have been counted twice.
	assert.Equal(t, concat(cs, "choices.0.delta.reasoning"), th.Text)
	assert.Equal(t, concat(cs, "choices.0.delta.reasoning_details.#.signature"), th.Signature.Value())
	assert.Equal(t, replay.Present, th.Signature.Presence())
	assert.Equal(t, formats.AnthropicClaude, th.Format)
	assert.Equal(t, replay.Some(0), th.Index)
	assert.Equal(t, replay.Absent, th.ID.Presence())
	assert.True(t, th.Replayable())

	assert.Equal(t, "Let me check the weather for Zürich. ", tu.Blocks[1].(*replay.Text).Text)
	call := tu.Blocks[2].(*replay.ToolCall)
	assert.Equal(t, "toolu_01Xq9VbN3mT7wK2pLc8RZa4e", call.ID)
	assert.Equal(t, "get_weather", call.Name)
	assert.Equal(t, concat(cs, "choices.0.delta.tool_calls.#.function.arguments"), call.Arguments)
	assert.JSONEq(t, `{"city":"Zürich","unit":"celsius"}`, call.Arguments)

	assert.True(t, tu.Complete)
	assert.Equal(t, "tool_calls", tu.FinishReason)
	assert.Equal(t, "Anthropic", tu.Provenance.Upstream)
	assert.Equal(t, "anthropic/claude-sonnet-4.5", tu.Provenance.Model)
	assert.Equal(t, int64(509), gjson.GetBytes(tu.Usage, "total_tokens").Int())

	// Events: deltas rebuild the text, the tool call opens with its id.
	assert.Equal(t, th.Text, codectest.MergedDeltas(res.Events, stream.EventReasoningDelta)[0])
	assert.Equal(t, call.Arguments, codectest.MergedDeltas(res.Events, stream.EventToolCallDelta)[2])
	last := res.Events[len(res.Events)-1]
	assert.Equal(t, stream.EventDone, last.Kind)
}

func TestStreamOpenAIUpstream(t *testing.T) {
	data := read(t, "openai-summary-encrypted.sse")
	cs := chunks(t, data)
	res := sweep(t, "openai-summary-encrypted.sse")
	require.NoError(t, res.Err)
	tu := res.Turn
	require.Len(t, tu.Blocks, 3)
	sum := tu.Blocks[0].(*replay.Summary)
	enc := tu.Blocks[1].(*replay.Encrypted)
	// Summary and encrypted item share index 0: different types never merge.
	assert.Equal(t, concat(cs, "choices.0.delta.reasoning_details.#.summary"), sum.Summary)
	assert.Equal(t, concat(cs, "choices.0.delta.reasoning_details.#.data"), enc.Data)
	assert.Equal(t, concat(cs, "choices.0.delta.reasoning_details.#.id"), enc.ID.Value())
	assert.Equal(t, formats.OpenAIResponses, enc.Format)
	assert.Equal(t, "Use merge sort when you need stability.", tu.VisibleText())
}

func TestStreamGeminiUpstream(t *testing.T) {
	res := sweep(t, "gemini-parallel-tools.sse")
	require.NoError(t, res.Err)
	tu := res.Turn
	require.Len(t, tu.Blocks, 4)
	th := tu.Blocks[0].(*replay.ReasoningText)
	// Gemini thought text carries no signature: kept for display, never
	// replayable (its signature travels in the encrypted item).
	assert.False(t, th.Replayable())
	enc := tu.Blocks[1].(*replay.Encrypted)
	calls := tu.ToolCalls()
	require.Len(t, calls, 2)
	assert.Equal(t, calls[0].ID, enc.ID.Value())
	assert.Equal(t, "tool_get_forecast_Zt7pL2", calls[1].ID)
	assert.Equal(t, `{"city":"Bergen"}`, calls[1].Arguments)
}

func TestStreamRepeatedTokensAndMirroredFields(t *testing.T) {
	data := read(t, "plain-reasoning-repeated.sse")
	cs := chunks(t, data)
	res := sweep(t, "plain-reasoning-repeated.sse")
	require.NoError(t, res.Err)
	th := res.Turn.Blocks[0].(*replay.ReasoningText)
	// "ha" twice stays "haha"; reasoning_content mirrors reasoning and
	// counts once.
	assert.Equal(t, concat(cs, "choices.0.delta.reasoning"), th.Text)
	assert.True(t, strings.HasPrefix(th.Text, "haha!"))
	assert.Equal(t, replay.Format(""), th.Format)
	assert.True(t, th.Replayable(), "unsigned text of an issuer that does not sign is replayable")
}

func TestStreamErrorMidstream(t *testing.T) {
	res := sweep(t, "error-midstream.sse")
	var pe *replay.ProviderError
	require.ErrorAs(t, res.Err, &pe)
	assert.Equal(t, "server_error", pe.Code)
	assert.Equal(t, "Provider disconnected unexpectedly", pe.Message)
	assert.Equal(t, "Anthropic", pe.Provider)
	tu := res.Turn
	assert.False(t, tu.Complete)
	assert.Equal(t, pe, tu.Error)
	for _, it := range tu.Items() {
		assert.True(t, it.Meta().Unfinished)
		assert.False(t, it.Replayable())
	}
	last := res.Events[len(res.Events)-1]
	assert.Equal(t, stream.EventError, last.Kind)
	assert.Equal(t, pe, last.Err)
}

func TestStreamCutBeforeSignature(t *testing.T) {
	res := sweep(t, "cut-before-signature.sse")
	require.ErrorIs(t, res.Err, io.ErrUnexpectedEOF)
	require.Len(t, res.Turn.Items(), 1)
	it := res.Turn.Items()[0].(*replay.ReasoningText)
	assert.Equal(t, "Partial thought that never", it.Text)
	assert.True(t, it.Unfinished)
	assert.False(t, it.Replayable())
	assert.False(t, res.Turn.Complete)
	out, err := openrouter.Codec{}.Encode(res.Turn)
	require.NoError(t, err)
	assert.False(t, gjson.GetBytes(out, "reasoning_details").Exists(), "an unfinished item is never written back: %s", out)
}

// errReader fails with err after returning data.
type errReader struct {
	data []byte
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestStreamReaderErrorIsWrapped(t *testing.T) {
	data := read(t, "claude-tool-loop.sse")
	cut := bytes.Index(data, []byte("Let me check"))
	tu, err := stream.Decode(&errReader{data: data[:cut], err: errCanceled}, kit.Decoding(newFD()), stream.Options{})
	require.ErrorIs(t, err, errCanceled)
	require.NotNil(t, tu)
	assert.False(t, tu.Complete)
	for _, it := range tu.Items() {
		assert.False(t, it.Replayable(), "an item of a broken stream is never replayable")
	}
}

var errCanceled = errors.New("context canceled (test)")

func TestStreamMalformedChunk(t *testing.T) {
	tu, err := stream.Decode(strings.NewReader("data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: {not json\n\n"), kit.Decoding(newFD()), stream.Options{})
	var e *replay.Error
	require.ErrorAs(t, err, &e)
	assert.ErrorIs(t, err, replay.ErrMalformed)
	assert.Equal(t, 1, e.Event)
	assert.Equal(t, "hi", tu.VisibleText())
	assert.False(t, tu.Complete)
}

func TestStreamItemLimit(t *testing.T) {
	fd := &openrouter.StreamDecoder{Limits: replay.Limits{MaxItem: 8}}
	_, err := stream.Decode(strings.NewReader(`data: {"choices":[{"delta":{"reasoning":"0123456789"}}]}`+"\n\n"), kit.Decoding(fd), stream.Options{})
	var le *replay.LimitError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, 8, le.Limit)
	assert.Equal(t, "item size", le.What)
}

func TestDecodeBodyRoundTrip(t *testing.T) {
	for _, name := range []string{"claude-message.json", "openai-tool-call.json", "unknown-detail.json"} {
		t.Run(name, func(t *testing.T) {
			body := read(t, name)
			c := openrouter.Codec{}
			tu, err := c.Decode(body)
			require.NoError(t, err)
			doc := codectest.Indent(tu.AppendJSON(nil))
			codectest.Golden(t, filepath.Join(dir, "golden", strings.TrimSuffix(name, ".json")+".turn.json"), doc)
			require.NoError(t, schema.Validate(schema.Turn, doc))
			codectest.RoundTripDocument(t, tu)

			msg, err := c.Encode(tu)
			require.NoError(t, err)
			codectest.Golden(t, filepath.Join(dir, "golden", strings.TrimSuffix(name, ".json")+".message.json"), codectest.Indent(msg))

			// Every detail comes back with the same members and values, in
			// the same order; signatures, data and ids byte-identical.
			src := gjson.GetBytes(body, "choices.0.message.reasoning_details").Array()
			got := gjson.GetBytes(msg, "reasoning_details").Array()
			var want []gjson.Result
			for i, d := range src {
				it := tu.Items()[i]
				if it.Replayable() {
					want = append(want, d)
				}
			}
			require.Len(t, got, len(want))
			for i := range want {
				assert.JSONEq(t, want[i].Raw, got[i].Raw)
				for _, k := range []string{"signature", "data", "id", "format", "text", "summary"} {
					assert.Equal(t, want[i].Get(k).Raw, got[i].Get(k).Raw, "detail %d member %s", i, k)
				}
			}
			assert.Equal(t, gjson.GetBytes(body, "choices.0.message.content").Value(), gjson.GetBytes(msg, "content").Value())

			// decode -> encode -> decode gives the same items.
			wrapped := []byte(`{"choices":[{"message":` + string(msg) + `}]}`)
			again, err := c.Decode(wrapped)
			require.NoError(t, err)
			var replayable []replay.ReasoningItem
			for _, it := range tu.Items() {
				if it.Replayable() {
					replayable = append(replayable, it)
				}
			}
			require.Len(t, again.Items(), len(replayable))
			for i, it := range again.Items() {
				assert.Equal(t, string(replayable[i].AppendJSON(nil)), string(it.AppendJSON(nil)))
			}
		})
	}
}

func TestDecodeUnknownKeptVerbatim(t *testing.T) {
	body := read(t, "unknown-detail.json")
	tu, err := openrouter.Codec{}.Decode(body)
	require.NoError(t, err)
	items := tu.Items()
	require.Len(t, items, 3)
	txt := items[0].(*replay.ReasoningText)
	assert.Equal(t, replay.Format("meta-llama-v9"), txt.Format, "an unknown format string survives")
	assert.Equal(t, replay.Null, txt.Signature.Presence())
	assert.JSONEq(t, `{"x_trace":{"span":"a1","hops":[1,2]}}`, string(txt.Extra))
	op := items[1].(*replay.Opaque)
	assert.Equal(t, gjson.GetBytes(body, "choices.0.message.reasoning_details.1").Raw, string(op.Raw))
	assert.Equal(t, "srvtool_9", op.ID.Value())
	sum := items[2].(*replay.Summary)
	assert.Equal(t, replay.Null, sum.ID.Presence())
	assert.Equal(t, replay.Absent, sum.Index.Presence())

	msg, err := openrouter.Codec{}.Encode(tu)
	require.NoError(t, err)
	assert.Equal(t, gjson.GetBytes(body, "choices.0.message.reasoning_details.1").Raw, gjson.GetBytes(msg, "reasoning_details.1").Raw)
	assert.Equal(t, "null", gjson.GetBytes(msg, "reasoning_details.0.signature").Raw)
	assert.False(t, gjson.GetBytes(msg, "reasoning_details.2.index").Exists())
}

func TestDecodeErrorBody(t *testing.T) {
	body := read(t, "error-body.json")
	tu, err := openrouter.Codec{}.Decode(body)
	assert.Nil(t, tu)
	var pe *replay.ProviderError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, 400, pe.Status)
	assert.Equal(t, "Provider returned error", pe.Message)
	assert.Equal(t, "Anthropic", pe.Provider)
	assert.Equal(t, gjson.GetBytes(body, "error.metadata.raw").Str, pe.Raw)
	assert.Contains(t, err.Error(), "Invalid `signature` in `thinking` block")
}

func TestDecodeNotOpenRouter(t *testing.T) {
	for _, body := range [][]byte{read(t, "not-openrouter.json"), []byte("not json"), []byte(`[1,2]`), []byte(`{"choices":[]}`)} {
		_, err := openrouter.Codec{}.Decode(body)
		require.ErrorIs(t, err, replay.ErrMalformed, "%s", body)
		assert.Contains(t, err.Error(), "openrouter")
	}
	_, err := openrouter.Codec{}.Decode(read(t, "not-openrouter.json"))
	assert.Contains(t, err.Error(), "choices[0].message")
}

func TestPatch(t *testing.T) {
	tu, err := openrouter.Codec{}.Decode(read(t, "openai-tool-call.json"))
	require.NoError(t, err)
	msg := []byte(`{"tool_calls": [{"id":"call_Q2x8KpL0vN4mZ7rT","type":"function","function":{"name":"get_quote","arguments":"{\"ticker\":\"ACME\"}"}}], "role":"assistant",  "content": null, "x_custom": {"keep": "<me>&"}}`)
	out, err := openrouter.Codec{}.Patch(msg, tu)
	require.NoError(t, err)
	enc, err := openrouter.Codec{}.Encode(tu)
	require.NoError(t, err)
	assert.Equal(t, gjson.GetBytes(enc, "reasoning_details").Raw, gjson.GetBytes(out, "reasoning_details").Raw)
	// Everything else is byte-identical: removing the added member gives
	// back the caller's message.
	i := bytes.Index(out, []byte(`,"reasoning_details":`))
	require.Positive(t, i)
	assert.Equal(t, string(msg), string(out[:i])+"}")

	_, err = openrouter.Codec{}.Patch([]byte(`[1]`), tu)
	assert.ErrorIs(t, err, replay.ErrMalformed)
	same, err := openrouter.Codec{}.Patch(msg, &replay.Turn{})
	require.NoError(t, err)
	assert.Equal(t, msg, same)
}

func TestEncodeContentShapes(t *testing.T) {
	c := openrouter.Codec{}
	out, err := c.Encode(&replay.Turn{Blocks: []replay.Block{&replay.ToolCall{ID: "c1", Name: "f", Arguments: "{}"}}})
	require.NoError(t, err)
	assert.Equal(t, `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}`, string(out))
	out, err = c.Encode(&replay.Turn{})
	require.NoError(t, err)
	assert.Equal(t, `{"role":"assistant","content":""}`, string(out))
	var v map[string]any
	require.NoError(t, json.Unmarshal(out, &v))
}

// joinedValue decodes the JSON string fragments at path of every chunk as
// one string, the way the text reads when the fragments are put together
// before decoding: the oracle for surrogate halves split across deltas.
func joinedValue(t *testing.T, cs []gjson.Result, path string) string {
	t.Helper()
	var raw strings.Builder
	for _, c := range cs {
		vals := []gjson.Result{c.Get(path)}
		if vals[0].IsArray() {
			vals = vals[0].Array()
		}
		for _, v := range vals {
			if v.Type == gjson.String {
				raw.WriteString(v.Raw[1 : len(v.Raw)-1])
			}
		}
	}
	var s string
	require.NoError(t, json.Unmarshal([]byte(`"`+raw.String()+`"`), &s))
	return s
}

func TestStreamSurrogateHalvesAcrossDeltas(t *testing.T) {
	data := read(t, "split-surrogates.sse")
	cs := chunks(t, data)
	res := sweep(t, "split-surrogates.sse")
	require.NoError(t, res.Err)
	th := res.Turn.Blocks[0].(*replay.ReasoningText)
	assert.Equal(t, joinedValue(t, cs, "choices.0.delta.reasoning_details.#.text"), th.Text)
	assert.Equal(t, "Surf report: waves 🌊 tall; calm water.", th.Text)
	assert.Equal(t, joinedValue(t, cs, "choices.0.delta.content"), res.Turn.VisibleText())
	// A lone half in visible text reads as U+FFFD, as encoding/json reads it.
	assert.Equal(t, "Go surfing 🏄 today; a lone \uFFFD", res.Turn.VisibleText())
	// Arguments are JSON text: their escapes are text, kept as sent.
	call := res.Turn.ToolCalls()[0]
	assert.Equal(t, `{"note":"\ud83c\udf0a ok"}`, call.Arguments)
	assert.Equal(t, "RXFvQ2tnSUJFQUFZQWlvPQ==", th.Signature.Value())
}
