package jsonw

import (
	"testing"
	"unicode/utf8"
)

var deltaRaws = []string{
	`"step 12: the \"value\" doubles →\n"`,
	`"I compare the harbour tide tables with the ferry timetable and check the slack water windows."`,
	`"价格在周末上涨了，但是我们需要再检查一下。"`,
}

func BenchmarkScanString(b *testing.B) {
	for _, raw := range deltaRaws {
		b.Run("scan", func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for i := 0; i < b.N; i++ {
				if _, _, ok := scanString(raw, 1); !ok {
					b.Fatal(raw)
				}
			}
		})
		b.Run("valid+utf8", func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for i := 0; i < b.N; i++ {
				if end, ok := validString(raw, 1); !ok || !utf8.ValidString(raw[:end]) {
					b.Fatal(raw)
				}
			}
		})
	}
}
