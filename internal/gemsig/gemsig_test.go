package gemsig

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// sentinel is gemini.Sentinel, which this package cannot import.
const sentinel = "skip_thought_signature_validator"

const signed = `{"extra_content":{"google":{"thought_signature":"Qm9va2luZ1NpZw=="}},"function":{"arguments":"{\"city\":\"Lyon\"}","name":"get_weather"},"id":"function-call-7a1c","type":"function"}`

func TestRead(t *testing.T) {
	cases := []struct {
		name, call, sig string
		ok, err         bool
	}{
		{"signed", signed, "Qm9va2luZ1NpZw==", true, false},
		{"sentinel", `{"extra_content":{"google":{"thought_signature":"skip_thought_signature_validator"}}}`, sentinel, true, false},
		{"empty string", `{"extra_content":{"google":{"thought_signature":""}}}`, "", true, false},
		{"absent", `{"function":{"name":"f","arguments":"{}"}}`, "", false, false},
		{"other google member", `{"extra_content":{"google":{"cached":true}}}`, "", false, false},
		{"null", `{"extra_content":{"google":{"thought_signature":null}}}`, "", false, false},
		{"number", `{"extra_content":{"google":{"thought_signature":12}}}`, "", false, true},
		{"escaped", `{"extra_content":{"google":{"thought_signature":"ab\/cd"}}}`, "ab/cd", true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sig, ok, err := Read(gjson.Parse(c.call))
			if c.err {
				require.Error(t, err)
				assert.Contains(t, err.Error(), Path)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.ok, ok)
			assert.Equal(t, c.sig, sig)
		})
	}
}

func TestReadCopies(t *testing.T) {
	buf := []byte(signed)
	sig, ok, err := Read(gjson.ParseBytes(buf))
	require.NoError(t, err)
	require.True(t, ok)
	for i := range buf {
		buf[i] = 'x'
	}
	assert.Equal(t, "Qm9va2luZ1NpZw==", sig)
}

func TestItemAndBound(t *testing.T) {
	it := Item("U2lnQQ==", "g1bmv6il")
	assert.Equal(t, "U2lnQQ==", it.Data)
	assert.Equal(t, formats.GoogleGemini, it.Format)
	assert.True(t, it.Attached)
	id, ok := it.ID.Get()
	assert.True(t, ok)
	assert.Equal(t, "g1bmv6il", id)
	assert.False(t, Item("U2lnQQ==", "").ID.IsPresent())

	call := &replay.ToolCall{ID: "g1bmv6il", Name: "get_weather", Arguments: `{"city":"Lyon"}`}
	second := &replay.ToolCall{Name: "get_weather", Arguments: `{"city":"Oslo"}`}
	loose := &replay.Encrypted{Data: "T3RoZXI="} // not attached
	loose.Format = formats.GoogleGemini
	blocks := []replay.Block{it, call, second, loose, &replay.Text{Text: "done"}}

	got, ok := Bound(blocks, 1)
	require.True(t, ok)
	assert.Same(t, it, got)
	_, ok = Bound(blocks, 2) // parallel call after a signed one: unsigned
	assert.False(t, ok)
	_, ok = Bound(blocks, 4) // preceded by an unattached item
	assert.False(t, ok)
	_, ok = Bound(blocks, 0)
	assert.False(t, ok)
	_, ok = Bound(blocks, 5)
	assert.False(t, ok)
	// A bound signature is never bound to another bound signature.
	_, ok = Bound([]replay.Block{it, Item("QQ==", "")}, 1)
	assert.False(t, ok)
	// Another issuer's attached item is not a Gemini binding.
	foreign := &replay.Encrypted{Data: "QQ=="}
	foreign.Format = formats.AnthropicClaude
	foreign.Attached = true
	_, ok = Is(foreign)
	assert.False(t, ok)
}

func TestWrite(t *testing.T) {
	in := `{"function":{"arguments":"{}","name":"f"},"id":"c1","type":"function"}`
	out, err := Write([]byte(in), "Zm9v+/8=")
	require.NoError(t, err)
	assert.Equal(t, `{"function":{"arguments":"{}","name":"f"},"id":"c1","type":"function","extra_content":{"google":{"thought_signature":"Zm9v+/8="}}}`, string(out))

	// Keeps siblings inside extra_content.google and replaces an old value.
	in = `{"extra_content":{"google":{"thought_signature":"old","x":1}},"id":"c1"}`
	out, err = Write([]byte(in), sentinel)
	require.NoError(t, err)
	assert.Equal(t, `{"extra_content":{"google":{"thought_signature":"skip_thought_signature_validator","x":1}},"id":"c1"}`, string(out))

	// Round trip through Read.
	sig, ok, err := Read(gjson.ParseBytes(out))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, sentinel, sig)

	for _, bad := range []string{``, `[]`, `{"a":`, `"s"`} {
		_, err := Write([]byte(bad), "QQ==")
		assert.Error(t, err, bad)
	}
}

func TestStrip(t *testing.T) {
	out, err := Strip([]byte(signed))
	require.NoError(t, err)
	assert.Equal(t, `{"function":{"arguments":"{\"city\":\"Lyon\"}","name":"get_weather"},"id":"function-call-7a1c","type":"function"}`, string(out))

	in := `{"extra_content":{"google":{"thought_signature":"QQ==","x":1}},"id":"c1"}`
	out, err = Strip([]byte(in))
	require.NoError(t, err)
	assert.Equal(t, `{"extra_content":{"google":{"x":1}},"id":"c1"}`, string(out))

	in = `{"id":"c1"}`
	out, err = Strip([]byte(in))
	require.NoError(t, err)
	assert.Equal(t, in, string(out))

	_, err = Strip([]byte(`nope`))
	assert.Error(t, err)
}

func TestValidBase64(t *testing.T) {
	for _, s := range []string{"QQ==", "QQ", "Zm9v", "Zm9v+/8=", "CiQBcGxhY2Vob2xk"} {
		assert.True(t, ValidBase64(s), s)
	}
	for _, s := range []string{"", sentinel, "Zm9v-_8=", "Q", "QQ=", "Zm9v!"} {
		assert.False(t, ValidBase64(s), s)
	}
}

// ValidBase64 is the decoder's verdict, padded when the length is a
// multiple of four and raw otherwise, on every kind of string: padding in
// and out of place, line breaks (which the decoder skips), the URL-safe
// alphabet, and signatures longer than its stack buffer.
func TestValidBase64IsTheDecoders(t *testing.T) {
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	x := uint32(7)
	next := func(n uint32) int { x = x*1664525 + 1013904223; return int(x>>8) % int(n) }
	for i := 0; i < 20000; i++ {
		n := next(24)
		switch i % 50 {
		case 0:
			n = 5400 + next(200)
		case 1:
			n = 400 + next(1200)
		}
		b := make([]byte, n)
		for k := range b {
			b[k] = chars[next(64)]
			if r := next(40); r == 0 {
				b[k] = "=\r\n-_ !"[next(7)]
			}
		}
		if n > 0 && next(3) == 0 {
			b[n-1] = '='
			if n > 1 && next(2) == 0 {
				b[n-2] = '='
			}
		}
		s := string(b)
		enc := base64.StdEncoding
		if len(s)%4 != 0 {
			enc = base64.RawStdEncoding
		}
		_, err := enc.DecodeString(s)
		require.Equal(t, s != "" && err == nil, ValidBase64(s), "%q", s)
	}
}

// Checking a signature allocates nothing.
func TestValidBase64Allocs(t *testing.T) {
	sig := strings.Repeat("EqQBCkgIBxABGAIiQ+/9", 150) + "AA=="
	require.True(t, ValidBase64(sig))
	assert.Zero(t, testing.AllocsPerRun(100, func() { ValidBase64(sig) }))
}

// Gateways put the signature directly on the tool call (pi#9444,
// opencodex#2127); Google's endpoint under extra_content.google.
func TestFindEveryPlace(t *testing.T) {
	cases := []struct {
		name, call, sig string
		at              Where
		ok              bool
		err             string
	}{
		{"extra_content", signed, "Qm9va2luZ1NpZw==", ExtraContent, true, ""},
		{"camel", `{"id":"c1","thoughtSignature":"Q2FtZWxTaWc=","function":{"name":"f","arguments":"{}"}}`, "Q2FtZWxTaWc=", CamelCase, true, ""},
		{"snake", `{"id":"c1","thought_signature":"U25ha2VTaWc=","type":"function"}`, "U25ha2VTaWc=", SnakeCase, true, ""},
		{"same value twice", `{"thoughtSignature":"QQ==","extra_content":{"google":{"thought_signature":"QQ=="}}}`, "QQ==", ExtraContent, true, ""},
		{"null camel", `{"thoughtSignature":null}`, "", ExtraContent, false, ""},
		{"none", `{"id":"c1"}`, "", ExtraContent, false, ""},
		{"number snake", `{"thought_signature":7}`, "", SnakeCase, false, "gemsig: thought_signature is Number, expected a string"},
		{"two values", `{"thoughtSignature":"QQ==","thought_signature":"Qg=="}`, "", SnakeCase, false, "gemsig: thoughtSignature and thought_signature carry different signatures"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sig, at, ok, err := Find(gjson.Parse(c.call))
			if c.err != "" {
				require.EqualError(t, err, c.err)
				assert.Equal(t, c.at, at)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.ok, ok)
			assert.Equal(t, c.sig, sig)
			assert.Equal(t, c.at, at)
		})
	}
}

// A signature goes back to the place it came from: the item remembers it.
func TestWriteBackWhereItCameFrom(t *testing.T) {
	for _, c := range []struct {
		in, stripped, out string
	}{
		{`{"id":"c1","thoughtSignature":"Q2FtZWw=","type":"function"}`,
			`{"id":"c1","type":"function"}`,
			`{"id":"c1","type":"function","thoughtSignature":"Q2FtZWw="}`},
		{`{"id":"c1","thought_signature":"U25ha2U=","type":"function"}`,
			`{"id":"c1","type":"function"}`,
			`{"id":"c1","type":"function","thought_signature":"U25ha2U="}`},
		{`{"id":"c1","extra_content":{"google":{"thought_signature":"RXh0cmE="}},"type":"function"}`,
			`{"id":"c1","type":"function"}`,
			`{"id":"c1","type":"function","extra_content":{"google":{"thought_signature":"RXh0cmE="}}}`},
	} {
		sig, at, ok, err := Find(gjson.Parse(c.in))
		require.NoError(t, err)
		require.True(t, ok)
		it := ItemAt(sig, "c1", at)
		assert.Equal(t, sig, it.Data)
		assert.Equal(t, at, At(it))
		stripped, err := Remove([]byte(c.in))
		require.NoError(t, err)
		assert.Equal(t, c.stripped, string(stripped))
		out, err := Put(stripped, it.Data, At(it))
		require.NoError(t, err)
		assert.Equal(t, c.out, string(out))
	}
	// The default place records nothing in the item.
	assert.Nil(t, ItemAt("QQ==", "", ExtraContent).Extra)
	assert.Equal(t, `{"at":"thought_signature"}`, string(ItemAt("QQ==", "", SnakeCase).Extra))
	assert.Equal(t, ExtraContent, At(nil))
	assert.Equal(t, ExtraContent, At(&replay.Encrypted{ItemMeta: replay.ItemMeta{Extra: []byte(`{"at":"nowhere"}`)}}))
	assert.Equal(t, "/thoughtSignature", CamelCase.Pointer())
	assert.Equal(t, "/extra_content/google/thought_signature", ExtraContent.Pointer())
	_, err := Put([]byte(`[`), "QQ==", CamelCase)
	assert.EqualError(t, err, "gemsig: tool call is not a JSON object")
	_, err = Remove([]byte(`[]`))
	assert.EqualError(t, err, "gemsig: tool call is not a JSON object")
}

func TestDummies(t *testing.T) {
	assert.True(t, Dummy(sentinel))
	assert.True(t, Dummy("context_engineering_is_the_way_to_go"))
	assert.False(t, Dummy("c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I="))
	for _, s := range []string{
		"c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I=", // std, padded
		"c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I",  // raw
		" c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I= ",
		"Y29udGV4dF9lbmdpbmVlcmluZ19pc190aGVfd2F5X3RvX2dv",
		"c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3IK", // with a newline
	} {
		assert.True(t, EncodedDummy(s), s)
	}
	for _, s := range []string{sentinel, "", "Qm9va2luZ1NpZw==", "CiQBcGxhY2Vob2xk", "!!"} {
		assert.False(t, EncodedDummy(s), s)
	}
}

// Vertex AI's OpenAI-compatible endpoint spells the place
// extra_content.vertex.thought_signature: read, remembered, written back
// there, and stripped.
func TestVertexExtraContent(t *testing.T) {
	call := gjson.Parse(`{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{}"},"extra_content":{"vertex":{"thought_signature":"Q2lRQnlm"}}}`)
	sig, at, ok, err := ReadExtra(call)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "Q2lRQnlm", sig)
	assert.Equal(t, VertexExtra, at)
	assert.Equal(t, "/extra_content/vertex/thought_signature", at.Pointer())

	it := ItemAt(sig, "call_1", at)
	assert.Equal(t, `{"at":"extra_content.vertex.thought_signature"}`, string(it.Extra))
	assert.Equal(t, VertexExtra, At(it))
	out, err := Put([]byte(`{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{}"}}`), it.Data, At(it))
	require.NoError(t, err)
	assert.Equal(t, `{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{}"},"extra_content":{"vertex":{"thought_signature":"Q2lRQnlm"}}}`, string(out))

	stripped, err := Strip([]byte(call.Raw))
	require.NoError(t, err)
	assert.Equal(t, `{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{}"}}`, string(stripped))
	kept, err := Strip([]byte(`{"id":"c","extra_content":{"vertex":{"thought_signature":"QQ==","x":1},"other":2}}`))
	require.NoError(t, err)
	assert.Equal(t, `{"id":"c","extra_content":{"vertex":{"x":1},"other":2}}`, string(kept))

	// Google's spelling still reads as ExtraContent; both at once must agree.
	_, at, ok, err = ReadExtra(gjson.Parse(`{"extra_content":{"google":{"thought_signature":"QQ=="}}}`))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, ExtraContent, at)
	_, _, ok, err = ReadExtra(gjson.Parse(`{"extra_content":{"google":{"thought_signature":"QQ=="},"vertex":{"thought_signature":"Qg=="}}}`))
	assert.Error(t, err)
	assert.False(t, ok)
	_, _, ok, err = ReadExtra(gjson.Parse(`{"extra_content":{"vertex":{"thought_signature":7}}}`))
	assert.Error(t, err)
	assert.False(t, ok)
	_, _, ok, err = ReadExtra(gjson.Parse(`{"extra_content":{"vertex":{"thought_signature":null}}}`))
	assert.NoError(t, err)
	assert.False(t, ok)
}

func TestMissingText(t *testing.T) {
	assert.Equal(t, "Unable to submit request because function call `bash` in the 2. content block is missing a `thought_signature`. Learn more: https://docs.cloud.google.com/vertex-ai/generative-ai/docs/thought-signatures", MissingText(true, "bash", 2))
	assert.Equal(t, "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:bash` , position 2. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", MissingText(false, "bash", 2))
}
