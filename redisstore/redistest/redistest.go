// Package redistest starts a real redis-server on a loopback port for a
// test, the way httptest starts an HTTP server: the Redis store's tests
// and the proxy's run against it. A test that calls [Start] is skipped
// when redis-server is not installed (Debian: apt-get install
// redis-server).
package redistest

import (
	"context"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is a redis-server a test started on 127.0.0.1. It is stopped
// when the test ends.
type Server struct {
	t    testing.TB
	port int
	cmd  *exec.Cmd
	// dir, when set, holds an append-only file synced at every write: a
	// restart keeps what was written.
	dir string
}

// Start starts redis-server on a free loopback port with no persistence
// (a restart empties it) and the DEBUG command enabled for local
// clients, or skips the test when the binary is not installed.
func Start(t testing.TB) *Server { return start(t, false) }

// StartPersistent is Start with every write appended to a file and synced
// (appendfsync always): a restart keeps everything written before it.
func StartPersistent(t testing.TB) *Server { return start(t, true) }

func start(t testing.TB, persist bool) *Server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed (Debian: apt-get install redis-server); the Redis store's tests need a real server")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	s := &Server{t: t, port: port}
	if persist {
		s.dir = t.TempDir()
	}
	s.Restart()
	t.Cleanup(s.Stop)
	return s
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// URL is the server's redis:// URL, database 0.
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

// Client returns a client of its own, closed when the test ends, for what
// a test does behind a store's back.
func (s *Server) Client() *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.Addr()})
	s.t.Cleanup(func() { c.Close() })
	return c
}

// Restart starts the server again on its port after Stop (Start calls it
// once) and waits until it answers.
func (s *Server) Restart() {
	s.t.Helper()
	args := []string{"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "", "--daemonize", "no",
		"--loglevel", "warning", "--enable-debug-command", "local"}
	if s.dir != "" {
		args = append(args, "--dir", s.dir, "--appendonly", "yes", "--appendfsync", "always")
	} else {
		args = append(args, "--appendonly", "no")
	}
	s.cmd = exec.Command("redis-server", args...)
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for c.Ping(context.Background()).Err() != nil {
		if time.Now().After(deadline) {
			s.t.Fatalf("redis-server did not answer on %s", s.Addr())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop kills the server (a crash, not a shutdown: what a server without
// persistence held is gone). It does nothing when the server is stopped.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}
