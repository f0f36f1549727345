// Package proxytest runs the repair properties of internal/repairtest
// through the proxy: Deploy serves every API's upstreams on the fake
// provider from one proxy built from a configuration.
package proxytest

import (
	"testing"

	"github.com/reasonreplay/replay/internal/repairtest"
	"github.com/reasonreplay/replay/replayproxy"
)

// Deploy is a deployment of the proxy built from cfg, serving every API's
// upstreams on p (repairtest.Upstreams); it stops when the test ends.
func Deploy(tb testing.TB, p *repairtest.Provider, cfg replayproxy.Config) repairtest.Deployment {
	tb.Helper()
	for _, u := range repairtest.Upstreams(p) {
		cfg.Upstreams = append(cfg.Upstreams, replayproxy.Upstream{Name: u.Name, URL: u.URL, Provider: u.Provider})
	}
	srv, err := replayproxy.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return repairtest.Proxy(tb, srv, srv)
}
