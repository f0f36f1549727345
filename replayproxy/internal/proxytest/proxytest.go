// Package proxytest runs the repair properties of internal/repairtest
// through the proxy: Deploy serves every API's upstreams on the fake
// provider from one proxy built from a configuration.
package proxytest

import (
	"bytes"
	"sync"
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

// SyncBuffer is a log sink safe for concurrent writes: what a proxy under
// test logs, read back by the test.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
