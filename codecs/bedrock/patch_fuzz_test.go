package bedrock

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/patchtest"
)

// The pools fuzzTurn draws a turn's strings and settings from: escapes,
// multi-byte and invalid UTF-8, the names Patch and Strip look for, and
// opaque items that are not objects or not JSON.
var (
	fuzzTexts = [...]string{"", "x", "The answer is 5.", "a\"b\\c\n\t", "é€😀", "\u2028<>&/", "\xff\xfe", "text",
		"tooluse_1", "\u0000\u001f"}
	fuzzIDs     = [...]string{"", "tooluse_1", "tooluse_2", "t\"q", "\ufffd", "tooluse_Qm3vX8rT2LkPz9aW", "é"}
	fuzzSigs    = [...]string{"", "EqQBCkgIBxABGAIiQ==", "s/+=", "\"\\"}
	fuzzFormats = [...]replay.Format{"", formats.AnthropicClaude, replay.FormatUnknown, formats.DeepSeek}
	fuzzExtras  = [...][]byte{nil, []byte(`{"x":1}`), []byte(`{}`), []byte(`{ "y" : [1, {"text":"t"}] }`)}
	fuzzOpaque  = [...]string{`{"reasoningContent":{"futureKind":{"x":1}}}`, `{"a":1} `, ` [1]`, `"s"`, `{`, ``}
)

func pick[T any](pool []T, b byte) T { return pool[int(b)%len(pool)] }

// fuzzTurn builds a turn from spec: its first byte says whether there is
// a turn at all (0xff: none), then every three bytes a block (kind, then
// two parameters). A resp that decodes as a Converse response gives the
// turn instead.
func fuzzTurn(spec, resp []byte) *replay.Turn {
	var head byte
	if len(spec) > 0 {
		head, spec = spec[0], spec[1:]
	}
	if len(resp) > 0 {
		if tu, err := (Codec{Model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0"}).Decode(resp); err == nil {
			return tu
		}
	}
	if head == 0xff {
		return nil
	}
	tu := &replay.Turn{}
	for i := 0; i+3 <= len(spec) && len(tu.Blocks) < 32; i += 3 {
		k, a, b := spec[i], spec[i+1], spec[i+2]
		meta := replay.ItemMeta{Format: pick(fuzzFormats[:], b), Unfinished: b&0x80 != 0}
		var bl replay.Block
		switch k % 7 {
		case 0:
			bl = &replay.Text{Text: pick(fuzzTexts[:], a)}
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
			bl = &replay.Opaque{ItemMeta: meta, Type: "reasoning.x", Raw: []byte(pick(fuzzOpaque[:], a))}
		case 5:
			bl = &replay.Native{Kind: "image", Raw: []byte(`{"image":{"format":"png","source":{"bytes":"AAAA"}}}`),
				Unfinished: a&1 != 0}
		case 6:
			bl = &replay.Summary{ItemMeta: meta, Summary: pick(fuzzTexts[:], a)}
		}
		tu.Blocks = append(tu.Blocks, bl)
	}
	return tu
}

// variants returns msg written other ways that mean the same to a JSON
// reader (indented, its member names escaped), or differently to readers
// that take the first or the last of repeated members, and its blocks
// twice.
func variants(msg []byte) [][]byte {
	var ind bytes.Buffer
	out := [][]byte{}
	if json.Indent(&ind, msg, " ", "\t") == nil {
		out = append(out, ind.Bytes())
	}
	esc := msg
	for _, r := range [][2]string{{`"content":`, `"c\u006fntent":`}, {`"toolUse":`, `"t\u006folUse":`},
		{`"toolUseId":`, `"toolUse\u0049d":`}, {`"text":`, `"t\u0065xt":`}, {`"reasoningContent":`, `"re\u0061soningContent":`}} {
		esc = bytes.ReplaceAll(esc, []byte(r[0]), []byte(r[1]))
	}
	out = append(out, esc)
	dup := bytes.ReplaceAll(msg, []byte(`{"toolUse":{"toolUseId":`), []byte(`{"toolUse":{"toolUseId":7,"toolUseId":`))
	dup = bytes.ReplaceAll(dup, []byte(`{"text":`), []byte(`{"toolUse":null,"text":`))
	dup = bytes.ReplaceAll(dup, []byte(`{"reasoningContent":`), []byte(`{"text":"","reasoningContent":`))
	out = append(out, dup)
	const head = `{"role":"assistant","content":[`
	if inner, ok := bytes.CutPrefix(msg, []byte(head)); ok && bytes.HasSuffix(inner, []byte("]}")) && len(inner) > 2 {
		inner = inner[:len(inner)-2]
		out = append(out, slices.Concat([]byte(head), inner, []byte(","), inner, []byte("]}")))
	}
	return out
}

// checkPatch requires Patch to give what refPatch gives: the same bytes,
// or the same error.
func checkPatch(t *testing.T, msg []byte, tu *replay.Turn) {
	t.Helper()
	patchtest.SamePatch(t, Codec{}.Patch, refPatch, msg, tu)
}

// checkStrip requires Strip to give what refStrip gives on every input
// encoding/json accepts (repeated member names, invalid UTF-8 and any
// depth included), and raw itself whenever it removes nothing.
func checkStrip(t *testing.T, raw []byte) {
	t.Helper()
	patchtest.SameStrip(t, Codec{}.Strip, refStrip, json.Valid, raw)
}

// FuzzPatch requires Patch to write exactly what the gjson reference
// wrote, for the fuzzer's message and for messages made from the turn
// (encoded, stripped, rewritten), and the same errors. Its inputs are a
// message, a turn spec (see fuzzTurn) and a response body that gives the
// turn when it decodes. The seeds (testdata/fuzz/FuzzPatch, shared with
// FuzzStrip) hold every block kind, string and empty content, reasoning
// already there, escaped names, repeated members, white space everywhere,
// deep nesting and values that are no message.
func FuzzPatch(f *testing.F) {
	f.Fuzz(func(t *testing.T, msg, spec, resp []byte) {
		tu := fuzzTurn(spec, resp)
		checkPatch(t, msg, tu)
		if tu == nil {
			return
		}
		wrapped := append(append([]byte(`{"role":"assistant","content":`), msg...), '}')
		checkPatch(t, wrapped, tu)
		checkPatch(t, []byte(`{"role":"assistant","content":[]}`), tu)
		enc, err := Codec{}.Encode(tu)
		if err != nil {
			return
		}
		checkPatch(t, enc, tu)
		stripped, _ := refStrip(enc)
		checkPatch(t, stripped, tu)
		for _, v := range slices.Concat(variants(enc), variants(stripped)) {
			checkPatch(t, v, tu)
		}
	})
}

// FuzzStrip requires Strip to give what the gjson reference gave, for the
// fuzzer's message and for messages encoded from a turn and rewritten,
// and its input itself when nothing goes.
func FuzzStrip(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw, spec []byte) {
		checkStrip(t, raw)
		checkStrip(t, append(append([]byte(`{"role":"assistant","content":`), raw...), '}'))
		tu := fuzzTurn(spec, nil)
		if tu == nil {
			return
		}
		enc, err := Codec{}.Encode(tu)
		if err != nil {
			return
		}
		checkStrip(t, enc)
		for _, v := range variants(enc) {
			checkStrip(t, v)
		}
	})
}
