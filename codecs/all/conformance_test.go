package all_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/codecs/codectest"
	"github.com/reasonreplay/replay/internal/benchreq"
	internal "github.com/reasonreplay/replay/internal/codectest"
	"github.com/reasonreplay/replay/stream"
)

// TestConformance runs the public conformance kit on every registered
// codec: its complete body and stream fixtures (those of its testdata
// directories that decode into a complete turn; error bodies and cut
// streams are the codecs' own tests'), and a tool loop's request in its
// shape where the request benchmarks write one.
func TestConformance(t *testing.T) {
	requests := map[string][]byte{}
	for _, s := range benchreq.Shapes() {
		requests[s.API] = s.Request(4)
	}
	for _, api := range replay.Default().APIs() {
		t.Run(api, func(t *testing.T) {
			c, err := replay.Lookup(api, "", "")
			if err != nil {
				t.Fatal(err)
			}
			var f codectest.Fixtures
			for _, dir := range internal.TripDirsOf(api) {
				names, _ := filepath.Glob(filepath.Join("../../testdata", dir, "*"))
				for _, name := range names {
					data, err := os.ReadFile(name)
					if err != nil || strings.HasSuffix(name, ".request") {
						continue
					}
					if strings.HasSuffix(name, ".json") {
						if tu, err := c.Decode(data); err == nil && tu.Complete {
							f.Bodies = append(f.Bodies, data)
						}
						continue
					}
					for _, fr := range []stream.Framing{stream.FramingSSE, stream.FramingJSONL, stream.FramingEventStream} {
						if tu, err := stream.Decode(strings.NewReader(string(data)), c, stream.Options{Framing: fr}); err == nil && tu.Complete {
							f.Streams = append(f.Streams, data)
							break
						}
					}
				}
			}
			if r, ok := requests[api]; ok {
				f.Requests = append(f.Requests, r)
			}
			if len(f.Bodies)+len(f.Streams) == 0 {
				t.Fatalf("%s has no complete fixture in %v", api, internal.TripDirsOf(api))
			}
			cc, ok := c.(codecs.Codec)
			if !ok {
				t.Fatalf("%s is registered but is not a codecs.Codec: it decodes no streams", api)
			}
			codectest.Run(t, cc, f)
		})
	}
}
