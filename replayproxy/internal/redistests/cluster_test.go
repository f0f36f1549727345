package redistests_test

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reasonreplay/replay/redisstore"
	"github.com/reasonreplay/replay/redisstore/redistest"
	"github.com/reasonreplay/replay/replayproxy"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clusterNode is one redis-server of a test cluster: loopback only, no
// persistence of data (its cluster configuration file survives a
// restart, so the node rejoins).
type clusterNode struct {
	t    *testing.T
	dir  string
	port int
	cmd  *exec.Cmd
}

func (n *clusterNode) addr() string { return "127.0.0.1:" + strconv.Itoa(n.port) }

func (n *clusterNode) start() {
	n.t.Helper()
	n.cmd = exec.Command("redis-server", "--port", strconv.Itoa(n.port), "--bind", "127.0.0.1", "--dir", n.dir,
		"--cluster-enabled", "yes", "--cluster-config-file", "nodes-"+strconv.Itoa(n.port)+".conf",
		"--cluster-node-timeout", "2000", "--cluster-require-full-coverage", "no",
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning")
	require.NoError(n.t, n.cmd.Start())
	c := redis.NewClient(&redis.Options{Addr: n.addr()})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for c.Ping(context.Background()).Err() != nil {
		require.True(n.t, time.Now().Before(deadline), "redis-server did not answer on %s", n.addr())
		time.Sleep(20 * time.Millisecond)
	}
}

func (n *clusterNode) stop() {
	if n.cmd == nil {
		return
	}
	_ = n.cmd.Process.Kill()
	_ = n.cmd.Wait()
	n.cmd = nil
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startCluster starts three masters on loopback ports and joins them
// (redis-cli --cluster create), the slots spread over the three.
func startCluster(t *testing.T) []*clusterNode {
	t.Helper()
	if _, err := exec.LookPath("redis-cli"); err != nil {
		t.Skip("redis-cli is not installed (Debian: apt-get install redis-server)")
	}
	redistest.Start(t) // skips without redis-server; a plain server of its own
	var nodes []*clusterNode
	var addrs []string
	for range 3 {
		n := &clusterNode{t: t, dir: t.TempDir(), port: freePort(t)}
		n.start()
		t.Cleanup(n.stop)
		nodes = append(nodes, n)
		addrs = append(addrs, n.addr())
	}
	out, err := exec.Command("redis-cli", append(append([]string{"--cluster", "create"}, addrs...), "--cluster-replicas", "0", "--cluster-yes")...).CombinedOutput()
	require.NoError(t, err, string(out))
	waitClusterOK(t, nodes)
	return nodes
}

// waitClusterOK waits until every node says the cluster is ok.
func waitClusterOK(t *testing.T, nodes []*clusterNode) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for _, n := range nodes {
		c := redis.NewClient(&redis.Options{Addr: n.addr()})
		for {
			info, _ := c.ClusterInfo(context.Background()).Result()
			if strings.Contains(info, "cluster_state:ok") {
				break
			}
			require.True(t, time.Now().Before(deadline), "the cluster did not come up: %s", info)
			time.Sleep(50 * time.Millisecond)
		}
		c.Close()
	}
}

// firstOf and nextOf are a conversation's requests, its first message
// naming it, so that conversations hash to different slots.
func firstOf(id string) string {
	return strings.Replace(firstRequest(), "Weather in Bern?", "Weather in Bern? ("+id+")", 1)
}
func nextOf(id string, stripped bool) string {
	return strings.Replace(nextRequest(sigFor(id), "toolu_"+id, stripped), "Weather in Bern?", "Weather in Bern? ("+id+")", 1)
}

// Redis as operators run it: a three-node Cluster (the store URL's
// redis+cluster:// form, with this deployment's key prefix). The
// conversations' keys spread over the three nodes; one node is restarted
// mid-run: meanwhile requests pass through without waiting, and once it
// is back repairs resume on every node.
func TestCluster(t *testing.T) {
	nodes := startCluster(t)
	url := "redis+cluster://" + nodes[0].addr() + "?addr=" + nodes[1].addr() + "&addr=" + nodes[2].addr() + "&prefix=deploy-a:"
	store, err := redisstore.Open(url, redisstore.Options{})
	require.NoError(t, err)
	up := newUpstream(t)
	p, logs := proxyWith(t, store, up, replayproxy.Config{StoreTimeout: 300 * time.Millisecond, StoreBackoff: 100 * time.Millisecond})

	loop := func(id string) (string, time.Duration) {
		start := time.Now()
		turn(t, p, id, firstOf(id))
		return turn(t, p, id, nextOf(id, true)), time.Since(start)
	}
	for i := range 24 {
		id := fmt.Sprintf("c%02d", i)
		rep, _ := loop(id)
		require.Equal(t, "restored=1", rep, id)
		got := up.got(id)
		assert.Equal(t, nextOf(id, false), got[len(got)-1], "restored byte for byte")
	}
	for _, n := range nodes {
		c := redis.NewClient(&redis.Options{Addr: n.addr()})
		keys, err := c.Keys(context.Background(), "*").Result()
		require.NoError(t, err)
		assert.NotEmpty(t, keys, "node %s holds some of the conversations: the slots are spread", n.addr())
		for _, k := range keys {
			assert.Regexp(t, `^deploy-a:[zd]:\{`, k, "the deployment's prefix, then the conversation's hash tag")
		}
		c.Close()
	}

	nodes[1].stop()
	for i := range 8 {
		id := fmt.Sprintf("d%02d", i)
		rep, took := loop(id)
		assert.Contains(t, []string{"restored=1", "store-error=1"}, rep, id)
		assert.Less(t, took, 3*time.Second, "never waits on the store")
	}
	nodes[1].start()
	waitClusterOK(t, nodes)
	resumed := 0
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; resumed < 24 && time.Now().Before(deadline); i++ {
		id := fmt.Sprintf("e%03d", i)
		if rep, _ := loop(id); rep == "restored=1" {
			resumed++
		} else {
			resumed = 0 // until every node answers, in a row
			time.Sleep(100 * time.Millisecond)
		}
	}
	assert.Equal(t, 24, resumed, "repairs resume: 24 conversations in a row, over the three nodes")
	c := redis.NewClient(&redis.Options{Addr: nodes[1].addr()})
	n, err := c.DBSize(context.Background()).Result()
	c.Close()
	require.NoError(t, err)
	assert.NotZero(t, n, "the restarted node holds conversations again")
	assert.Contains(t, logs.String(), `"msg":"store recovered`)

}
