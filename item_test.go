package replay_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

var samples = []string{"", "plain", "Zürich — ✓", "a+b/c==", `quote " and \ back`, "line\nbreak\ttab", "<html>&", "\u2028", "😀"}

func randString(r *rand.Rand) string {
	if r.Intn(3) == 0 {
		b := make([]byte, r.Intn(40))
		const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
		for i := range b {
			b[i] = alphabet[r.Intn(len(alphabet))]
		}
		return string(b)
	}
	return samples[r.Intn(len(samples))]
}

func randOptString(r *rand.Rand) replay.Opt[string] {
	switch r.Intn(3) {
	case 0:
		return replay.Opt[string]{}
	case 1:
		return replay.NullOf[string]()
	}
	return replay.Some(randString(r))
}

func randMeta(r *rand.Rand) replay.ItemMeta {
	formats := []replay.Format{"", formats.AnthropicClaude, formats.OpenAIResponses, formats.GoogleGemini, "vendor-future-v7", replay.FormatUnknown}
	m := replay.ItemMeta{Format: formats[r.Intn(len(formats))], ID: randOptString(r)}
	switch r.Intn(3) {
	case 1:
		m.Index = replay.NullOf[int]()
	case 2:
		m.Index = replay.Some(r.Intn(1000) - 5)
	}
	m.Unfinished = r.Intn(4) == 0
	m.Attached = r.Intn(4) == 0
	switch r.Intn(4) {
	case 0:
		m.Extra = json.RawMessage(fmt.Sprintf(`{"x_%d":{"nested":[1,"%s",null]},"y":true}`, r.Intn(9), "v"))
	case 1:
		// Provider members named like the document's own.
		m.Extra = json.RawMessage(`{"unfinished":"provider","z":1,"display":{"a":2},"extra":[3]}`)
	}
	return m
}

func randItem(r *rand.Rand) replay.ReasoningItem {
	m := randMeta(r)
	switch r.Intn(4) {
	case 0:
		return &replay.ReasoningText{ItemMeta: m, Text: randString(r), Signature: randOptString(r)}
	case 1:
		return &replay.Summary{ItemMeta: m, Summary: randString(r)}
	case 2:
		return &replay.Encrypted{ItemMeta: m, Data: randString(r)}
	}
	raw := fmt.Sprintf(`{"type":"reasoning.server_tool_call","id":"srv_%d","payload":{"q":"%s"}}`, r.Intn(100), "x")
	it, err := replay.UnmarshalItemWire([]byte(raw))
	if err != nil {
		panic(err)
	}
	return it
}

// TestItemRoundTripProperty: for generated items, document form and wire
// form read back to items with the same fields, and write again
// byte-identically.
func TestItemRoundTripProperty(t *testing.T) {
	r := rand.New(rand.NewSource(42))
	for i := 0; i < 5000; i++ {
		it := randItem(r)
		doc := it.AppendJSON(nil)
		require.True(t, gjson.ValidBytes(doc), "%s", doc)
		back, err := replay.UnmarshalItem(doc)
		require.NoError(t, err, "%s", doc)
		require.Equal(t, string(doc), string(back.AppendJSON(nil)))
		assertSameItem(t, it, back, true)

		wire := it.AppendWire(nil)
		fromWire, err := replay.UnmarshalItemWire(wire)
		require.NoError(t, err, "%s", wire)
		require.Equal(t, string(wire), string(fromWire.AppendWire(nil)))
		assertSameItem(t, it, fromWire, false)
		assert.False(t, fromWire.Meta().Unfinished, "the wire form never carries library members")
	}
}

func assertSameItem(t *testing.T, a, b replay.ReasoningItem, libraryMembers bool) {
	t.Helper()
	require.IsType(t, a, b)
	ma, mb := a.Meta(), b.Meta()
	assert.Equal(t, ma.Format, mb.Format)
	assert.Equal(t, ma.ID, mb.ID)
	if _, opaque := a.(*replay.Opaque); !opaque {
		assert.Equal(t, ma.Index, mb.Index)
		if len(ma.Extra) == 0 {
			assert.Empty(t, mb.Extra)
		} else {
			assert.JSONEq(t, string(ma.Extra), string(mb.Extra))
		}
		if libraryMembers {
			assert.Equal(t, ma.Unfinished, mb.Unfinished)
			assert.Equal(t, ma.Attached, mb.Attached)
		}
	}
	switch a := a.(type) {
	case *replay.ReasoningText:
		assert.Equal(t, a.Text, b.(*replay.ReasoningText).Text)
		assert.Equal(t, a.Signature, b.(*replay.ReasoningText).Signature)
	case *replay.Summary:
		assert.Equal(t, a.Summary, b.(*replay.Summary).Summary)
	case *replay.Encrypted:
		assert.Equal(t, a.Data, b.(*replay.Encrypted).Data)
	case *replay.Opaque:
		assert.Equal(t, string(a.Raw), string(b.(*replay.Opaque).Raw))
	}
}

func TestSignaturePresence(t *testing.T) {
	for _, c := range []struct {
		json   string
		p      replay.Presence
		signed bool
	}{
		{`{"type":"reasoning.text","text":"t","format":"anthropic-claude-v1"}`, replay.Absent, false},
		{`{"type":"reasoning.text","text":"t","signature":null,"format":"anthropic-claude-v1"}`, replay.Null, false},
		{`{"type":"reasoning.text","text":"t","signature":"","format":"anthropic-claude-v1"}`, replay.Present, false},
		{`{"type":"reasoning.text","text":"t","signature":"c2ln","format":"anthropic-claude-v1"}`, replay.Present, true},
	} {
		it, err := replay.UnmarshalItemWire([]byte(c.json))
		require.NoError(t, err)
		x := it.(*replay.ReasoningText)
		assert.Equal(t, c.p, x.Signature.Presence(), c.json)
		assert.Equal(t, c.signed, x.Signed(), c.json)
		assert.Equal(t, c.signed, x.Replayable(), "an Anthropic text item is replayable only when signed: %s", c.json)
		// The presence survives the round trip.
		assert.JSONEq(t, c.json, string(x.AppendWire(nil)))
	}
}

func TestReplayable(t *testing.T) {
	cases := []struct {
		it   replay.ReasoningItem
		want bool
	}{
		{&replay.ReasoningText{Text: "plain", ItemMeta: replay.ItemMeta{Format: formats.DeepSeek}}, true},
		{&replay.ReasoningText{Text: "plain", ItemMeta: replay.ItemMeta{Format: formats.GoogleGemini}}, false},
		{&replay.ReasoningText{Text: "s", Signature: replay.Some("x"), ItemMeta: replay.ItemMeta{Format: formats.AnthropicClaude, Unfinished: true}}, false},
		{&replay.Summary{Summary: "s"}, true},
		{&replay.Encrypted{Data: ""}, false},
		{&replay.Encrypted{Data: "blob"}, true},
		{&replay.Opaque{Type: "reasoning.x", Raw: json.RawMessage(`{"type":"reasoning.x"}`)}, true},
	}
	for i, c := range cases {
		assert.Equal(t, c.want, c.it.Replayable(), "case %d", i)
	}
}

func TestUnmarshalItemErrorsNameTheMember(t *testing.T) {
	for _, c := range []struct{ json, pointer string }{
		{`{"type":"reasoning.encrypted","format":"x"}`, "/data"},
		{`{"type":"reasoning.text","text":"t","signature":5}`, "/signature"},
		{`{"type":"reasoning.summary"}`, "/summary"},
		{`{"type":7}`, "/type"},
		{`{"type":"reasoning.text","text":"t","index":1.5}`, "/index"},
		{`{"type":"reasoning.text","text":"a","text":"b"}`, "/text"},
	} {
		_, err := replay.UnmarshalItem([]byte(c.json))
		var e *replay.Error
		require.ErrorAs(t, err, &e, c.json)
		assert.Equal(t, c.pointer, e.Pointer, c.json)
		assert.ErrorIs(t, err, replay.ErrMalformed)
	}
	_, err := replay.UnmarshalItem([]byte(`{`))
	assert.ErrorIs(t, err, replay.ErrMalformed)
}

// FuzzItemJSON: any input either fails with a typed error or reads into an
// item whose document form is stable, and whose signature, data and id
// values are those of the input.
func FuzzItemJSON(f *testing.F) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 20; i++ {
		f.Add(randItem(r).AppendJSON(nil))
	}
	f.Add([]byte(`{"type":"reasoning.text","text":"\u00e9","signature":"\/x","id":null,"index":null,"extra":{"a":[]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		it, err := replay.UnmarshalItem(data)
		if err != nil {
			var e *replay.Error
			if !errors.As(err, &e) || !errors.Is(err, replay.ErrMalformed) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		doc := it.AppendJSON(nil)
		back, err := replay.UnmarshalItem(doc)
		if err != nil {
			t.Fatalf("own output does not read back: %v\n%s", err, doc)
		}
		if again := back.AppendJSON(nil); !bytes.Equal(again, doc) {
			t.Fatalf("unstable:\n%s\n%s", doc, again)
		}
		in := gjson.ParseBytes(data)
		for _, k := range []string{"signature", "data", "id"} {
			v := in.Get(gjson.Escape(k))
			if v.Type == gjson.String {
				if got := gjson.GetBytes(doc, k); got.Str != v.Str {
					t.Fatalf("%s changed: %q -> %q", k, v.Str, got.Str)
				}
			}
		}
	})
}

// A lone surrogate escape in a signature, ciphertext, id or signed text is
// refused at the member; in unsigned text it reads as U+FFFD, as every JSON
// reader reads it.
func TestUnmarshalRefusesLoneSurrogates(t *testing.T) {
	for doc, ptr := range map[string]string{
		`{"type":"reasoning.text","text":"t","signature":"c2ln\ud800"}`:       "/signature",
		`{"type":"reasoning.encrypted","data":"\udc00ZGF0YQ=="}`:              "/data",
		`{"type":"reasoning.summary","summary":"s","id":"rs_\ud800"}`:         "/id",
		`{"type":"reasoning.text","text":"signed \ud800","signature":"c2ln"}`: "/text",
	} {
		_, err := replay.UnmarshalItem([]byte(doc))
		var e *replay.Error
		require.ErrorAs(t, err, &e, doc)
		assert.Equal(t, ptr, e.Pointer, doc)
		assert.ErrorIs(t, err, replay.ErrMalformed)
	}
	it, err := replay.UnmarshalItem([]byte(`{"type":"reasoning.text","text":"unsigned \ud800"}`))
	require.NoError(t, err)
	assert.Equal(t, "unsigned \uFFFD", it.(*replay.ReasoningText).Text)
	_, err = replay.UnmarshalTurn([]byte(`{"version":1,"complete":true,"blocks":[{"type":"compaction","signature":"\ud800"}]}`))
	assert.ErrorContains(t, err, "/blocks/0/signature")
}
