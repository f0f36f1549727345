package main

import (
	"io"
	"os"
	"testing"
)

func BenchmarkTmpWhole(b *testing.B) {
	in := os.Getenv("TMPPROF_IN")
	if in == "" {
		b.Skip()
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		e := &env{stdin: os.Stdin, stdout: io.Discard, stderr: os.Stderr}
		if c := run(e, []string{"decode", "--stream", "--api", "anthropic", in}); c != 0 {
			b.Fatal(c)
		}
	}
}
