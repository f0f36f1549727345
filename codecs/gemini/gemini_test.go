package gemini

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/internal/gemsig"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

const dir = "../../testdata/gemini"

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	return b
}

func golden(name, suffix string) string {
	return filepath.Join(dir, "golden", strings.TrimSuffix(name, filepath.Ext(name))+suffix)
}

func framing(name string) stream.Options {
	if strings.HasSuffix(name, ".jsonl") {
		return stream.Options{Framing: stream.FramingJSONL}
	}
	return stream.Options{}
}

func newFD() codecs.FrameDecoder { return Codec{}.NewFrameDecoder() }

func decodeStream(t testing.TB, name string) codectest.Result {
	t.Helper()
	return codectest.SweepStream(t, newFD, framing(name), read(t, name))
}

// signatures lists every signature and encrypted datum of a turn in order.
func signatures(tu *replay.Turn) []string {
	var out []string
	for _, b := range tu.Blocks {
		switch x := b.(type) {
		case *replay.Encrypted:
			out = append(out, x.Data)
		case *replay.ReasoningText:
			if s, ok := x.Signature.Get(); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// kinds renders the block sequence: e(attached)/r/t/c/n.
func kinds(tu *replay.Turn) string {
	var b strings.Builder
	for _, bl := range tu.Blocks {
		switch x := bl.(type) {
		case *replay.Encrypted:
			if x.Attached {
				b.WriteString("sig ")
			} else {
				b.WriteString("enc ")
			}
		case *replay.ReasoningText:
			b.WriteString("thought ")
		case *replay.Text:
			b.WriteString("text ")
		case *replay.ToolCall:
			b.WriteString("call ")
		case *replay.Native:
			b.WriteString(x.Kind + " ")
		}
	}
	return strings.TrimSpace(b.String())
}

// asBody wraps an encoded model content into a response body.
func asBody(content []byte) []byte {
	return []byte(`{"candidates":[{"content":` + string(content) + `,"finishReason":"STOP","index":0}]}`)
}

// roundTrip checks decode -> encode -> decode -> encode: the same
// signatures on the same parts, byte-identical output.
func roundTrip(t *testing.T, tu *replay.Turn) []byte {
	t.Helper()
	enc, err := Codec{}.Encode(tu)
	require.NoError(t, err)
	back, err := Codec{}.Decode(asBody(enc))
	require.NoError(t, err, string(enc))
	again, err := Codec{}.Encode(back)
	require.NoError(t, err)
	require.Equal(t, string(enc), string(again), "encode is stable across a decode")
	// Every signature of a finished turn survives, in order (unsigned
	// thought text is left out, signatures never are).
	if tu.Complete {
		require.Equal(t, signatures(tu), signatures(back))
	}
	codectest.RoundTripDocument(t, tu)
	return enc
}

func TestStreamFixtures(t *testing.T) {
	for _, name := range []string{
		"stream-parallel-calls.sse", "stream-empty-final-signature.sse", "stream-25-signed-text.sse",
		"stream-partial-args.jsonl", "stream-thought-signatures.sse", "stream-code-execution.sse",
		"stream-error.sse", "stream-truncated.sse",
	} {
		t.Run(name, func(t *testing.T) {
			res := decodeStream(t, name)
			codectest.Golden(t, golden(name, ".turn.json"), res.Document())
			codectest.Golden(t, golden(name, ".events.txt"), []byte(strings.Join(codectest.EventSummary(res.Events), "\n")+"\n"))
			if res.Err == nil {
				enc := roundTrip(t, res.Turn)
				codectest.Golden(t, golden(name, ".encoded.json"), codectest.Indent(enc))
			}
		})
	}
}

func TestBodyFixtures(t *testing.T) {
	for _, name := range []string{"body-parallel-calls.json", "body-candidates.json", "body-server-tools.json"} {
		t.Run(name, func(t *testing.T) {
			tu, err := Codec{}.Decode(read(t, name))
			require.NoError(t, err)
			codectest.Golden(t, golden(name, ".turn.json"), codectest.Indent(tu.AppendJSON(nil)))
			enc := roundTrip(t, tu)
			codectest.Golden(t, golden(name, ".encoded.json"), codectest.Indent(enc))
		})
	}
}

func TestParallelCallsFirstSigned(t *testing.T) {
	res := decodeStream(t, "stream-parallel-calls.sse")
	require.NoError(t, res.Err)
	tu := res.Turn
	assert.Equal(t, "thought sig call call", kinds(tu))
	th := tu.Blocks[0].(*replay.ReasoningText)
	assert.Equal(t, "**Planning the lookup**\n\nThe user wants tide times for two harbours. I will query both at once.", th.Text)
	assert.False(t, th.Signature.IsPresent())
	sig := tu.Blocks[1].(*replay.Encrypted)
	assert.Equal(t, "EqQBCqEBAR/+Tm9ydGhTZWFUaWRlU2lnbmF0dXJlT25l+/8=", sig.Data)
	assert.Equal(t, formats.GoogleGemini, sig.Format)
	assert.True(t, sig.Attached)
	assert.Equal(t, replay.Some("k3v9q1ab"), sig.ID)
	c1, c2 := tu.Blocks[2].(*replay.ToolCall), tu.Blocks[3].(*replay.ToolCall)
	assert.Equal(t, [3]string{"k3v9q1ab", "get_tides", `{"harbour":"Brest","day":"2026-03-02"}`}, [3]string{c1.ID, c1.Name, c1.Arguments})
	assert.Equal(t, [3]string{"p0z7w2cd", "get_tides", `{"harbour":"Saint-Malo","day":"2026-03-02"}`}, [3]string{c2.ID, c2.Name, c2.Arguments})
	assert.True(t, tu.Complete)
	assert.Equal(t, "STOP", tu.FinishReason)
	assert.Equal(t, replay.Provenance{API: "gemini", Model: "gemini-3-flash-preview"}, tu.Provenance)
	assert.JSONEq(t, `{"promptTokenCount":41,"candidatesTokenCount":36,"thoughtsTokenCount":30,"totalTokenCount":107}`, string(tu.Usage))

	enc, err := Codec{}.Encode(tu)
	require.NoError(t, err)
	// The unsigned thought summary is left out; the signature stays on
	// the first call only.
	assert.Equal(t, `{"role":"model","parts":[`+
		`{"functionCall":{"name":"get_tides","args":{"harbour":"Brest","day":"2026-03-02"},"id":"k3v9q1ab"},"thoughtSignature":"EqQBCqEBAR/+Tm9ydGhTZWFUaWRlU2lnbmF0dXJlT25l+/8="},`+
		`{"functionCall":{"name":"get_tides","args":{"harbour":"Saint-Malo","day":"2026-03-02"},"id":"p0z7w2cd"}}]}`, string(enc))
}

func TestSignatureOnEmptyFinalPart(t *testing.T) {
	res := decodeStream(t, "stream-empty-final-signature.sse")
	require.NoError(t, res.Err)
	assert.Equal(t, "text sig text", kinds(res.Turn))
	assert.Equal(t, "Seven bridges, \"Königsberg\" <none> & more.", res.Turn.Blocks[0].(*replay.Text).Text)
	assert.Equal(t, "EpMCCpACAb4+9vtFaW5hbFNpZ25hdHVyZU9uRW1wdHlQYXJ0", res.Turn.Blocks[1].(*replay.Encrypted).Data)
	assert.Equal(t, "", res.Turn.Blocks[2].(*replay.Text).Text)
	enc, err := Codec{}.Encode(res.Turn)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"model","parts":[{"text":"Seven bridges, \"Königsberg\" <none> & more."},{"text":"","thoughtSignature":"EpMCCpACAb4+9vtFaW5hbFNpZ25hdHVyZU9uRW1wdHlQYXJ0"}]}`, string(enc))
}

func TestGemini25SignedText(t *testing.T) {
	res := decodeStream(t, "stream-25-signed-text.sse")
	require.NoError(t, res.Err)
	tu := res.Turn
	assert.Equal(t, "thought sig text call", kinds(tu))
	assert.Equal(t, "The last Friday was 2026-02-27.\n", tu.Blocks[2].(*replay.Text).Text)
	assert.Equal(t, "CikB0e2KbzI1U2lnbmVkRmlyc3RUZXh0UGFydA==", tu.Blocks[1].(*replay.Encrypted).Data)
	c := tu.Blocks[3].(*replay.ToolCall)
	assert.Equal(t, `{"date":"2026-02-27","seats":4}`, c.Arguments)
	assert.Equal(t, "", c.ID)
}

func TestStreamedArguments(t *testing.T) {
	res := decodeStream(t, "stream-partial-args.jsonl")
	require.NoError(t, res.Err)
	tu := res.Turn
	assert.Equal(t, "thought sig call call", kinds(tu))
	assert.Equal(t, "AY89a1/VmVydGV4U3RyZWFtZWRBcmdzU2lnbmF0dXJl", tu.Blocks[1].(*replay.Encrypted).Data)
	c1, c2 := tu.Blocks[2].(*replay.ToolCall), tu.Blocks[3].(*replay.ToolCall)
	assert.Equal(t, "find_route", c1.Name)
	assert.Equal(t, `{"from":"Quimper \"centre\"","legs":3,"opts":{"avoid_tolls":true},"via":["Brest"],"max speed":null}`, c1.Arguments)
	assert.True(t, gjson.Valid(c1.Arguments))
	assert.Equal(t, `{"from":"Morlaix"}`, c2.Arguments)
	assert.False(t, c1.Unfinished || c2.Unfinished)
	assert.Equal(t, "vertex", tu.Provenance.Provider)
	// One delta with the whole arguments, at the closing fragment.
	assert.Equal(t, map[int]string{2: c1.Arguments, 3: c2.Arguments}, codectest.MergedDeltas(res.Events, stream.EventToolCallDelta))
}

func TestThoughtSignaturesSeparateParts(t *testing.T) {
	res := decodeStream(t, "stream-thought-signatures.sse")
	require.NoError(t, res.Err)
	tu := res.Turn
	assert.Equal(t, "thought thought thought thought text", kinds(tu))
	var got [][2]string
	for _, b := range tu.Blocks[:4] {
		x := b.(*replay.ReasoningText)
		got = append(got, [2]string{x.Text, x.Signature.Value()})
	}
	assert.Equal(t, [][2]string{
		{"First idea. Still the first.", ""},
		{"Second idea, signed.", "Ck1TaWduZWRUaG91Z2h0VHdv"},
		{"Third idea after a signature.", ""},
		{"", "Ck1TaWduYXR1cmVPbmx5VGhvdWdodA=="},
	}, got)
	enc, err := Codec{}.Encode(tu)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"model","parts":[{"text":"Second idea, signed.","thought":true,"thoughtSignature":"Ck1TaWduZWRUaG91Z2h0VHdv"},{"text":"","thought":true,"thoughtSignature":"Ck1TaWduYXR1cmVPbmx5VGhvdWdodA=="},{"text":"Answer: 42."}]}`, string(enc))
}

func TestServerToolParts(t *testing.T) {
	res := decodeStream(t, "stream-code-execution.sse")
	require.NoError(t, res.Err)
	tu := res.Turn
	assert.Equal(t, "sig executableCode codeExecutionResult inlineData text sig text", kinds(tu))
	assert.Equal(t, `{"executableCode":{"language":"PYTHON","code":"print(17 * 23)","id":"x1c0de77"}}`, string(tu.Blocks[1].(*replay.Native).Raw))
	enc, err := Codec{}.Encode(tu)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"model","parts":[`+
		`{"executableCode":{"language":"PYTHON","code":"print(17 * 23)","id":"x1c0de77"},"thoughtSignature":"EqADCp0DAQw5Q29kZUV4ZWNTaWduYXR1cmU="},`+
		`{"codeExecutionResult":{"outcome":"OUTCOME_OK","output":"391\n","id":"x1c0de77"}},`+
		`{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}},`+
		`{"text":"17 × 23 = 391."},`+
		`{"text":"","thoughtSignature":"EoECCv4BAQw5VHJhaWxpbmdDb2RlU2lnbmF0dXJl"}]}`, string(enc))

	body, err := Codec{}.Decode(read(t, "body-server-tools.json"))
	require.NoError(t, err)
	assert.Equal(t, "thought sig toolCall sig toolResponse sig text", kinds(body))
	txt := body.Blocks[6].(*replay.Text)
	assert.Equal(t, `{"partMetadata":{"source":"search"}}`, string(txt.Extra))
	enc, err = Codec{}.Encode(body)
	require.NoError(t, err)
	assert.Contains(t, string(enc), `{"text":"High tide is at 06:12.","partMetadata":{"source":"search"},"thoughtSignature":"QW5zd2VyU2ln"}`)
}

func TestCandidates(t *testing.T) {
	body := read(t, "body-candidates.json")
	t0, err := Codec{}.Decode(body)
	require.NoError(t, err)
	t1, err := Codec{Candidate: 1}.Decode(body)
	require.NoError(t, err)
	assert.Equal(t, "A limerick about tides.", t0.VisibleText())
	assert.Equal(t, []string{"Q2FuZGlkYXRlWmVybw=="}, signatures(t0))
	assert.Equal(t, "STOP", t0.FinishReason)
	assert.Equal(t, "A haiku about tides.", t1.VisibleText())
	assert.Equal(t, []string{"Q2FuZGlkYXRlT25l"}, signatures(t1))
	assert.Equal(t, "MAX_TOKENS", t1.FinishReason)
	_, err = Codec{Candidate: 2}.Decode(body)
	assert.ErrorIs(t, err, replay.ErrMalformed)
}

func TestErrors(t *testing.T) {
	tu, err := Codec{}.Decode(read(t, "body-error.json"))
	var pe *replay.ProviderError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, replay.ProviderError{API: "gemini", Status: 400, Code: "400", Type: "INVALID_ARGUMENT", Message: "Corrupted thought signature."}, *pe)
	require.NotNil(t, tu)
	assert.False(t, tu.Complete)
	assert.Same(t, pe, tu.Error)

	_, err = Codec{}.Decode(read(t, "body-blocked.json"))
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "PROHIBITED_CONTENT", pe.Type)
	assert.Equal(t, "PROMPT_BLOCKED", pe.Code)

	res := decodeStream(t, "stream-error.sse")
	require.ErrorAs(t, res.Err, &pe)
	assert.Equal(t, 503, pe.Status)
	assert.Equal(t, "UNAVAILABLE", pe.Type)
	assert.False(t, res.Turn.Complete)
	assert.True(t, res.Turn.Blocks[0].(*replay.ReasoningText).Unfinished)
	assert.Equal(t, stream.EventError, res.Events[len(res.Events)-1].Kind)

	res = decodeStream(t, "stream-truncated.sse")
	require.ErrorIs(t, res.Err, io.ErrUnexpectedEOF)
	assert.False(t, res.Turn.Complete)
	assert.Equal(t, "thought sig call", kinds(res.Turn))
	assert.Equal(t, "Q3V0T2ZmU2lnbmF0dXJl", res.Turn.Blocks[1].(*replay.Encrypted).Data)

	for _, bad := range []struct{ body, want string }{
		{`nope`, "expected a JSON object"},
		{`[1]`, "expected a JSON object"},
		{`{}`, "expected candidates"},
		{`{"candidates":{}}`, "/candidates: malformed input: expected an array"},
		{`{"candidates":[{"content":{"parts":[{"text":"a","thoughtSignature":5}]}}]}`, "/candidates/0/content/parts/0/thoughtSignature"},
		{`{"candidates":[{"content":{"parts":[{"text":7}]}}]}`, "/candidates/0/content/parts/0/text"},
		{`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[]}}]}}]}`, "no streamed call open"},
		{`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}},{"functionCall":{"partialArgs":[{"jsonPath":"a","stringValue":"x"}]}}]}}]}`, "unsupported jsonPath"},
		{`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":[1]}}]}}]}`, "/functionCall/args"},
		{`{"candidates":[{"content":{"parts":[7]}}]}`, "expected a part object"},
	} {
		_, err := Codec{}.Decode([]byte(bad.body))
		require.Error(t, err, bad.body)
		assert.ErrorIs(t, err, replay.ErrMalformed, bad.body)
		assert.Contains(t, err.Error(), bad.want, bad.body)
	}
}

func TestLimits(t *testing.T) {
	body := []byte(`{"candidates":[{"content":{"parts":[{"text":"a","thoughtSignature":"QUJD"},{"functionCall":{"name":"f"}}]},"finishReason":"STOP"}]}`)
	_, err := Codec{Limits: replay.Limits{MaxBlocks: 2}}.Decode(body)
	var le *replay.LimitError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, replay.LimitError{What: "block count", Limit: 2, API: API, Event: -1, Block: 2}, *le)
	_, err = Codec{Limits: replay.Limits{MaxItem: 3}}.Decode([]byte(`{"candidates":[{"content":{"parts":[{"text":"abcd"}]}}]}`))
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "item size", le.What)
	// Merged text counts as one item.
	d := Codec{Limits: replay.Limits{MaxItem: 5}}.NewFrameDecoder()
	_, err = d.Decode(nil, []byte(`{"candidates":[{"content":{"parts":[{"text":"abc"}]}}]}`), nil)
	require.NoError(t, err)
	_, err = d.Decode(nil, []byte(`{"candidates":[{"content":{"parts":[{"text":"def"}]}}]}`), nil)
	require.ErrorAs(t, err, &le)
	// Sticky.
	_, err2 := d.Decode(nil, []byte(`{}`), nil)
	assert.Same(t, err, err2)
	tu, err := d.Finish()
	require.Error(t, err)
	assert.False(t, tu.Complete)
}

func TestSweepLimits(t *testing.T) {
	for _, name := range []string{"stream-thought-signatures.sse", "stream-partial-args.jsonl", "stream-parallel-calls.sse"} {
		t.Run(name, func(t *testing.T) {
			codectest.SweepLimits(t, newFD, framing(name).Framing, read(t, name))
		})
	}
}

func TestBodyLimits(t *testing.T) {
	for _, name := range []string{"body-candidates.json", "body-parallel-calls.json", "body-server-tools.json"} {
		t.Run(name, func(t *testing.T) {
			codectest.CheckBodyLimits(t, func(l replay.Limits) replay.ReasoningCodec { return Codec{Limits: l} }, read(t, name))
		})
	}
}

// Every kept string counts: a call's name, its id and its signature.
func TestLimitsCountEveryString(t *testing.T) {
	for _, tc := range []struct {
		name, part string
		block      int
	}{
		{"name", `{"functionCall":{"name":"lookup_weather"}}`, 0},
		{"id", `{"functionCall":{"name":"f","id":"call_0123456789"}}`, 0},
		{"signature", `{"functionCall":{"name":"f"},"thoughtSignature":"QUJDREVGR0hJSktMTU5PUA=="}`, 0},
		{"args", `{"functionCall":{"name":"f","args":{"city":"Paris"}}}`, 0},
		{"native", `{"executableCode":{"code":"print(1)"}}`, 0},
		{"thought signature", `{"text":"a","thought":true,"thoughtSignature":"QUJDREVGR0hJSktMTU5PUA=="}`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"candidates":[{"content":{"parts":[` + tc.part + `]},"finishReason":"STOP"}]}`
			_, err := Codec{Limits: replay.Limits{MaxItem: 8}}.Decode([]byte(body))
			var le *replay.LimitError
			require.ErrorAs(t, err, &le)
			assert.Equal(t, replay.LimitError{What: "item size", Limit: 8, API: API, Event: -1, Block: tc.block}, *le)
		})
	}
	// MaxTurn adds up the strings of every block.
	body := `{"candidates":[{"content":{"parts":[{"text":"abcdef"},{"functionCall":{"name":"ghijkl"}}]},"finishReason":"STOP"}]}`
	_, err := Codec{Limits: replay.Limits{MaxTurn: 10}}.Decode([]byte(body))
	var le *replay.LimitError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, replay.LimitError{What: "turn size", Limit: 10, API: API, Event: -1, Block: 1}, *le)
}

// Streamed arguments are bounded as one string of their call, by event.
func TestPartialArgsLimits(t *testing.T) {
	frames := []string{
		`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"abcd","willContinue":true}],"willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"efgh"}],"willContinue":true}}]}}]}`,
	}
	d := Codec{Limits: replay.Limits{MaxItem: 6}}.NewFrameDecoder()
	var err error
	for _, f := range frames {
		if _, err = d.Decode(nil, []byte(f), nil); err != nil {
			break
		}
	}
	var le *replay.LimitError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, replay.LimitError{What: "item size", Limit: 6, API: API, Event: 2, Block: 0}, *le)
	tu, err := d.Finish()
	require.Error(t, err)
	assert.False(t, tu.Complete)
	assert.True(t, tu.Blocks[0].(*replay.ToolCall).Unfinished)

	// The rebuilt object (quotes, keys) is bounded too.
	d = Codec{Limits: replay.Limits{MaxItem: 8}}.NewFrameDecoder()
	for _, f := range []string{frames[0], frames[1], `{"candidates":[{"content":{"parts":[{"functionCall":{}}]},"finishReason":"STOP"}]}`} {
		if _, err = d.Decode(nil, []byte(f), nil); err != nil {
			break
		}
	}
	require.ErrorAs(t, err, &le)
	assert.Equal(t, replay.LimitError{What: "item size", Limit: 8, API: API, Event: 2, Block: 0}, *le)
}

// An array index past the pieces streamed so far is refused: it would pad
// the arguments with millions of nulls.
func TestPartialArgsIndexRefused(t *testing.T) {
	for _, path := range []string{"$.a[13000000]", "$.a[2]", "$.a[99999999999999999999]"} {
		body := `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}},` +
			`{"functionCall":{"partialArgs":[{"jsonPath":"$.b","numberValue":1},{"jsonPath":"` + path + `","numberValue":1}]}}]},"finishReason":"STOP"}]}`
		_, err := Codec{}.Decode([]byte(body))
		require.ErrorIs(t, err, replay.ErrMalformed, path)
		assert.Contains(t, err.Error(), "unsupported jsonPath", path)
	}
	body := `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}},` +
		`{"functionCall":{"partialArgs":[{"jsonPath":"$.a[0]","numberValue":1},{"jsonPath":"$.a[1]","numberValue":2}]}}]},"finishReason":"STOP"}]}`
	tu, err := Codec{}.Decode([]byte(body))
	require.NoError(t, err)
	assert.Equal(t, `{"a":[1,2]}`, tu.Blocks[0].(*replay.ToolCall).Arguments)
}

func TestEncodeSkipsWhatCannotReplay(t *testing.T) {
	unfinished := &replay.Encrypted{Data: "VW5maW5pc2hlZA=="}
	unfinished.Format, unfinished.Attached, unfinished.Unfinished = formats.GoogleGemini, true, true
	foreign := &replay.ReasoningText{Text: "claude thinking", Signature: replay.Some("c2ln")}
	foreign.Format = formats.AnthropicClaude
	relayed := &replay.Encrypted{Data: "UmVsYXllZEJ5SWQ="} // OpenRouter-style: not attached, names the call
	relayed.Format, relayed.ID = formats.GoogleGemini, replay.Some("call-7")
	tu := &replay.Turn{Complete: true, Blocks: []replay.Block{
		foreign,
		unfinished, &replay.Text{Text: "hi"},
		relayed,
		&replay.ToolCall{ID: "call-7", Name: "f", Arguments: `{"a":1}`},
		&replay.ToolCall{Name: "g", Arguments: `{}`, Unfinished: true},
	}}
	enc, err := Codec{}.Encode(tu)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"model","parts":[{"text":"hi"},{"functionCall":{"name":"f","args":{"a":1},"id":"call-7"},"thoughtSignature":"UmVsYXllZEJ5SWQ="}]}`, string(enc))

	_, err = Codec{}.Encode(&replay.Turn{Blocks: []replay.Block{&replay.ToolCall{Name: "f", Arguments: `"x"`}}})
	assert.Error(t, err)
	_, err = Codec{}.Encode(nil)
	assert.Error(t, err)
}

func TestEncodeSentinel(t *testing.T) {
	tu := &replay.Turn{Complete: true, Blocks: []replay.Block{
		&replay.ToolCall{ID: "a1", Name: "f", Arguments: `{"x":1}`},
		&replay.ToolCall{ID: "a2", Name: "f", Arguments: `{"x":2}`},
	}}
	enc, uses, err := Codec{}.EncodeReport(tu)
	require.NoError(t, err)
	assert.Empty(t, uses)
	assert.NotContains(t, string(enc), "thoughtSignature")

	enc, uses, err = Codec{Sentinel: true}.EncodeReport(tu)
	require.NoError(t, err)
	assert.Equal(t, []SentinelUse{{Part: 0, Name: "f", ID: "a1"}}, uses)
	assert.Equal(t, `{"role":"model","parts":[{"functionCall":{"name":"f","args":{"x":1},"id":"a1"},"thoughtSignature":"skip_thought_signature_validator"},{"functionCall":{"name":"f","args":{"x":2},"id":"a2"}}]}`, string(enc))

	// A signed call keeps its signature; no sentinel.
	res := decodeStream(t, "stream-parallel-calls.sse")
	_, uses, err = Codec{Sentinel: true}.EncodeReport(res.Turn)
	require.NoError(t, err)
	assert.Empty(t, uses)
}

func TestPatch(t *testing.T) {
	res := decodeStream(t, "stream-parallel-calls.sse")
	require.NoError(t, res.Err)
	// The caller built the message in its own way: the calls in another
	// order, its own member order, with ids.
	msg := `{"role":"model","parts":[{"functionCall":{"id":"p0z7w2cd","name":"get_tides","args":{}}},{"functionCall":{"id":"k3v9q1ab","name":"get_tides","args":{}}}]}`
	out, err := Codec{}.Patch([]byte(msg), res.Turn)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"model","parts":[{"functionCall":{"id":"p0z7w2cd","name":"get_tides","args":{}}},{"functionCall":{"id":"k3v9q1ab","name":"get_tides","args":{}},"thoughtSignature":"EqQBCqEBAR/+Tm9ydGhTZWFUaWRlU2lnbmF0dXJlT25l+/8="}]}`, string(out))

	// Without ids: name and ordinal.
	msg = `{"role":"model","parts":[{"functionCall":{"name":"get_tides","args":{"harbour":"Brest"}}},{"functionCall":{"name":"get_tides","args":{"harbour":"Saint-Malo"}}}]}`
	out, err = Codec{}.Patch([]byte(msg), res.Turn)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"model","parts":[{"functionCall":{"name":"get_tides","args":{"harbour":"Brest"}},"thoughtSignature":"EqQBCqEBAR/+Tm9ydGhTZWFUaWRlU2lnbmF0dXJlT25l+/8="},{"functionCall":{"name":"get_tides","args":{"harbour":"Saint-Malo"}}}]}`, string(out))

	// Text by position, and the trailing signed empty part appended.
	res = decodeStream(t, "stream-empty-final-signature.sse")
	msg = `{"role":"model","parts":[{"text":"Seven bridges."}]}`
	out, err = Codec{}.Patch([]byte(msg), res.Turn)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"model","parts":[{"text":"Seven bridges."},{"text":"","thoughtSignature":"EpMCCpACAb4+9vtFaW5hbFNpZ25hdHVyZU9uRW1wdHlQYXJ0"}]}`, string(out))

	// 2.5: the signature on the first text part; thought parts by position.
	res = decodeStream(t, "stream-thought-signatures.sse")
	msg = `{"role":"model","parts":[{"text":"Second idea, signed.","thought":true},{"text":"x","thought":true},{"text":"Answer: 42."}]}`
	out, err = Codec{}.Patch([]byte(msg), res.Turn)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"model","parts":[{"text":"Second idea, signed.","thought":true,"thoughtSignature":"Ck1TaWduZWRUaG91Z2h0VHdv"},{"text":"x","thought":true,"thoughtSignature":"Ck1TaWduYXR1cmVPbmx5VGhvdWdodA=="},{"text":"Answer: 42."}]}`, string(out))

	// Sentinel only when allowed, and reported.
	lost := &replay.Turn{Complete: true, Blocks: []replay.Block{&replay.ToolCall{Name: "f", Arguments: `{}`}}}
	msg = `{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]}`
	out, uses, err := Codec{}.PatchReport([]byte(msg), lost)
	require.NoError(t, err)
	assert.Equal(t, msg, string(out))
	assert.Empty(t, uses)
	out, uses, err = Codec{Sentinel: true}.PatchReport([]byte(msg), lost)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"model","parts":[{"functionCall":{"name":"f","args":{}},"thoughtSignature":"skip_thought_signature_validator"}]}`, string(out))
	assert.Equal(t, []SentinelUse{{Part: 0, Name: "f"}}, uses)

	for _, bad := range []string{`nope`, `{"role":"model"}`, `{"parts":{}}`} {
		_, err := Codec{}.Patch([]byte(bad), lost)
		assert.ErrorIs(t, err, replay.ErrMalformed, bad)
	}
}

func TestRegistry(t *testing.T) {
	c, err := replay.Lookup("gemini", "", "")
	require.NoError(t, err)
	assert.Equal(t, "gemini", c.API())
	for _, pm := range [][2]string{{"vertex", "gemini-3-pro-preview"}, {"aistudio", ""}, {"google", "gemini-2.5-flash"},
		{"", "gemma-4-26b-a4b-it"}, {"gemini", ""}} {
		c, err := replay.Resolve(pm[0], pm[1])
		require.NoError(t, err, pm)
		assert.Equal(t, "gemini", c.API(), pm)
	}
	c, _ = replay.Lookup("gemini", "vertex", "gemini-3-pro")
	assert.Equal(t, Codec{Provider: "vertex", Model: "gemini-3-pro"}, c)
}

func TestRequiresSignatures(t *testing.T) {
	for _, tc := range []struct {
		model string
		want  bool
	}{
		{"gemini-3-pro-preview", true},
		{"gemini-3.1-pro-preview", true},
		{"gemini-3.5-flash", true},
		{"gemini-3-pro-image-preview", true},
		{"gemini-4-pro", true},
		{"gemini-10-ultra", true},
		{"Gemini-3-Flash", true},
		{"models/gemini-3-flash-preview", true},
		{"publishers/google/models/gemini-3-pro", true},
		{"projects/p/locations/global/publishers/google/models/gemini-3-flash", true},
		{"projects/p/locations/us-central1/publishers/google/models/gemini-3-pro:streamGenerateContent", true},
		{"google/gemini-3-pro-preview", true},
		{"google/gemini-3-flash-preview:free", true},
		{"gemini-flash-latest", true},
		{"gemini-pro-latest", true},
		{"gemini-flash-lite-latest", true},
		{"models/gemini-flash-latest", true},
		{"gemini-2.5-pro-latest", false},
		{"gemini-2.5-pro", false},
		{"gemini-2.0-flash", false},
		{"gemini-1.5-pro", false},
		{"google/gemini-2.5-flash", false},
		{"projects/p/locations/global/publishers/google/models/gemini-2.5-flash", false},
		{"gemini-03-flash", true},
		{"gemini-0-flash", false},
		{"gemma-4-26b-a4b-it", false},
		{"gemini-exp-1206", false},
		{"", false},
		{"claude-sonnet-4-5", false},
		{"gemini-", false},
		{"my-gemini-3-proxy", false},
	} {
		assert.Equal(t, tc.want, RequiresSignatures(tc.model), tc.model)
	}
}

func TestStreamEventsShape(t *testing.T) {
	res := decodeStream(t, "stream-parallel-calls.sse")
	require.NoError(t, res.Err)
	assert.Equal(t, map[int]string{0: res.Turn.Blocks[0].(*replay.ReasoningText).Text}, codectest.MergedDeltas(res.Events, stream.EventReasoningDelta))
	last := res.Events[len(res.Events)-1]
	assert.Equal(t, stream.EventDone, last.Kind)
	// Deltas are immutable strings: they survive the decoder's later work.
	first := res.Events[1]
	assert.Equal(t, stream.EventReasoningDelta, first.Kind)
	assert.Equal(t, "**Planning the lookup**\n\nThe user wants tide times for two harbours.", first.Delta)
}

func TestFinishTwice(t *testing.T) {
	d := newFD()
	_, err := d.Finish()
	require.True(t, errors.Is(err, io.ErrUnexpectedEOF))
	_, err = d.Finish()
	assert.Error(t, err)
}

func TestGatewayDoneAndProvider(t *testing.T) {
	data := "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ok\"}]},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"trafficType\":\"ON_DEMAND\"}}\n\ndata: [DONE]\n\n"
	res := codectest.SweepStream(t, Codec{Provider: "google"}.NewFrameDecoder, stream.Options{}, []byte(data))
	require.NoError(t, res.Err)
	assert.Equal(t, "ok", res.Turn.VisibleText())
	assert.Equal(t, "vertex", res.Turn.Provenance.Provider)
	tu, err := Codec{Provider: "aistudio"}.Decode([]byte(`{"candidates":[{"content":{"parts":[{"text":"ok"}]}}],"createTime":"2026-01-01T00:00:00Z"}`))
	require.NoError(t, err)
	assert.Equal(t, "aistudio", tu.Provenance.Provider, "an explicit backend is kept")
}

func TestValidatesSignatures(t *testing.T) {
	for _, tc := range []struct {
		model string
		want  bool
	}{
		{"gemini-3-pro-preview", true},
		{"gemini-flash-latest", true},
		{"gemini-2.5-flash", true},
		{"gemini-2.5-flash-lite", true},
		{"models/gemini-2.5-pro", true},
		{"google/gemini-2.5-flash:free", true},
		{"projects/p/locations/global/publishers/google/models/gemini-2.5-flash", true},
		{"gemini-2.0-flash", false},
		{"gemini-1.5-pro", false},
		{"gemini-2-flash", false},
		{"gemma-3-27b-it", false},
		{"", false},
	} {
		assert.Equal(t, tc.want, ValidatesSignatures(tc.model), tc.model)
	}
	// The placeholder is documented for every validating model.
	assert.NotNil(t, Codec{Model: "gemini-2.5-flash"}.Contract().Placeholder)
	assert.Nil(t, Codec{Model: "gemini-2.0-flash"}.Contract().Placeholder)
}

// A base64 encoding of the dummy is a corrupt signature: Encode and Patch
// never write it; with Sentinel allowed the first call gets the plain one.
func TestEncodeNeverWritesEncodedSentinel(t *testing.T) {
	const enc = "c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I="
	thought := &replay.ReasoningText{Text: "plan", Signature: replay.Some("c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I")}
	thought.Format = formats.GoogleGemini
	byID := &replay.Encrypted{Data: enc}
	byID.Format, byID.ID = formats.GoogleGemini, replay.Some("c2")
	tu := &replay.Turn{Complete: true, Blocks: []replay.Block{
		thought,
		gemsig.Item(enc, "c1"), &replay.ToolCall{ID: "c1", Name: "f", Arguments: `{"a":1}`},
		byID, &replay.ToolCall{ID: "c2", Name: "g", Arguments: `{}`},
		gemsig.Item(enc, ""), &replay.Text{},
	}}
	out, err := Codec{}.Encode(tu)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"model","parts":[{"functionCall":{"name":"f","args":{"a":1},"id":"c1"}},{"functionCall":{"name":"g","args":{},"id":"c2"}}]}`, string(out))

	out, uses, err := Codec{Sentinel: true}.EncodeReport(tu)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"model","parts":[{"functionCall":{"name":"f","args":{"a":1},"id":"c1"},"thoughtSignature":"skip_thought_signature_validator"},{"functionCall":{"name":"g","args":{},"id":"c2"}}]}`, string(out))
	assert.Equal(t, []SentinelUse{{Part: 0, Name: "f", ID: "c1", Replaced: enc}}, uses)

	msg := `{"role":"model","parts":[{"text":"plan","thought":true},{"functionCall":{"name":"f","args":{"a":1},"id":"c1"}}]}`
	out, err = Codec{}.Patch([]byte(msg), tu)
	require.NoError(t, err)
	assert.Equal(t, msg, string(out))
}
