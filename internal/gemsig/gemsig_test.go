package gemsig

import (
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
