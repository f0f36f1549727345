package redistests_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/reasonreplay/replay/redisstore/redistest"
	"github.com/reasonreplay/replay/replayproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two proxy instances share one Redis: the next turn of a conversation
// captured by the first is repaired by the second.
func TestSecondInstanceServesNextTurn(t *testing.T) {
	r := redistest.Start(t)
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
	r := redistest.Start(t)
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

	assert.Equal(t, http.StatusOK, status(t, p+"/readyz"))
	r.Stop()
	assert.Equal(t, http.StatusServiceUnavailable, status(t, p+"/readyz"), "not ready while Redis is stopped")
	assert.Equal(t, http.StatusOK, status(t, p+"/livez"), "but alive")
	for i, id := range []string{"r2", "r3", "r4"} {
		rep, took := loop(id)
		assert.Equal(t, "store-error=1", rep, "passed through, the store's error the reason")
		assert.Less(t, took, 2*time.Second, "never blocked on the store")
		assert.Equal(t, nextRequest(sigFor(id), "toolu_"+id, true), up.got(id)[1], "the request went as the client sent it")
		if i == 0 {
			time.Sleep(150 * time.Millisecond) // past the backoff: the store is tried again
		}
	}
	r.Restart()
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		time.Sleep(150 * time.Millisecond)
		if rep, _ = loop("r5-" + string(rune('a'+i%26)) + time.Now().Format("150405.000")); rep == "restored=1" {
			break
		}
	}
	assert.Equal(t, "restored=1", rep, "repairs again once Redis answers")
	assert.Equal(t, http.StatusOK, status(t, p+"/readyz"), "ready again")
	log := logs.String()
	assert.Equal(t, 1, strings.Count(log, `"msg":"store unavailable: requests pass through unrepaired and turns are not kept until it answers again"`), log)
	assert.Equal(t, 1, strings.Count(log, `"msg":"store recovered: repairing and keeping turns again"`), log)
}

func status(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}
