package anthropic

import (
	"sort"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// API is the codec's API name in the registry.
const API = "anthropic"

// entry is the codec's registration. Vertex also serves Gemini: the Claude
// model patterns let the Gemini codec, which lists vertex with its own
// patterns, win for its models. The provider "bedrock" resolves to the
// Bedrock Converse codec; Claude through Bedrock InvokeModel is this codec,
// by name: replay.Lookup("anthropic", "bedrock", model).
var entry = replay.Entry{
	API:       API,
	Providers: []string{"anthropic", "vertex"},
	Models:    []string{"claude-*", "*claude*"},
	New: func(provider, _ string) replay.ReasoningCodec {
		return Codec{Provider: strings.ToLower(provider)}
	},
}

func init() { replay.Default.MustRegister(entry) }

// Codec is the Anthropic Messages codec. The zero value is ready to use; it
// is a plain value, safe for concurrent use.
type Codec struct {
	// Provider is the platform recorded in decoded turns' provenance
	// ("anthropic", "bedrock", "vertex"). A stream that arrives in Bedrock's
	// chunk envelope is recorded as "bedrock" whatever Provider says; the
	// Anthropic and Vertex wires are identical, so they are told apart only
	// by Provider. Empty leaves the provenance's provider empty.
	Provider string
	// Limits bound what the decoders accept; zero fields take the defaults.
	Limits replay.Limits
}

// API returns "anthropic".
func (Codec) API() string { return API }

// NewStream returns a fresh stream decoder for Messages API events (SSE, or
// one event per line), also in Bedrock's `{"chunk":{"bytes":...}}` envelope.
func (c Codec) NewStream() replay.FrameDecoder {
	return &StreamDecoder{Provider: c.Provider, Limits: c.Limits}
}

func bodyErr(ptr, format string, args ...any) error {
	return replay.Malformed(API, -1, ptr, format, args...)
}

// Decode reads a whole Messages response body (`{"type":"message",...}`).
// An error body (`{"type":"error","error":{...}}`) returns a turn carrying
// the *[replay.ProviderError] and the error itself.
func (c Codec) Decode(body []byte) (*replay.Turn, error) {
	if !jsonw.ValidBytes(body) {
		return nil, bodyErr("", "expected a JSON response body")
	}
	lim := c.Limits.WithDefaults()
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, bodyErr("", "expected a JSON object")
	}
	t := &replay.Turn{Provenance: replay.Provenance{API: API, Provider: c.Provider}}
	typ := root.Get("type")
	if typ.Str == "error" {
		e := root.Get("error")
		pe := &replay.ProviderError{API: API, Type: e.Get("type").String(), Message: e.Get("message").String()}
		t.Error = pe
		return t, pe
	}
	if typ.Exists() && typ.Str != "message" {
		return nil, bodyErr("/type", "expected a message, got %s", typ.Raw)
	}
	if m := root.Get("model"); m.Type == gjson.String {
		t.Provenance.Model = m.Str
	}
	content := root.Get("content")
	if !content.IsArray() {
		return nil, bodyErr("/content", "expected the content array")
	}
	var err error
	i := 0
	content.ForEach(func(_, cb gjson.Result) bool {
		if i >= lim.MaxBlocks {
			err = &replay.LimitError{What: "block count", Limit: lim.MaxBlocks, Event: -1, Block: -1}
			return false
		}
		if len(cb.Raw) > lim.MaxItem {
			err = &replay.LimitError{What: "item size", Limit: lim.MaxItem, Event: -1, Block: -1}
			return false
		}
		var b replay.Block
		b, err = bodyBlock(cb, i)
		if err != nil {
			return false
		}
		t.Blocks = append(t.Blocks, b)
		i++
		return true
	})
	if err != nil {
		return nil, err
	}
	if r := root.Get("stop_reason"); r.Type == gjson.String {
		t.FinishReason = r.Str
	}
	if u := root.Get("usage"); u.IsObject() {
		t.Usage = []byte(u.Raw)
	}
	t.Complete = true
	return t, nil
}

// bodyBlock reads content block i of a response body. gjson.ParseBytes
// copies, so the strings kept do not alias the body.
func bodyBlock(cb gjson.Result, i int) (replay.Block, error) {
	ptr := "/content/" + itoa(i)
	typ := cb.Get("type")
	if !cb.IsObject() || typ.Type != gjson.String {
		return nil, bodyErr(ptr, "expected a content block object with a string type")
	}
	str := func(name string, required bool) (string, error) {
		v := cb.Get(name)
		if v.Type == gjson.String || (!required && !v.Exists()) {
			return v.Str, nil
		}
		return "", bodyErr(ptr+"/"+name, "expected a string")
	}
	switch typ.Str {
	case "thinking":
		text, err := str("thinking", false)
		if err != nil {
			return nil, err
		}
		it := &replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: formats.AnthropicClaude, Index: replay.Some(i),
			Extra: extraMembers(cb, "type", "thinking", "signature")}, Text: text}
		switch sg := cb.Get("signature"); sg.Type {
		case gjson.String:
			it.Signature = replay.Some(sg.Str)
		case gjson.Null:
			if sg.Exists() {
				it.Signature = replay.NullOf[string]()
			}
		default:
			return nil, bodyErr(ptr+"/signature", "expected a string")
		}
		return it, nil
	case "redacted_thinking":
		data, err := str("data", true)
		if err != nil {
			return nil, err
		}
		return &replay.Encrypted{ItemMeta: replay.ItemMeta{Format: formats.AnthropicClaude, Index: replay.Some(i),
			Extra: extraMembers(cb, "type", "data")}, Data: data}, nil
	case "text":
		text, err := str("text", true)
		if err != nil {
			return nil, err
		}
		return &replay.Text{Text: text, Extra: extraMembers(cb, "type", "text")}, nil
	case "tool_use":
		id, err := str("id", true)
		if err != nil {
			return nil, err
		}
		name, err := str("name", true)
		if err != nil {
			return nil, err
		}
		args := "{}"
		if in := cb.Get("input"); in.Exists() {
			args = in.Raw
		}
		return &replay.ToolCall{ID: id, Name: name, Arguments: args, Extra: extraMembers(cb, "type", "id", "name", "input")}, nil
	}
	return &replay.Native{Kind: typ.Str, Raw: []byte(cb.Raw)}, nil
}

func itoa(i int) string { return string(jsonw.Int(nil, i)) }

// sendable reports whether Encode and Patch write the reasoning item: it is
// Claude's ([replay.Format.Family] "anthropic"), and [replay.Replayable].
func sendable(it replay.ReasoningItem) bool {
	if it.Meta().Format.Family() != "anthropic" || !replay.Replayable(it) {
		return false
	}
	switch it.(type) {
	case *replay.ReasoningText, *replay.Encrypted:
		return true
	}
	return false
}

// sameAPI reports whether t came from this API, so that its native blocks
// and the extra members of its text and tool blocks may be written back.
func sameAPI(t *replay.Turn) bool {
	return t.Provenance.API == "" || strings.EqualFold(t.Provenance.API, API)
}

// appendItem writes a thinking or redacted_thinking block.
func appendItem(dst []byte, it replay.ReasoningItem) []byte {
	switch it := it.(type) {
	case *replay.ReasoningText:
		dst = append(dst, `{"type":"thinking","thinking":`...)
		dst = jsonw.String(dst, it.Text)
		dst = jsonw.Key(dst, "signature")
		dst = jsonw.String(dst, it.Signature.Value())
		dst = jsonw.Members(dst, it.Extra)
	case *replay.Encrypted:
		dst = append(dst, `{"type":"redacted_thinking","data":`...)
		dst = jsonw.String(dst, it.Data)
		dst = jsonw.Members(dst, it.Extra)
	}
	return append(dst, '}')
}

// Encode writes the turn as the assistant message of the next request:
// `{"role":"assistant","content":[...]}` with every block in its original
// order. Thinking blocks keep their text (`"thinking":""` when it was
// empty), signature and unknown members; redacted_thinking keeps its data;
// tool_use keeps its id, name and input. Left out: reasoning items that are
// not [replay.Replayable] or not Claude's, unfinished tool calls and server
// blocks, empty text blocks (the API rejects them), and native blocks of a
// turn from another API.
func (c Codec) Encode(t *replay.Turn) ([]byte, error) {
	if t == nil {
		return nil, bodyErr("", "no turn to encode")
	}
	dst := []byte(`{"role":"assistant","content":[`)
	dst, err := appendContent(dst, t)
	if err != nil {
		return nil, err
	}
	return append(dst, "]}"...), nil
}

func appendContent(dst []byte, t *replay.Turn) ([]byte, error) {
	same := sameAPI(t)
	for i, b := range t.Blocks {
		switch b := b.(type) {
		case replay.ReasoningItem:
			if !sendable(b) {
				continue
			}
			dst = jsonw.Comma(dst)
			dst = appendItem(dst, b)
		case *replay.Text:
			if b.Text == "" {
				continue
			}
			dst = jsonw.Comma(dst)
			dst = append(dst, `{"type":"text","text":`...)
			dst = jsonw.String(dst, b.Text)
			if same {
				dst = jsonw.Members(dst, b.Extra)
			}
			dst = append(dst, '}')
		case *replay.ToolCall:
			if b.Unfinished {
				continue
			}
			args := b.Arguments
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			if !gjson.Valid(args) || !gjson.Parse(args).IsObject() {
				return nil, bodyErr("/blocks/"+itoa(i)+"/arguments", "tool_use input must be a JSON object")
			}
			dst = jsonw.Comma(dst)
			dst = append(dst, `{"type":"tool_use","id":`...)
			dst = jsonw.String(dst, b.ID)
			dst = jsonw.Key(dst, "name")
			dst = jsonw.String(dst, b.Name)
			dst = jsonw.Key(dst, "input")
			dst = append(dst, args...)
			if same {
				dst = jsonw.Members(dst, b.Extra)
			}
			dst = append(dst, '}')
		case *replay.Native:
			if b.Unfinished || !same || len(b.Raw) == 0 {
				continue
			}
			dst = jsonw.Comma(dst)
			dst = append(dst, b.Raw...)
		}
	}
	return dst, nil
}

// Patch inserts the turn's thinking and redacted_thinking blocks into an
// assistant message the caller built (`{"role":"assistant","content":...}`
// with text and tool_use blocks) at their original positions, and changes
// nothing else in it: every existing block keeps its bytes.
//
// Each reasoning block goes right after the message block that precedes it
// in the turn (its anchor), or first when nothing precedes it. Anchors are
// tool_use blocks, matched by id, and text blocks, matched by order when the
// message has as many text blocks as the turn. A string content becomes one
// text block. Items that Encode would leave out are not inserted. A message
// that already holds thinking blocks is an error wrapping
// [replay.ErrMalformed].
func (c Codec) Patch(msg []byte, t *replay.Turn) ([]byte, error) {
	if t == nil {
		return nil, bodyErr("", "no turn to patch from")
	}
	if !gjson.ValidBytes(msg) || !gjson.ParseBytes(msg).IsObject() {
		return nil, bodyErr("", "expected an assistant message object")
	}
	content := gjson.GetBytes(msg, "content")
	var elems []string
	switch {
	case content.Type == gjson.String:
		elems = []string{string(jsonw.String([]byte(`{"type":"text","text":`), content.Str)) + "}"}
	case content.IsArray():
		content.ForEach(func(_, v gjson.Result) bool {
			elems = append(elems, v.Raw)
			return true
		})
	case !content.Exists():
	default:
		return nil, bodyErr("/content", "expected a content array or string")
	}
	toolAt := map[string]int{}
	var textAt []int
	for j, e := range elems {
		switch gjson.Get(e, "type").Str {
		case "thinking", "redacted_thinking":
			return nil, bodyErr("/content/"+itoa(j), "the message already holds thinking blocks")
		case "tool_use":
			toolAt[gjson.Get(e, "id").Str] = j
		case "text":
			textAt = append(textAt, j)
		}
	}
	nText := 0
	for _, b := range t.Blocks {
		if _, ok := b.(*replay.Text); ok {
			nText++
		}
	}
	useText := nText == len(textAt)
	type insert struct {
		at  int
		raw []byte
	}
	var ins []insert
	at, ti := 0, 0
	for _, b := range t.Blocks {
		switch b := b.(type) {
		case replay.ReasoningItem:
			if sendable(b) {
				ins = append(ins, insert{at: at, raw: appendItem(nil, b)})
			}
		case *replay.ToolCall:
			if j, ok := toolAt[b.ID]; ok {
				at = j + 1
			}
		case *replay.Text:
			if useText {
				at = textAt[ti] + 1
			}
			ti++
		}
	}
	if len(ins) == 0 {
		return append([]byte(nil), msg...), nil
	}
	sort.SliceStable(ins, func(a, b int) bool { return ins[a].at < ins[b].at })
	arr := []byte{'['}
	k := 0
	for j := 0; j <= len(elems); j++ {
		for k < len(ins) && ins[k].at == j {
			arr = jsonw.Comma(arr)
			arr = append(arr, ins[k].raw...)
			k++
		}
		if j < len(elems) {
			arr = jsonw.Comma(arr)
			arr = append(arr, elems[j]...)
		}
	}
	arr = append(arr, ']')
	out, err := sjson.SetRawBytes(append([]byte(nil), msg...), "content", arr)
	if err != nil {
		return nil, bodyErr("/content", "cannot set the content: %v", err)
	}
	return out, nil
}
