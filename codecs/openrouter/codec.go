// Package openrouter is the codec for OpenRouter's chat completions API
// (`/api/v1/chat/completions`), the default codec of this module, and a
// superset reader for OpenAI-compatible chat responses.
//
// # Wire facts
//
// OpenRouter normalises every upstream's reasoning into
// `message.reasoning_details[]` (streamed as `delta.reasoning_details[]`
// fragments): `reasoning.text` (text and an optional signature),
// `reasoning.summary` and `reasoning.encrypted` (data), each with `format`,
// `id` and `index`. It mirrors the plain text into `message.reasoning`.
// Anthropic upstreams send the signature on a trailing fragment with empty
// text; OpenAI upstreams send summaries and the encrypted item both at index
// 0; Gemini upstreams send each thought signature as an encrypted item
// whose id is the tool call id. Keep-alive comments (`: OPENROUTER
// PROCESSING`) are skipped by the SSE framing. An error after the first
// token keeps HTTP 200 and arrives as a chunk with a top-level `error` and
// `finish_reason: "error"`.
//
// On replay, the assistant message carries `reasoning_details` exactly as
// received, in order, each item once across the history. See [Codec.Contract].
package openrouter

import (
	"fmt"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// API is the codec's API name.
const API = "openrouter"

// Codec is the OpenRouter codec. The zero value is ready to use.
type Codec struct {
	// Provider, when set, is recorded as the provenance provider of decoded
	// turns instead of "openrouter" (for OpenAI-compatible hosts read with
	// this codec).
	Provider string
	// Model is the model slug requests are sent with, when known
	// ("anthropic/claude-sonnet-4.5"); the contract accepts its vendor's
	// formats.
	Model string
}

func init() {
	replay.Default.MustRegister(replay.Entry{
		API:       API,
		Providers: []string{"openrouter"},
		New: func(provider, model string) replay.ReasoningCodec {
			if provider == "openrouter" {
				provider = ""
			}
			return Codec{Provider: provider, Model: model}
		},
	})
}

// API returns "openrouter".
func (Codec) API() string { return API }

// NewStream returns a fresh [StreamDecoder].
func (c Codec) NewStream() replay.FrameDecoder { return &StreamDecoder{Provider: c.Provider} }

// Encode writes the assistant message for the next request:
//
//	{"role":"assistant","content":...,"tool_calls":[...],"reasoning_details":[...]}
//
// reasoning_details holds the turn's replayable items unmodified and in
// order (unknown members and unknown item types verbatim). content is the
// visible text, or null when the turn has only tool calls. Native blocks
// have no place in this shape and are left out.
func (Codec) Encode(t *replay.Turn) ([]byte, error) {
	out := append([]byte(nil), `{"role":"assistant","content":`...)
	text, hasText := "", false
	var calls []*replay.ToolCall
	for _, b := range t.Blocks {
		switch b := b.(type) {
		case *replay.Text:
			text += b.Text
			hasText = true
		case *replay.ToolCall:
			calls = append(calls, b)
		}
	}
	if !hasText && len(calls) > 0 {
		out = append(out, "null"...)
	} else {
		out = jsonw.String(out, text)
	}
	if len(calls) > 0 {
		out = append(out, `,"tool_calls":[`...)
		for i, c := range calls {
			if i > 0 {
				out = append(out, ',')
			}
			out = appendToolCall(out, c)
		}
		out = append(out, ']')
	}
	if details := appendDetails(nil, t); details != nil {
		out = append(out, `,"reasoning_details":`...)
		out = append(out, details...)
	}
	return append(out, '}'), nil
}

func appendToolCall(out []byte, c *replay.ToolCall) []byte {
	out = append(out, `{"id":`...)
	out = jsonw.String(out, c.ID)
	out = append(out, `,"type":"function","function":{"name":`...)
	out = jsonw.String(out, c.Name)
	out = append(out, `,"arguments":`...)
	out = jsonw.String(out, c.Arguments)
	out = append(out, '}')
	out = jsonw.Members(out, c.Extra)
	return append(out, '}')
}

// appendDetails appends the reasoning_details array of t's replayable
// items, or returns dst unchanged (nil when dst is nil) when there are none.
func appendDetails(dst []byte, t *replay.Turn) []byte {
	n := 0
	for _, b := range t.Blocks {
		it, ok := b.(replay.ReasoningItem)
		if !ok || !replay.Replayable(it) {
			continue
		}
		if n == 0 {
			dst = append(dst, '[')
		} else {
			dst = append(dst, ',')
		}
		dst = replay.AppendItemWire(dst, it)
		n++
	}
	if n > 0 {
		dst = append(dst, ']')
	}
	return dst
}

// Patch sets `reasoning_details` on an assistant message the caller built
// to the turn's replayable items, leaving every other member as it was. A
// turn with no replayable item leaves msg unchanged.
func (Codec) Patch(msg []byte, t *replay.Turn) ([]byte, error) {
	if !gjson.ValidBytes(msg) || !gjson.ParseBytes(msg).IsObject() {
		return nil, replay.Malformed(API, -1, "", "expected an assistant message object to patch")
	}
	details := appendDetails(nil, t)
	if details == nil {
		return msg, nil
	}
	out, err := sjson.SetRawBytes(append([]byte(nil), msg...), "reasoning_details", details)
	if err != nil {
		return nil, fmt.Errorf("replay: openrouter: patch: %w", err)
	}
	return out, nil
}
