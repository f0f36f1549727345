package redistests_test

import (
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reasonreplay/replay/internal/repairtest"
	"github.com/reasonreplay/replay/redisstore"
	"github.com/reasonreplay/replay/redisstore/redistest"
	"github.com/reasonreplay/replay/replayproxy"
	"github.com/reasonreplay/replay/replayproxy/internal/proxytest"
	"github.com/redis/go-redis/v9"
)

var shapes = []repairtest.Shape{repairtest.Tool, repairtest.Text}

// fresh makes proxies whose Redis stores start empty: each on a key
// prefix of its own in the one server, sharing the deployment's secret.
func fresh(t *testing.T, r *redistest.Server, mode replayproxy.Mode) (*repairtest.Provider, repairtest.Fresh) {
	p := repairtest.NewProvider(t)
	var n atomic.Int64
	return p, func(tb testing.TB) repairtest.Deployment {
		c := redis.NewClient(&redis.Options{Addr: r.Addr()})
		store := redisstore.New(c, redisstore.Options{Prefix: "world" + strconv.FormatInt(n.Add(1), 10) + ":"})
		// The properties are about scope, not about a slow store: a
		// machine busy enough (the race detector, other builds) to keep
		// Redis past the default 250ms would turn them into store errors.
		return proxytest.Deploy(tb, p, replayproxy.Config{Store: store, Mode: mode, StoreTimeout: 10 * time.Second,
			Secret: []byte("the secret every instance of this deployment shares")})
	}
}

// Every API through the proxy with the Redis store: tenants sharing it
// never see each other, whatever they send; one credential on two
// upstreams is two tenants; a request without a credential is neither
// captured nor repaired.
func TestRedisCrossTenant(t *testing.T) {
	r := redistest.Start(t)
	for _, mode := range []replayproxy.Mode{replayproxy.ModeReport, replayproxy.ModeEnforce} {
		p, fresh := fresh(t, r, mode)
		for _, api := range repairtest.APIs() {
			for _, s := range shapes {
				t.Run(mode.String()+"/"+api.Name+"/"+s.String(), func(t *testing.T) {
					repairtest.CrossTenant(t, p, fresh, api, s)
					repairtest.OtherUpstream(t, p, fresh, api, s)
					if mode == replayproxy.ModeReport {
						repairtest.NoCredential(t, p, fresh, api, s, nil)
					}
				})
			}
		}
	}
}

// The mangle property through the proxy in enforce mode with the Redis
// store.
func TestRedisMangleProperty(t *testing.T) {
	r := redistest.Start(t)
	p, fresh := fresh(t, r, replayproxy.ModeEnforce)
	d := fresh(t)
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

// 16 conversations of one Gemini agent call the same tool at the same
// step, at once, through the proxy on Redis: each gets its own signature
// back.
func TestRedisConcurrentGeminiConversations(t *testing.T) {
	r := redistest.Start(t)
	p, fresh := fresh(t, r, replayproxy.ModeEnforce)
	repairtest.Concurrent(t, p, fresh(t), repairtest.ByName("gemini"), 16)
}
