package redisstore_test

import (
	"context"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// redisServer is a redis-server the test started on a loopback port, with
// no persistence: a restart empties it.
type redisServer struct {
	t    testing.TB
	port int
	cmd  *exec.Cmd
	// dir, when set, holds an append-only file synced at every write: a
	// restart keeps what was written.
	dir string
}

// startRedis starts redis-server on a free loopback port, with no
// persistence (a restart empties it), or skips the test when the binary is
// not installed.
func startRedis(t testing.TB) *redisServer { return startRedisWith(t, false) }

// startRedisWith starts redis-server, persisting every write to an
// append-only file when persist is set.
func startRedisWith(t testing.TB, persist bool) *redisServer {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed (Debian: apt-get install redis-server); the Redis store's tests need a real server")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	r := &redisServer{t: t, port: port}
	if persist {
		r.dir = t.TempDir()
	}
	r.start()
	t.Cleanup(r.stop)
	return r
}

func (r *redisServer) url() string { return "redis://127.0.0.1:" + strconv.Itoa(r.port) + "/0" }

// client returns a client of its own, for what the tests do behind the
// store's back.
func (r *redisServer) client() *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(r.port)})
	r.t.Cleanup(func() { c.Close() })
	return c
}

func (r *redisServer) start() {
	r.t.Helper()
	args := []string{"--port", strconv.Itoa(r.port), "--bind", "127.0.0.1", "--save", "", "--daemonize", "no",
		"--loglevel", "warning", "--enable-debug-command", "local"}
	if r.dir != "" {
		args = append(args, "--dir", r.dir, "--appendonly", "yes", "--appendfsync", "always")
	} else {
		args = append(args, "--appendonly", "no")
	}
	r.cmd = exec.Command("redis-server", args...)
	require.NoError(r.t, r.cmd.Start())
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(r.port)})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for c.Ping(context.Background()).Err() != nil {
		require.True(r.t, time.Now().Before(deadline), "redis-server did not answer on port %d", r.port)
		time.Sleep(20 * time.Millisecond)
	}
}

func (r *redisServer) stop() {
	if r.cmd == nil {
		return
	}
	_ = r.cmd.Process.Kill()
	_ = r.cmd.Wait()
	r.cmd = nil
}

// The fixtures are written for these tests from the documented Anthropic
// Messages shapes; the signature and the tool id differ per call.

func sseEvent(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }

func anthropicSSE(sig, toolID string) string {
	half := len(sig) / 2
	return sseEvent("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":12,"output_tokens":1}}}`) +
		sseEvent("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`) +
		sseEvent("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Call the tool."}}`) +
		sseEvent("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"`+sig[:half]+`"}}`) +
		sseEvent("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"`+sig[half:]+`"}}`) +
		sseEvent("content_block_stop", `{"type":"content_block_stop","index":0}`) +
		sseEvent("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"`+toolID+`","name":"get_weather","input":{}}}`) +
		sseEvent("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Bern\"}"}}`) +
		sseEvent("content_block_stop", `{"type":"content_block_stop","index":1}`) +
		sseEvent("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":40}}`) +
		sseEvent("message_stop", `{"type":"message_stop"}`)
}

func sigFor(id string) string { return "EqQBCkgIAhABGAIiQ" + id + "Sig+/=" }
