package openrouter

import (
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/chatstream"
	"net/http"
)

// DecodeRequest reads the assistant messages of a chat completions request
// body natively, with the reader Decode uses for a response's message
// (reasoning_details, else the plain reasoning string; content; tool
// calls), and the target facts the body states: model, tools (declared, or
// called in the history), store, and a reasoning switch (`reasoning`,
// `reasoning_effort`, ...). The last assistant message is incomplete when
// one of its tool calls lacks an id, a name or arguments.
func (c Codec) DecodeRequest(body []byte) (replay.History, replay.Target, error) {
	return chatstream.ReadRequestWithin(API, c.Limits, body, c.readRequestMessage)
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

// RenameResults renames the call id a tool message names (see
// [codecs.ResultRenamer]).
func (Codec) RenameResults(el []byte, rename func(string) (string, bool)) []byte {
	return chatstream.RenameResults(el, rename)
}
