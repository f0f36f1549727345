package schema_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/schema"
)

// largeTurnDoc returns the document of a large tool-loop turn: blocks
// signed reasoning blocks of size bytes of text (quotes, newlines and
// non-ASCII escaped in the document), each followed by a tool call, then
// a text block.
func largeTurnDoc(blocks, size int) []byte {
	t := &replay.Turn{Provenance: replay.Provenance{API: "anthropic", Provider: "anthropic", Model: "claude-sonnet-4-5"}, Complete: true, FinishReason: "tool_use"}
	piece := "weigh the \"edge\" case — then pick one;\n"
	for k := 0; k < blocks; k++ {
		it := &replay.ReasoningText{Text: strings.Repeat(piece, size/len(piece)), Signature: replay.Some(strings.Repeat("RXFv", 100))}
		it.Format = "anthropic-claude-v1"
		t.Blocks = append(t.Blocks, it, &replay.ToolCall{ID: fmt.Sprintf("toolu_%04d", k), Name: "read_file", Arguments: `{"path":"src/f.go"}`})
	}
	t.Blocks = append(t.Blocks, &replay.Text{Text: strings.Repeat("answer ", 1000)})
	return t.AppendJSON(nil)
}

// BenchmarkValidateTurn validates a large turn document (400 signed
// reasoning blocks of 64 KB, each followed by a tool call: about 26 MB)
// and reports MB/s and the bytes allocated per byte of document.
func BenchmarkValidateTurn(b *testing.B) {
	doc := largeTurnDoc(400, 64<<10)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := schema.Validate(schema.Turn, doc); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(doc)), "doc-B")
}

func TestLargeTurnDocValidates(t *testing.T) {
	doc := largeTurnDoc(4, 1<<10)
	if err := schema.Validate(schema.Turn, doc); err != nil {
		t.Fatal(err)
	}
	if err := schema.ValidateSchema(schema.Turn, doc); err != nil {
		t.Fatal(err)
	}
}
