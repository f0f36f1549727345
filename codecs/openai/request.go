package openai

import (
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/tidwall/gjson"
)

// DecodeRequest reads the assistant turns of a Responses request body for
// [replay.AuditRequest]: each maximal run of `input` items that are not
// user, system or developer messages or tool outputs (reasoning,
// function_call, assistant message, item_reference, server tool items) is
// decoded as the output of one response, with the pointer of its first
// item. The target's Model, Tools and Store (true unless `store` is false,
// the API's default) come from the body.
func (c Codec) DecodeRequest(body []byte) (replay.History, replay.Target, error) {
	h := replay.History{Request: body}
	if !gjson.ValidBytes(body) || !gjson.ParseBytes(body).IsObject() {
		return h, replay.Target{}, replay.Malformed(API, -1, "", "expected a Responses request body object")
	}
	root := gjson.ParseBytes(body)
	in := root.Get("input")
	if !in.IsArray() && in.Type != gjson.String {
		return h, replay.Target{}, replay.Malformed(API, -1, "/input", "expected an input array or string")
	}
	store := root.Get("store")
	t := replay.Target{API: API, Provider: c.Provider, Model: root.Get("model").String(),
		Tools: len(root.Get("tools").Array()) > 0, Store: !store.Exists() || store.Bool(),
		Thinking: root.Get("reasoning").Exists()}
	items := in.Array()
	for i := 0; i < len(items); {
		if !assistantItem(items[i]) {
			i++
			continue
		}
		j := i
		resp := []byte(`{"object":"response","status":"completed","output":[`)
		for ; j < len(items) && assistantItem(items[j]); j++ {
			if j > i {
				resp = append(resp, ',')
			}
			resp = append(resp, items[j].Raw...)
			if items[j].Get("type").Str == "function_call" {
				t.Tools = true
			}
		}
		resp = append(resp, "]}"...)
		tu, err := c.Decode(resp)
		if err != nil {
			return h, t, replay.Malformed(API, -1, "/input/"+strconv.Itoa(i), "%v", err)
		}
		tu.Complete = true
		h.Turns = append(h.Turns, tu)
		h.Pointers = append(h.Pointers, "/input/"+strconv.Itoa(i))
		i = j
	}
	return h, t, nil
}

// assistantItem reports whether an input item is part of an assistant
// turn.
func assistantItem(it gjson.Result) bool {
	typ := it.Get("type").Str
	role := it.Get("role").Str
	switch {
	case typ == "function_call_output", typ == "custom_tool_call_output", typ == "computer_call_output",
		typ == "local_shell_call_output", typ == "mcp_approval_response":
		return false
	case role == "user", role == "system", role == "developer":
		return false
	case typ == "" && role == "":
		return false
	}
	return true
}
