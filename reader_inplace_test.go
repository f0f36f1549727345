package replay

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUnmarshalTurnBlocksInPlace: the blocks read where they stand (the
// version before them) or after the root's other members (the version
// after them) give the turn, or the error, the reference reader gives:
// a block's error comes after every other member's, whatever the order of
// the members, and an item kept whole keeps its exact text.
func TestUnmarshalTurnBlocksInPlace(t *testing.T) {
	const good = `[ {"type":"text","text":"a\nb"} , {"type":"reasoning.x","k":[1,{"a":"}"}]} ,` +
		`{"type":"tool_call","id":"c","name":"n","arguments":"{\"a\":1}","extra":{"p":2}},` +
		`{"type":"reasoning.text","text":"t","signature":"s","extra":{"format":3}} ]`
	const bad = `[{"type":"text","text":"a"},{"type":"text","text":1}]`
	for _, doc := range []string{
		`{"version":2,"complete":true,"blocks":` + good + `,"usage":{"in":1},"other":[]}`,
		`{"complete":true,"blocks":` + good + `,"version":2,"usage":{"in":1}}`,
		`{"version":1,"complete":true,"blocks":` + good + `}`,
		`{"version":2,"complete":true,"blocks":[ ]}`,
		`{"version":2,"complete":true,"blocks":[]  }  `,
		"\n{ \"version\" : 2 , \"complete\" : false , \"blocks\" : [ {\"type\":\"text\",\"text\":\"x\"} ] }\n",
		// A block's error comes after the other members' errors.
		`{"version":2,"complete":true,"blocks":` + bad + `}`,
		`{"version":2,"blocks":` + bad + `,"complete":true}`,
		`{"version":2,"blocks":` + bad + `}`,
		`{"version":2,"blocks":` + bad + `,"complete":true,"provenance":{"x":"y"}}`,
		`{"version":2,"blocks":` + bad + `,"complete":true,"transformations":[1]}`,
		`{"version":2,"blocks":` + bad + `,"complete":true,"finish_reason":1}`,
		`{"version":2,"blocks":` + bad + `,"complete":true,"error":[]}`,
		`{"blocks":` + bad + `,"complete":true,"version":2}`,
		`{"version":3,"complete":true,"blocks":` + good + `}`,
		`{"version":"2","complete":true,"blocks":` + good + `}`,
		`{"complete":true,"blocks":` + good + `}`,
		`{"version":2,"complete":true,"blocks":{}}`,
		`{"version":2,"complete":true,"blocks":[1]}`,
		`{"version":2,"complete":true,"blocks":[{"type":"native","kind":"k"}]}`,
		`{"version":2,"complete":true,"blocks":[{"type":"reasoning.encrypted"}]}`,
	} {
		got, err := UnmarshalTurn([]byte(doc))
		want, wantErr := unmarshalTurnRef([]byte(doc))
		sameResult(t, []byte(doc), got, want, err, wantErr)
	}
	// What is read is the exact text: the item kept whole, the provider
	// members, the usage after the blocks.
	tu, err := UnmarshalTurn([]byte(`{"version":2,"complete":true,"blocks":` + good + `,"usage":{"in":1}}`))
	require.NoError(t, err)
	require.Len(t, tu.Blocks, 4)
	require.Equal(t, "a\nb", tu.Blocks[0].(*Text).Text)
	require.Equal(t, `{"type":"reasoning.x","k":[1,{"a":"}"}]}`, string(tu.Blocks[1].(*Opaque).Raw))
	require.Equal(t, `{"a":1}`, tu.Blocks[2].(*ToolCall).Arguments)
	require.Equal(t, `{"p":2}`, string(tu.Blocks[2].(*ToolCall).Extra))
	require.Equal(t, `{"format":3}`, string(tu.Blocks[3].(*ReasoningText).Extra))
	require.Equal(t, `{"in":1}`, string(tu.Usage))
	_, err = UnmarshalTurn([]byte(`{"version":2,"blocks":` + bad + `,"complete":true}`))
	var e *Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, "/blocks/1/text", e.Pointer)
}
