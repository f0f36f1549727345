package chatcompat

import (
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/chatstream"
	"github.com/tidwall/gjson"
)

// DecodeRequest reads the assistant messages of a chat completions request
// body natively, with the reader Decode uses (the profile's reasoning
// field, content split by package think, tool calls and their Gemini
// signatures), and the target facts the body states: model, tools
// (declared, or called in the history), store, and a reasoning switch
// (`reasoning_effort`, `thinking`, `enable_thinking`, ...). The last
// assistant message is incomplete when one of its tool calls lacks an id,
// a name or arguments.
func (c Codec) DecodeRequest(body []byte) (replay.History, replay.Target, error) {
	api := c.API()
	return chatstream.ReadRequest(api, body, func(msg gjson.Result, ptr string) (*replay.Turn, error) {
		return newReader(api, c.Profile, c.Limits, -1).message(msg, ptr)
	})
}
