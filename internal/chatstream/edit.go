package chatstream

import (
	"net/http"
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
)

// Fix applies the one-shot fixes of the chat-completions APIs to the
// assistant messages of the turns only reports: drop-reasoning strips
// them; backfill-reasoning-content sends `reasoning_content: ""` where a
// message has none; remove-reasoning-content removes it; drop-duplicates
// sends each reasoning_details item once (by id, across the messages).
func Fix(fix string, r *codecs.Request, only func(int) bool) ([]byte, http.Header, []codecs.Change) {
	var edit func(int, []byte) ([]byte, []codecs.Change)
	switch fix {
	case codecs.FixDropReasoning:
		edit = func(_ int, raw []byte) ([]byte, []codecs.Change) {
			out, ch := Strip(raw)
			return keep(out, ch)
		}
	case codecs.FixBackfillReasoningContent:
		edit = func(_ int, raw []byte) ([]byte, []codecs.Change) {
			if v := gjson.GetBytes(raw, "reasoning_content"); v.Exists() && v.Type != gjson.Null {
				return nil, nil
			}
			out, ok := kit.SetMember(raw, "reasoning_content", []byte(`""`))
			if !ok {
				return nil, nil
			}
			return out, []codecs.Change{{Pointer: "/reasoning_content", Detail: `reasoning_content "" sent where the message had none`}}
		}
	case codecs.FixRemoveReasoningContent:
		edit = func(_ int, raw []byte) ([]byte, []codecs.Change) {
			out, v := kit.DeleteMember(raw, "reasoning_content")
			if !v.Exists() {
				return nil, nil
			}
			return out, []codecs.Change{{Pointer: "/reasoning_content", Removed: true, Detail: "reasoning_content removed"}}
		}
	case codecs.FixDropDuplicates:
		seen := map[string]bool{}
		edit = func(_ int, raw []byte) ([]byte, []codecs.Change) {
			var dups []string
			out, removed := kit.FilterArray(raw, "reasoning_details", func(el gjson.Result) bool {
				id := el.Get("id").Str
				if id == "" {
					return false
				}
				if seen[id] {
					dups = append(dups, id)
					return true
				}
				seen[id] = true
				return false
			})
			var ch []codecs.Change
			for i, p := range removed {
				ch = append(ch, codecs.Change{Pointer: p, Removed: true, Detail: "duplicate reasoning_details item " + strconv.Quote(dups[i]) + " removed"})
			}
			return keep(out, ch)
		}
	default:
		return r.Body, nil, nil
	}
	body, changes := codecs.EditTurns(r, only, edit)
	return body, nil, changes
}

func keep(out []byte, ch []codecs.Change) ([]byte, []codecs.Change) {
	if len(ch) == 0 {
		return nil, nil
	}
	return out, ch
}

// ReadWith reads a chat-completions request body for the middleware: the
// turns decode reads, the `messages` elements, and the `tools` the turns
// are bound to (the system prompt is a message).
func ReadWith(body []byte, decode func([]byte) (replay.History, replay.Target, error)) (*codecs.Request, error) {
	return codecs.ReadWith(body, "messages", []string{"tools", "functions"}, []string{"cache_control"}, nil, decode)
}

// RenameResults renames the call id of a chat tool message
// (`{"role":"tool","tool_call_id":...}`).
func RenameResults(el []byte, rename func(string) (string, bool)) []byte {
	return kit.RenameIn(el, "", func(b gjson.Result) bool { return b.Get("role").Str == "tool" }, "tool_call_id", rename)
}
