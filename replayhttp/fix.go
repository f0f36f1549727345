package replayhttp

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// geminiSentinel is Gemini's documented value for the thoughtSignature of
// a function call whose signature is not available.
const geminiSentinel = "skip_thought_signature_validator"

// bindingBeta is the anthropic-beta value the block_binding setting needs.
const bindingBeta = "thinking-binding-controls-2026-08-01"

// edit is one one-shot fix applied to a request body: what it changed,
// and, for a removal, the fingerprints of what it removed, so that the
// same elements can be removed up front from the conversation's next
// requests (and nothing else).
type edit struct {
	body    []byte
	header  http.Header // headers to add, or nil
	changes []Repair
	removed []string // fingerprints of the removed elements
}

func fingerprint(raw string) string {
	h := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(h[:12])
}

// chatLike reports whether api's requests are chat-completions messages.
func chatLike(api string) bool { return chatAPIs[api] || api == "cohere" }

// assistantAt reports whether the element of api's list is the model's.
func assistantAt(api string, el gjson.Result) bool {
	if api == "gemini" {
		return el.Get("role").Str == "model"
	}
	return el.Get("role").Str == "assistant"
}

// from returns the message index a pointer names ("/messages/3/content/0"
// gives 3), or 0.
func from(ptr string) int {
	parts := strings.Split(ptr, "/")
	if len(parts) >= 3 {
		if n, err := strconv.Atoi(parts[2]); err == nil {
			return n
		}
	}
	return 0
}

// editList rebuilds the array at list in body with fn's elements: fn
// returns the element's new raw JSON, or "" to remove it. The rest of the
// body is left byte for byte.
func editList(body []byte, list string, fn func(i int, el gjson.Result) string) ([]byte, bool) {
	arr := gjson.GetBytes(body, list)
	if !arr.IsArray() {
		return body, false
	}
	var b strings.Builder
	b.WriteByte('[')
	changed, n, i := false, 0, -1
	arr.ForEach(func(_, el gjson.Result) bool {
		i++
		raw := fn(i, el)
		if raw != el.Raw {
			changed = true
		}
		if raw == "" {
			return true
		}
		if n > 0 {
			b.WriteByte(',')
		}
		b.WriteString(raw)
		n++
		return true
	})
	if !changed {
		return body, false
	}
	b.WriteByte(']')
	out, err := sjson.SetRawBytes(append([]byte(nil), body...), list, []byte(b.String()))
	if err != nil {
		return body, false
	}
	return out, true
}

// filterArray rebuilds the array member name of the object raw without
// the elements drop says to remove, and returns the removed elements.
func filterArray(raw, name string, drop func(el gjson.Result) bool) (string, []gjson.Result) {
	arr := gjson.Get(raw, name)
	if !arr.IsArray() {
		return raw, nil
	}
	var b strings.Builder
	var removed []gjson.Result
	b.WriteByte('[')
	n := 0
	arr.ForEach(func(_, el gjson.Result) bool {
		if drop(el) {
			removed = append(removed, el)
			return true
		}
		if n > 0 {
			b.WriteByte(',')
		}
		b.WriteString(el.Raw)
		n++
		return true
	})
	if len(removed) == 0 {
		return raw, nil
	}
	b.WriteByte(']')
	out, err := sjson.SetRaw(raw, name, b.String())
	if err != nil {
		return raw, nil
	}
	return out, removed
}

// deleteMember deletes the member name of the object raw.
func deleteMember(raw, name string) (string, gjson.Result) {
	v := gjson.Get(raw, name)
	if !v.Exists() {
		return raw, v
	}
	out, err := sjson.Delete(raw, name)
	if err != nil {
		return raw, gjson.Result{}
	}
	return out, v
}

func isReasoningBlock(api string, b gjson.Result) bool {
	switch api {
	case "bedrock-converse":
		return b.Get("reasoningContent").Exists()
	case "anthropic":
		t := b.Get("type").Str
		return t == "thinking" || t == "redacted_thinking"
	}
	return b.Get("type").Str == "thinking" // Mistral and Cohere content
}

// dropReasoning removes reasoning from the model's elements of body: from
// the element at index first on (up to last, when last >= 0), or, when keep is set, only the elements
// whose fingerprint keep holds. For OpenAI Responses, reasoning items (the
// one named item, when set) go, and the item that followed each loses its
// id, which paired it with the reasoning. For Gemini, thought parts and
// signatures go and, when sentinel is set, the first function call of each
// model step gets the documented sentinel.
func dropReasoning(api, list string, body []byte, first, last int, item string, keep map[string]bool, sentinel bool) edit {
	e := edit{body: body}
	take := func(i int, raw string) bool {
		if keep != nil {
			return keep[fingerprint(raw)]
		}
		return i >= first && (last < 0 || i <= last)
	}
	note := func(i int, raw, what string) {
		e.removed = append(e.removed, fingerprint(raw))
		e.changes = append(e.changes, Repair{Pointer: "/" + list + "/" + strconv.Itoa(i), Action: RepairRemoved, Detail: what})
	}
	if api == "openai-responses" {
		dropFollowerID := false
		e.body, _ = editList(body, list, func(i int, el gjson.Result) string {
			if el.Get("type").Str == "reasoning" && (item == "" || el.Get("id").Str == item) && take(i, el.Raw) {
				note(i, el.Raw, "reasoning item "+strconv.Quote(el.Get("id").Str)+" removed")
				dropFollowerID = true
				return ""
			}
			if dropFollowerID {
				dropFollowerID = false
				if id := el.Get("id"); id.Exists() && el.Get("type").Str != "reasoning" {
					out, _ := deleteMember(el.Raw, "id")
					e.changes = append(e.changes, Repair{Pointer: "/" + list + "/" + strconv.Itoa(i), Action: RepairRemoved,
						Detail: "item id " + strconv.Quote(id.Str) + " removed with the reasoning item it followed"})
					return out
				}
			}
			return el.Raw
		})
		return e
	}
	e.body, _ = editList(body, list, func(i int, el gjson.Result) string {
		if !assistantAt(api, el) {
			return el.Raw
		}
		raw := el.Raw
		ptr := "/" + list + "/" + strconv.Itoa(i)
		switch {
		case api == "gemini":
			n := len(e.changes)
			var removed []gjson.Result
			raw, removed = filterArray(raw, "parts", func(p gjson.Result) bool { return p.Get("thought").Bool() && take(i, p.Raw) })
			for _, r := range removed {
				note(i, r.Raw, "thought part removed")
			}
			j := -1
			raw2 := raw
			gjson.Get(raw, "parts").ForEach(func(_, p gjson.Result) bool {
				j++
				if s := p.Get("thoughtSignature"); s.Exists() && take(i, s.Raw) {
					if out, err := sjson.Delete(raw2, "parts."+strconv.Itoa(j)+".thoughtSignature"); err == nil {
						raw2 = out
						note(i, s.Raw, "thought signature removed from part "+strconv.Itoa(j))
					}
				}
				return true
			})
			raw = raw2
			if sentinel && len(e.changes) > n {
				raw = addSentinel(raw2, ptr, &e.changes)
			}
		case chatLike(api):
			for _, f := range []string{"reasoning_details", "reasoning_content", "reasoning"} {
				if v := gjson.Get(raw, f); v.Exists() && take(i, v.Raw) {
					raw, _ = deleteMember(raw, f)
					note(i, v.Raw, f+" removed")
				}
			}
			fallthrough
		default:
			var removed []gjson.Result
			raw, removed = filterArray(raw, "content", func(b gjson.Result) bool { return isReasoningBlock(api, b) && take(i, b.Raw) })
			for _, r := range removed {
				note(i, r.Raw, "reasoning block removed")
			}
		}
		return raw
	})
	return e
}

// addSentinel writes Gemini's documented sentinel as the signature of the
// first function call of a model element that has none.
func addSentinel(raw, ptr string, changes *[]Repair) string {
	j := -1
	out := raw
	gjson.Get(raw, "parts").ForEach(func(_, p gjson.Result) bool {
		j++
		if !p.Get("functionCall").Exists() {
			return true
		}
		if !p.Get("thoughtSignature").Exists() {
			if s, err := sjson.Set(out, "parts."+strconv.Itoa(j)+".thoughtSignature", geminiSentinel); err == nil {
				out = s
				*changes = append(*changes, Repair{Pointer: ptr + "/parts/" + strconv.Itoa(j), Action: RepairSet,
					Detail: "the first function call has no signature: Gemini's documented sentinel written"})
			}
		}
		return false
	})
	return out
}

// addSentinels writes the sentinel on every model element's unsigned first
// function call.
func addSentinels(list string, body []byte) edit {
	e := edit{body: body}
	e.body, _ = editList(body, list, func(i int, el gjson.Result) string {
		if el.Get("role").Str != "model" {
			return el.Raw
		}
		return addSentinel(el.Raw, "/"+list+"/"+strconv.Itoa(i), &e.changes)
	})
	return e
}

// backfillReasoningContent sends `reasoning_content: ""` on every
// assistant message that lacks it (or has null).
func backfillReasoningContent(list string, body []byte) edit {
	return editAssistants(list, body, RepairSet, func(raw string) (string, string) {
		if v := gjson.Get(raw, "reasoning_content"); v.Exists() && v.Type != gjson.Null {
			return raw, ""
		}
		out, err := sjson.Set(raw, "reasoning_content", "")
		if err != nil {
			return raw, ""
		}
		return out, `reasoning_content "" sent where the message had none`
	})
}

// removeReasoningContent removes `reasoning_content` from every assistant
// message.
func removeReasoningContent(list string, body []byte) edit {
	return editAssistants(list, body, RepairRemoved, func(raw string) (string, string) {
		if out, v := deleteMember(raw, "reasoning_content"); v.Exists() {
			return out, "reasoning_content removed"
		}
		return raw, ""
	})
}

// editAssistants rewrites each assistant message of the array at list
// with fn, which returns the message's new JSON and what it changed ("":
// nothing), reported as action.
func editAssistants(list string, body []byte, action RepairAction, fn func(raw string) (string, string)) edit {
	e := edit{body: body}
	e.body, _ = editList(body, list, func(i int, el gjson.Result) string {
		if el.Get("role").Str != "assistant" {
			return el.Raw
		}
		out, detail := fn(el.Raw)
		if detail != "" {
			e.changes = append(e.changes, Repair{Pointer: "/" + list + "/" + strconv.Itoa(i), Action: action, Detail: detail})
		}
		return out
	})
	return e
}

// dropDuplicates sends each reasoning item once: a reasoning_details entry
// (or a Responses input item) whose id an earlier one had is removed.
func dropDuplicates(api, list string, body []byte) edit {
	e := edit{body: body}
	seen := map[string]bool{}
	dup := func(el gjson.Result) bool {
		id := el.Get("id").Str
		if id == "" {
			return false
		}
		if seen[id] {
			return true
		}
		seen[id] = true
		return false
	}
	e.body, _ = editList(body, list, func(i int, el gjson.Result) string {
		ptr := "/" + list + "/" + strconv.Itoa(i)
		if api == "openai-responses" {
			if el.Get("type").Str == "reasoning" && dup(el) {
				e.changes = append(e.changes, Repair{Pointer: ptr, Action: RepairRemoved, Detail: "duplicate reasoning item " + strconv.Quote(el.Get("id").Str) + " removed"})
				return ""
			}
			return el.Raw
		}
		out, removed := filterArray(el.Raw, "reasoning_details", dup)
		for _, r := range removed {
			e.changes = append(e.changes, Repair{Pointer: ptr, Action: RepairRemoved, Detail: "duplicate reasoning_details item " + strconv.Quote(r.Get("id").Str) + " removed"})
		}
		return out
	})
	return e
}

// dropBlock asks Anthropic to drop thinking blocks bound to another
// conversation instead of refusing the request.
func dropBlock(body []byte, h http.Header) edit {
	e := edit{body: body}
	const path = "thinking.block_binding.prefix_mismatch_behavior"
	if gjson.GetBytes(body, path).Str == "drop_block" || !gjson.GetBytes(body, "thinking").IsObject() {
		return e
	}
	out, err := sjson.SetBytes(append([]byte(nil), body...), path, "drop_block")
	if err != nil {
		return e
	}
	e.body = out
	e.changes = append(e.changes, Repair{Pointer: "/thinking/block_binding/prefix_mismatch_behavior", Action: RepairSet,
		Detail: `set to "drop_block": thinking blocks bound to another conversation are dropped by the provider`})
	if !strings.Contains(strings.Join(h.Values("anthropic-beta"), ","), bindingBeta) {
		e.header = http.Header{"Anthropic-Beta": {bindingBeta}}
		e.changes = append(e.changes, Repair{Action: RepairSet, Detail: "anthropic-beta: " + bindingBeta + " added (the setting requires it)"})
	}
	return e
}

// removeItemID deletes the id of the Responses input item that has it.
func removeItemID(list string, body []byte, id string) edit {
	e := edit{body: body}
	e.body, _ = editList(body, list, func(i int, el gjson.Result) string {
		if el.Get("id").Str != id || el.Get("type").Str == "reasoning" {
			return el.Raw
		}
		out, _ := deleteMember(el.Raw, "id")
		e.changes = append(e.changes, Repair{Pointer: "/" + list + "/" + strconv.Itoa(i), Action: RepairRemoved,
			Detail: "item id " + strconv.Quote(id) + " removed: its reasoning item is not available"})
		return out
	})
	return e
}
