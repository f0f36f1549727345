package replayproxy

import (
	"strconv"
	"strings"

	"github.com/reasonreplay/replay/codecs/gemini"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// bodyKind tells the request shape from the path: "anthropic" (Messages),
// "responses" (OpenAI Responses), "gemini" (generateContent) or "chat"
// (chat completions), else "".
func bodyKind(path string) string {
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		return "chat"
	case strings.HasSuffix(path, "/messages"):
		return "anthropic"
	case strings.HasSuffix(path, "/responses"):
		return "responses"
	case strings.HasSuffix(path, ":generateContent"), strings.HasSuffix(path, ":streamGenerateContent"):
		return "gemini"
	}
	return ""
}

// applyFix edits a request body the way fix says, for the one retry. It
// returns false when the proxy has no edit for the fix in this shape, or
// when the edit changes nothing (a retry would be refused again).
func applyFix(path string, fix replayhttp.Fix, body []byte) ([]byte, bool) {
	kind := bodyKind(path)
	var out []byte
	switch {
	case fix == replayhttp.FixDropBlock && kind == "anthropic":
		var err error
		if out, err = sjson.SetBytes(append([]byte(nil), body...), "thinking.block_binding.mismatch_behavior", "drop_block"); err != nil {
			return nil, false
		}
	case fix == replayhttp.FixDropReasoning:
		out = editList(body, kind, dropReasoning)
	case fix == replayhttp.FixSentinel && kind == "gemini":
		out = editList(body, kind, addSentinel)
	case fix == replayhttp.FixBackfillReasoningContent && kind == "chat":
		out = editList(body, kind, func(_ string, m gjson.Result) string {
			if m.Get("role").Str != "assistant" || m.Get("reasoning_content").Exists() && m.Get("reasoning_content").Type != gjson.Null {
				return m.Raw
			}
			s, _ := sjson.Set(m.Raw, "reasoning_content", "")
			return s
		})
	case fix == replayhttp.FixRemoveReasoningContent && kind == "chat":
		out = editList(body, kind, func(_ string, m gjson.Result) string {
			s, _ := sjson.Delete(m.Raw, "reasoning_content")
			return s
		})
	default:
		return nil, false
	}
	if out == nil || string(out) == string(body) {
		return nil, false
	}
	return out, true
}

// listOf names the conversation array of a request shape.
var listOf = map[string]string{"anthropic": "messages", "chat": "messages", "responses": "input", "gemini": "contents"}

// editList rewrites each element of the body's conversation array with
// edit (which returns the element's new JSON, or "" to remove it).
func editList(body []byte, kind string, edit func(kind string, m gjson.Result) string) []byte {
	list := listOf[kind]
	arr := gjson.GetBytes(body, list)
	if list == "" || !arr.IsArray() {
		return nil
	}
	var b strings.Builder
	b.WriteByte('[')
	n := 0
	arr.ForEach(func(_, m gjson.Result) bool {
		if e := edit(kind, m); e != "" {
			if n > 0 {
				b.WriteByte(',')
			}
			b.WriteString(e)
			n++
		}
		return true
	})
	b.WriteByte(']')
	out, err := sjson.SetRawBytes(append([]byte(nil), body...), list, []byte(b.String()))
	if err != nil {
		return nil
	}
	return out
}

// dropReasoning removes the reasoning from one element: Anthropic
// thinking blocks, OpenAI reasoning items, Gemini thought parts and
// signatures, chat-completions reasoning fields.
func dropReasoning(kind string, m gjson.Result) string {
	switch kind {
	case "responses":
		if m.Get("type").Str == "reasoning" {
			return ""
		}
		return m.Raw
	case "anthropic":
		if m.Get("role").Str != "assistant" || !m.Get("content").IsArray() {
			return m.Raw
		}
		return filterArray(m.Raw, "content", func(b gjson.Result) string {
			if t := b.Get("type").Str; t == "thinking" || t == "redacted_thinking" {
				return ""
			}
			return b.Raw
		})
	case "gemini":
		if m.Get("role").Str != "model" {
			return m.Raw
		}
		return filterArray(m.Raw, "parts", func(p gjson.Result) string {
			if p.Get("thought").Bool() {
				return ""
			}
			s, _ := sjson.Delete(p.Raw, "thoughtSignature")
			return s
		})
	case "chat":
		if m.Get("role").Str != "assistant" {
			return m.Raw
		}
		s := m.Raw
		for _, f := range []string{"reasoning_details", "reasoning_content", "reasoning"} {
			s, _ = sjson.Delete(s, f)
		}
		return s
	}
	return m.Raw
}

// addSentinel writes Gemini's documented skip value as the signature of a
// model step's first function call when the step has no signature.
func addSentinel(_ string, m gjson.Result) string {
	if m.Get("role").Str != "model" {
		return m.Raw
	}
	signed, first := false, -1
	i := -1
	m.Get("parts").ForEach(func(_, p gjson.Result) bool {
		i++
		if p.Get("thoughtSignature").Exists() {
			signed = true
		}
		if first < 0 && p.Get("functionCall").Exists() {
			first = i
		}
		return true
	})
	if signed || first < 0 {
		return m.Raw
	}
	s, err := sjson.Set(m.Raw, "parts."+strconv.Itoa(first)+".thoughtSignature", gemini.Sentinel)
	if err != nil {
		return m.Raw
	}
	return s
}

// filterArray rewrites the array member of obj through keep ("" removes
// an element).
func filterArray(obj, member string, keep func(gjson.Result) string) string {
	var b strings.Builder
	b.WriteByte('[')
	n := 0
	gjson.Get(obj, member).ForEach(func(_, e gjson.Result) bool {
		if k := keep(e); k != "" {
			if n > 0 {
				b.WriteByte(',')
			}
			b.WriteString(k)
			n++
		}
		return true
	})
	b.WriteByte(']')
	s, err := sjson.SetRaw(obj, member, b.String())
	if err != nil {
		return obj
	}
	return s
}
