package redisstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/redisstore"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/reasonreplay/replay/replayproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func turnOf(t *testing.T, id string) *replay.Turn {
	t.Helper()
	c, err := replay.Lookup("anthropic", "anthropic", "claude-sonnet-4-5")
	require.NoError(t, err)
	tu, err := replay.DecodeStream(strings.NewReader(anthropicSSE(sigFor(id), "toolu_"+id)), c.NewStream(), replay.StreamOptions{})
	require.NoError(t, err)
	return tu
}

// Documents come back byte for byte, once per key however often they
// were put, never under another tenant's key, and expire after the TTL.
func TestPutGet(t *testing.T) {
	r := startRedis(t)
	ctx := context.Background()
	s, err := redisstore.Open(r.url(), 400*time.Millisecond)
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

// Importing the package registers redis:// with the proxy's OpenStore.
func TestOpenStoreScheme(t *testing.T) {
	st, err := replayproxy.OpenStore("redis://127.0.0.1:1/0", replayproxy.StoreOptions{})
	require.NoError(t, err)
	assert.IsType(t, &redisstore.Store{}, st)
	require.NoError(t, st.(*redisstore.Store).Close())
	_, err = replayproxy.OpenStore("redis://[bad", replayproxy.StoreOptions{})
	var ce *replayproxy.ConfigError
	require.ErrorAs(t, err, &ce)
}

// Two proxy instances share one Redis: the next turn of a conversation
// captured by the first is repaired by the second.
func TestSecondInstanceServesNextTurn(t *testing.T) {
	r := startRedis(t)
	up := newUpstream(t)
	a, _ := proxyOn(t, r, up, replayproxy.Config{Mode: replayproxy.ModeEnforce})
	b, _ := proxyOn(t, r, up, replayproxy.Config{Mode: replayproxy.ModeEnforce})
	for _, id := range []string{"x1", "x2", "x3"} {
		assert.Empty(t, turn(t, a, id, firstRequest()))
		assert.Equal(t, "restored=1", turn(t, b, id, nextRequest(sigFor(id), "toolu_"+id, true)))
		got := up.got(id)
		require.Len(t, got, 2)
		assert.Equal(t, nextRequest(sigFor(id), "toolu_"+id, false), got[1], "restored byte for byte by the other instance")
	}
}

// Redis restarted during the run: the proxy passes requests through
// (unrepaired, never waiting on the store, the store's error the reason
// in X-Replay-Repairs) with one log line, and repairs again once Redis
// answers, with another.
func TestRedisRestart(t *testing.T) {
	r := startRedis(t)
	up := newUpstream(t)
	p, logs := proxyOn(t, r, up, replayproxy.Config{StoreTimeout: 200 * time.Millisecond, StoreBackoff: 100 * time.Millisecond})
	loop := func(id string) (repairs string, took time.Duration) {
		start := time.Now()
		turn(t, p, id, firstRequest())
		repairs = turn(t, p, id, nextRequest(sigFor(id), "toolu_"+id, true))
		return repairs, time.Since(start)
	}
	rep, _ := loop("r1")
	assert.Equal(t, "restored=1", rep)

	r.stop()
	for i, id := range []string{"r2", "r3", "r4"} {
		rep, took := loop(id)
		assert.Equal(t, "store-error=1", rep, "passed through, the store's error the reason")
		assert.Less(t, took, 2*time.Second, "never blocked on the store")
		assert.Equal(t, nextRequest(sigFor(id), "toolu_"+id, true), up.got(id)[1], "the request went as the client sent it")
		if i == 0 {
			time.Sleep(150 * time.Millisecond) // past the backoff: the store is tried again
		}
	}
	r.start()
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		time.Sleep(150 * time.Millisecond)
		if rep, _ = loop("r5-" + string(rune('a'+i%26)) + time.Now().Format("150405.000")); rep == "restored=1" {
			break
		}
	}
	assert.Equal(t, "restored=1", rep, "repairs again once Redis answers")
	log := logs.String()
	assert.Equal(t, 1, strings.Count(log, `"msg":"store unavailable: requests pass through unrepaired and turns are not kept until it answers again"`), log)
	assert.Equal(t, 1, strings.Count(log, `"msg":"store recovered: repairing and keeping turns again"`), log)
}
