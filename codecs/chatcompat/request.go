package chatcompat

import (
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/chatstream"
	"github.com/tidwall/gjson"
	"net/http"
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

// ReadRequest reads a chat completions request body once for the
// middleware: the turns as [Codec.DecodeRequest] reads them, the
// `messages` elements, and the `tools` the turns are bound to.
func (c Codec) ReadRequest(body []byte) (*codecs.Request, error) {
	return chatstream.ReadWith(body, c.DecodeRequest)
}

// Strip removes the reasoning of an assistant message (see
// chatstream.Strip).
func (Codec) Strip(raw []byte) ([]byte, []codecs.Change) { return chatstream.Strip(raw) }

// Fix applies the chat completions one-shot fixes (drop-reasoning,
// backfill-reasoning-content, remove-reasoning-content, drop-duplicates)
// to the assistant messages of the turns only reports.
func (Codec) Fix(fix string, r *codecs.Request, only func(int) bool, _ http.Header) ([]byte, http.Header, []codecs.Change) {
	return chatstream.Fix(fix, r, only)
}
