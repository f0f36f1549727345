package gemini

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/patchtest"
	"github.com/reasonreplay/replay/stream"
)

// fuzzSigs are the signatures a fuzzed turn carries: base64, the dummy
// and an encoding of it, empty, and values sjson writes through
// encoding/json (quotes, backslashes, non-ASCII, control bytes, HTML).
var fuzzSigs = []string{"QQ==", "Ck1TaWduZWRUaG91Z2h0VHdv", "EqQB+/8=", Sentinel,
	base64.StdEncoding.EncodeToString([]byte(Sentinel)), "", `a"b\c`, "é<>&\u2028", "\x01x", "\xff"}

var fuzzTexts = []string{"", "a", "Seven bridges.", "x\"y\n"}
var fuzzNames = []string{"f", "get_tides", "", "1", "é"}
var fuzzIDs = []string{"", "a", "p0z7w2cd", "k3v9q1ab"}
var fuzzKinds = []string{"executableCode", "inlineData", "part", "", "functionCall", "codeExecutionResult"}

// fuzzSeedTurns are the turns of the package's response fixtures.
func fuzzSeedTurns(tb testing.TB) []*replay.Turn {
	return patchtest.SeedTurns(tb, dir, func(ext string, data []byte) *replay.Turn {
		switch ext {
		case ".json":
			if tu, err := (Codec{}).Decode(data); err == nil {
				return tu
			}
		case ".sse":
			return codectest.FeedPush(newFD(), stream.Options{}, [][]byte{data}).Turn
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
	}
	rest := spec[1:]
	for len(rest) >= 2 {
		k, c := int(rest[0]), int(rest[1])
		rest = rest[2:]
		format := formats.GoogleGemini
		if k&0x80 != 0 {
			format = formats.AnthropicClaude
		}
		sig := fuzzSigs[c%len(fuzzSigs)]
		var bl replay.Block
		switch k & 7 {
		case 0:
			bl = &replay.Text{Text: fuzzTexts[c%len(fuzzTexts)]}
		case 1:
			bl = &replay.ToolCall{Name: fuzzNames[c%len(fuzzNames)], ID: fuzzIDs[(c/8)%len(fuzzIDs)], Arguments: `{}`, Unfinished: k&0x40 != 0}
		case 2:
			bl = &replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: format, Unfinished: k&0x40 != 0}, Text: fuzzTexts[(c/16)%len(fuzzTexts)], Signature: replay.Some(sig)}
		case 3:
			bl = &replay.Encrypted{ItemMeta: replay.ItemMeta{Format: format, Attached: true, Unfinished: k&0x40 != 0}, Data: sig}
		case 4:
			bl = &replay.Encrypted{ItemMeta: replay.ItemMeta{Format: format, ID: replay.Some(fuzzIDs[(c/16)%len(fuzzIDs)])}, Data: sig}
		case 5:
			bl = &replay.Opaque{ItemMeta: replay.ItemMeta{Format: format}, Type: "x", Raw: []byte(`{"type":"x"}`)}
		case 6:
			kind := fuzzKinds[c%len(fuzzKinds)]
			raw, _ := json.Marshal(map[string]any{kind: map[string]any{}})
			bl = &replay.Native{Kind: kind, Raw: raw, Unfinished: k&0x40 != 0}
		default:
			bl = &replay.Text{Text: fuzzTexts[c%len(fuzzTexts)], Extra: []byte(`{"x":1}`)}
		}
		tu.Blocks = append(tu.Blocks, bl)
	}
	return tu
}

// escapeNames writes the member names a patch or a strip looks for with
// escapes, as a client may.
var escapeNames = strings.NewReplacer(`"thoughtSignature":`, `"thoughtSign\u0061ture":`, `"thought":`, `"th\u006fught":`,
	`"text":`, `"t\u0065xt":`, `"functionCall":`, `"f\u0075nctionCall":`, `"name":`, `"n\u0061me":`, `"id":`, `"\u0069d":`, `"parts":`, `"p\u0061rts":`)

// fuzzMessages returns msg and messages made from the turn: its encoding,
// stripped, with its thought parts stripped, indented, with escaped member
// names, and patched.
func fuzzMessages(msg []byte, tu *replay.Turn) [][]byte {
	msgs := [][]byte{msg}
	if tu == nil {
		return msgs
	}
	enc, err := Codec{}.Encode(tu)
	if err != nil {
		return msgs
	}
	stripped, _ := refStripParts(enc, false)
	bare, _ := refStripParts(enc, true)
	msgs = append(msgs, enc, stripped, bare)
	for _, m := range [][]byte{enc, stripped} {
		var ind bytes.Buffer
		if json.Indent(&ind, m, " ", "\t") == nil {
			msgs = append(msgs, ind.Bytes())
		}
		msgs = append(msgs, []byte(escapeNames.Replace(string(m))))
	}
	if p, _, err := refPatch(Codec{Sentinel: true}, stripped, tu); err == nil {
		msgs = append(msgs, p)
	}
	return msgs
}

// samePatch requires PatchReport to give what the reference gives (see
// patchtest.SamePatch), and the same sentinel uses.
func samePatch(t *testing.T, c Codec, msg []byte, tu *replay.Turn) {
	t.Helper()
	var gotUses, wantUses []SentinelUse
	var gotErr error
	patchtest.SamePatch(t, func(m []byte, tu *replay.Turn) (out []byte, err error) {
		out, gotUses, gotErr = c.PatchReport(m, tu)
		return out, gotErr
	}, func(m []byte, tu *replay.Turn) (out []byte, err error) {
		out, wantUses, err = refPatch(c, m, tu)
		return out, err
	}, msg, tu)
	if gotErr == nil && !reflect.DeepEqual(gotUses, wantUses) {
		t.Fatalf("uses %#v, reference %#v\nmsg %s", gotUses, wantUses, msg)
	}
}

// FuzzPatch holds PatchReport (with and without the sentinel) to the
// reference, on the fuzzed message and on messages made from the turn.
func FuzzPatch(f *testing.F) {
	seeds := fuzzSeedTurns(f)
	f.Add([]byte(`{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]}`), []byte{200, 1, 1}, true)
	f.Fuzz(func(t *testing.T, msg, spec []byte, sentinel bool) {
		tu := fuzzTurn(seeds, spec)
		for _, m := range fuzzMessages(msg, tu) {
			samePatch(t, Codec{Sentinel: sentinel}, m, tu)
		}
	})
}

// sameStrip requires stripParts to give what the reference gives on a
// valid JSON text (Strip reads a turn of a request that passed
// jsonw.Valid); on any other it must not panic.
func sameStrip(t *testing.T, raw []byte, thoughts bool) {
	t.Helper()
	patchtest.SameStrip(t, func(r []byte) ([]byte, []codecs.Change) { return stripParts(r, thoughts) },
		func(r []byte) ([]byte, []codecs.Change) { return refStripParts(r, thoughts) }, jsonw.ValidBytes, raw)
}

// FuzzStrip holds Strip (and the drop-reasoning fix's strip of thought
// parts) to the reference, on the fuzzed text and on messages made from
// the turn.
func FuzzStrip(f *testing.F) {
	seeds := fuzzSeedTurns(f)
	f.Add([]byte(`{"role":"model","parts":[{"text":"a","thoughtSignature":"QQ=="}]}`), []byte{0, 2, 2})
	f.Fuzz(func(t *testing.T, raw, spec []byte) {
		for _, m := range fuzzMessages(raw, fuzzTurn(seeds, spec)) {
			sameStrip(t, m, false)
			sameStrip(t, m, true)
		}
	})
}

// A content with nothing to strip is returned as it is, without
// allocating, its member names escaped or not; one with an escaped
// signature name is stripped.
func TestStripNothingAllocates(t *testing.T) {
	for _, msg := range []string{
		`{"role":"model","parts":[{"text":"a","thought":true},{"text":"b"},{"functionCall":{"name":"f","args":{}}}]}`,
		`{"r\u006fle":"model","p\u0061rts":[{"t\u0065xt":"a","th\u006fught":true},{"f\u0075nctionCall":{"n\u0061me":"f","args":{}}}]}`,
	} {
		raw := []byte(msg)
		if n := testing.AllocsPerRun(100, func() { Codec{}.Strip(raw) }); n != 0 {
			t.Errorf("%v allocations: %s", n, msg)
		}
		if out, ch := (Codec{}).Strip(raw); &out[0] != &raw[0] || ch != nil {
			t.Errorf("stripped %s", msg)
		}
	}
	out, ch := Codec{}.Strip([]byte(`{"p\u0061rts":[{"t\u0065xt":"a","thoughtSign\u0061ture":"QQ=="}]}`))
	if string(out) != `{"p\u0061rts":[{"t\u0065xt":"a"}]}` || len(ch) != 1 || ch[0].Pointer != "/parts/0" {
		t.Errorf("stripped %s %v", out, ch)
	}
}
