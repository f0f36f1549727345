package bedrock

import (
	"net/http"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
)

// DecodeRequest reads the assistant turns of a Converse request body
// (`{"messages":[...],"system":[...],"toolConfig":{...},
// "additionalModelRequestFields":{...}}`) for [replay.AuditRequest]: the
// content of each `messages[i]` with role "assistant" is read by the same
// content reader as a response's. The HTTP body does not name the model (it
// is in the URL path); the model is c.Model, else the body's `modelId` (the
// SDK and CLI input form, `aws bedrock-runtime converse --cli-input-json`),
// and it selects the format of the items as in [Codec.Decode]. Tools is
// true when `toolConfig.tools` is not empty or a turn calls a tool;
// Thinking is true when `additionalModelRequestFields` turns Claude
// thinking on (`thinking.type` or `reasoning_config.type` "enabled").
//
// A turn is Complete unless it is structurally cut: in the last assistant
// message, a Claude reasoningText without its signature, or a toolUse
// without its input, is unfinished and its turn is not Complete.
func (c Codec) DecodeRequest(body []byte) (replay.History, replay.Target, error) {
	h := replay.History{Request: body}
	root, msgs, tape, err := kit.ReadRequest(API, body, "a Converse request body", "messages")
	if tape != nil {
		kit.SetTape(&h, tape)
	}
	if err != nil {
		return h, replay.Target{}, err
	}
	if c.Model == "" {
		c.Model = strings.Clone(root.Get("modelId").Result().String())
	}
	amrf := root.Get("additionalModelRequestFields")
	t := replay.Target{API: API, Provider: c.Provider, Model: c.Model,
		Tools:    kit.Items(root.Path("toolConfig.tools")) > 0,
		Thinking: amrf.Path("thinking.type").Is("enabled") || amrf.Path("reasoning_config.type").Is("enabled")}
	isTurn := func(m jsonw.Val) bool { return m.Get("role").Is("assistant") }
	al := kit.ConvAlloc(msgs, isTurn)
	err = kit.ConvTurns(&h, &t, msgs, "/messages", al, isTurn, nil, func(m jsonw.Val, ptr string, cut bool) (*replay.Turn, error) {
		return c.requestTurn(m, ptr, cut, al)
	})
	return h, t, err
}

// requestTurn reads one assistant message of a request (on its tape) into
// memory of al; cut says it is the last one, which may have been cut off.
func (c Codec) requestTurn(m jsonw.Val, ptr string, cut bool, al *kit.Alloc) (*replay.Turn, error) {
	content := m.Get("content")
	if !content.IsArray() {
		return nil, codecs.Malformed(API, -1, ptr+"/content", "expected an array")
	}
	tu := al.Turn()
	*tu = replay.Turn{Provenance: c.provenance()}
	r := c.reader(al)
	r.cut, r.request = cut, true
	if err := r.content(tu, content, ptr+"/content"); err != nil {
		return nil, err
	}
	return tu, nil
}

// ReadRequest reads a Converse request body once for the middleware: the
// turns as [Codec.DecodeRequest] reads them, the `messages` elements, and
// the `system` and `toolConfig` members the turns are bound to;
// `cachePoint` blocks are no part of the conversation.
func (c Codec) ReadRequest(body []byte) (*codecs.Request, error) {
	return codecs.ReadWith(body, "messages", []string{"system", "toolConfig"}, []string{"cachePoint"}, nil, c.DecodeRequest)
}

// Strip removes the reasoningContent blocks of an assistant message. It
// reads the message once, in place; a message with nothing to remove
// comes back as it is, without allocating. The content array of one that
// loses blocks is written without white space between its elements.
func (Codec) Strip(raw []byte) ([]byte, []codecs.Change) {
	return kit.DropElems(raw, "content", "reasoningContent", present, contentPointers, "reasoning block removed")
}

// contentPointers are the pointers of the content blocks.
var contentPointers = kit.NewPointers("/content/")

// present reports whether a member was found (its raw value is not "").
func present(raw string) bool { return raw != "" }

// Fix applies drop-reasoning: the turns lose their reasoning blocks.
func (c Codec) Fix(fix string, r *codecs.Request, only func(int) bool, _ http.Header) ([]byte, http.Header, []codecs.Change) {
	if fix != codecs.FixDropReasoning {
		return r.Body, nil, nil
	}
	body, changes := codecs.EditTurns(r, only, func(_ int, raw []byte) ([]byte, []codecs.Change) {
		out, ch := c.Strip(raw)
		if len(ch) == 0 {
			return nil, nil
		}
		return out, ch
	})
	return body, nil, changes
}

// RenameResults renames the call ids the tool results of a conversation
// element name (see [codecs.ResultRenamer]).
func (Codec) RenameResults(el []byte, rename func(string) (string, bool)) []byte {
	return kit.RenameIn(el, "content", func(b gjson.Result) bool { return b.Get("toolResult").IsObject() }, "toolResult.toolUseId", rename)
}
