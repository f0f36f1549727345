package anthropic

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/tidwall/gjson"
)

// This file holds the rules on the layout of a request's messages: where
// thinking blocks may sit in an assistant message, which members they may
// carry, what their text may be, and where a mid-conversation system
// message may sit.

// The Messages API's texts for them (after the location path).
const (
	predictFirstBlock  = "If an assistant message contains any thinking blocks, the first block must be `thinking` or `redacted_thinking`. Found `%s`."
	predictFinalBlock  = "The final block in an assistant message cannot be `%s`."
	predictBlank       = "each thinking block must contain non-whitespace thinking"
	predictEmptied     = "each thinking block must contain thinking"
	predictSystemOrder = "role 'system' must precede an 'assistant' message or end the array"
)

// blank reports whether s is not empty and holds only white space.
func blank(s string) bool {
	return s != "" && strings.TrimSpace(s) == ""
}

// checkBlankThinking looks at the thinking text of every assistant message
// of the request: text of white space alone is never what Claude produced;
// an empty text under a signature whose captured block had text (an
// earlier message's: the latest one is checkModified's) was emptied. An
// empty text under a signature that was captured empty (display
// "omitted") is normal output.
func (c Codec) checkBlankThinking(h *replay.History, msgs []gjson.Result, latest int, report func(replay.Violation)) {
	captured := map[string]string{}
	for _, tu := range h.Turns {
		for _, a := range turnAnchors(tu) {
			if a.typ == "thinking" && a.key != "" {
				captured[a.key] = a.text
			}
		}
	}
	for i, m := range msgs {
		if m.Get("role").Str != "assistant" {
			continue
		}
		j := -1
		m.Get("content").ForEach(func(_, b gjson.Result) bool {
			j++
			if b.Get("type").Str != "thinking" {
				return true
			}
			text, sig := b.Get("thinking"), b.Get("signature").Str
			v := replay.Violation{Turn: -1, Block: -1, Pointer: contentPointer(i, j) + "/thinking"}
			switch was, ok := captured[sig]; {
			case text.Type == gjson.String && blank(text.Str):
				v.Message = "the thinking block's text is white space only: it is not the text Claude produced"
				v.Predicted = at(contentPath(i, j)+".thinking", predictBlank)
				v.Fix = "send the thinking block as captured (its text, or \"\" when the display was omitted), or drop it"
			case i != latest && text.Type == gjson.String && text.Str == "" && ok && was != "":
				v.Message = "the thinking block's text was emptied: its signature covers the text captured with it"
				v.Predicted = at(contentPath(i, j)+".thinking", predictEmptied)
				v.Fix = "send the thinking block with its captured text, or drop it (from the start or the end of the chain)"
			default:
				return true
			}
			report(v)
			return true
		})
	}
}

// checkBlockMembers: a thinking or redacted_thinking block carries only
// the members the API takes back; `cache_control` on one is an extra input.
func (c Codec) checkBlockMembers(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
	for i, m := range requestMessages(h) {
		if m.Get("role").Str != "assistant" {
			continue
		}
		j := -1
		m.Get("content").ForEach(func(_, b gjson.Result) bool {
			j++
			typ := b.Get("type").Str
			if !isThinking(b) || !b.Get("cache_control").Exists() {
				return true
			}
			report(replay.Violation{Turn: -1, Block: -1, Pointer: contentPointer(i, j) + "/cache_control",
				Message:   "a " + typ + " block carries cache_control, which the API does not take on it",
				Predicted: at(contentPath(i, j)+"."+typ+".cache_control", predictExtraInputs),
				Fix:       "put the cache_control marker on another block of the message (Encode writes thinking blocks without it)"})
			return true
		})
	}
}

// checkBlockOrder: an assistant message that holds thinking starts with a
// thinking or redacted_thinking block (a compaction block may come first)
// and does not end with one. Claude's own responses under adaptive
// thinking have started with white-space text: such a message is a risk.
func (c Codec) checkBlockOrder(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
	if c.Format() != formats.AnthropicClaude {
		return
	}
	for i, m := range requestMessages(h) {
		content := m.Get("content")
		if m.Get("role").Str != "assistant" || !content.IsArray() || firstThinking(m) < 0 {
			continue
		}
		blocks := content.Array()
		first, lastAt := 0, len(blocks)-1
		for first < len(blocks) && blocks[first].Get("type").Str == "compaction" {
			first++
		}
		if b := blocks[first]; !isThinking(b) {
			typ := b.Get("type").Str
			v := replay.Violation{Turn: -1, Block: -1, Pointer: contentPointer(i, first) + "/type",
				Message:   fmt.Sprintf("the assistant message holds thinking blocks but starts with %s", typ),
				Predicted: at(contentPath(i, first), fmt.Sprintf(predictFirstBlock, typ)),
				Fix:       "send the message's blocks in the order the response had them, thinking first; drop a block put before it"}
			if typ == "text" && blank(b.Get("text").Str) {
				v.Severity = replay.SeverityRisk
				v.Message += " (white space only, as adaptive thinking has produced)"
			}
			report(v)
		}
		if b := blocks[lastAt]; isThinking(b) {
			typ := b.Get("type").Str
			report(replay.Violation{Turn: -1, Block: -1, Pointer: contentPointer(i, lastAt),
				Message:   "the assistant message ends with a " + typ + " block",
				Predicted: at("messages."+strconv.Itoa(i), fmt.Sprintf(predictFinalBlock, typ)),
				Fix:       "drop the trailing thinking block, or the whole message when nothing else is left"})
		}
	}
}

// checkSystemOrder: a mid-conversation `role: "system"` message precedes an
// assistant message or ends the messages.
func (c Codec) checkSystemOrder(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
	msgs := requestMessages(h)
	for i, m := range msgs {
		if m.Get("role").Str != "system" || i+1 >= len(msgs) {
			continue
		}
		if next := msgs[i+1].Get("role").Str; next != "assistant" {
			report(replay.Violation{Turn: -1, Block: -1, Pointer: "/messages/" + strconv.Itoa(i),
				Message:   fmt.Sprintf("the system message at %d is followed by a %s message", i, next),
				Predicted: at("messages."+strconv.Itoa(i), predictSystemOrder),
				Fix:       "send a mid-conversation system message right before an assistant message, or last"})
		}
	}
}
