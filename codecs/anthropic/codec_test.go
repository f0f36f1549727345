package anthropic_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/schema"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

func compact(t testing.TB, raw string) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, json.Compact(&b, []byte(raw)))
	return b.String()
}

func TestDecodeBody(t *testing.T) {
	body := read(t, "message.json")
	tu, err := anthropic.Codec{Provider: "anthropic"}.Decode(body)
	require.NoError(t, err)
	doc := codectest.Indent(tu.AppendJSON(nil))
	codectest.Golden(t, filepath.Join(dir, "golden", "message.turn.json"), doc)
	require.NoError(t, schema.Validate(schema.Turn, doc))
	codectest.RoundTripDocument(t, tu)

	content := gjson.GetBytes(body, "content").Array()
	require.Len(t, tu.Blocks, len(content))
	for i, cb := range content {
		switch b := tu.Blocks[i].(type) {
		case *replay.ReasoningText:
			assert.Equal(t, cb.Get("thinking").Str, b.Text)
			assert.Equal(t, cb.Get("signature").Str, b.Signature.Value())
			assert.True(t, b.Replayable())
		case *replay.Encrypted:
			assert.Equal(t, cb.Get("data").Str, b.Data)
		case *replay.Text:
			assert.Equal(t, cb.Get("text").Str, b.Text)
		case *replay.ToolCall:
			assert.Equal(t, cb.Get("id").Str, b.ID)
			assert.Equal(t, cb.Get("input").Raw, b.Arguments, "arguments are the input's raw text")
		default:
			t.Fatalf("block %d: %T", i, b)
		}
	}
	assert.Equal(t, "direct", gjson.GetBytes(tu.Blocks[2].(*replay.ToolCall).Extra, "caller.type").Str)
	assert.Equal(t, "", tu.Blocks[4].(*replay.ReasoningText).Text, "omitted display")
	assert.Equal(t, "tool_use", tu.FinishReason)
	assert.True(t, tu.Complete)
	assert.Equal(t, "claude-sonnet-4-6", tu.Provenance.Model)
}

func TestDecodeErrorBody(t *testing.T) {
	tu, err := anthropic.Codec{}.Decode(read(t, "error-body.json"))
	var pe *replay.ProviderError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "overloaded_error", pe.Type)
	assert.Equal(t, "Overloaded", pe.Message)
	require.NotNil(t, tu)
	assert.Same(t, pe, tu.Error)
	assert.False(t, tu.Complete)
}

func TestDecodeMalformedBody(t *testing.T) {
	for name, body := range map[string]string{
		"not json":          `{"type":"message"`,
		"array":             `[]`,
		"other type":        `{"type":"completion","content":[]}`,
		"no content":        `{"type":"message"}`,
		"content not array": `{"type":"message","content":{}}`,
		"block not object":  `{"type":"message","content":[1]}`,
		"thinking number":   `{"type":"message","content":[{"type":"thinking","thinking":1,"signature":"s"}]}`,
		"signature number":  `{"type":"message","content":[{"type":"thinking","thinking":"","signature":1}]}`,
		"redacted no data":  `{"type":"message","content":[{"type":"redacted_thinking"}]}`,
		"tool_use no name":  `{"type":"message","content":[{"type":"tool_use","id":"x"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			tu, err := anthropic.Codec{}.Decode([]byte(body))
			require.ErrorIs(t, err, replay.ErrMalformed)
			assert.Nil(t, tu)
		})
	}
}

func TestDecodeSignaturePresence(t *testing.T) {
	for body, want := range map[string]replay.Presence{
		`{"type":"message","content":[{"type":"thinking","thinking":"x"}]}`:                   replay.Absent,
		`{"type":"message","content":[{"type":"thinking","thinking":"x","signature":null}]}`:  replay.Null,
		`{"type":"message","content":[{"type":"thinking","thinking":"x","signature":""}]}`:    replay.Present,
		`{"type":"message","content":[{"type":"thinking","thinking":"x","signature":"Eq1"}]}`: replay.Present,
	} {
		tu, err := anthropic.Codec{}.Decode([]byte(body))
		require.NoError(t, err)
		th := tu.Blocks[0].(*replay.ReasoningText)
		assert.Equal(t, want, th.Signature.Presence(), body)
		assert.Equal(t, th.Signature.Value() == "Eq1", th.Replayable(), body)
	}
}

func TestEncodeBodyByteIdentical(t *testing.T) {
	body := read(t, "message.json")
	tu, err := anthropic.Codec{}.Decode(body)
	require.NoError(t, err)
	msg, err := anthropic.Codec{}.Encode(tu)
	require.NoError(t, err)
	assert.Equal(t, "assistant", gjson.GetBytes(msg, "role").Str)
	got := gjson.GetBytes(msg, "content").Array()
	want := gjson.GetBytes(body, "content").Array()
	require.Len(t, got, len(want))
	for i := range want {
		assert.Equal(t, compact(t, want[i].Raw), compact(t, got[i].Raw), "content block %d", i)
	}
	assert.Contains(t, string(msg), `"thinking":"","signature":`, "empty thinking text is kept")
}

func TestEncodeGoldens(t *testing.T) {
	for _, c := range streamCases {
		t.Run(c.name, func(t *testing.T) {
			data := read(t, c.name)
			tu, _ := stream.Decode(bytes.NewReader(data), anthropic.Codec{}, stream.Options{Framing: c.framing})
			msg, err := anthropic.Codec{}.Encode(tu)
			require.NoError(t, err)
			require.True(t, gjson.ValidBytes(msg))
			base := strings.TrimSuffix(strings.TrimSuffix(c.name, ".sse"), ".jsonl")
			codectest.Golden(t, filepath.Join(dir, "golden", base+".message.json"), codectest.Indent(msg))

			// Nothing unreplayable is written; every replayable item is,
			// byte-exact and in order.
			var want []string
			for _, b := range tu.Blocks {
				switch b := b.(type) {
				case *replay.ReasoningText:
					if b.Replayable() {
						want = append(want, "thinking:"+b.Text+":"+b.Signature.Value())
					}
				case *replay.Encrypted:
					if b.Replayable() {
						want = append(want, "redacted:"+b.Data)
					}
				}
			}
			var got []string
			for _, cb := range gjson.GetBytes(msg, "content").Array() {
				switch cb.Get("type").Str {
				case "thinking":
					require.True(t, cb.Get("thinking").Exists())
					got = append(got, "thinking:"+cb.Get("thinking").Str+":"+cb.Get("signature").Str)
				case "redacted_thinking":
					got = append(got, "redacted:"+cb.Get("data").Str)
				}
			}
			assert.Equal(t, want, got)
		})
	}
}

// TestRoundTrip: decode -> encode -> decode keeps every signature, data,
// id, text and the order of the replayable blocks.
func TestRoundTrip(t *testing.T) {
	for _, c := range streamCases {
		t.Run(c.name, func(t *testing.T) {
			tu, _ := stream.Decode(bytes.NewReader(read(t, c.name)), anthropic.Codec{}, stream.Options{Framing: c.framing})
			msg, err := anthropic.Codec{}.Encode(tu)
			require.NoError(t, err)
			body := []byte(`{"type":"message","content":` + gjson.GetBytes(msg, "content").Raw + `}`)
			back, err := anthropic.Codec{}.Decode(body)
			require.NoError(t, err)
			var kept []replay.Block
			for _, b := range tu.Blocks {
				switch x := b.(type) {
				case replay.ReasoningItem:
					if !x.Replayable() {
						continue
					}
				case *replay.Text:
					if x.Text == "" {
						continue
					}
				case *replay.ToolCall:
					if x.Unfinished {
						continue
					}
				case *replay.Native:
					if x.Unfinished {
						continue
					}
				}
				kept = append(kept, b)
			}
			require.Len(t, back.Blocks, len(kept))
			for i, b := range kept {
				switch x := b.(type) {
				case *replay.ReasoningText:
					y := back.Blocks[i].(*replay.ReasoningText)
					assert.Equal(t, x.Text, y.Text)
					assert.Equal(t, x.Signature, y.Signature)
				case *replay.Encrypted:
					assert.Equal(t, x.Data, back.Blocks[i].(*replay.Encrypted).Data)
				case *replay.Text:
					assert.Equal(t, x.Text, back.Blocks[i].(*replay.Text).Text)
				case *replay.ToolCall:
					y := back.Blocks[i].(*replay.ToolCall)
					assert.Equal(t, x.ID, y.ID)
					assert.Equal(t, x.Name, y.Name)
					assert.Equal(t, x.Arguments, y.Arguments)
				case *replay.Native:
					assert.Equal(t, compact(t, string(x.Raw)), compact(t, string(back.Blocks[i].(*replay.Native).Raw)))
				}
			}
		})
	}
}

func TestEncodeLeavesOutForeignAndBrokenItems(t *testing.T) {
	tu := &replay.Turn{Provenance: replay.Provenance{API: "openai-responses"}, Blocks: []replay.Block{
		&replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: formats.GoogleGemini}, Text: "t", Signature: replay.Some("gsig")},
		&replay.Encrypted{ItemMeta: replay.ItemMeta{Format: formats.OpenAIResponses}, Data: "gAAAA"},
		&replay.Summary{ItemMeta: replay.ItemMeta{Format: formats.OpenAIResponses}, Summary: "s"},
		&replay.Native{Kind: "web_search_call", Raw: []byte(`{"type":"web_search_call"}`)},
		&replay.Text{Text: "hi", Extra: []byte(`{"phase":"final"}`)},
		&replay.ToolCall{ID: "call_1", Name: "f", Arguments: ""},
	}}
	msg, err := anthropic.Codec{}.Encode(tu)
	require.NoError(t, err)
	assert.Equal(t, `{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"call_1","name":"f","input":{}}]}`, string(msg))

	_, err = anthropic.Codec{}.Encode(&replay.Turn{Blocks: []replay.Block{&replay.ToolCall{ID: "x", Name: "f", Arguments: `{"a":`}}})
	require.ErrorIs(t, err, replay.ErrMalformed)
	_, err = anthropic.Codec{}.Encode(nil)
	require.ErrorIs(t, err, replay.ErrMalformed)
}

func interleavedTurn(t *testing.T) *replay.Turn {
	t.Helper()
	tu, err := stream.Decode(bytes.NewReader(read(t, "interleaved-tools.sse")), anthropic.Codec{}, stream.Options{})
	require.NoError(t, err)
	return tu
}

func TestPatchInterleaved(t *testing.T) {
	tu := interleavedTurn(t)
	th0 := tu.Blocks[0].(*replay.ReasoningText)
	th2 := tu.Blocks[2].(*replay.ReasoningText)
	// The caller's own message: a text it added, both tool calls, odd
	// spacing and an extra member that must survive untouched.
	msg := []byte(`{"role": "assistant", "content": [{"type":"text", "text":"Converting."}, {"type": "tool_use","id":"toolu_01Hq8VnZ3kXr5LmT2sPbYc4D","name":"get_rate","input":{"from":"EUR","to":"JPY"}}, {"type":"tool_use","id":"toolu_01Mw6RtY8cJd3FgK9nQxZa2E","name":"get_fees","input":{"currency":"JPY"},"cache_control":{"type":"ephemeral"}}], "x-note": 1}`)
	out, err := anthropic.Codec{}.Patch(msg, tu)
	require.NoError(t, err)
	content := gjson.GetBytes(out, "content").Array()
	require.Len(t, content, 5)
	orig := gjson.GetBytes(msg, "content").Array()
	assert.Equal(t, "thinking", content[0].Get("type").Str, "the first thinking block goes first")
	assert.Equal(t, th0.Signature.Value(), content[0].Get("signature").Str)
	assert.Equal(t, orig[0].Raw, content[1].Raw)
	assert.Equal(t, orig[1].Raw, content[2].Raw)
	assert.Equal(t, th2.Signature.Value(), content[3].Get("signature").Str, "the second goes right after the call it followed")
	assert.Equal(t, th2.Text, content[3].Get("thinking").Str)
	assert.Equal(t, orig[2].Raw, content[4].Raw)
	assert.Equal(t, "assistant", gjson.GetBytes(out, "role").Str)
	assert.Equal(t, int64(1), gjson.GetBytes(out, "x-note").Int())
	// Only the content array changed.
	rest, err := anthropic.Codec{}.Patch(msg, &replay.Turn{})
	require.NoError(t, err)
	assert.Equal(t, string(msg), string(rest))
}

func TestPatchStringContentAndTextAnchors(t *testing.T) {
	tu, err := stream.Decode(bytes.NewReader(read(t, "text-first.sse")), anthropic.Codec{}, stream.Options{})
	require.NoError(t, err)
	// Two text blocks in the turn and in the message: the thinking block
	// goes between them.
	msg := []byte(`{"role":"assistant","content":[{"type":"text","text":"\n\n"},{"type":"text","text":"The answer is 5."}]}`)
	out, err := anthropic.Codec{}.Patch(msg, tu)
	require.NoError(t, err)
	var types []string
	for _, b := range gjson.GetBytes(out, "content").Array() {
		types = append(types, b.Get("type").Str)
	}
	assert.Equal(t, []string{"text", "thinking", "text"}, types)

	out, err = anthropic.Codec{}.Patch([]byte(`{"role":"assistant","content":"The answer is 5."}`), tu)
	require.NoError(t, err)
	assert.Equal(t, `[{"type":"thinking","thinking":"5","signature":"`+tu.Blocks[1].(*replay.ReasoningText).Signature.Value()+`"},{"type":"text","text":"The answer is 5."}]`,
		gjson.GetBytes(out, "content").Raw)
}

func TestPatchRejects(t *testing.T) {
	tu := interleavedTurn(t)
	for name, msg := range map[string]string{
		"not json":         `{"role":`,
		"not object":       `[]`,
		"content number":   `{"role":"assistant","content":3}`,
		"already patched":  `{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":"x"}]}`,
		"already redacted": `{"role":"assistant","content":[{"type":"redacted_thinking","data":"x"}]}`,
	} {
		_, err := anthropic.Codec{}.Patch([]byte(msg), tu)
		require.ErrorIs(t, err, replay.ErrMalformed, name)
	}
	_, err := anthropic.Codec{}.Patch([]byte(`{}`), nil)
	require.ErrorIs(t, err, replay.ErrMalformed)
}

func TestPatchSkipsUnreplayable(t *testing.T) {
	tu, _ := stream.Decode(bytes.NewReader(read(t, "cut-before-signature.sse")), anthropic.Codec{}, stream.Options{})
	msg := []byte(`{"role":"assistant","content":[{"type":"text","text":"x"}]}`)
	out, err := anthropic.Codec{}.Patch(msg, tu)
	require.NoError(t, err)
	assert.Equal(t, string(msg), string(out))
}

func TestRegistry(t *testing.T) {
	for _, pm := range [][2]string{{"anthropic", ""}, {"bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0"}, {"vertex", "claude-opus-4-6"}, {"", "claude-sonnet-5"}} {
		c, err := replay.Resolve(pm[0], pm[1])
		require.NoError(t, err)
		require.Equal(t, anthropic.API, c.API(), "%v", pm)
		assert.Equal(t, pm[0], c.(anthropic.Codec).Provider)
	}
	c, err := replay.Lookup("Anthropic", "vertex", "")
	require.NoError(t, err)
	assert.Equal(t, anthropic.Codec{Provider: "vertex"}, c)
}
