package all_test

import (
	"errors"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEncodeAndPatchErrorsAreTyped: every registered codec's Encode and
// Patch refuse what they cannot write with an *replay.Error of their API
// wrapping ErrMalformed (never an untyped error, never a panic), and an
// error they return for a doubtful input is typed too.
func TestEncodeAndPatchErrorsAreTyped(t *testing.T) {
	turn := &replay.Turn{Complete: true, Blocks: []replay.Block{
		&replay.Text{Text: "hi"},
		&replay.ToolCall{ID: "call_1", Name: "f", Arguments: `[1]`},
	}}
	typed := func(t *testing.T, api, what string, err error) {
		t.Helper()
		var e *replay.Error
		if assert.True(t, errors.As(err, &e), "%s: %s: untyped error %T: %v", api, what, err, err) {
			assert.Equal(t, api, e.API, "%s: %s", api, what)
		}
		assert.ErrorIs(t, err, replay.ErrMalformed, "%s: %s", api, what)
	}
	apis := replay.Default().APIs()
	require.NotEmpty(t, apis)
	for _, api := range apis {
		c, err := replay.Lookup(api, "", "")
		require.NoError(t, err, api)
		_, err = c.Encode(nil)
		require.Error(t, err, "%s: Encode(nil)", api)
		typed(t, api, "Encode(nil)", err)
		for _, msg := range []string{"", "{", `"assistant"`, `1`, `{"a":1,"a":2}`} {
			_, err := c.Patch([]byte(msg), turn)
			require.Error(t, err, "%s: Patch(%q)", api, msg)
			typed(t, api, "Patch("+msg+")", err)
		}
		if _, err := c.Encode(turn); err != nil { // a call whose arguments are an array
			typed(t, api, "Encode(arguments [1])", err)
		}
		if _, err := c.Patch([]byte(`{"role":"assistant","content":"hi"}`), nil); err != nil {
			typed(t, api, "Patch(nil turn)", err)
		}
	}
}

// TestGeminiEncodeErrorPointsAtTheCall: Gemini refuses a call whose
// arguments are not an object, at the block that holds it.
func TestGeminiEncodeErrorPointsAtTheCall(t *testing.T) {
	c, err := replay.Lookup("gemini", "", "")
	require.NoError(t, err)
	_, err = c.Encode(&replay.Turn{Complete: true, Blocks: []replay.Block{
		&replay.Text{Text: "hi"},
		&replay.ToolCall{ID: "c", Name: "f", Arguments: `[1]`},
	}})
	var e *replay.Error
	require.True(t, errors.As(err, &e), "%v", err)
	assert.Equal(t, "/blocks/1/arguments", e.Pointer)
	assert.Equal(t, `replay: gemini: /blocks/1/arguments: malformed input: the arguments of call "f" must be a JSON object`, err.Error())
}
