package chatcompat

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/schema"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/require"
)

// The host fixtures under testdata/chatcompat/ are one stream per host
// shape. Each test below picks its codec the way the CLI does for
// `--api A --provider P --model M` (replay.Lookup), sweeps the stream
// through every split (codectest.SweepStream), compares the turn document
// with its golden (go test -update rewrites it) and validates the golden
// against the turn schema. The expected texts are computed from the
// fixture by wireChunks, an independent reading of the SSE lines with
// encoding/json, or written out by hand where the fixture was built to
// hold a particular byte sequence.

// wireChunk is one data payload of a fixture, read with encoding/json.
type wireChunk struct {
	Model   string `json:"model"`
	Choices []struct {
		Delta struct {
			Content          *string         `json:"content"`
			ReasoningContent json.RawMessage `json:"reasoning_content"`
			Reasoning        json.RawMessage `json:"reasoning"`
			ReasoningDetails []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"reasoning_details"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string         `json:"finish_reason"`
		Usage        json.RawMessage `json:"usage"`
	} `json:"choices"`
	Usage json.RawMessage `json:"usage"`
}

// wire is what a fixture says, field by field, concatenated in order.
type wire struct {
	model            string
	content          string
	reasoningContent string
	reasoning        string
	details          []string // each reasoning_details text fragment
	calls            []wireCall
	finish           string
	usage            string // the last non-null top-level usage, raw
	comments, done   int
}

type wireCall struct{ id, name, args string }

// utf16String decodes a JSON string the way a UTF-16 host built it: the
// code units of consecutive fragments join before they are read as text,
// so a surrogate pair split across two deltas is one character.
func utf16Units(t testing.TB, raw json.RawMessage) []uint16 {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	// Decode \uXXXX escapes to code units by hand; encoding/json would
	// replace a lone surrogate with U+FFFD.
	var s string
	require.NoError(t, json.Unmarshal(raw, &s))
	if !bytes.Contains(raw, []byte(`\u`)) {
		return utf16.Encode([]rune(s))
	}
	body := string(raw[1 : len(raw)-1])
	var out []uint16
	for i := 0; i < len(body); {
		if body[i] == '\\' && body[i+1] == 'u' {
			var u uint16
			for _, c := range body[i+2 : i+6] {
				u <<= 4
				switch {
				case c >= '0' && c <= '9':
					u |= uint16(c - '0')
				case c >= 'a' && c <= 'f':
					u |= uint16(c-'a') + 10
				case c >= 'A' && c <= 'F':
					u |= uint16(c-'A') + 10
				}
			}
			out = append(out, u)
			i += 6
			continue
		}
		if body[i] == '\\' {
			var one string
			require.NoError(t, json.Unmarshal([]byte(`"`+body[i:i+2]+`"`), &one))
			out = append(out, utf16.Encode([]rune(one))...)
			i += 2
			continue
		}
		j := strings.IndexByte(body[i:], '\\')
		if j < 0 {
			j = len(body) - i
		}
		out = append(out, utf16.Encode([]rune(body[i:i+j]))...)
		i += j
	}
	return out
}

func readWire(t testing.TB, data []byte) wire {
	var w wire
	var rc, r []uint16
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, ":"):
			w.comments++
			continue
		case line == "data: [DONE]":
			w.done++
			continue
		case !strings.HasPrefix(line, "data: "):
			require.Empty(t, line, "unexpected line in fixture")
			continue
		}
		var c wireChunk
		require.NoError(t, json.Unmarshal([]byte(line[len("data: "):]), &c), line)
		if c.Model != "" {
			w.model = c.Model
		}
		if len(c.Usage) > 0 && string(c.Usage) != "null" {
			w.usage = string(c.Usage)
		}
		if len(c.Choices) == 0 {
			continue
		}
		ch := c.Choices[0]
		d := ch.Delta
		if d.Content != nil {
			w.content += *d.Content
		}
		rc = append(rc, utf16Units(t, d.ReasoningContent)...)
		r = append(r, utf16Units(t, d.Reasoning)...)
		for _, det := range d.ReasoningDetails {
			w.details = append(w.details, det.Text)
		}
		for _, tc := range d.ToolCalls {
			for len(w.calls) <= tc.Index {
				w.calls = append(w.calls, wireCall{})
			}
			wc := &w.calls[tc.Index]
			if tc.ID != "" {
				wc.id = tc.ID
			}
			if tc.Function.Name != "" {
				wc.name = tc.Function.Name
			}
			wc.args += tc.Function.Arguments
		}
		if ch.FinishReason != nil {
			w.finish = *ch.FinishReason
		}
	}
	require.NoError(t, sc.Err())
	w.reasoningContent = string(utf16.Decode(rc))
	w.reasoning = string(utf16.Decode(r))
	return w
}

// hostCase is one host fixture and the --api/--provider/--model that
// pick its profile.
type hostCase struct {
	file, api, provider, model string
	profile                    string
	format                     replay.Format
}

// sweepHost resolves the codec, sweeps the fixture, checks the golden and
// its schema, and returns the result, the codec and the fixture's wire
// reading.
func sweepHost(t *testing.T, hc hostCase) (codectest.Result, Codec, wire) {
	t.Helper()
	rc, err := replay.Lookup(hc.api, hc.provider, hc.model)
	require.NoError(t, err)
	c := rc.(Codec)
	require.Equal(t, hc.profile, c.Profile.Name)
	require.Equal(t, hc.format, c.Profile.Format)
	data := fixture(t, hc.file)
	res := codectest.SweepStream(t, c.NewFrameDecoder, stream.Options{}, data)
	require.NoError(t, res.Err)
	doc := res.Document()
	golden := filepath.Join("..", "..", "testdata", "chatcompat", hc.file+".golden.json")
	codectest.Golden(t, golden, doc)
	require.NoError(t, schema.Validate(schema.Turn, doc), "turn document of %s", hc.file)
	require.NoError(t, schema.Validate(schema.Turn, fixture(t, hc.file+".golden.json")), "golden of %s", hc.file)
	codectest.RoundTripDocument(t, res.Turn)

	w := readWire(t, data)
	tu := res.Turn
	require.True(t, tu.Complete)
	require.Equal(t, hc.api, tu.Provenance.API)
	require.Equal(t, w.model, tu.Provenance.Model)
	require.Equal(t, w.finish, tu.FinishReason)
	if w.usage != "" {
		require.Equal(t, w.usage, string(tu.Usage), "usage kept byte for byte")
	}
	require.Equal(t, stream.EventDone, res.Events[len(res.Events)-1].Kind)
	// The streamed deltas add up to the stored texts.
	for kind, want := range map[stream.EventKind]func(replay.Block) (string, bool){
		stream.EventReasoningDelta: func(b replay.Block) (string, bool) {
			r, ok := b.(*replay.ReasoningText)
			if !ok {
				return "", false
			}
			return r.Text, true
		},
		stream.EventTextDelta: func(b replay.Block) (string, bool) {
			x, ok := b.(*replay.Text)
			if !ok {
				return "", false
			}
			return x.Text, true
		},
		stream.EventToolCallDelta: func(b replay.Block) (string, bool) {
			x, ok := b.(*replay.ToolCall)
			if !ok {
				return "", false
			}
			return x.Arguments, true
		},
	} {
		merged := codectest.MergedDeltas(res.Events, kind)
		for i, b := range tu.Blocks {
			if s, ok := want(b); ok {
				require.Equal(t, s, merged[i], "%s deltas of block %d", kind, i)
			}
		}
	}
	return res, c, w
}

// shape renders the block kinds of a turn, e.g. "reasoning.text text".
func shape(tu *replay.Turn) string {
	var b []string
	for _, blk := range tu.Blocks {
		switch x := blk.(type) {
		case *replay.ReasoningText:
			b = append(b, "reasoning")
		case *replay.Text:
			b = append(b, "text")
		case *replay.ToolCall:
			b = append(b, "call:"+x.ID)
		default:
			b = append(b, "other")
		}
	}
	return strings.Join(b, " ")
}

func requireCalls(t *testing.T, tu *replay.Turn, w wire) {
	t.Helper()
	calls := tu.ToolCalls()
	require.Len(t, calls, len(w.calls))
	for i, wc := range w.calls {
		require.Equal(t, wc.id, calls[i].ID)
		require.Equal(t, wc.name, calls[i].Name)
		require.Equal(t, wc.args, calls[i].Arguments, "arguments byte for byte")
		require.True(t, json.Valid([]byte(calls[i].Arguments)), "arguments of %s reassemble into JSON", wc.id)
	}
}

func TestHostXAIGrok3Mini(t *testing.T) {
	res, c, w := sweepHost(t, hostCase{file: "xai-grok-3-mini.sse", api: APIXAI, provider: "xai", model: "grok-3-mini",
		profile: "xai", format: formats.XAIChat})
	tu := res.Turn
	require.Equal(t, "reasoning text", shape(tu))
	r := tu.Blocks[0].(*replay.ReasoningText)
	require.Equal(t, w.reasoningContent, r.Text)
	require.Equal(t, "Two trains close at 60+40 = 100 km/h; 250 km → 2.5 h.\n", r.Text)
	require.Equal(t, formats.XAIChat, r.Format)
	require.False(t, r.Signature.IsPresent(), "xAI chat reasoning is unsigned")
	require.Equal(t, w.content, tu.VisibleText())
	require.Equal(t, "They meet after **2.5 hours**.", tu.VisibleText())
	msg, err := c.Encode(tu)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":"They meet after **2.5 hours**."}`, string(msg), "Chat Completions has no input field for reasoning")
}

func TestHostQwenDashScope(t *testing.T) {
	res, c, w := sweepHost(t, hostCase{file: "qwen-dashscope.sse", api: APIGeneric, provider: "dashscope", model: "qwen-plus",
		profile: "qwen", format: formats.Qwen})
	tu := res.Turn
	require.Equal(t, "reasoning text", shape(tu), "the empty first reasoning_content opens nothing")
	require.Equal(t, w.reasoningContent, tu.Blocks[0].(*replay.ReasoningText).Text)
	require.Equal(t, "用户问杭州的天气，我没有实时数据。", w.reasoningContent)
	require.Equal(t, w.content, tu.VisibleText())
	require.Equal(t, "我无法查询实时天气，请查看当地气象台。", tu.VisibleText())
	require.Equal(t, "stop", tu.FinishReason, "finish_reason comes before the usage-only chunk")
	require.Equal(t, `{"prompt_tokens":14,"completion_tokens":87,"total_tokens":101,"completion_tokens_details":{"reasoning_tokens":71}}`, string(tu.Usage),
		"the usage-only final chunk (choices: []) is read")
	msg, err := c.Encode(tu)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":"我无法查询实时天气，请查看当地气象台。"}`, string(msg))
}

func TestHostGLMToolCalls(t *testing.T) {
	res, c, w := sweepHost(t, hostCase{file: "glm-tool-calls.sse", api: APIGeneric, provider: "zai", model: "glm-4.7",
		profile: "glm", format: formats.GLM})
	tu := res.Turn
	require.Equal(t, "reasoning text call:call_-8123605514721870115 call:call_-8123605514721870116", shape(tu))
	r := tu.Blocks[0].(*replay.ReasoningText)
	require.Equal(t, w.reasoningContent, r.Text)
	require.Equal(t, "The user wants weather for two cities; call the tool twice.", r.Text)
	require.Equal(t, "\n", tu.VisibleText(), "whitespace content is kept: the caller decides")
	requireCalls(t, tu, w)
	require.Equal(t, `{"city": "Xi'an"}`, tu.ToolCalls()[1].Arguments)
	msg, err := c.Encode(tu)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":"\n","reasoning_content":"The user wants weather for two cities; call the tool twice.","tool_calls":[`+
		`{"id":"call_-8123605514721870115","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Qingdao\"}"}},`+
		`{"id":"call_-8123605514721870116","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Xi'an\"}"}}]}`,
		string(msg), "GLM gets its reasoning_content back with the tool calls")
}

func TestHostKimiK2ThinkingTools(t *testing.T) {
	res, c, w := sweepHost(t, hostCase{file: "kimi-k2-thinking-tools.sse", api: APIGeneric, provider: "moonshot", model: "kimi-k2-thinking",
		profile: "kimi", format: formats.Kimi})
	tu := res.Turn
	require.Equal(t, "reasoning call:functions.surf_report:0 call:functions.tides:1", shape(tu), "empty content opens no text block")
	r := tu.Blocks[0].(*replay.ReasoningText)
	// U+1F30A arrives as its two UTF-16 halves in two deltas.
	require.Equal(t, "Surf report for Biarritz \U0001F30A and tides in München; two calls.", w.reasoningContent)
	require.Equal(t, w.reasoningContent, r.Text, "a surrogate pair split across two deltas is one character")
	require.NotContains(t, r.Text, "\uFFFD")
	requireCalls(t, tu, w)
	require.Equal(t, `{"spot": "Biarritz", "days": 3}`, tu.ToolCalls()[0].Arguments)
	require.Equal(t, `{"port": "München (Isar)", "note": "say \"hi\" \\ bye"}`, tu.ToolCalls()[1].Arguments)
	msg, err := c.Encode(tu)
	require.NoError(t, err)
	var back struct {
		Content          *string `json:"content"`
		ReasoningContent *string `json:"reasoning_content"`
		ToolCalls        []struct {
			ID       string                     `json:"id"`
			Function struct{ Arguments string } `json:"function"`
		} `json:"tool_calls"`
	}
	require.NoError(t, json.Unmarshal(msg, &back))
	require.Nil(t, back.Content)
	require.NotNil(t, back.ReasoningContent, "Kimi needs reasoning_content on tool-call messages")
	require.Equal(t, w.reasoningContent, *back.ReasoningContent)
	require.Len(t, back.ToolCalls, 2)
	for i, wc := range w.calls {
		require.Equal(t, wc.id, back.ToolCalls[i].ID)
		require.Equal(t, wc.args, back.ToolCalls[i].Function.Arguments)
	}
}

func TestHostMiniMaxThinkContent(t *testing.T) {
	res, c, w := sweepHost(t, hostCase{file: "minimax-think-content.sse", api: APIGeneric, provider: "minimax", model: "MiniMax-M2.5",
		profile: "minimax", format: formats.MiniMax})
	tu := res.Turn
	require.Equal(t, "reasoning text", shape(tu))
	// Independent split of the wire content: one block at the start.
	rest, ok := strings.CutPrefix(w.content, "<think>")
	require.True(t, ok)
	wantReasoning, wantVisible, ok := strings.Cut(rest, "</think>")
	require.True(t, ok)
	r := tu.Blocks[0].(*replay.ReasoningText)
	require.Equal(t, wantReasoning, r.Text)
	require.Equal(t, "\nThe user wants 3 km in miles: 3 × 0.621 = 1.86.\n", r.Text)
	require.JSONEq(t, `{"source":"content"}`, string(r.Extra))
	require.Equal(t, wantVisible, tu.VisibleText())
	require.Equal(t, "\n\n3 km is about **1.86 miles**.", tu.VisibleText())
	for _, ev := range res.Events {
		if ev.Kind == stream.EventTextDelta {
			require.NotContains(t, ev.Delta, "<", "no tag byte reaches the visible channel")
		}
	}
	msg, err := c.Encode(tu)
	require.NoError(t, err)
	want := append([]byte(`{"role":"assistant","content":`), mustJSON(t, w.content)...)
	require.Equal(t, string(append(want, '}')), string(msg), "MiniMax gets the content back as it came")
}

func TestHostMiniMaxReasoningDetails(t *testing.T) {
	res, c, w := sweepHost(t, hostCase{file: "minimax-reasoning-details.sse", api: APIGeneric, provider: "minimax", model: "MiniMax-M2.5",
		profile: "minimax", format: formats.MiniMax})
	tu := res.Turn
	require.Equal(t, "reasoning text", shape(tu))
	// The fragments are cumulative snapshots: each extends the previous one.
	require.Len(t, w.details, 3)
	for i := 1; i < len(w.details); i++ {
		require.True(t, strings.HasPrefix(w.details[i], w.details[i-1]))
	}
	full := w.details[len(w.details)-1]
	r := tu.Blocks[0].(*replay.ReasoningText)
	require.Equal(t, full, r.Text, "cumulative fragments count once")
	require.Equal(t, "Convert 3 km to miles: multiply by 0.621, giving 1.86.", r.Text)
	require.Empty(t, r.Extra, "reasoning_details is not content")
	require.Equal(t, w.content, tu.VisibleText())
	msg, err := c.Encode(tu)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":"3 km is about **1.86 miles**.","reasoning_details":[{"type":"reasoning.text","text":"Convert 3 km to miles: multiply by 0.621, giving 1.86."}]}`,
		string(msg), "with reasoning_split the reasoning goes back as reasoning_details")
}

func TestHostGroqReasoning(t *testing.T) {
	res, c, w := sweepHost(t, hostCase{file: "groq-reasoning.sse", api: APIGeneric, provider: "groq", model: "qwen/qwen3-32b",
		profile: "groq", format: formats.Groq})
	tu := res.Turn
	require.Equal(t, "reasoning text", shape(tu))
	require.Equal(t, w.reasoning, tu.Blocks[0].(*replay.ReasoningText).Text)
	require.Equal(t, "Okay, 17 is prime because no integer from 2 to 4 divides it.", w.reasoning)
	require.Equal(t, "Yes, 17 is a prime number.", tu.VisibleText())
	require.Empty(t, w.usage, "Groq puts usage under x_groq")
	msg, err := c.Encode(tu)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":"Yes, 17 is a prime number."}`, string(msg))
}

func TestHostVLLMReasoning(t *testing.T) {
	res, c, w := sweepHost(t, hostCase{file: "vllm-reasoning.sse", api: APIGeneric, provider: "vllm", model: "Qwen/Qwen3-8B",
		profile: "generic", format: replay.FormatUnknown})
	require.Equal(t, ReplayNone, c.Profile.Replay, "vLLM is stateless")
	require.Equal(t, "vllm", res.Turn.Provenance.Provider)
	tu := res.Turn
	require.Equal(t, "reasoning text", shape(tu))
	require.Equal(t, w.reasoning, tu.Blocks[0].(*replay.ReasoningText).Text)
	require.Equal(t, "The capital of Australia is Canberra, not Sydney.\n", w.reasoning)
	require.Equal(t, "\n\nCanberra.", tu.VisibleText())
	require.Equal(t, `{"prompt_tokens":15,"total_tokens":42,"completion_tokens":27}`, string(tu.Usage))
	msg, err := c.Encode(tu)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":"\n\nCanberra."}`, string(msg), "vLLM ignores reasoning_content on input: nothing is sent")
}

func TestHostOllamaReasoning(t *testing.T) {
	res, c, w := sweepHost(t, hostCase{file: "ollama-reasoning.sse", api: APIGeneric, provider: "ollama", model: "qwen3:8b",
		profile: "generic", format: replay.FormatUnknown})
	tu := res.Turn
	require.Equal(t, "reasoning call:call_k3v9x2qe", shape(tu), "empty content on every chunk opens no text block")
	require.Equal(t, w.reasoning, tu.Blocks[0].(*replay.ReasoningText).Text)
	require.Equal(t, "Need the weather tool for Oslo.", w.reasoning)
	requireCalls(t, tu, w)
	require.Equal(t, `{"city":"Oslo"}`, tu.ToolCalls()[0].Arguments)
	require.Equal(t, 1, w.done)
	msg, err := c.Encode(tu)
	require.NoError(t, err)
	require.Equal(t, `{"role":"assistant","content":null,"tool_calls":[{"id":"call_k3v9x2qe","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}]}`, string(msg))
}

func TestHostMirroredRepeats(t *testing.T) {
	res, _, w := sweepHost(t, hostCase{file: "mirrored-repeats.sse", api: APIGeneric, provider: "lmstudio", model: "deepseek-r1-distill-qwen-7b",
		profile: "generic", format: replay.FormatUnknown})
	tu := res.Turn
	require.Equal(t, 4, w.comments, "keep-alive comments in the fixture")
	require.Equal(t, 1, w.done)
	// Every chunk mirrors one text in both fields.
	require.Equal(t, w.reasoning, w.reasoningContent)
	require.Equal(t, "reasoning text", shape(tu))
	require.Equal(t, w.reasoning, tu.Blocks[0].(*replay.ReasoningText).Text, "mirrored fields count once")
	require.Equal(t, "haha, a pun.", tu.Blocks[0].(*replay.ReasoningText).Text, `"ha","ha" in consecutive chunks stays "haha"`)
	require.Equal(t, w.content, tu.VisibleText())
	require.Equal(t, "Hahaha!", tu.VisibleText(), "repeated content tokens are kept")
	var deltas []string
	for _, ev := range res.Events {
		if ev.Kind == stream.EventReasoningDelta {
			deltas = append(deltas, ev.Delta)
		}
	}
	require.Equal(t, []string{"ha", "ha", ", a pun", "."}, deltas, "one delta per chunk")
}

func mustJSON(t testing.TB, s string) []byte {
	b, err := json.Marshal(s)
	require.NoError(t, err)
	// encoding/json escapes <, > and &; the codec writes them as they are.
	b = bytes.ReplaceAll(b, []byte(`\u003c`), []byte("<"))
	b = bytes.ReplaceAll(b, []byte(`\u003e`), []byte(">"))
	return bytes.ReplaceAll(b, []byte(`\u0026`), []byte("&"))
}
