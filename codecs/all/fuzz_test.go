package all_test

import (
	"errors"
	"testing"

	"github.com/reasonreplay/replay"
)

// FuzzRequestReaders feeds any bytes to every codec's request reader and
// Patch, and to the request audit: a typed error or a report, never a
// panic; a request that reads reads the same way twice.
func FuzzRequestReaders(f *testing.F) {
	for _, c := range append(suiteCases(), novemberCases(f)...) {
		f.Add(c.body)
	}
	for _, in := range hostileInputs {
		f.Add(string(in.make(600)))
	}
	f.Add(`{"messages":[{"role":"assistant","content":"\ud800"}]}`)
	f.Fuzz(func(t *testing.T, body string) {
		for _, api := range replay.Default().APIs() {
			c, err := replay.Lookup(api, "", "")
			if err != nil {
				t.Fatal(err)
			}
			h, _, err := c.DecodeRequest([]byte(body))
			if err != nil {
				if !errors.Is(err, replay.ErrMalformed) && !errors.As(err, new(*replay.LimitError)) {
					t.Fatalf("%s: DecodeRequest: an untyped error: %v", api, err)
				}
			} else {
				h2, _, err := c.DecodeRequest([]byte(body))
				if err != nil || len(h2.Turns) != len(h.Turns) {
					t.Fatalf("%s: reading twice differs: %v", api, err)
				}
				for i := range h.Turns {
					if a, b := string(h.Turns[i].AppendJSON(nil)), string(h2.Turns[i].AppendJSON(nil)); a != b {
						t.Fatalf("%s: turn %d reads differently: %s vs %s", api, i, a, b)
					}
				}
			}
			if _, err := c.Patch([]byte(body), &replay.Turn{Complete: true}); err != nil && !errors.Is(err, replay.ErrMalformed) {
				t.Fatalf("%s: Patch: an untyped error: %v", api, err)
			}
			if _, err := replay.AuditRequest(api, []byte(body)); err != nil && !errors.Is(err, replay.ErrMalformed) && !errors.As(err, new(*replay.LimitError)) {
				t.Fatalf("%s: AuditRequest: an untyped error: %v", api, err)
			}
		}
	})
}
