package replayproxy_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/reasonreplay/replay/internal/repairtest"
	"github.com/reasonreplay/replay/replayproxy"
	"github.com/reasonreplay/replay/replayproxy/internal/proxytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A FileStore keeps its own secret beside its file (mode 0600): a proxy
// restarted on the same file finds its tenants' turns again; a proxy
// given another secret does not.
func TestFileStoreSecretSurvivesRestart(t *testing.T) {
	p := repairtest.NewProvider(t)
	api := repairtest.ByName("anthropic")
	path := filepath.Join(t.TempDir(), "turns.jsonl")
	key, _ := repairtest.Keys(api)
	conv := "restart"
	next := api.Next(conv, repairtest.Strip(api, api.Echo(repairtest.Reasoning{Tenant: key, Conv: conv}, repairtest.Tool)), repairtest.Tool)
	open := func() *replayproxy.FileStore {
		s, err := replayproxy.OpenFileStore(path, replayproxy.StoreOptions{})
		require.NoError(t, err)
		return s
	}
	first := open()
	d := proxytest.Deploy(t, p, replayproxy.Config{Store: first})
	p.Send(t, d, repairtest.Call{API: api, Key: key, Conv: conv, Body: api.First(conv)})
	require.NoError(t, first.Close())

	fi, err := os.Stat(path + ".secret")
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	assert.Equal(t, int64(32), fi.Size())

	again := open()
	assert.Equal(t, first.Secret(), again.Secret())
	seen := p.Send(t, proxytest.Deploy(t, p, replayproxy.Config{Store: again}), repairtest.Call{API: api, Key: key, Conv: conv, Body: next})
	assert.True(t, seen.Restored(), "%+v", seen)
	require.NoError(t, again.Close(), "one store holds the file at a time")

	other := proxytest.Deploy(t, p, replayproxy.Config{Store: open(), Secret: []byte("another deployment's secret, 32 bytes or more")})
	seen = p.Send(t, other, repairtest.Call{API: api, Key: key, Conv: conv, Body: next})
	assert.False(t, seen.Restored(), "%+v", seen)
	assert.Equal(t, next, string(seen.Received))
}
