package chatstream

import (
	"fmt"
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
)

// ReadMessage reads one assistant message of a request (msg, at JSON
// Pointer ptr) natively into a turn, with the same reader as the codec's
// body Decode.
type ReadMessage func(msg gjson.Result, ptr string) (*replay.Turn, error)

// ReadMessageWithin is a ReadMessage that keeps what the budget allows.
type ReadMessageWithin func(msg gjson.Result, ptr string, b *kit.Budget) (*replay.Turn, error)

// ReadRequestWithin is ReadRequest with a fresh budget of lim for each
// message.
func ReadRequestWithin(api string, lim replay.Limits, body []byte, read ReadMessageWithin) (replay.History, replay.Target, error) {
	return ReadRequest(api, body, func(msg gjson.Result, ptr string) (*replay.Turn, error) {
		b := kit.NewBudget(api, lim, -1)
		return read(msg, ptr, &b)
	})
}

// ReadRequest reads a chat-completions request body: every `messages[i]`
// with role "assistant" is read by read, in order, into History (with
// Request and Pointers), and the target facts the body states (model,
// tools declared or called, store, a reasoning switch) into Target. A turn
// is complete when it is structurally whole: the last assistant message
// is cut when one of its tool calls lacks an id, a function name or
// arguments (that call is then unfinished).
func ReadRequest(api string, body []byte, read ReadMessage) (replay.History, replay.Target, error) {
	h := replay.History{Request: body}
	if !jsonw.ValidBytes(body) {
		return h, replay.Target{}, replay.Malformed(api, -1, "", "expected a JSON request body: %s", jsonw.Explain(string(body)))
	}
	root := gjson.ParseBytes(body)
	msgs := root.Get("messages")
	if !root.IsObject() || !msgs.IsArray() {
		return h, replay.Target{}, replay.Malformed(api, -1, "/messages", "expected a chat request with a messages array")
	}
	t := target(api, root)
	var err error
	i, last := -1, -1
	var lastMsg gjson.Result
	msgs.ForEach(func(_, m gjson.Result) bool {
		i++
		if m.Get("role").Str != "assistant" {
			return true
		}
		ptr := "/messages/" + strconv.Itoa(i)
		var tu *replay.Turn
		if tu, err = read(m, ptr); err != nil {
			err = fmt.Errorf("%s: %w", ptr, err)
			return false
		}
		if tu.Provenance.Model == "" {
			tu.Provenance.Model = t.Model
		}
		if len(tu.ToolCalls()) > 0 {
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

// target reads what a chat request says about its target.
func target(api string, root gjson.Result) replay.Target {
	t := replay.Target{API: api, Model: root.Get("model").String(), Store: root.Get("store").Bool()}
	t.Tools = len(root.Get("tools").Array()) > 0
	t.Thinking = thinkingOn(root)
	return t
}

// thinkingOn reports whether a chat request switches reasoning on:
// `reasoning` (OpenRouter; not `{"enabled":false}` nor `"effort":"none"`),
// `reasoning_effort` (not "none"), `thinking` (not `{"type":"disabled"}`),
// `enable_thinking` or `chat_template_kwargs.enable_thinking`, or
// Mistral's `prompt_mode: "reasoning"`.
func thinkingOn(root gjson.Result) bool {
	if r := root.Get("reasoning"); r.Exists() && r.Type != gjson.Null {
		return !(r.Get("enabled").Type == gjson.False || r.Get("effort").Str == "none")
	}
	if r := root.Get("reasoning_effort"); r.Exists() && r.Type != gjson.Null {
		return r.Str != "none"
	}
	if r := root.Get("thinking"); r.Exists() && r.Type != gjson.Null {
		return r.Get("type").Str != "disabled" && r.Type != gjson.False
	}
	return root.Get("enable_thinking").Bool() || root.Get("chat_template_kwargs.enable_thinking").Bool() ||
		root.Get("prompt_mode").Str == "reasoning"
}

// markCut marks the turn read from msg not complete when one of its tool
// calls is cut: no id, no function name, or no arguments member.
func markCut(tu *replay.Turn, msg gjson.Result) {
	calls := tu.ToolCalls()
	k := 0
	msg.Get("tool_calls").ForEach(func(_, tc gjson.Result) bool {
		cut := tc.Get("id").Str == "" || tc.Get("function.name").Str == "" || !tc.Get("function.arguments").Exists()
		if cut && k < len(calls) {
			calls[k].Unfinished = true
			tu.Complete = false
		}
		k++
		return true
	})
}
