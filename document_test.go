package replay_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sampleTurn() *replay.Turn {
	return &replay.Turn{
		Provenance: replay.Provenance{API: "anthropic", Provider: "bedrock", Model: "claude-sonnet-4-5", Account: "acct-1", PrefixHash: "sha256:ab"},
		Complete:   true, FinishReason: "tool_use",
		Usage: json.RawMessage(`{"input_tokens":10}`),
		Blocks: []replay.Block{
			&replay.ReasoningText{ItemMeta: replay.ItemMeta{Format: formats.AnthropicClaude, Index: replay.Some(0)}, Text: "think", Signature: replay.Some("EqQBCkYIBxgCKkB/+==")},
			&replay.Encrypted{ItemMeta: replay.ItemMeta{Format: formats.AnthropicClaude, Index: replay.Some(1)}, Data: "EmwKAhgB"},
			&replay.Text{Text: "Checking.", ID: "msg_1", Extra: json.RawMessage(`{"phase":"commentary"}`)},
			&replay.ToolCall{ID: "toolu_1", Name: "get", Arguments: `{"q":"x"}`, ItemID: "fc_1"},
			&replay.Native{Kind: "server_tool_use", Raw: json.RawMessage(`{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}}`)},
			&replay.Encrypted{ItemMeta: replay.ItemMeta{Format: formats.GoogleGemini, Attached: true}, Data: "CiQB"},
		},
	}
}

func TestTurnDocumentRoundTrip(t *testing.T) {
	tu := sampleTurn()
	doc, err := json.Marshal(tu)
	require.NoError(t, err)
	var back replay.Turn
	require.NoError(t, json.Unmarshal(doc, &back))
	assert.Equal(t, tu.Provenance, back.Provenance)
	require.Len(t, back.Blocks, len(tu.Blocks))
	again, _ := json.Marshal(&back)
	assert.Equal(t, string(doc), string(again))
	assert.Equal(t, "EqQBCkYIBxgCKkB/+==", back.Blocks[0].(*replay.ReasoningText).Signature.Value())
	assert.True(t, back.Blocks[5].(replay.ReasoningItem).Meta().Attached)
	assert.Equal(t, "Checking.", back.VisibleText())
	assert.Len(t, back.ToolCalls(), 1)
	assert.Len(t, back.Items(), 3)
}

func TestTurnDocumentErrorsNameTheMember(t *testing.T) {
	for _, c := range []struct{ json, pointer string }{
		{`{"complete":true,"blocks":[]}`, "/version"},
		{`{"version":1,"complete":"yes","blocks":[]}`, "/complete"},
		{`{"version":1,"complete":true}`, "/blocks"},
		{`{"version":1,"complete":true,"blocks":[{"type":"banana"}]}`, "/blocks/0/type"},
		{`{"version":1,"complete":true,"blocks":[{"type":"text","text":"a"},{"type":"reasoning.encrypted"}]}`, "/blocks/1/data"},
		{`{"version":1,"complete":true,"blocks":[{"type":"reasoning.text","text":"a","signature":["x"]}]}`, "/blocks/0/signature"},
		{`{"version":1,"complete":true,"blocks":[{"type":"tool_call","id":1}]}`, "/blocks/0/id"},
		{`{"version":1,"complete":true,"blocks":[{"type":"native","kind":"x"}]}`, "/blocks/0/raw"},
		{`{"version":1,"complete":true,"provenance":{"model":3},"blocks":[]}`, "/provenance/model"},
	} {
		_, err := replay.UnmarshalTurn([]byte(c.json))
		var e *replay.Error
		require.ErrorAs(t, err, &e, c.json)
		assert.Equal(t, c.pointer, e.Pointer, c.json)
	}
	for _, v := range []string{"3", "0", "1.5", `"2"`} {
		_, err := replay.UnmarshalTurn([]byte(`{"version":` + v + `,"complete":true,"blocks":[]}`))
		assert.ErrorIs(t, err, replay.ErrVersion, v)
	}
}

func TestMarkUnfinished(t *testing.T) {
	tu := sampleTurn()
	tu.MarkUnfinished()
	assert.False(t, tu.Complete)
	for _, it := range tu.Items() {
		assert.False(t, it.Replayable())
	}
	assert.True(t, tu.ToolCalls()[0].Unfinished)
}

// A provider member named like one of the document's own members puts the
// block's provider members, all of them and byte for byte, in the
// document's "extra" object; they read back, and go out on the wire beside
// the others, in their order.
func TestExtraMembersNamedLikeTheDocuments(t *testing.T) {
	it, err := replay.UnmarshalItemWire([]byte(`{"type":"reasoning.text","text":"t","signature":"c2ln","unfinished":"by provider","digest":7,"x":1,"format":"anthropic-claude-v1"}`))
	require.NoError(t, err)
	doc := it.AppendJSON(nil)
	assert.Equal(t, `{"type":"reasoning.text","text":"t","signature":"c2ln","format":"anthropic-claude-v1","extra":{"unfinished":"by provider","digest":7,"x":1}}`, string(doc))
	back, err := replay.UnmarshalItem(doc)
	require.NoError(t, err)
	assert.False(t, back.Meta().Unfinished)
	assert.Equal(t, string(doc), string(back.AppendJSON(nil)))
	assert.Equal(t, string(it.AppendWire(nil)), string(back.AppendWire(nil)))
	assert.Equal(t, `{"type":"reasoning.text","text":"t","signature":"c2ln","format":"anthropic-claude-v1","unfinished":"by provider","digest":7,"x":1}`, string(back.AppendWire(nil)))

	tu := &replay.Turn{Complete: true, Blocks: []replay.Block{
		&replay.Text{Text: "hi", Extra: json.RawMessage(`{"id":"part-7","phase":"final"}`)},
		&replay.ToolCall{ID: "c1", Name: "f", Arguments: "{}", Extra: json.RawMessage(`{"name":"shadow","kind":"custom"}`)},
		&replay.ToolCall{ID: "c2", Name: "g", Arguments: "{}", Extra: json.RawMessage(`{"caller":{"type": "direct"},"kind":"x"}`)},
		&replay.Text{Text: "plain", Extra: json.RawMessage(`{"phase":"final","n":1}`)},
	}}
	doc = tu.AppendJSON(nil)
	assert.Contains(t, string(doc), `{"type":"text","text":"hi","extra":{"id":"part-7","phase":"final"}}`)
	assert.Contains(t, string(doc), `"arguments":"{}","extra":{"name":"shadow","kind":"custom"}}`)
	assert.Contains(t, string(doc), `"arguments":"{}","caller":{"type": "direct"},"kind":"x"}`, "white space inside a value stays")
	assert.Contains(t, string(doc), `{"type":"text","text":"plain","phase":"final","n":1}`)
	again, err := replay.UnmarshalTurn(doc)
	require.NoError(t, err)
	for i, b := range tu.Blocks {
		assert.Equal(t, b, again.Blocks[i], "block %d", i)
	}
	assert.Equal(t, "", again.Blocks[0].(*replay.Text).ID)
	assert.Equal(t, string(doc), string(again.AppendJSON(nil)))

	// Version 1 kept only the names it took in "extra"; any other "extra"
	// is a provider member of that name, written beside by its first
	// builds.
	old, err := replay.UnmarshalTurn([]byte(`{"version":1,"complete":true,"blocks":[{"type":"text","text":"a","extra":{"phase":"x"}},{"type":"text","text":"b","p":1,"extra":{"id":"i"}}]}`))
	require.NoError(t, err)
	assert.Equal(t, `{"extra":{"phase":"x"}}`, string(old.Blocks[0].(*replay.Text).Extra))
	assert.Equal(t, `{"p":1,"id":"i"}`, string(old.Blocks[1].(*replay.Text).Extra))
	// Since version 2 "extra" holds the whole of them.
	cur, err := replay.UnmarshalTurn([]byte(`{"version":2,"complete":true,"blocks":[{"type":"text","text":"a","extra":{"phase": "x"}}]}`))
	require.NoError(t, err)
	assert.Equal(t, `{"phase": "x"}`, string(cur.Blocks[0].(*replay.Text).Extra))
}

// pieces records each Write.
type pieces []string

func (p *pieces) Write(b []byte) (int, error) { *p = append(*p, string(b)); return len(b), nil }

// failAfter fails every Write after the first n bytes.
type failAfter struct{ n int }

func (f *failAfter) Write(b []byte) (int, error) {
	if len(b) > f.n {
		m := f.n
		f.n = 0
		return m, errors.New("disk full")
	}
	f.n -= len(b)
	return len(b), nil
}

// TestTurnWriteTo: the document written in pieces is AppendJSON's, byte
// for byte, cut only between blocks; a writer's error stops it and is
// returned with the count written.
func TestTurnWriteTo(t *testing.T) {
	big := &replay.Turn{Provenance: replay.Provenance{API: "openrouter"}, Complete: true}
	for i := 0; i < 40; i++ {
		big.Blocks = append(big.Blocks, sampleTurn().Blocks...)
		big.Blocks = append(big.Blocks, &replay.Text{Text: strings.Repeat(fmt.Sprintf("part %d, \"quoted\" é\n", i), 400)})
	}
	for _, tu := range []*replay.Turn{sampleTurn(), {}, big} {
		want := tu.AppendJSON(nil)
		var got pieces
		n, err := tu.WriteTo(&got)
		require.NoError(t, err)
		assert.Equal(t, int64(len(want)), n)
		assert.Equal(t, string(want), strings.Join(got, ""))
		for _, p := range got[:len(got)-1] {
			assert.GreaterOrEqual(t, len(p), 32<<10, "a piece is written once it is large")
			assert.True(t, strings.HasSuffix(p, "[") || strings.HasSuffix(p, "},"), "a piece ends before a block: %q", p[len(p)-10:])
		}
		if tu == big {
			assert.Greater(t, len(got), 5)
		} else {
			assert.Len(t, got, 1)
		}
	}
	n, err := big.WriteTo(&failAfter{n: 40000})
	assert.EqualError(t, err, "disk full")
	assert.Equal(t, int64(40000), n)
}

// TestReadersKeepNothingOfTheInput: the readers parse the caller's bytes in
// place; nothing they return may share them. Every document of the golden
// files, the sample turn, and items of every kind (document and wire form,
// strings with and without escapes) read the same after the input is
// overwritten.
func TestReadersKeepNothingOfTheInput(t *testing.T) {
	scribble := func(b []byte) {
		for i := range b {
			b[i] = 'x'
		}
	}
	docs := [][]byte{sampleTurn().AppendJSON(nil)}
	files, _ := filepath.Glob("testdata/*/golden/*.turn.json")
	require.NotEmpty(t, files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		docs = append(docs, b)
	}
	for i, doc := range docs {
		in := append([]byte(nil), doc...)
		tu, err := replay.UnmarshalTurn(in)
		require.NoError(t, err, i)
		want := string(tu.AppendJSON(nil))
		scribble(in)
		assert.Equal(t, want, string(tu.AppendJSON(nil)), "document %d", i)
	}
	items := []string{
		`{"type":"reasoning.text","text":"plain","signature":"sig","format":"anthropic-claude-v1","id":"rs_1","index":0,"display":"shown","digest":"sha256:` + strings.Repeat("ab", 32) + `","extra":{"type":"x"},"provider_member":{"a":[1]}}`,
		`{"type":"reasoning.text","text":"esc \"aped\" \u00e9\n","signature":"s\/ig","format":"anthropic-claude-v1","id":"r\u0073_1"}`,
		`{"type":"reasoning.summary","summary":"a summary","format":"openai-responses-v1","id":"rs_2"}`,
		`{"type":"reasoning.encrypted","data":"Z0FB\/\/","format":"google-gemini-v1","index":2}`,
		`{"type":"reasoning.future","format":"f","id":"i","index":3,"payload":"p"}`,
	}
	for _, s := range items {
		for _, wire := range []bool{false, true} {
			in := []byte(s)
			read := replay.UnmarshalItem
			marshal := func(it replay.ReasoningItem) []byte { return it.AppendJSON(nil) }
			if wire {
				read = replay.UnmarshalItemWire
				marshal = func(it replay.ReasoningItem) []byte { return it.AppendWire(nil) }
			}
			it, err := read(in)
			require.NoError(t, err, s)
			want := string(marshal(it))
			scribble(in)
			assert.Equal(t, want, string(marshal(it)), "%s (wire %v)", s, wire)
		}
	}
}

// An item of a type kept whole keeps this library's marks through the
// document (an unfinished item stays unreplayable, a sealed one keeps its
// digest), beside the provider's object kept byte for byte; an object
// with none of them, and none of their names, is written as it came. A
// version-1 document's such item is the provider's object whole.
func TestOpaqueItemThroughTheDocument(t *testing.T) {
	raw := `{"type":"reasoning.future","format":"f", "payload": {"a":[1, 2]},"unfinished":"theirs"}`
	o := &replay.Opaque{Type: "reasoning.future", Raw: json.RawMessage(raw)}
	o.Unfinished = true
	o.Digest = "sha256:" + strings.Repeat("0a", 32)
	plain := &replay.Opaque{Type: "reasoning.other", Raw: json.RawMessage(`{"type":"reasoning.other","id":5}`)}
	tu := &replay.Turn{Complete: true, Blocks: []replay.Block{o, plain}}
	doc := tu.AppendJSON(nil)
	assert.Contains(t, string(doc), `{"type":"reasoning.future","unfinished":true,"digest":"sha256:0a0a`)
	assert.Contains(t, string(doc), `"extra":`+raw+`}`)
	assert.Contains(t, string(doc), `,{"type":"reasoning.other","id":5}]`)
	back, err := replay.UnmarshalTurn(doc)
	require.NoError(t, err)
	got := back.Items()[0].(*replay.Opaque)
	assert.True(t, got.Unfinished)
	assert.False(t, got.Replayable())
	assert.Equal(t, o.Digest, got.Digest)
	assert.Equal(t, raw, string(got.Raw))
	assert.Equal(t, replay.Format("f"), got.Format)
	assert.Equal(t, `{"type":"reasoning.other","id":5}`, string(back.Items()[1].(*replay.Opaque).Raw))
	assert.Equal(t, string(doc), string(back.AppendJSON(nil)))

	// Version 1 wrote no library member on such an item: its object is the
	// provider's, whatever it holds.
	v1 := `{"version":1,"complete":true,"blocks":[{"type":"reasoning.future","unfinished":true,"extra":{"type":"reasoning.future"}}]}`
	old, err := replay.UnmarshalTurn([]byte(v1))
	require.NoError(t, err)
	oo := old.Items()[0].(*replay.Opaque)
	assert.False(t, oo.Unfinished)
	assert.Equal(t, `{"type":"reasoning.future","unfinished":true,"extra":{"type":"reasoning.future"}}`, string(oo.Raw))
}
