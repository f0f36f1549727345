package ollama

import (
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Encode writes t as the assistant message of an /api/chat request:
// `{"role":"assistant","content":...,"thinking":...,"tool_calls":[...]}`.
// content is the turn's visible text; thinking the text of its replayable
// reasoning items of format [replay.FormatUnknown], joined in order (what
// Ollama's own message held: items are cut where a stream's thinking was
// interrupted); tool_calls its finished calls, each with its id when it has
// one, its arguments as the object they are, and its other members back
// where they came from. An item of another kind or issuer has no field
// here (see [RuleInexpressible], [RuleForeignReasoning]).
func (c Codec) Encode(t *replay.Turn) ([]byte, error) {
	if t == nil {
		return nil, kit.NoTurn(API, "encode")
	}
	dst := append([]byte(nil), `{"role":"assistant","content":`...)
	dst = jsonw.String(dst, visible(t))
	if th, ok := thinking(t); ok {
		dst = jsonw.Key(dst, "thinking")
		dst = jsonw.String(dst, th)
	}
	k := 0
	for _, b := range t.Blocks {
		tc, ok := b.(*replay.ToolCall)
		if !ok || tc.Unfinished {
			continue
		}
		if k == 0 {
			dst = append(dst, `,"tool_calls":[`...)
		}
		var err error
		if dst, err = appendCall(jsonw.Comma(dst), tc, k); err != nil {
			return nil, err
		}
		k++
	}
	if k > 0 {
		dst = append(dst, ']')
	}
	return append(dst, '}'), nil
}

// visible returns the turn's visible text.
func visible(t *replay.Turn) string {
	var b strings.Builder
	for _, blk := range t.Blocks {
		if x, ok := blk.(*replay.Text); ok {
			b.WriteString(x.Text)
		}
	}
	return b.String()
}

// thinking returns the text of the turn's replayable reasoning items of an
// unattributed format, joined in order, and whether there was any.
func thinking(t *replay.Turn) (string, bool) {
	var b strings.Builder
	any := false
	for _, blk := range t.Blocks {
		x, ok := blk.(*replay.ReasoningText)
		if !ok || !x.Replayable() || (x.Format != replay.FormatUnknown && x.Format != "") {
			continue
		}
		b.WriteString(x.Text)
		any = true
	}
	return b.String(), any
}

// appendCall appends the k-th tool call of the message.
func appendCall(dst []byte, tc *replay.ToolCall, k int) ([]byte, error) {
	args := strings.TrimSpace(tc.Arguments)
	if args == "" {
		args = "{}"
	}
	if !jsonw.Valid(args) || args[0] != '{' {
		return nil, codecs.Malformed(API, -1, "/tool_calls/"+strconv.Itoa(k)+"/function/arguments",
			"Ollama takes a tool call's arguments as a JSON object; the call has %q", clip(args))
	}
	var outer, inner []byte
	if len(tc.Extra) > 0 && jsonw.ValidBytes(tc.Extra) && gjson.ParseBytes(tc.Extra).IsObject() {
		var fn []byte
		outer, fn = jsonw.SplitMembers(tc.Extra, "function")
		if f := gjson.GetBytes(fn, "function"); f.IsObject() {
			inner = []byte(f.Raw)
		}
	}
	dst = append(dst, '{')
	if tc.ID != "" {
		dst = jsonw.Key(dst, "id")
		dst = jsonw.String(dst, tc.ID)
	}
	dst = jsonw.Key(dst, "function")
	dst = append(dst, '{')
	dst = jsonw.Members(dst, inner)
	dst = jsonw.Key(dst, "name")
	dst = jsonw.String(dst, tc.Name)
	dst = jsonw.Key(dst, "arguments")
	dst = append(dst, args...)
	dst = append(dst, '}')
	dst = jsonw.Members(dst, outer)
	return append(dst, '}'), nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// Patch sets the `thinking` of msg, an assistant message the caller
// built, to the turn's reasoning (see [Codec.Encode]); it changes nothing
// else, and nothing when the turn has no reasoning Ollama takes.
func (c Codec) Patch(msg []byte, t *replay.Turn) ([]byte, error) {
	if t == nil {
		return nil, kit.NoTurn(API, "patch")
	}
	if err := kit.CheckBody(API, msg, "an assistant message object to patch"); err != nil {
		return nil, err
	}
	if !gjson.ParseBytes(msg).IsObject() {
		return nil, codecs.Malformed(API, -1, "", "expected an assistant message object to patch")
	}
	th, ok := thinking(t)
	if !ok {
		return append([]byte(nil), msg...), nil
	}
	out, err := sjson.SetRawBytes(append([]byte(nil), msg...), "thinking", jsonw.String(nil, th))
	if err != nil {
		return nil, codecs.Malformed(API, -1, "/thinking", "cannot set thinking: %v", err)
	}
	return out, nil
}
