package replay

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/turnfn"
	"github.com/stretchr/testify/require"
)

// sampleDocTurns are turns built with the library's own API, of the shapes
// a store keeps: an Anthropic tool loop (signed thinking, redacted
// thinking, text, tool calls) and an OpenAI Responses turn (summaries,
// encrypted content, function calls with their item ids), with
// provenance, usage and a transformation.
func sampleDocTurns() map[string]*Turn {
	const anthropic, responses = Format("anthropic-claude-v1"), Format("openai-responses-v1")
	thinking := strings.Repeat("Let me look at the failing test first: the fixture \"a/b\" is read twice.\n", 12)
	sig := strings.Repeat("EqQBCkYIBxgCKkB0aGlzIGlzIGEgc2lnbmF0dXJl", 8)
	an := &Turn{
		Provenance: Provenance{API: "anthropic", Provider: "anthropic", Model: "claude-sonnet-4-5", RequestedModel: "claude-sonnet-4-5",
			Account: "acct-1", PrefixHash: "sha256:" + strings.Repeat("ab", 32), ChainHash: "sha256:" + strings.Repeat("cd", 32)},
		Complete: true, FinishReason: "tool_use",
		Usage: json.RawMessage(`{"input_tokens":1520,"output_tokens":388,"cache_read_input_tokens":1024}`),
	}
	for i := 0; i < 4; i++ {
		an.Blocks = append(an.Blocks,
			&ReasoningText{ItemMeta: ItemMeta{Format: anthropic, Index: Some(3 * i)}, Text: thinking, Signature: Some(sig)},
			&Text{Text: "I will read the file and run the tests.\n"},
			&ToolCall{ID: "toolu_01A09q90qw90lq917835lq9" + string(rune('a'+i)), Name: "read_file", Arguments: `{"path":"src/main.go","offset":0,"limit":200}`},
		)
	}
	an.Blocks = append(an.Blocks, &Encrypted{ItemMeta: ItemMeta{Format: anthropic, Index: Some(12)}, Data: strings.Repeat("RWtZS0FoZ0JFZ3dG", 20)})
	oa := &Turn{
		Provenance: Provenance{API: "openai-responses", Provider: "openai", Model: "gpt-5", Account: "org-1", PrefixHash: "sha256:" + strings.Repeat("01", 32)},
		Complete:   true, FinishReason: "completed",
		Usage:           json.RawMessage(`{"input_tokens":2210,"output_tokens":912,"output_tokens_details":{"reasoning_tokens":640}}`),
		Transformations: []Transformation{{Type: "dropped", Reason: "unsigned", Path: "/blocks/9"}},
	}
	for i := 0; i < 4; i++ {
		id := "rs_68af3c2e9d1c8190a1b2c3d4e5f6a7b8" + string(rune('a'+i))
		oa.Blocks = append(oa.Blocks,
			&Summary{ItemMeta: ItemMeta{Format: responses, ID: Some(id), Index: Some(0)}, Summary: "**Planning the search**\n\nI need the weather for two cities, so two calls."},
			&Summary{ItemMeta: ItemMeta{Format: responses, ID: Some(id), Index: Some(1)}, Summary: "**Checking units**\n\nCelsius is asked for."},
			&Encrypted{ItemMeta: ItemMeta{Format: responses, ID: Some(id)}, Data: strings.Repeat("gAAAAABov3K9xY2ZhYmNkZWZnaGlqa2xtbm9w", 16)},
			&ToolCall{ID: "call_Xy12Ab34Cd56Ef78" + string(rune('a'+i)), Name: "get_weather", Arguments: `{"city":"Paris","units":"celsius"}`, ItemID: "fc_68af3c2f0e2c8190" + string(rune('a'+i))},
		)
	}
	oa.Blocks = append(oa.Blocks, &Text{Text: "Paris is 18 °C and Lyon 21 °C.", ID: "msg_68af3c31", Extra: json.RawMessage(`{"annotations":[],"phase":"final_answer"}`)})
	return map[string]*Turn{"anthropic-tool-loop": an, "openai-responses": oa}
}

// version1Doc is a version-1 document: the same members the version-2
// writer writes, read by version 1's rules (its prefix_hash is a legacy
// one, and it has no legacy_prefix_hash).
func version1Doc(tu *Turn) []byte {
	c := *tu
	c.Provenance.LegacyPrefixHash, c.Provenance.PrefixHash = "", ""
	doc := c.AppendJSON(nil)
	return []byte(strings.Replace(string(doc), `{"version":2,`, `{"version":1,`, 1))
}

func benchDocs(b *testing.B) map[string][]byte {
	docs := map[string][]byte{}
	for name, tu := range sampleDocTurns() {
		docs[name] = tu.AppendJSON(nil)
	}
	docs["anthropic-tool-loop-v1"] = version1Doc(sampleDocTurns()["anthropic-tool-loop"])
	for name, tu := range typicalDocTurns() {
		docs[name] = tu.AppendJSON(nil)
	}
	for name, d := range docs {
		if _, err := UnmarshalTurn(d); err != nil {
			b.Fatalf("%s: %v", name, err)
		}
	}
	return docs
}

// typicalDocTurns are stored turns of the shapes a tool loop stores one
// of per answer (one to four blocks), sealed as the middleware seals
// what it captures: signed thinking with text and one or two tool calls,
// summaries and encrypted content with a tool call, and a text alone.
func typicalDocTurns() map[string]*Turn {
	const anthropic, responses = Format("anthropic-claude-v1"), Format("openai-responses-v1")
	thinking := strings.Repeat("The test reads the fixture \"a/b\" twice; the second read sees the first one's offset.\n", 8)
	sig := strings.Repeat("EqQBCkYIBxgCKkB0aGlzIGlzIGEgc2lnbmF0dXJl", 10)
	prov := Provenance{API: "anthropic", Provider: "anthropic", Model: "claude-sonnet-4-5", RequestedModel: "claude-sonnet-4-5",
		Account: "acct-1", PrefixHash: "sha256:" + strings.Repeat("ab", 32), ChainHash: "sha256:" + strings.Repeat("cd", 32)}
	usage := json.RawMessage(`{"input_tokens":1520,"output_tokens":388,"cache_read_input_tokens":1024}`)
	think := func() Block {
		return &ReasoningText{ItemMeta: ItemMeta{Format: anthropic, Index: Some(0)}, Text: thinking, Signature: Some(sig)}
	}
	call := func(i int) Block {
		return &ToolCall{ID: "toolu_01A09q90qw90lq917835lq9" + string(rune('a'+i)), Name: "read_file",
			Arguments: `{"path":"src/main.go","offset":0,"limit":200}`}
	}
	turns := map[string]*Turn{
		"typical-thinking-text-call": {Provenance: prov, Complete: true, FinishReason: "tool_use", Usage: usage,
			Blocks: []Block{think(), &Text{Text: "I will read the file first."}, call(0)}},
		"typical-thinking-text-2calls": {Provenance: prov, Complete: true, FinishReason: "tool_use", Usage: usage,
			Blocks: []Block{think(), &Text{Text: "I will read both files."}, call(0), call(1)}},
		"typical-summary-encrypted-call": {
			Provenance: Provenance{API: "openai-responses", Provider: "openai", Model: "gpt-5", Account: "org-1", PrefixHash: "sha256:" + strings.Repeat("01", 32)},
			Complete:   true, FinishReason: "completed",
			Usage: json.RawMessage(`{"input_tokens":2210,"output_tokens":912,"output_tokens_details":{"reasoning_tokens":640}}`),
			Blocks: []Block{
				&Summary{ItemMeta: ItemMeta{Format: responses, ID: Some("rs_68af3c2e9d1c8190a1b2c3d4e5f6a7b8"), Index: Some(0)}, Summary: "**Planning the search**\n\nI need the weather for two cities."},
				&Encrypted{ItemMeta: ItemMeta{Format: responses, ID: Some("rs_68af3c2e9d1c8190a1b2c3d4e5f6a7b8")}, Data: strings.Repeat("gAAAAABov3K9xY2ZhYmNkZWZnaGlqa2xtbm9w", 16)},
				&ToolCall{ID: "call_Xy12Ab34Cd56Ef78", Name: "get_weather", Arguments: `{"city":"Paris","units":"celsius"}`, ItemID: "fc_68af3c2f0e2c8190"},
			}},
		"typical-text": {Provenance: prov, Complete: true, FinishReason: "end_turn", Usage: usage,
			Blocks: []Block{&Text{Text: "All tests pass now."}}},
	}
	for _, tu := range turns {
		tu.Seal()
	}
	return turns
}

// benchDocNames are the documents of benchDocs, in the order the
// benchmarks read them.
var benchDocNames = []string{"anthropic-tool-loop", "openai-responses", "anthropic-tool-loop-v1",
	"typical-thinking-text-call", "typical-thinking-text-2calls", "typical-summary-encrypted-call", "typical-text"}

func BenchmarkUnmarshalTurn(b *testing.B) {
	docs := benchDocs(b)
	for _, name := range benchDocNames {
		doc := docs[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(doc)))
			for i := 0; i < b.N; i++ {
				if _, err := UnmarshalTurn(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadTurnShared is BenchmarkUnmarshalTurn of the shared read
// (turnfn.ReadTurnShared) of the same documents.
func BenchmarkReadTurnShared(b *testing.B) {
	docs := benchDocs(b)
	read := turnfn.ReadTurnShared.(func(string) (*Turn, error))
	for _, name := range benchDocNames {
		doc := string(docs[name])
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(doc)))
			for i := 0; i < b.N; i++ {
				if _, err := read(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// sameResult fails t unless two readers' results are the same: the same
// value (reflect.DeepEqual, nil and empty told apart), or the same error:
// its text, pointer and kind.
func sameResult(t *testing.T, data []byte, got, want any, gotErr, wantErr error) {
	t.Helper()
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("%q: error %v, reference %v", data, gotErr, wantErr)
	}
	if wantErr != nil {
		var g, w *Error
		if !errors.As(gotErr, &g) || !errors.As(wantErr, &w) {
			t.Fatalf("%q: untyped error %v (reference %v)", data, gotErr, wantErr)
		}
		if g.Pointer != w.Pointer || g.Event != w.Event || g.API != w.API || gotErr.Error() != wantErr.Error() ||
			errors.Is(gotErr, ErrMalformed) != errors.Is(wantErr, ErrMalformed) || errors.Is(gotErr, ErrVersion) != errors.Is(wantErr, ErrVersion) {
			t.Fatalf("%q:\nerror     %q at %q\nreference %q at %q", data, gotErr, g.Pointer, wantErr, w.Pointer)
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\nread      %#v\nreference %#v", data, got, want)
	}
}

// FuzzUnmarshalTurn: UnmarshalTurn reads every input exactly as the
// reference reader does (the same turn, or the same error at the same
// pointer), the shared read (turnfn.ReadTurnShared) of the same bytes as
// UnmarshalTurn does, and what it reads writes a document that reads back
// the same.
func FuzzUnmarshalTurn(f *testing.F) {
	for _, tu := range sampleDocTurns() {
		f.Add(tu.AppendJSON(nil))
		f.Add(version1Doc(tu))
	}
	readShared := turnfn.ReadTurnShared.(func(string) (*Turn, error))
	f.Fuzz(func(t *testing.T, data []byte) {
		tu, err := UnmarshalTurn(data)
		ref, refErr := unmarshalTurnRef(data)
		sameResult(t, data, tu, ref, err, refErr)
		// The shared read of the same bytes reads what UnmarshalTurn reads.
		sh, shErr := readShared(string(data))
		sameResult(t, data, sh, tu, shErr, err)
		if err != nil {
			return
		}
		if extraRepeats(tu) {
			t.Fatalf("a turn read holds an Extra that repeats a name, which the writer would write twice:\n%s", data)
		}
		doc := tu.AppendJSON(nil)
		back, err := UnmarshalTurn(doc)
		if err != nil {
			t.Fatalf("own output does not read back: %v\n%s", err, doc)
		}
		if again := back.AppendJSON(nil); string(again) != string(doc) {
			t.Fatalf("unstable:\n%s\n%s", doc, again)
		}
		if !reflect.DeepEqual(back, emptyExtrasAsNil(tu)) {
			t.Fatalf("round trip changed the turn:\n%#v\n%#v", tu, back)
		}
	})
}

// extras returns the Extra of each of tu's blocks and transformations.
func extras(tu *Turn) []*json.RawMessage {
	var out []*json.RawMessage
	for i := range tu.Transformations {
		out = append(out, &tu.Transformations[i].Extra)
	}
	for _, b := range tu.Blocks {
		switch b := b.(type) {
		case *ReasoningText:
			out = append(out, &b.Extra)
		case *Summary:
			out = append(out, &b.Extra)
		case *Encrypted:
			out = append(out, &b.Extra)
		case *Text:
			out = append(out, &b.Extra)
		case *ToolCall:
			out = append(out, &b.Extra)
		case *Compaction:
			out = append(out, &b.Extra)
		}
	}
	return out
}

// extraRepeats reports whether the Extra of one of tu's blocks or
// transformations holds a member name twice.
func extraRepeats(tu *Turn) bool {
	for _, x := range extras(tu) {
		if _, dup := jsonw.Duplicate(string(*x)); dup {
			return true
		}
	}
	return false
}

// emptyExtrasAsNil sets every Extra of tu that is an object with no
// member to nil: an empty "extra" object is read as it came, and written
// as nothing.
func emptyExtrasAsNil(tu *Turn) *Turn {
	for _, x := range extras(tu) {
		if _, _, _, ok := jsonw.NextMember(string(*x), 0); len(*x) > 0 && !ok {
			*x = nil
		}
	}
	return tu
}

// FuzzUnmarshalItem: UnmarshalItem and UnmarshalItemWire read every input
// exactly as the reference readers do.
func FuzzUnmarshalItem(f *testing.F) {
	for _, tu := range sampleDocTurns() {
		for _, b := range tu.Blocks {
			if it, ok := b.(ReasoningItem); ok {
				f.Add(it.AppendJSON(nil))
				f.Add(it.AppendWire(nil))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		it, err := UnmarshalItem(data)
		ref, refErr := unmarshalItemRef(data)
		sameResult(t, data, it, ref, err, refErr)
		it, err = UnmarshalItemWire(data)
		ref, refErr = unmarshalItemWireRef(data)
		sameResult(t, data, it, ref, err, refErr)
	})
}

// The strings and raw values of a turn share one buffer: appending to a
// raw value (a caller may) never writes over what follows it.
func TestReadValuesDoNotShareCapacity(t *testing.T) {
	tu := sampleDocTurns()["openai-responses"]
	tu.Blocks = append(tu.Blocks, &Native{Kind: "web_search_call", Raw: json.RawMessage(`{"type":"web_search_call","id":"ws_1"}`)})
	doc := tu.AppendJSON(nil)
	read, err := UnmarshalTurn(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := string(read.AppendJSON(nil))
	if want != string(doc) {
		t.Fatalf("read back:\n%s\n%s", want, doc)
	}
	raws := []*json.RawMessage{&read.Usage, &read.Transformations[0].Extra}
	for _, b := range read.Blocks {
		switch b := b.(type) {
		case *Native:
			raws = append(raws, &b.Raw)
		case *Text:
			raws = append(raws, &b.Extra)
		}
	}
	for _, r := range raws {
		_ = append(*r, `xxxxxxxxxxxxxxxx`...)
	}
	if got := string(read.AppendJSON(nil)); got != want {
		t.Fatalf("appending to a raw value changed the turn:\n%s\n%s", got, want)
	}
}

// A provider member may stand beside a block's own members or in its
// "extra" object, not in both under one name: one Extra cannot hold both,
// and written back it would repeat the name.
func TestExtraNamedTwice(t *testing.T) {
	for _, c := range []struct{ doc, ptr string }{
		{`{"version":2,"complete":true,"blocks":[{"type":"text","text":"a","foo":1,"extra":{"foo":2}}]}`, "/blocks/0/extra"},
		{`{"version":2,"complete":true,"blocks":[{"type":"text","text":"a"},{"type":"reasoning.text","text":"t","signature":"c2ln","extra":{"bar":[]},"bar":0}]}`, "/blocks/1/extra"},
		{`{"version":2,"complete":true,"blocks":[{"type":"tool_call","id":"i","name":"n","arguments":"{}","extra":{"id":"x","q":1},"q":2}]}`, "/blocks/0/extra"},
	} {
		_, err := UnmarshalTurn([]byte(c.doc))
		var e *Error
		require.ErrorAs(t, err, &e, c.doc)
		require.ErrorIs(t, err, ErrMalformed)
		require.Equal(t, c.ptr, e.Pointer, c.doc)
		_, refErr := unmarshalTurnRef([]byte(c.doc))
		require.EqualError(t, refErr, err.Error())
	}
	// Different names, beside and in extra, are one Extra, and read back.
	tu, err := UnmarshalTurn([]byte(`{"version":2,"complete":true,"blocks":[{"type":"text","text":"a","foo":1,"extra":{"bar":2}}]}`))
	require.NoError(t, err)
	require.JSONEq(t, `{"foo":1,"bar":2}`, string(tu.Blocks[0].(*Text).Extra))
	back, err := UnmarshalTurn(tu.AppendJSON(nil))
	require.NoError(t, err)
	require.Equal(t, tu, back)
}
