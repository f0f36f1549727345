package openai

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/patchtest"
	"github.com/reasonreplay/replay/stream"
	"github.com/tidwall/gjson"
)

var fuzzIDs = []string{"rs_1", "rs_2", "", "msg_1", "fc_1", "r\"s\\3é"}
var fuzzCallIDs = []string{"c1", "c2", "", "msg_1"}
var fuzzData = []string{"gAAAA", "", "x\"y"}

// fuzzSeedTurns are the turns of the codec's response fixtures.
func fuzzSeedTurns(tb testing.TB) []*replay.Turn {
	return patchtest.SeedTurns(tb, filepath.Join("..", "..", "testdata", "openai"), func(ext string, data []byte) *replay.Turn {
		switch ext {
		case ".json":
			if tu, err := (Codec{}).Decode(data); err == nil {
				return tu
			}
		case ".sse":
			tu, _ := stream.Decode(bytes.NewReader(data), Codec{}, stream.Options{})
			return tu
		}
		return nil
	})
}

// fuzzTurn builds a turn from spec: none when spec is empty, a seed turn
// (with blocks from the rest of spec appended) when its first byte is
// below 64, else blocks from pairs of bytes (kind, choice).
func fuzzTurn(seeds []*replay.Turn, spec []byte) *replay.Turn {
	if len(spec) == 0 {
		return nil
	}
	tu := &replay.Turn{Complete: true}
	if spec[0] < 64 {
		s := seeds[int(spec[0])%len(seeds)]
		tu.Blocks = append(tu.Blocks, s.Blocks...)
		tu.Provenance = s.Provenance
	}
	rest := spec[1:]
	for len(rest) >= 2 {
		k, c := int(rest[0]), int(rest[1])
		rest = rest[2:]
		format := formats.OpenAIResponses
		if k&0x80 != 0 {
			format = formats.AnthropicClaude
		}
		id := fuzzIDs[c%len(fuzzIDs)]
		meta := replay.ItemMeta{Format: format, ID: replay.Some(id), Unfinished: k&0x40 != 0}
		if id == "" && c&0x40 != 0 {
			meta.ID = replay.Opt[string]{}
		}
		var bl replay.Block
		switch k & 7 {
		case 0:
			bl = &replay.Text{Text: "t", ID: id}
		case 1:
			bl = &replay.ToolCall{Name: "f", ID: fuzzCallIDs[(c/8)%len(fuzzCallIDs)], ItemID: id, Arguments: `{}`}
		case 2:
			bl = &replay.ReasoningText{ItemMeta: meta, Text: "think"}
		case 3:
			bl = &replay.Encrypted{ItemMeta: meta, Data: fuzzData[(c/8)%len(fuzzData)]}
		case 4:
			bl = &replay.Summary{ItemMeta: meta, Summary: "sum"}
		case 5:
			raw, _ := json.Marshal(map[string]any{"type": "reasoning", "id": id})
			bl = &replay.Native{Kind: "reasoning", Raw: raw}
		case 6:
			raw, _ := json.Marshal(map[string]any{"type": "web_search_call", "id": id})
			bl = &replay.Native{Kind: "web_search_call", Raw: raw}
		default:
			bl = &replay.Opaque{ItemMeta: meta, Type: "x", Raw: []byte(`{"type":"x"}`)}
		}
		tu.Blocks = append(tu.Blocks, bl)
	}
	return tu
}

// escapeNames writes the member names a patch or a strip looks for with
// escapes, as a client may.
var escapeNames = strings.NewReplacer(`"id":`, `"\u0069d":`, `"type":`, `"t\u0079pe":`, `"call_id":`, `"call\u005fid":`,
	`"role":`, `"r\u006fle":`, `"input":`, `"inp\u0075t":`, `"reasoning"`, `"re\u0061soning"`, `"assistant"`, `"\u0061ssistant"`)

// fuzzMessages returns msg and messages made from the turn: its encoding,
// stripped, indented, with escaped member names and values, and each as
// the input of a request object.
func fuzzMessages(msg []byte, tu *replay.Turn) [][]byte {
	msgs := [][]byte{msg}
	if tu == nil {
		return msgs
	}
	enc, err := Codec{}.Encode(tu)
	if err != nil {
		return msgs
	}
	stripped, _ := refStrip(enc)
	for _, m := range [][]byte{enc, stripped} {
		var ind bytes.Buffer
		forms := [][]byte{m, []byte(escapeNames.Replace(string(m)))}
		if json.Indent(&ind, m, " ", "\t") == nil {
			forms = append(forms, ind.Bytes())
		}
		for _, f := range forms {
			msgs = append(msgs, f, []byte(`{"model":"gpt-5", "input" : `+string(f)+` ,"store":false}`))
		}
	}
	return msgs
}

// samePatch requires Patch to give what the reference gives (see
// patchtest.SamePatch).
func samePatch(t *testing.T, c Codec, msg []byte, tu *replay.Turn) {
	t.Helper()
	patchtest.SamePatch(t, c.Patch, func(m []byte, tu *replay.Turn) ([]byte, error) { return refPatch(c, m, tu) }, msg, tu)
}

// FuzzPatch holds Patch (stateless and stored, with and without reasoning
// text) to the reference, on the fuzzed message and on messages made from
// the turn.
func FuzzPatch(f *testing.F) {
	seeds := fuzzSeedTurns(f)
	f.Add([]byte(`[{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"}]`), []byte{200, 3, 0, 1, 4}, uint8(0))
	f.Fuzz(func(t *testing.T, msg, spec []byte, mode uint8) {
		tu := fuzzTurn(seeds, spec)
		c := Codec{Stored: mode&1 != 0, ReasoningText: mode&2 != 0}
		for _, m := range fuzzMessages(msg, tu) {
			samePatch(t, c, m, tu)
		}
	})
}

// refStripAs is the reference with the decision it is held to: a text
// that is not an array (a run of input items) is returned as it is.
func refStripAs(raw []byte, drop func(gjson.Result) bool) ([]byte, []codecs.Change) {
	if r := gjson.ParseBytes(raw); !r.IsArray() {
		return raw, nil
	}
	return refStripDrop(raw, drop)
}

// sameStrip requires strip to give what the reference gives on a valid
// JSON text (Strip reads a run of a request that passed jsonw.Valid); on
// any other it must not panic.
func sameStrip(t *testing.T, raw []byte) {
	t.Helper()
	patchtest.SameStrip(t, Codec{}.Strip, func(r []byte) ([]byte, []codecs.Change) {
		return refStripAs(r, func(gjson.Result) bool { return true })
	}, jsonw.ValidBytes, raw)
	keep := string(raw)
	unenc, unencCh := strip(raw, func(el string) bool { return !itemHas(el, "encrypted_content") })
	if string(raw) != keep {
		t.Fatalf("strip changed its input")
	}
	if !jsonw.ValidBytes(raw) {
		return
	}
	want, wantCh := refStripAs(raw, func(el gjson.Result) bool { return !el.Get("encrypted_content").Exists() })
	if !bytes.Equal(unenc, want) || !reflect.DeepEqual(unencCh, wantCh) {
		t.Fatalf("stripped of unencrypted\n%s %v\nreference\n%s %v\nraw %s", unenc, unencCh, want, wantCh, raw)
	}
}

// FuzzStrip holds Strip (and strip with the restore fix's choice) to the
// reference, on the fuzzed text and on messages made from the turn.
func FuzzStrip(f *testing.F) {
	seeds := fuzzSeedTurns(f)
	f.Add([]byte(`[{"type":"reasoning","id":"rs_1","summary":[]},{"type":"function_call","id":"fc_1","call_id":"c1"}]`), []byte{0, 2, 2})
	f.Fuzz(func(t *testing.T, raw, spec []byte) {
		for _, m := range fuzzMessages(raw, fuzzTurn(seeds, spec)) {
			sameStrip(t, m)
		}
	})
}

// A run with nothing to strip is returned as it is, without allocating,
// its member names escaped or not; one with an escaped reasoning type is
// stripped.
func TestStripNothingAllocates(t *testing.T) {
	for _, msg := range []string{
		`[{"type":"message","role":"assistant","id":"msg_1","content":[]},{"type":"function_call","id":"fc_1","call_id":"c1","name":"f","arguments":"{}"}]`,
		`[{"t\u0079pe":"message","r\u006fle":"assistant","\u0069d":"msg_1"},{"t\u0079pe":"function_call","\u0069d":"fc_1"}]`,
	} {
		raw := []byte(msg)
		if n := testing.AllocsPerRun(100, func() { Codec{}.Strip(raw) }); n != 0 {
			t.Errorf("%v allocations: %s", n, msg)
		}
		if out, ch := (Codec{}).Strip(raw); &out[0] != &raw[0] || ch != nil {
			t.Errorf("stripped %s", msg)
		}
	}
	out, ch := Codec{}.Strip([]byte(`[{"t\u0079pe":"re\u0061soning","\u0069d":"rs_1"},{"t\u0079pe":"function_call","\u0069d":"fc_1","call_id":"c1"}]`))
	if string(out) != `[{"t\u0079pe":"function_call","call_id":"c1"}]` || len(ch) != 2 || ch[1].Detail != `item id "fc_1" removed with the reasoning item it followed` {
		t.Errorf("stripped %s %v", out, ch)
	}
}
