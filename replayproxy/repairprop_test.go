package replayproxy_test

import (
	"path/filepath"
	"testing"

	"github.com/reasonreplay/replay/internal/repairtest"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/reasonreplay/replay/replayproxy"
	"github.com/reasonreplay/replay/replayproxy/internal/proxytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var shapes = []repairtest.Shape{repairtest.Tool, repairtest.Text}

// stores are the proxy's own stores, each made fresh for a deployment.
func stores(t *testing.T) map[string]func(testing.TB) replayhttp.Store {
	return map[string]func(testing.TB) replayhttp.Store{
		"memory": func(testing.TB) replayhttp.Store { return &replayhttp.MemoryStore{} },
		"file": func(tb testing.TB) replayhttp.Store {
			s, err := replayproxy.OpenFileStore(filepath.Join(tb.TempDir(), "turns.jsonl"), replayproxy.StoreOptions{})
			require.NoError(tb, err)
			return s
		},
	}
}

// Every API through the proxy, with each of its stores: tenants sharing
// the proxy never see each other, in their bodies, in the X-Replay-*
// headers, whatever they send; one credential on two upstreams is two
// tenants; a request without a credential is neither captured nor
// repaired.
func TestProxyCrossTenant(t *testing.T) {
	p := repairtest.NewProvider(t)
	for name, open := range stores(t) {
		for _, mode := range []replayproxy.Mode{replayproxy.ModeReport, replayproxy.ModeEnforce} {
			var store interface{ Len() int } // the last deployment's
			fresh := func(tb testing.TB) repairtest.Deployment {
				s := open(tb)
				store = s.(interface{ Len() int })
				return proxytest.Deploy(tb, p, replayproxy.Config{Store: s, Mode: mode})
			}
			for _, api := range repairtest.APIs() {
				for _, s := range shapes {
					t.Run(name+"/"+mode.String()+"/"+api.Name+"/"+s.String(), func(t *testing.T) {
						repairtest.CrossTenant(t, p, fresh, api, s)
						repairtest.OtherUpstream(t, p, fresh, api, s)
						if mode == replayproxy.ModeReport {
							repairtest.NoCredential(t, p, fresh, api, s, func() int { return store.Len() })
						}
					})
				}
			}
		}
	}
}

// The mangle property through the proxy in enforce mode, with each of
// its stores.
func TestProxyMangleProperty(t *testing.T) {
	p := repairtest.NewProvider(t)
	for name, open := range stores(t) {
		d := proxytest.Deploy(t, p, replayproxy.Config{Store: open(t), Mode: replayproxy.ModeEnforce})
		for _, api := range repairtest.APIs() {
			for _, s := range shapes {
				t.Run(name+"/"+api.Name+"/"+s.String(), func(t *testing.T) {
					for _, o := range repairtest.MangleProperty(t, p, d, api, s, 20) {
						if o.Problem != "" {
							t.Errorf("%s: %s", o.Variant, o.Problem)
						}
					}
				})
			}
		}
	}
}

// 16 conversations of one Gemini agent call the same tool at the same
// step, at once, through the proxy: each gets its own signature back.
func TestProxyConcurrentGeminiConversations(t *testing.T) {
	p := repairtest.NewProvider(t)
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			d := proxytest.Deploy(t, p, replayproxy.Config{Store: open(t), Mode: replayproxy.ModeEnforce})
			repairtest.Concurrent(t, p, d, repairtest.ByName("gemini"), 16)
		})
	}
}

// The repair harness reads the proxy's headers by the names the proxy
// sends.
func TestHarnessHeaders(t *testing.T) {
	assert.Equal(t,
		[]string{replayproxy.HeaderAudit, replayproxy.HeaderRepairs, replayproxy.HeaderRefused, replayproxy.HeaderRetried, replayproxy.HeaderUpfront},
		[]string{repairtest.HeaderAudit, repairtest.HeaderRepairs, repairtest.HeaderRefused, repairtest.HeaderRetried, repairtest.HeaderUpfront})
}
