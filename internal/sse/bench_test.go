package sse

import (
	"bytes"
	"fmt"

	"testing"
)

// benchStream is a long stream of typical provider events with keep-alive
// comments, CRLF line ends on every fourth event.
func benchStream() []byte {
	var b bytes.Buffer
	for i := 0; i < 5000; i++ {
		end := "\n"
		if i%4 == 0 {
			end = "\r\n"
		}
		fmt.Fprintf(&b, "event: content_block_delta%sdata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"step %d of the plan, considering the edge cases\"}}%s%s", end, i, end, end)
		if i%50 == 0 {
			b.WriteString(": ping\n\n")
		}
	}
	return b.Bytes()
}

func BenchmarkParserPush(b *testing.B) {
	data := benchStream()
	n := 0
	p := NewParser(SSE, 0, SinkFunc(func(*Event) error { n++; return nil }))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		*p = Parser{mode: SSE, max: DefaultMaxEvent, sink: p.sink, line: p.line[:0], data: p.data[:0], typ: p.typ[:0]}
		for off := 0; off < len(data); off += 4096 {
			p.Write(data[off:min(off+4096, len(data))])
		}
		p.Close()
	}
	if n == 0 {
		b.Fatal("no events")
	}
}

func BenchmarkReaderPull(b *testing.B) {
	data := benchStream()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := NewReader(bytes.NewReader(data), SSE, 0)
		n := 0
		for r.Next() {
			n++
		}
		if r.Err() != nil || n != 5000 {
			b.Fatalf("%d events, %v", n, r.Err())
		}
	}
}
