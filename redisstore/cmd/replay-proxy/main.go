// Command replay-proxy is `replay proxy` with the Redis store, for several
// proxy instances behind a load balancer sharing the captured turns:
//
//	replay-proxy --listen 127.0.0.1:8080 --store redis://127.0.0.1:6379/0 \
//		--upstream anthropic=https://api.anthropic.com --upstream openai=https://api.openai.com
//
// It takes the flags of `replay proxy` (run it with --help).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	_ "github.com/reasonreplay/replay/codecs/all"
	_ "github.com/reasonreplay/replay/redisstore"
	"github.com/reasonreplay/replay/replayproxy"
)

func main() {
	fs := flag.NewFlagSet("replay-proxy", flag.ContinueOnError)
	var f replayproxy.Flags
	f.Register(fs)
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		os.Exit(2)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "replay-proxy: takes no operands (got %q)\n", fs.Arg(0))
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := replayproxy.Run(ctx, &f, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "replay-proxy: "+err.Error())
		var ce *replayproxy.ConfigError
		if errors.As(err, &ce) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}
