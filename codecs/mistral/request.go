package mistral

import (
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/chatstream"
)

// DecodeRequest reads the assistant messages of a chat completions request
// body natively, with the reader Decode uses for a response's message
// (content chunks: thinking, text, others verbatim; tool calls), and the
// target facts the body states: model, tools (declared, or called in the
// history), and a reasoning switch (`prompt_mode: "reasoning"`,
// `reasoning_effort`). The last assistant message is incomplete when one
// of its tool calls lacks an id, a name or arguments.
func (c Codec) DecodeRequest(body []byte) (replay.History, replay.Target, error) {
	return chatstream.ReadRequestWithin(API, c.Limits, body, c.readMessage)
}
