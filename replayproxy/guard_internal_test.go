package replayproxy

import (
	"path/filepath"
	"testing"

	"github.com/reasonreplay/replay/internal/own"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The guard declares its Get to be the store's only for a MemoryStore in
// the proxy's memory, whose Get cannot fail or wait; a file store's and a
// store of the user's own go through the guard.
func TestGuardOwnStore(t *testing.T) {
	mem := &replayhttp.MemoryStore{}
	fs, err := OpenFileStore(filepath.Join(t.TempDir(), "turns"), StoreOptions{})
	require.NoError(t, err)
	defer fs.Close()
	for _, tc := range []struct {
		name  string
		store replayhttp.Store
		own   any
	}{
		{"memory", mem, mem},
		{"file", fs, nil},
		{"the user's", struct{ *replayhttp.MemoryStore }{mem}, nil},
	} {
		srv, err := New(Config{Store: tc.store, Upstreams: []Upstream{{Name: "anthropic", URL: "http://127.0.0.1:1"}}})
		require.NoError(t, err, tc.name)
		var w own.Store = srv.store
		assert.Equal(t, tc.own, w.OwnStore(own.Token{}), tc.name)
	}
}
