package chatstream

import (
	"fmt"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/internal/reqtape"
)

// ReadMessage reads one assistant message of a request (msg, on the
// request's tape, at JSON Pointer ptr) natively into a turn, with the same
// reader as the codec's body Decode. It takes the turn, its blocks and the
// strings it keeps from al (see [kit.Alloc]): nothing it returns views the
// request.
type ReadMessage func(msg jsonw.Val, ptr string, al *kit.Alloc) (*replay.Turn, error)

// ReadMessageWithin is a ReadMessage that keeps what the budget allows.
type ReadMessageWithin func(msg jsonw.Val, ptr string, b *kit.Budget, al *kit.Alloc) (*replay.Turn, error)

// ReadRequestWithin is ReadRequest with a fresh budget of lim for each
// message.
func ReadRequestWithin(api string, lim replay.Limits, body []byte, read ReadMessageWithin) (replay.History, replay.Target, error) {
	b := new(kit.Budget)
	return ReadRequest(api, body, func(msg jsonw.Val, ptr string, al *kit.Alloc) (*replay.Turn, error) {
		*b = kit.NewBudget(api, lim, -1)
		return read(msg, ptr, b, al)
	})
}

// isAssistant reports whether a chat message is the assistant's.
func isAssistant(m jsonw.Val) bool { return m.Get("role").Is("assistant") }

// ReadRequest reads a chat-completions request body: every `messages[i]`
// with role "assistant" is read by read, in order, into History (with
// Request and Pointers), and the target facts the body states (model,
// tools declared or called, store, a reasoning switch) into Target. A turn
// is complete when it is structurally whole: the last assistant message
// is cut when one of its tool calls lacks an id, a function name or
// arguments (that call is then unfinished).
//
// The body is read once, on a tape (see [kit.SetTape]); the messages are
// read from it in place, their turns made by one [kit.ConvAlloc].
func ReadRequest(api string, body []byte, read ReadMessage) (replay.History, replay.Target, error) {
	h := replay.History{Request: body}
	tape, ok := reqtape.Read(body)
	if !ok {
		return h, replay.Target{}, codecs.Malformed(api, -1, "", "expected a JSON request body: %s", jsonw.Explain(string(body)))
	}
	kit.SetTape(&h, tape)
	root := tape.Root()
	msgs := root.Get("messages")
	if !root.IsObject() || !msgs.IsArray() {
		return h, replay.Target{}, codecs.Malformed(api, -1, "/messages", "expected a chat request with a messages array")
	}
	t := target(api, root)
	var err error
	last := -1
	var lastMsg jsonw.Val
	al := kit.ConvAlloc(msgs, isAssistant)
	n := 0
	msgs.ForEach(func(_ int, _ string, m jsonw.Val) bool {
		if isAssistant(m) {
			n++
		}
		return true
	})
	h.Turns, h.Pointers = make([]*replay.Turn, 0, n), make([]string, 0, n)
	msgs.ForEach(func(i int, _ string, m jsonw.Val) bool {
		if !isAssistant(m) {
			return true
		}
		ptr := al.Pointer("/messages", i)
		var tu *replay.Turn
		if tu, err = read(m, ptr, al); err != nil {
			err = fmt.Errorf("%s: %w", ptr, err)
			return false
		}
		if tu.Provenance.Model == "" {
			tu.Provenance.Model = t.Model
		}
		if !t.Tools && hasCall(tu) {
			t.Tools = true
		}
		h.Turns = append(h.Turns, tu)
		h.Pointers = append(h.Pointers, ptr)
		last, lastMsg = len(h.Turns)-1, m
		return true
	})
	if err != nil {
		return h, t, err
	}
	if last >= 0 {
		markCut(h.Turns[last], lastMsg)
	}
	return h, t, nil
}

// hasCall reports whether t holds a tool call.
func hasCall(t *replay.Turn) bool {
	for _, b := range t.Blocks {
		if _, ok := b.(*replay.ToolCall); ok {
			return true
		}
	}
	return false
}

// target reads what a chat request says about its target.
func target(api string, root jsonw.Val) replay.Target {
	store := root.Get("store")
	t := replay.Target{API: api, Model: strings.Clone(root.Get("model").Result().String()), Store: store.Result().Bool()}
	t.Tools = kit.Items(root.Get("tools")) > 0
	t.Thinking = thinkingOn(root)
	return t
}

// thinkingOn reports whether a chat request switches reasoning on:
// `reasoning` (OpenRouter; not `{"enabled":false}` nor `"effort":"none"`),
// `reasoning_effort` (not "none"), `thinking` (not `{"type":"disabled"}`),
// `enable_thinking` or `chat_template_kwargs.enable_thinking`, or
// Mistral's `prompt_mode: "reasoning"`.
func thinkingOn(root jsonw.Val) bool {
	if r := root.Get("reasoning"); r.Exists() && !r.IsNull() {
		return !(r.Get("enabled").Kind() == 'f' || r.Get("effort").Is("none"))
	}
	if r := root.Get("reasoning_effort"); r.Exists() && !r.IsNull() {
		return !r.Is("none")
	}
	if r := root.Get("thinking"); r.Exists() && !r.IsNull() {
		return !r.Get("type").Is("disabled") && r.Kind() != 'f'
	}
	return root.Get("enable_thinking").Result().Bool() || root.Path("chat_template_kwargs.enable_thinking").Result().Bool() ||
		root.Get("prompt_mode").Is("reasoning")
}

// markCut marks the turn read from msg not complete when one of its tool
// calls is cut: no id, no function name, or no arguments member.
func markCut(tu *replay.Turn, msg jsonw.Val) {
	calls := tu.ToolCalls()
	k := 0
	msg.Get("tool_calls").Each(func(_ int, tc jsonw.Val) bool {
		cut := tc.Get("id").Str() == "" || tc.Path("function.name").Str() == "" || !tc.Path("function.arguments").Exists()
		if cut && k < len(calls) {
			calls[k].Unfinished = true
			tu.Complete = false
		}
		k++
		return true
	})
}
