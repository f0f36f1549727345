package replayhttp_test

import (
	"testing"

	"github.com/reasonreplay/replay/internal/repairtest"
	"github.com/reasonreplay/replay/replayhttp"
)

var shapes = []repairtest.Shape{repairtest.Tool, repairtest.Text}

// Every API, a MemoryStore: tenants sharing a Transport never see each
// other, whatever they send; in report and in refuse mode.
func TestCrossTenant(t *testing.T) {
	p := repairtest.NewProvider(t)
	for _, mode := range []replayhttp.AuditMode{replayhttp.AuditReport, replayhttp.AuditRefuse} {
		fresh := func(testing.TB) repairtest.Deployment { return repairtest.Library(p, &replayhttp.MemoryStore{}, mode) }
		for _, api := range repairtest.APIs() {
			for _, s := range shapes {
				t.Run(api.Name+"/"+s.String(), func(t *testing.T) {
					repairtest.CrossTenant(t, p, fresh, api, s)
					repairtest.OtherUpstream(t, p, fresh, api, s)
				})
			}
		}
	}
}

// A request without a credential is neither captured nor repaired.
func TestNoCredential(t *testing.T) {
	p := repairtest.NewProvider(t)
	var store *replayhttp.MemoryStore
	fresh := func(testing.TB) repairtest.Deployment {
		store = &replayhttp.MemoryStore{}
		return repairtest.Library(p, store, replayhttp.AuditReport)
	}
	for _, api := range repairtest.APIs() {
		for _, s := range shapes {
			t.Run(api.Name+"/"+s.String(), func(t *testing.T) {
				repairtest.NoCredential(t, p, fresh, api, s, func() int { return store.Len() })
			})
		}
	}
}

// The mangle property, every API, a MemoryStore: whatever a client does
// to the reasoning of a captured turn, the provider receives the capture.
func TestMangleProperty(t *testing.T) {
	p := repairtest.NewProvider(t)
	d := repairtest.Library(p, &replayhttp.MemoryStore{}, replayhttp.AuditRefuse)
	for _, api := range repairtest.APIs() {
		for _, s := range shapes {
			t.Run(api.Name+"/"+s.String(), func(t *testing.T) {
				for _, o := range repairtest.MangleProperty(t, p, d, api, s, 20) {
					if o.Problem != "" {
						t.Errorf("%s: %s", o.Variant, o.Problem)
					}
				}
			})
		}
	}
}
