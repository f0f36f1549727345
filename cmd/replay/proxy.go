package main

import (
	"context"
	"flag"
	"os"
	"os/signal"
	"syscall"

	"github.com/reasonreplay/replay/replayproxy"
)

const proxySummary = "Serve a repairing reverse proxy: agents point their base URL at http://ADDR/NAME (anthropic, openai, gemini, openrouter, or any --upstream); " +
	"it captures each response's reasoning, puts back what the agent dropped, audits before sending (--mode), and answers GET /healthz and /metrics. " +
	"JSON log lines on stderr; SIGINT or SIGTERM lets streams in flight finish"

func defineProxy(fs *flag.FlagSet) func(e *env, operands []string) error {
	var f replayproxy.Flags
	f.Register(fs)
	return func(e *env, operands []string) error {
		if len(operands) > 0 {
			return usageError("takes no operands (got %q); name upstreams with --upstream NAME=URL", operands[0])
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		err := replayproxy.Run(ctx, &f, e.stderr)
		if _, ok := err.(*replayproxy.ConfigError); ok {
			return &exitError{code: 2, err: err}
		}
		return err
	}
}
