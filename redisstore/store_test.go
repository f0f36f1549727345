package redisstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/redisstore"
	"github.com/reasonreplay/replay/redisstore/redistest"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/reasonreplay/replay/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func turnOf(t *testing.T, id string) *replay.Turn {
	t.Helper()
	c, err := replay.Lookup("anthropic", "anthropic", "claude-sonnet-4-5")
	require.NoError(t, err)
	tu, err := stream.Decode(strings.NewReader(anthropicSSE(sigFor(id), "toolu_"+id)), c, stream.Options{})
	require.NoError(t, err)
	return tu
}

// Documents come back byte for byte, once per key however often they
// were put, never under another tenant's key, and expire after the TTL.
func TestPutGet(t *testing.T) {
	r := redistest.Start(t)
	ctx := context.Background()
	s, err := redisstore.Open(r.URL(), redisstore.Options{TTL: 400 * time.Millisecond})
	require.NoError(t, err)
	defer s.Close()
	a, b := turnOf(t, "a").AppendJSON(nil), turnOf(t, "b").AppendJSON(nil)
	k := replayhttp.Key{Tenant: "t1", Conversation: "c1"}
	require.NoError(t, s.Put(ctx, k, a))
	require.NoError(t, s.Put(ctx, k, a))
	got, err := s.Get(ctx, k)
	require.NoError(t, err)
	require.Len(t, got, 1, "put twice, kept once")
	assert.Equal(t, string(a), string(got[0]))
	require.NoError(t, s.Put(ctx, k, b))
	got, err = s.Get(ctx, k)
	require.NoError(t, err)
	assert.Len(t, got, 2, "two captures of one prefix")
	got, err = s.Get(ctx, replayhttp.Key{Tenant: "t2", Conversation: "c1"})
	require.NoError(t, err)
	assert.Empty(t, got, "another tenant")

	time.Sleep(600 * time.Millisecond)
	got, err = s.Get(ctx, k)
	require.NoError(t, err)
	assert.Empty(t, got, "expired")
}

// The URL forms: one server, Sentinel, Cluster, each with TLS; the prefix
// from the query; mistakes said without the password.
func TestOpenURLs(t *testing.T) {
	for _, u := range []string{
		"redis://127.0.0.1:1/0",
		"rediss://user:pw@127.0.0.1:1/2?dial_timeout=1s",
		"redis+sentinel://127.0.0.1:1?master_name=main&addr=127.0.0.1:2",
		"rediss+sentinel://127.0.0.1:1/1?master_name=main",
		"redis+cluster://127.0.0.1:1?addr=127.0.0.1:2&addr=127.0.0.1:3&prefix=team-a:",
		"rediss+cluster://127.0.0.1:1?server_name=redis.internal",
	} {
		s, err := redisstore.Open(u, redisstore.Options{})
		require.NoError(t, err, u)
		require.NoError(t, s.Close())
	}
	for u, want := range map[string]string{
		"memcached://h:1":                          "redisstore: memcached://h:1: want redis://, rediss://, redis+sentinel://, redis+cluster:// (or their rediss+ forms)",
		"redis+sentinel://u:secret-pw@h:1/0":       "redisstore: redis+sentinel://u:xxxxx@h:1/0: a Sentinel URL needs master_name=",
		"redis://u:secret-pw@h:1/0?ca_file=/x.pem": "redisstore: redis://u:xxxxx@h:1/0?ca_file=%2Fx.pem: ca_file, cert_file, key_file and server_name need TLS: use rediss",
		"rediss://h:1/0?ca_file=/nonexistent.pem":  "redisstore: rediss://h:1/0?ca_file=%2Fnonexistent.pem: ca_file: open /nonexistent.pem: no such file or directory",
		"redis://h:1/0?password=secret-pw&nope=1":  "redisstore: redis://h:1/0?nope=1&password=xxxxx: unexpected option: nope, password",
	} {
		_, err := redisstore.Open(u, redisstore.Options{})
		var ue *redisstore.URLError
		require.ErrorAs(t, err, &ue, u)
		assert.Equal(t, want, err.Error())
		assert.NotContains(t, err.Error(), "secret-pw")
	}
}
