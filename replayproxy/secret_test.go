package replayproxy_test

import (
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonreplay/replay/internal/repairtest"
	"github.com/reasonreplay/replay/replayproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --secret-file gives the secret that keys the tenants; one shorter than
// 32 bytes, or a file that does not read, is refused.
func TestSecretFileFlag(t *testing.T) {
	dir := t.TempDir()
	good, short := filepath.Join(dir, "good"), filepath.Join(dir, "short")
	require.NoError(t, os.WriteFile(good, []byte("0123456789abcdef0123456789abcdef0123"), 0o600))
	require.NoError(t, os.WriteFile(short, []byte("0123456789"), 0o600))
	parse := func(args string) (replayproxy.Config, error) {
		var f replayproxy.Flags
		fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
		f.Register(fs)
		require.NoError(t, fs.Parse(strings.Fields(args)))
		return f.Config(slog.New(slog.DiscardHandler))
	}
	cfg, err := parse("--secret-file " + good)
	require.NoError(t, err)
	assert.Equal(t, "0123456789abcdef0123456789abcdef0123", string(cfg.Secret))
	cfg, err = parse("")
	require.NoError(t, err)
	assert.Nil(t, cfg.Secret, "the memory store needs none: the proxy draws one")
	_, err = parse("--secret-file " + short)
	assert.EqualError(t, err, "--secret-file: the secret has 10 bytes, want 32 or more")
	_, err = parse("--secret-file " + filepath.Join(dir, "none"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--secret-file: open ")
}

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
	d := repairtest.Proxy(t, p, replayproxy.Config{Store: first})
	p.Send(t, d, repairtest.Call{API: api, Key: key, Conv: conv, Body: api.First(conv)})
	require.NoError(t, first.Close())

	fi, err := os.Stat(path + ".secret")
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	assert.Equal(t, int64(32), fi.Size())

	again := open()
	assert.Equal(t, first.Secret(), again.Secret())
	seen := p.Send(t, repairtest.Proxy(t, p, replayproxy.Config{Store: again}), repairtest.Call{API: api, Key: key, Conv: conv, Body: next})
	assert.True(t, seen.Restored(), "%+v", seen)
	require.NoError(t, again.Close(), "one store holds the file at a time")

	other := repairtest.Proxy(t, p, replayproxy.Config{Store: open(), Secret: []byte("another deployment's secret, 32 bytes or more")})
	seen = p.Send(t, other, repairtest.Call{API: api, Key: key, Conv: conv, Body: next})
	assert.False(t, seen.Restored(), "%+v", seen)
	assert.Equal(t, next, string(seen.Received))
}
