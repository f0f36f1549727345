package anthropic

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/patchtest"
)

// The pools fuzzTurn draws a turn's strings and settings from: escapes,
// multi-byte and invalid UTF-8, and the names Patch and Strip look for.
var (
	fuzzTexts = [...]string{"", "x", "The answer is 5.", "a\"b\\c\n\t", "é€😀", "\u2028<>&/", "\xff\xfe", "thinking",
		"toolu_1", "\u0000\u001f"}
	fuzzIDs     = [...]string{"", "toolu_1", "toolu_2", "t\"q", "\ufffd", "toolu_01Hq8VnZ3kXr5LmT2sPbYc4D", "é"}
	fuzzSigs    = [...]string{"", "EqQBCkgIBxABGAIiQ==", "s/+=", "\"\\"}
	fuzzFormats = [...]replay.Format{"", formats.AnthropicClaude, replay.FormatUnknown, formats.DeepSeekAnthropic,
		formats.OpenAIResponses}
	fuzzExtras = [...][]byte{nil, []byte(`{"cache_control":{"type":"ephemeral"}}`), []byte(`{}`),
		[]byte(`{ "x" : [1, {"type":"thinking"}] }`)}
	fuzzAPIs   = [...]string{"", API, "Anthropic", "openai-responses"}
	fuzzCodecs = [...]Codec{{}, {Provider: "deepseek"}, {Provider: "other"}, {Provider: "vertex"}}
)

func pick[T any](pool []T, b byte) T { return pool[int(b)%len(pool)] }

// fuzzTurn builds a turn from spec: its first byte picks the codec and
// the turn's API, then every three bytes a block (kind, then two
// parameters). A resp that decodes as a Messages response gives the turn
// instead. nil comes back for a spec that asks for no turn at all.
func fuzzTurn(spec, resp []byte) (Codec, *replay.Turn) {
	var head byte
	if len(spec) > 0 {
		head, spec = spec[0], spec[1:]
	}
	c := pick(fuzzCodecs[:], head)
	if len(resp) > 0 {
		if tu, err := c.Decode(resp); err == nil {
			return c, tu
		}
	}
	if head == 0xff {
		return c, nil
	}
	tu := &replay.Turn{Provenance: replay.Provenance{API: pick(fuzzAPIs[:], head>>2)}}
	for i := 0; i+3 <= len(spec) && len(tu.Blocks) < 32; i += 3 {
		k, a, b := spec[i], spec[i+1], spec[i+2]
		meta := replay.ItemMeta{Format: pick(fuzzFormats[:], b), Unfinished: b&0x80 != 0}
		var bl replay.Block
		switch k % 8 {
		case 0:
			bl = &replay.Text{Text: pick(fuzzTexts[:], a), Extra: pick(fuzzExtras[:], b)}
		case 1:
			bl = &replay.ToolCall{ID: pick(fuzzIDs[:], a), Name: pick(fuzzTexts[:], b), Arguments: `{"q":1}`,
				Unfinished: b&0x80 != 0}
		case 2:
			meta.Extra = pick(fuzzExtras[:], b>>3)
			x := &replay.ReasoningText{ItemMeta: meta, Text: pick(fuzzTexts[:], a)}
			switch b >> 5 & 3 {
			case 0, 1:
				x.Signature = replay.Some(pick(fuzzSigs[:], a>>4))
			case 2:
				x.Signature = replay.NullOf[string]()
			}
			bl = x
		case 3:
			bl = &replay.Encrypted{ItemMeta: meta, Data: pick(fuzzSigs[:], a)}
		case 4:
			bl = &replay.Opaque{ItemMeta: meta, Type: "reasoning.x", Raw: []byte(`{"type":"reasoning.x"}`)}
		case 5:
			bl = &replay.Native{Kind: "server_tool_use", Raw: []byte(`{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}`),
				Unfinished: a&1 != 0}
		case 6:
			bl = &replay.Summary{ItemMeta: meta, Summary: pick(fuzzTexts[:], a)}
		case 7:
			bl = &replay.Compaction{Format: meta.Format, Content: replay.Some(pick(fuzzTexts[:], a)),
				Signature: replay.Some(pick(fuzzSigs[:], b>>4)), Unfinished: meta.Unfinished}
		}
		tu.Blocks = append(tu.Blocks, bl)
	}
	return c, tu
}

// variants returns msg written other ways that mean the same to a JSON
// reader: indented, its member names escaped, its block types escaped,
// a type member repeated before the real one, and its blocks twice.
func variants(msg []byte) [][]byte {
	var ind bytes.Buffer
	out := [][]byte{}
	if json.Indent(&ind, msg, " ", "\t") == nil {
		out = append(out, ind.Bytes())
	}
	esc := bytes.ReplaceAll(msg, []byte(`"type":`), []byte(`"t\u0079pe":`))
	esc = bytes.ReplaceAll(esc, []byte(`"content":`), []byte(`"c\u006fntent":`))
	esc = bytes.ReplaceAll(esc, []byte(`"id":`), []byte(`"\u0069d":`))
	out = append(out, esc)
	val := bytes.ReplaceAll(msg, []byte(`"thinking",`), []byte(`"th\u0069nking",`))
	val = bytes.ReplaceAll(val, []byte(`"redacted_thinking"`), []byte(`"redacted_\u0074hinking"`))
	val = bytes.ReplaceAll(val, []byte(`"text","text"`), []byte(`"\u0074ext","text"`))
	val = bytes.ReplaceAll(val, []byte(`"tool_use","id"`), []byte(`"tool\u005fuse","id"`))
	out = append(out, val)
	// The blocks twice over: every tool_use id names two blocks.
	const head = `{"role":"assistant","content":[`
	if inner, ok := bytes.CutPrefix(msg, []byte(head)); ok && bytes.HasSuffix(inner, []byte("]}")) && len(inner) > 2 {
		inner = inner[:len(inner)-2]
		out = append(out, slices.Concat([]byte(head), inner, []byte(","), inner, []byte("]}")))
	}
	dup := bytes.ReplaceAll(msg, []byte(`{"type":"thinking"`), []byte(`{"type":"text","type":"thinking"`))
	dup = bytes.ReplaceAll(dup, []byte(`{"type":"tool_use","id":`), []byte(`{"id":"other","type":"tool_use","id":`))
	return append(out, dup)
}

// checkPatch requires Patch to give what refPatch gives (see
// patchtest.SamePatch).
func checkPatch(t *testing.T, c Codec, msg []byte, tu *replay.Turn) {
	t.Helper()
	patchtest.SamePatch(t, c.Patch, func(m []byte, tu *replay.Turn) ([]byte, error) { return refPatch(c, m, tu) }, msg, tu)
}

// checkStrip requires Strip to give what refStrip gives on every input
// encoding/json accepts (repeated member names, invalid UTF-8 and any
// depth included), and raw itself whenever it removes nothing.
func checkStrip(t *testing.T, raw []byte) {
	t.Helper()
	patchtest.SameStrip(t, Codec{}.Strip, refStrip, json.Valid, raw)
}

// FuzzPatch requires Patch to write exactly what the gjson/sjson
// reference wrote, for the fuzzer's message and for messages made from
// the turn (encoded, stripped, rewritten), and the same errors. Its
// inputs are a message, a turn spec (see fuzzTurn) and a response body
// that gives the turn when it decodes. The seeds (testdata/fuzz/FuzzPatch,
// shared with FuzzStrip) hold every block kind, string and empty content,
// reasoning already there, escaped names and types, repeated members,
// white space everywhere, deep nesting and values that are no message.
func FuzzPatch(f *testing.F) {
	f.Fuzz(func(t *testing.T, msg, spec, resp []byte) {
		c, tu := fuzzTurn(spec, resp)
		checkPatch(t, c, msg, tu)
		if tu == nil {
			return
		}
		wrapped := append(append([]byte(`{"role":"assistant","content":`), msg...), '}')
		checkPatch(t, c, wrapped, tu)
		checkPatch(t, c, []byte(`{"role":"assistant"}`), tu)
		checkPatch(t, c, []byte(" { } "), tu)
		for _, b := range tu.Blocks {
			if x, ok := b.(*replay.Text); ok {
				checkPatch(t, c, append(jsonw.String([]byte(`{"role":"assistant","content":`), x.Text), '}'), tu)
				break
			}
		}
		enc, err := c.Encode(tu)
		if err != nil {
			return
		}
		checkPatch(t, c, enc, tu)
		stripped, _ := refStrip(enc)
		checkPatch(t, c, stripped, tu)
		for _, v := range variants(stripped) {
			checkPatch(t, c, v, tu)
		}
	})
}

// FuzzStrip requires Strip to give what the gjson reference gave, for the
// fuzzer's message and for messages encoded from a turn and rewritten
// (escaped names and types, white space, repeated members), and its input
// itself when nothing goes.
func FuzzStrip(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw, spec []byte) {
		checkStrip(t, raw)
		checkStrip(t, append(append([]byte(`{"role":"assistant","content":`), raw...), '}'))
		c, tu := fuzzTurn(spec, nil)
		if tu == nil {
			return
		}
		enc, err := c.Encode(tu)
		if err != nil {
			return
		}
		checkStrip(t, enc)
		for _, v := range variants(enc) {
			checkStrip(t, v)
		}
	})
}
