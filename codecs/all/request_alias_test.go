package all_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/benchreq"
	internal "github.com/reasonreplay/replay/internal/codectest"
)

// The request readers read the body in place and keep what they read in
// memory of their own: every codec's turns read the same after the body
// they were read from is overwritten (the tool loop of every request
// shape, with escapes in every text, and the codecs' request fixtures).
func TestRequestTurnsDoNotAliasBody(t *testing.T) {
	requests := map[string][][]byte{}
	for _, s := range benchreq.Shapes() {
		requests[s.API] = append(requests[s.API], s.Request(1), s.Request(6))
	}
	for _, api := range replay.Default.APIs() {
		for _, dir := range internal.TripDirsOf(api) {
			names, _ := filepath.Glob(filepath.Join("../../testdata", dir, "*.request"))
			for _, name := range names {
				data, err := os.ReadFile(name)
				if err != nil {
					t.Fatal(err)
				}
				requests[api] = append(requests[api], data)
			}
		}
	}
	read := 0
	for _, api := range replay.Default.APIs() {
		c, err := replay.Lookup(api, "", "")
		if err != nil {
			t.Fatal(err)
		}
		for i, body := range requests[api] {
			body = append([]byte(nil), body...)
			h, _, err := c.DecodeRequest(body)
			if err != nil {
				continue // a fixture of another codec's shape in the same directory
			}
			var before []string
			for _, tu := range h.Turns {
				before = append(before, string(tu.AppendJSON(nil)))
			}
			ptrs := strings.Join(h.Pointers, ",")
			for k := range body {
				body[k] = '"'
			}
			for k, tu := range h.Turns {
				if got := string(tu.AppendJSON(nil)); got != before[k] {
					t.Fatalf("%s request %d, turn %d changed when the body was overwritten:\nbefore %s\nafter  %s", api, i, k, before[k], got)
				}
			}
			if got := strings.Join(h.Pointers, ","); got != ptrs {
				t.Fatalf("%s request %d: the pointers changed when the body was overwritten: %s, then %s", api, i, ptrs, got)
			}
			read += len(h.Turns)
		}
	}
	if read == 0 {
		t.Fatal("no turn read")
	}
}
