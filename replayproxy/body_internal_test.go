package replayproxy

import (
	"bytes"
	"io"
	"math/rand"
	"net/http"
	"testing"
	"testing/iotest"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
)

// A body of known length is read into one buffer of its size: what
// readBody hands out is exactly the bytes sent, however the reads split
// them, its capacity ends with them, and a body shorter than it said is
// refused.
func TestReadBodyExact(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	bud := func() *budget {
		return &budget{limit: 1 << 40, g: gaugeInt{prometheus.NewGauge(prometheus.GaugeOpts{Name: "held"})}}
	}
	for _, n := range []int{0, 1, 100, chunk - 1, chunk, chunk + 1, 3*chunk + 7} {
		var sent []byte
		for name, wrap := range map[string]func(io.Reader) io.Reader{
			"whole":  func(r io.Reader) io.Reader { return r },
			"bytes":  iotest.OneByteReader,
			"halves": iotest.HalfReader,
		} {
			// Other bytes each time: a buffer that got the memory of the
			// one before would hold what that one read, not these.
			sent = make([]byte, n)
			rng.Read(sent)
			r, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/", io.NopCloser(wrap(bytes.NewReader(sent))))
			require.NoError(t, err)
			r.ContentLength = int64(n)
			got, _, err := readBody(r, 8<<20, bud())
			require.NoError(t, err, "%d bytes, %s", n, name)
			require.Equal(t, sent, got, "%d bytes, %s", n, name)
			require.Equal(t, len(got), cap(got), "%d bytes, %s", n, name)
		}
	}
	for _, n := range []int{1, 100, chunk, 3*chunk + 7} {
		sent := make([]byte, n)
		short, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/", io.NopCloser(bytes.NewReader(sent[:n-1])))
		require.NoError(t, err)
		short.ContentLength = int64(n)
		got, _, err := readBody(short, 8<<20, bud())
		require.Error(t, err, "%d bytes said, one fewer sent", n)
		require.Nil(t, got)
	}
}

// BenchmarkReadBody reads a body of known length, 540 KB, as the proxy
// reads every request's.
func BenchmarkReadBody(b *testing.B) {
	body := bytes.Repeat([]byte(`{"role":"user","content":"x"},`), 540<<10/30)
	bud := &budget{limit: 1 << 40, g: gaugeInt{prometheus.NewGauge(prometheus.GaugeOpts{Name: "held"})}}
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		r, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/", io.NopCloser(bytes.NewReader(body)))
		r.ContentLength = int64(len(body))
		got, res, err := readBody(r, 8<<20, bud)
		if err != nil || len(got) != len(body) {
			b.Fatal(err)
		}
		bud.give(res)
	}
}
