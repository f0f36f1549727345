package redistest_test

import (
	"context"
	"testing"

	"github.com/reasonreplay/replay/redisstore/redistest"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A server without persistence forgets what it held when restarted; a
// persistent one keeps it; a stopped one does not answer.
func TestRestart(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		start func(testing.TB) *redistest.Server
		kept  bool
	}{{"memory", redistest.Start, false}, {"persistent", redistest.StartPersistent, true}} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.start(t)
			assert.Equal(t, "redis://"+s.Addr()+"/0", s.URL())
			c := s.Client()
			require.NoError(t, c.Set(ctx, "k", "v", 0).Err())
			s.Stop()
			require.Error(t, c.Ping(ctx).Err(), "stopped")
			s.Restart()
			v, err := c.Get(ctx, "k").Result()
			if tc.kept {
				require.NoError(t, err)
				assert.Equal(t, "v", v)
			} else {
				assert.ErrorIs(t, err, redis.Nil)
			}
		})
	}
}
