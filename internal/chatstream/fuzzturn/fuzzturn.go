// Package fuzzturn builds the turns and messages the Patch and Strip fuzz
// targets of the chat-completions codecs feed them: a turn from a few
// fuzz-chosen blocks, and assistant messages in the shapes the codecs meet.
package fuzzturn

import (
	"encoding/json"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/gemsig"
)

// texts are the strings the blocks' texts are chosen from: plain, empty,
// escapes, HTML characters, non-ASCII, a content tag, invalid UTF-8.
var texts = []string{
	"plain text", "", "line one\nline \"two\"\t\\", "<b>a & b</b>", "héllo \u2028 世界 😀",
	"<think>x</think>", "bad \xff utf8", "\x01\x1f ctl", "call_1", "thinking",
}

// ids are the tool call ids: the messages' seeds use the same.
var ids = []string{"call_1", "call_2", "call_3", "", "c\"q", "\u00e9"}

// sigs are the signatures and ciphertexts.
var sigs = []string{"c2lnLTE=", "", "EqQBCkgIARABGAI=", "s<i>g\n", "\xffbad"}

var textFormats = []replay.Format{formats.DeepSeek, formats.MiniMax, formats.AnthropicClaude, formats.Kimi, formats.Mistral, formats.Cohere, formats.GoogleGemini, replay.FormatUnknown}

// Turn builds a turn from spec, two bytes a block (a kind and a variant),
// at most 16 blocks.
func Turn(spec []byte) *replay.Turn {
	t := &replay.Turn{Complete: true}
	for i := 0; i+1 < len(spec) && len(t.Blocks) < 16; i += 2 {
		k, v := spec[i], int(spec[i+1])
		switch k % 10 {
		case 0:
			t.Blocks = append(t.Blocks, &replay.Text{Text: texts[v%len(texts)]})
		case 1:
			t.Blocks = append(t.Blocks, &replay.ToolCall{ID: ids[v%len(ids)], Name: "lookup", Arguments: `{"q":1}`})
		case 2:
			x := &replay.ReasoningText{Text: texts[v%len(texts)]}
			x.Format = textFormats[(v/16)%len(textFormats)]
			if v&4 != 0 {
				x.Signature = replay.Some(sigs[(v/4)%len(sigs)])
			}
			if v&8 != 0 {
				x.Extra = json.RawMessage(`{"source":"content"}`)
			}
			if v&2 != 0 {
				x.ID = replay.Some("rs_" + ids[v%len(ids)])
			}
			t.Blocks = append(t.Blocks, x)
		case 3:
			e := &replay.Encrypted{Data: sigs[v%len(sigs)]}
			e.Format = textFormats[(v/8)%len(textFormats)]
			t.Blocks = append(t.Blocks, e)
		case 4, 5:
			// A Gemini signature bound to the tool call that follows, in one
			// of the places a chat tool call carries it.
			id, sig := ids[v%len(ids)], sigs[(v/8)%len(sigs)]
			var e *replay.Encrypted
			switch (v / 64) % 4 {
			case 0:
				e = gemsig.ItemAt(sig, id, gemsig.ExtraContent)
			case 1:
				e = gemsig.ItemAt(sig, id, gemsig.VertexExtra)
			case 2:
				e = gemsig.Item(sig, id)
				e.Extra = json.RawMessage(`{"source":"thoughtSignature"}`)
			default:
				e = gemsig.Item(sig, id)
				e.Extra = json.RawMessage(`{"source":"thought_signature"}`)
			}
			t.Blocks = append(t.Blocks, e)
			if k%10 == 4 {
				t.Blocks = append(t.Blocks, &replay.ToolCall{ID: id, Name: "lookup", Arguments: `{}`})
			}
		case 6:
			o := &replay.Opaque{Type: "reasoning.weird", Raw: json.RawMessage(`{"type":"reasoning.weird","n":` + string(rune('0'+v%10)) + `}`)}
			o.Format = textFormats[(v/16)%len(textFormats)]
			t.Blocks = append(t.Blocks, o)
		case 7:
			t.Blocks = append(t.Blocks, &replay.Native{Kind: "thinking", Raw: json.RawMessage(`{"type":"thinking","thinking":[{"type":"text","text":"n"}]}`)})
		case 8:
			x := &replay.ReasoningText{Text: texts[v%len(texts)]}
			x.Format = textFormats[(v/16)%len(textFormats)]
			x.Unfinished = v&1 != 0
			t.Blocks = append(t.Blocks, x)
		default:
			s := &replay.Summary{Summary: texts[v%len(texts)]}
			s.Format = textFormats[(v/16)%len(textFormats)]
			t.Blocks = append(t.Blocks, s)
		}
	}
	return t
}

// Messages are assistant messages in the shapes the chat codecs meet,
// each a seed of the fuzz targets (some are not JSON, or not objects).
var Messages = []string{
	`{"role":"assistant","content":"hi"}`,
	`{"role":"assistant","content":""}`,
	`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{}"}}]}`,
	`{"role":"assistant","content":"hi","reasoning_content":"old","tool_calls":[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{}"}},{"id":"call_2","type":"function","function":{"name":"lookup","arguments":"{}"}}]}`,
	`{"role":"assistant","content":"hi","reasoning_details":[{"type":"reasoning.text","text":"t","signature":"s","format":"anthropic-claude-v1","index":0}],"reasoning":"r"}`,
	`{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"x"}],"closed":true},{"type":"text","text":"hi"}],"tool_calls":[]}`,
	`{"role":"assistant","content":[{"type":"thinking","thinking":"x"},{"type":"text","text":"hi"},"bare",{"type":"image_url"},{"t\u0079pe":"thinking"}]}`,
	`{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"tool_plan":"p"}`,
	`{"role":"assistant","tool_calls":[{"id":"call_1","extra_content":{"google":{"thought_signature":"old"},"vertex":{"thought_signature":"v"}}},{"id":"call_2","extra_content":null},{"id":"call_3","extra_content":{"google":[1]}}]}`,
	`{"role":"assistant","tool_calls":[{"id":"call_1","thoughtSignature":"x","extra_content":{"google":"s"}},{"id":"call_1"},{"i\u0064":"call_2","extra_content":{"vertex":{"thought_signature":"a","other":1}}}]}`,
	` { "role" : "assistant" , "reasoning_content" : "x" , "content" : [ { "type" : "thinking" , "thinking" : "y" } , { "type" : "text" , "text" : "z" } ] , "reasoning" : null } `,
	`{"reasoning_details":[],"reasoning_content":"a","reasoning":"b"}`,
	`{"reasoning_content":"a" ,"reasoning":"b" }`,
	`{ "a":1 , "reasoning":2 , "b":3 }`,
	"{\n\t\"reasoning\\u005fcontent\": \"x\",\n\t\"content\": \"c\"\n}",
	`{}`,
	`{ }`,
	`[]`,
	`"text"`,
	`null`,
	`{"content":5}`,
	`{"content":{"type":"thinking"}}`,
	`{"content":[[{"type":"thinking"}]],"tool_calls":{"0":{"id":"call_1"}}}`,
	`{"role":"assistant","content":"a","content":"b"}`,
	`{"a":{"b":{"c":{"d":[[[[{"reasoning":1}]]]]}}},"reasoning":[1,{"x":[2]}]}`,
	`{"role":"assistant"`,
	``,
}

// members are the members Message composes an object of.
var members = []string{
	`"role":"assistant"`,
	`"content":"hi \"there\""`,
	`"content":null`,
	`"content":[{"type":"thinking","thinking":"x"},{"type":"text","text":"hi"}]`,
	`"content":[ {"type":"text","text":"a"} , "bare" , {"t\u0079pe":"thinkin\u0067","thinking":[{"type":"text","text":"y"}]} ,{"type":"thinking"} ]`,
	`"content":[]`,
	`"reasoning_content":"old"`,
	`"reasoning":null`,
	`"reasoning_details":[{"type":"reasoning.text","text":"t"}]`,
	`"reasoning\u005fdetails":{}`,
	`"tool_calls":[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{}"}}]`,
	`"tool_calls":[{"id":"call_1","extra_content":{"google":{"thought_signature":"g"}}},{"id":"call_2","extra_content":{"vertex":{ "x":1, "thought_signature":"v" }, "google":{"thought_signature":"g2","y":2}}}]`,
	`"tool_calls":[ {"i\u0064":"call_3","thoughtSignature":"t","extra_content":"s"} , 7, {"id":"call_1","extra_content":{"google":[]}} ]`,
	`"tool_plan":"plan"`,
	`"name":"n"`,
	`"tool_calls":{"0":{"id":"call_1"}}`,
}

var spaces = []string{"", " ", "\n\t", "  \r\n"}

// Message builds an object of the members spec picks (a byte each), with
// the white space its high bits choose around every token. Members may
// repeat: such a message is not valid, as a request's element never is.
func Message(spec []byte) []byte {
	out := []byte(spaces[0])
	if len(spec) > 0 {
		out = append(out[:0], spaces[int(spec[0]>>6)]...)
	}
	out = append(out, '{')
	for i, b := range spec {
		if i >= 8 {
			break
		}
		if i > 0 {
			out = append(out, spaces[int(b>>6)]...)
			out = append(out, ',')
		}
		out = append(out, spaces[int(b>>4)&3]...)
		out = append(out, members[int(b)%len(members)]...)
	}
	if len(spec) > 0 {
		out = append(out, spaces[int(spec[len(spec)-1]>>4)&3]...)
	}
	out = append(out, '}')
	if len(spec) > 1 {
		out = append(out, spaces[int(spec[1]>>6)]...)
	}
	return out
}
