package jsonw

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

const geminiChunk = `{"candidates":[{"content":{"parts":[{"text":"**Step 7: weighing the options**\n\nI compare the harbour tide tables with the ferry timetable and check the \"slack water\" windows for step 7.","thought":true}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":812,"candidatesTokenCount":63,"thoughtsTokenCount":307,"totalTokenCount":1182},"modelVersion":"gemini-3-flash-preview","responseId":"c3ludGhldGljU3RyZWFtMDE"}`

func BenchmarkValidChunk(b *testing.B) {
	b.SetBytes(int64(len(geminiChunk)))
	for i := 0; i < b.N; i++ {
		if !Valid(geminiChunk) {
			b.Fatal("invalid")
		}
	}
}

func BenchmarkGjsonValidChunk(b *testing.B) {
	b.SetBytes(int64(len(geminiChunk)))
	for i := 0; i < b.N; i++ {
		if !gjson.Valid(geminiChunk) {
			b.Fatal("invalid")
		}
	}
}

// BenchmarkWriteUnquoted unescapes a short delta with a few escapes, as
// thinking deltas are, into a builder reset every 1,000 strings.
func BenchmarkWriteUnquoted(b *testing.B) {
	raw := `"step 12: the \"value\" doubles →\n"`
	var sb strings.Builder
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if i%1000 == 0 {
			sb = strings.Builder{}
		}
		WriteUnquoted(&sb, raw)
	}
}
