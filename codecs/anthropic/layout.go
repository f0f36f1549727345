package anthropic

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/jsonw"
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
func (c Codec) checkBlankThinking(h *replay.History, latest int, report func(replay.Violation)) {
	var captured map[string]string // the captured text of each signature, made when a text is empty
	emptied := func(sig string) bool {
		if captured == nil {
			n := 0
			for _, tu := range h.Turns {
				for _, b := range tu.Blocks {
					if _, ok := b.(*replay.ReasoningText); ok {
						n++
					}
				}
			}
			captured = make(map[string]string, n)
			for _, tu := range h.Turns {
				for _, b := range tu.Blocks {
					if x, ok := b.(*replay.ReasoningText); ok && x.Signature.Value() != "" {
						captured[x.Signature.Value()] = x.Text // as turnAnchors keys a thinking block
					}
				}
			}
		}
		was, ok := captured[sig]
		return ok && was != ""
	}
	for _, tb := range thinkingBlocks(h) {
		if !tb.assistant || tb.redacted {
			continue
		}
		b, i, j := tb.b, tb.msg, tb.j
		text := b.Get("thinking")
		v := replay.Violation{Turn: -1, Block: -1}
		switch {
		case blankVal(text):
			v.Message = "the thinking block's text is white space only: it is not the text Claude produced"
			v.Predicted = at(contentPath(i, j)+".thinking", predictBlank)
			v.Fix = "send the thinking block as captured (its text, or \"\" when the display was omitted), or drop it"
		case i != latest && text.Is("") && emptied(b.Get("signature").Str()):
			v.Message = "the thinking block's text was emptied: its signature covers the text captured with it"
			v.Predicted = at(contentPath(i, j)+".thinking", predictEmptied)
			v.Fix = "send the thinking block with its captured text, or drop it (from the start or the end of the chain)"
		default:
			continue
		}
		v.Pointer = contentPointer(i, j) + "/thinking"
		report(v)
	}
}

// blankVal is blank on a string value (false for any other), read in
// place: escapes are decoded one at a time, up to the first character
// that is not white space.
func blankVal(v jsonw.Val) bool {
	if !v.IsString() {
		return false
	}
	raw := v.Raw()
	inner := raw[1 : len(raw)-1]
	switch {
	case inner == "":
		return false
	case !v.Escaped():
		return blank(inner)
	}
	if b, ok := blankEscaped(inner); ok {
		return b
	}
	return blank(v.Str())
}

// blankEscaped is blank on the decoded text of inner, the raw text of a
// JSON string between its quotes; ok is false when an escape is not one
// JSON has (the caller decodes the text in full).
func blankEscaped(inner string) (isBlank, ok bool) {
	for i := 0; i < len(inner); {
		c := inner[i]
		switch {
		case c == '\\' && i+1 < len(inner):
			switch inner[i+1] {
			case 'n', 't', 'r', 'f':
				i += 2
				continue
			case 'u':
				if i+6 > len(inner) {
					return false, false
				}
				n, err := strconv.ParseUint(inner[i+2:i+6], 16, 16)
				if err != nil {
					return false, false
				}
				// A surrogate stands for a character above U+FFFF, or for
				// U+FFFD alone: neither is white space.
				if r := rune(n); utf16.IsSurrogate(r) || !unicode.IsSpace(r) {
					return false, true
				}
				i += 6
				continue
			}
			return false, true // \b, \", \\, \/
		case c < utf8.RuneSelf:
			if !unicode.IsSpace(rune(c)) {
				return false, true
			}
			i++
		default:
			r, size := utf8.DecodeRuneInString(inner[i:])
			if !unicode.IsSpace(r) {
				return false, true
			}
			i += size
		}
	}
	return len(inner) > 0, true
}

// checkBlockMembers: a thinking or redacted_thinking block carries only
// the members the API takes back; `cache_control` on one is an extra input.
func (c Codec) checkBlockMembers(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
	for _, tb := range thinkingBlocks(h) {
		if !tb.assistant || !tb.b.Get("cache_control").Exists() {
			continue
		}
		typ, i, j := "thinking", tb.msg, tb.j
		if tb.redacted {
			typ = "redacted_thinking"
		}
		report(replay.Violation{Turn: -1, Block: -1, Pointer: contentPointer(i, j) + "/cache_control",
			Message:   "a " + typ + " block carries cache_control, which the API does not take on it",
			Predicted: at(contentPath(i, j)+"."+typ+".cache_control", predictExtraInputs),
			Fix:       "put the cache_control marker on another block of the message (Encode writes thinking blocks without it)"})
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
	requestMessages(h).ForEach(func(i int, _ string, m jsonw.Val) bool {
		content := m.Get("content")
		if !m.Get("role").Is("assistant") || !content.IsArray() || firstThinking(m) < 0 {
			return true
		}
		first, lastAt := 0, content.Len()-1
		for first < content.Len() && content.Index(first).Get("type").Is("compaction") {
			first++
		}
		if b := content.Index(first); !isThinking(b) {
			typ := b.Get("type").Str()
			v := replay.Violation{Turn: -1, Block: -1, Pointer: contentPointer(i, first) + "/type",
				Message:   fmt.Sprintf("the assistant message holds thinking blocks but starts with %s", typ),
				Predicted: at(contentPath(i, first), fmt.Sprintf(predictFirstBlock, typ)),
				Fix:       "send the message's blocks in the order the response had them, thinking first; drop a block put before it"}
			if typ == "text" && blank(b.Get("text").Str()) {
				v.Severity = replay.SeverityRisk
				v.Message += " (white space only, as adaptive thinking has produced)"
			}
			report(v)
		}
		if b := content.Index(lastAt); isThinking(b) {
			typ := b.Get("type").Str()
			report(replay.Violation{Turn: -1, Block: -1, Pointer: contentPointer(i, lastAt),
				Message:   "the assistant message ends with a " + typ + " block",
				Predicted: at("messages."+strconv.Itoa(i), fmt.Sprintf(predictFinalBlock, typ)),
				Fix:       "drop the trailing thinking block, or the whole message when nothing else is left"})
		}
		return true
	})
}

// checkSystemOrder: a mid-conversation `role: "system"` message precedes an
// assistant message or ends the messages.
func (c Codec) checkSystemOrder(h *replay.History, _ *replay.Target, report func(replay.Violation)) {
	msgs := requestMessages(h)
	for i, n := 0, msgs.Len(); i < n; i++ {
		if !msgs.Index(i).Get("role").Is("system") || i+1 >= n {
			continue
		}
		if next := msgs.Index(i + 1).Get("role").Str(); next != "assistant" {
			report(replay.Violation{Turn: -1, Block: -1, Pointer: "/messages/" + strconv.Itoa(i),
				Message:   fmt.Sprintf("the system message at %d is followed by a %s message", i, next),
				Predicted: at("messages."+strconv.Itoa(i), predictSystemOrder),
				Fix:       "send a mid-conversation system message right before an assistant message, or last"})
		}
	}
}
