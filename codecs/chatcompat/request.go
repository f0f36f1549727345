package chatcompat

import (
	"net/http"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/chatstream"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// DecodeRequest reads the assistant messages of a chat completions request
// body natively, with the reader Decode uses (the profile's reasoning
// field, content split by package think, tool calls and their Gemini
// signatures), and the target facts the body states: model, tools
// (declared, or called in the history), store, and a reasoning switch
// (`reasoning_effort`, `thinking`, `enable_thinking`, ...). The last
// assistant message is incomplete when one of its tool calls lacks an id,
// a name or arguments.
//
// A request message's content may be an array of parts (OpenAI's text
// parts, or a client's Anthropic-style blocks): its text parts are read as
// the message's content and its other parts are left to the audit (DeepSeek
// refuses a `thinking` part).
func (c Codec) DecodeRequest(body []byte) (replay.History, replay.Target, error) {
	api := c.API()
	var r *reader // one for every message: see next
	return chatstream.ReadRequest(api, body, func(msg jsonw.Val, ptr string, al *kit.Alloc) (*replay.Turn, error) {
		if r == nil {
			r = newReader(api, c.Profile, c.Limits, -1)
		} else {
			r.next(c.Limits)
		}
		// The turn and what it keeps come from the request's Alloc: room
		// for a reasoning item, a text, and each call with a signature.
		r.core.Request(al, 2+2*msg.Get("tool_calls").Len())
		// The reader copies what it keeps: it reads the message in place.
		raw := msg.Raw()
		if content := msg.Get("content"); content.IsArray() {
			m, err := textContent(api, msg.Result(), content.Result(), ptr)
			if err != nil {
				return nil, err
			}
			raw = m.Raw
		}
		return r.message(raw, ptr)
	})
}

// next readies r, which read a request's message, for the next one, with
// the limits lim, as newReader makes it: what it made for the first (its
// splitter, the core's text builder) serves the next.
func (r *reader) next(lim replay.Limits) {
	r.core.Next(lim)
	if r.split != nil {
		r.split.Reset()
	}
	r.segs, r.native, r.contentHi = r.segs[:0], false, 0
	r.scratch.Reset()
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

// textContent returns msg with its content parts replaced by the text of
// its text parts, joined, as a JSON string.
func textContent(api string, msg, content gjson.Result, ptr string) (gjson.Result, error) {
	var text []byte
	var err error
	content.ForEach(func(k, part gjson.Result) bool {
		if part.Get("type").Str != "text" {
			return true
		}
		t := part.Get("text")
		if t.Type != gjson.String {
			err = codecs.Malformed(api, -1, ptr+"/content/"+k.String()+"/text", "expected a string")
			return false
		}
		text = append(text, t.Str...)
		return true
	})
	if err != nil {
		return msg, err
	}
	raw, serr := sjson.SetRaw(msg.Raw, "content", string(jsonw.String(nil, string(text))))
	if serr != nil {
		return msg, codecs.Malformed(api, -1, ptr+"/content", "%v", serr)
	}
	return gjson.Parse(raw), nil
}
