package bench

import (
	"testing"

	"github.com/reasonreplay/replay/codecs/openrouter"
	"github.com/reasonreplay/replay/stream"
)

func BenchmarkOpenRouterStream(b *testing.B) {
	data, events := OpenRouterStream(2000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		d := stream.NewDecoder(openrouter.Codec{}, stream.Options{})
		for off := 0; off < len(data); off += 4096 {
			if _, err := d.Write(data[off:min(off+4096, len(data))]); err != nil {
				b.Fatal(err)
			}
			for _, ok := d.Next(); ok; _, ok = d.Next() {
			}
		}
		turn, err := d.Close()
		if err != nil || !turn.Items()[0].Replayable() {
			b.Fatalf("turn not replayable: %v", err)
		}
	}
	b.ReportMetric(float64(events), "events/op")
}
