package replay

import (
	"fmt"
	"reflect"
	"testing"
)

// TestUnmarshalTurnAllocs: a stored turn of one to four blocks costs two
// allocations: the turn with its blocks, and the buffer of what it keeps.
func TestUnmarshalTurnAllocs(t *testing.T) {
	docs := map[string][]byte{
		// Blocks read after the other members are laid out as well.
		"blocks before the version": []byte(`{"blocks":[{"type":"reasoning.text","text":"t","signature":"s"},{"type":"text","text":"x"},` +
			`{"type":"tool_call","id":"c","name":"n","arguments":"{}"}],"complete":true,"version":2}`),
	}
	for name, tu := range typicalDocTurns() {
		docs[name] = tu.AppendJSON(nil)
	}
	for name, doc := range docs {
		if n := testing.AllocsPerRun(20, func() {
			if _, err := UnmarshalTurn(doc); err != nil {
				t.Fatal(err)
			}
		}); n != 2 {
			t.Errorf("%s: %v allocations, want 2", name, n)
		}
	}
}

// TestUnmarshalTurnBlocksPastLayout: whatever the order and number of a
// turn's blocks, past the ones its allocation holds, each block is an
// object of its own and the turn reads as the reference reads it.
func TestUnmarshalTurnBlocksPastLayout(t *testing.T) {
	blocks := map[string]string{
		"rt":   `{"type":"reasoning.text","text":"t%d","signature":"s%d"}`,
		"sum":  `{"type":"reasoning.summary","summary":"m%d","id":"rs_%d"}`,
		"enc":  `{"type":"reasoning.encrypted","data":"d%d","id":"rs_%d"}`,
		"text": `{"type":"text","text":"x%d","id":"msg_%d"}`,
		"call": `{"type":"tool_call","id":"c%d","name":"n%d","arguments":"{}"}`,
		"nat":  `{"type":"native","kind":"k%d","raw":{"n":%d}}`,
	}
	for _, order := range [][]string{
		{"rt", "text", "call", "call", "call", "text", "rt", "rt"},
		{"sum", "sum", "enc", "call", "text", "call", "text", "enc"},
		{"enc", "text", "call", "rt", "sum", "nat", "call"},
		{"text", "text", "call", "call", "call", "rt"},
		{"call", "nat", "call", "call", "text"},
		{"nat", "rt", "sum", "enc", "text", "call"},
		{"rt"}, {"sum"}, {"text"}, {"call"}, {},
	} {
		doc := `{"version":2,"complete":true,"blocks":[`
		for i, k := range order {
			if i > 0 {
				doc += ","
			}
			doc += fmt.Sprintf(blocks[k], i, i)
		}
		doc += `]}`
		got, err := UnmarshalTurn([]byte(doc))
		want, wantErr := unmarshalTurnRef([]byte(doc))
		sameResult(t, []byte(doc), got, want, err, wantErr)
		if len(got.Blocks) != len(order) {
			t.Fatalf("%s: %d blocks", doc, len(got.Blocks))
		}
		seen := map[uintptr]bool{}
		for i, b := range got.Blocks {
			p := reflect.ValueOf(b).Pointer()
			if seen[p] {
				t.Fatalf("%s: block %d is an object an earlier block holds", doc, i)
			}
			seen[p] = true
		}
	}
}
