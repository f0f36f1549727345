// Command replay-proxy is the repairing reverse proxy for agents in any
// language: it captures the reasoning of every response, puts back what an
// agent dropped when it rebuilt its history, and audits each request
// before the provider sees it. One binary with every store (in memory, a
// file, Redis: one server, Sentinel or Cluster):
//
//	replay-proxy --listen 127.0.0.1:8080 --upstream anthropic=https://api.anthropic.com
//
// Every flag may also be set by its REPLAY_PROXY_* environment variable or
// in the --config file; run it with --help for the list.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/reasonreplay/replay/replayproxy/internal/command"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := command.Main(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
