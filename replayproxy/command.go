package replayproxy

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/reasonreplay/replay/replayhttp"
	"os"
)

// Flags are the settings of the `replay proxy` command, shared by every
// binary that serves the proxy (the replay command, and the Redis
// module's replay-proxy, which adds the redis:// store).
type Flags struct {
	// Listen is the address to listen on.
	Listen string
	// Upstreams are the --upstream NAME=URL flags, in order.
	Upstreams []Upstream
	// ConfigFile is a [FileConfig] that adds upstreams.
	ConfigFile string
	// Mode is the audit mode's name.
	Mode string
	// Retry turns the one-shot classified retry on.
	Retry bool
	// StoreURI names the store (see [OpenStore]).
	StoreURI string
	// Store bounds the store.
	Store StoreOptions
	// StoreTimeout bounds each store operation.
	StoreTimeout time.Duration
	// MaxBody bounds a request body, in bytes.
	MaxBody int64
	// MaxStreams bounds the requests proxied at once.
	MaxStreams int
	// ShutdownTimeout bounds how long a shutdown waits for the streams in
	// flight.
	ShutdownTimeout time.Duration
	// LogLevel is debug, info, warn or error.
	LogLevel string
	// SecretFile holds the secret that keys the tenant digests (see
	// [Config.Secret]); a store shared by several proxies needs it.
	SecretFile string
}

type upstreamFlag struct{ f *Flags }

func (u upstreamFlag) String() string {
	if u.f == nil {
		return ""
	}
	var s []string
	for _, x := range u.f.Upstreams {
		s = append(s, x.Name+"="+x.URL)
	}
	return strings.Join(s, " ")
}

func (u upstreamFlag) Set(v string) error {
	up, err := ParseUpstream(v)
	if err != nil {
		return err
	}
	u.f.Upstreams = append(u.f.Upstreams, up)
	return nil
}

// Register defines the command's flags on fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.Listen, "listen", "127.0.0.1:8080", "`ADDR` to listen on, host:port (port 0 picks a free one, logged at start)")
	fs.Var(upstreamFlag{f}, "upstream", "`NAME=URL`: forward /NAME/... to URL/... (repeatable; NAME anthropic, openai, gemini, openrouter, deepseek, xai, mistral, or any name for an OpenAI-compatible host). "+
		"Without any, the public anthropic, openai, gemini and openrouter endpoints")
	fs.StringVar(&f.ConfigFile, "config", "", "JSON `FILE` adding upstreams: {\"upstreams\":[{\"name\":...,\"url\":...,\"provider\":...}]}")
	fs.StringVar(&f.Mode, "mode", "report", "audit `MODE`: off, report (X-Replay-Audit header and a log line), enforce (answer the provider's 400 without calling it)")
	fs.BoolVar(&f.Retry, "retry", false, "retry once a request the upstream refused with a known replay error, with the classified fix applied, and apply a fix that worked up front to the conversation's next requests")
	fs.StringVar(&f.StoreURI, "store", "memory", "store `URI`: memory, file:PATH (survives a restart), or redis://HOST:PORT/DB in the redisstore module's replay-proxy")
	fs.IntVar(&f.Store.MaxTurns, "store-max-turns", 10000, "`N` turns kept at most")
	fs.IntVar(&f.Store.MaxBytes, "store-max-bytes", 256<<20, "`N` bytes of turn documents kept at most")
	fs.DurationVar(&f.Store.TTL, "store-ttl", time.Hour, "`D`: how long a turn is kept")
	fs.DurationVar(&f.StoreTimeout, "store-timeout", 250*time.Millisecond, "`D`: bound on each store operation; a failing store is skipped, requests pass through unrepaired")
	fs.Int64Var(&f.MaxBody, "max-body", 32<<20, "`N` bytes a request body may have (413 beyond)")
	fs.IntVar(&f.MaxStreams, "max-streams", 1024, "`N` requests proxied at once (503 beyond)")
	fs.DurationVar(&f.ShutdownTimeout, "shutdown-timeout", 30*time.Second, "`D`: on SIGINT or SIGTERM, how long streams in flight may take to finish")
	fs.StringVar(&f.SecretFile, "secret-file", "", "`FILE` holding the secret (32 bytes or more) that keys the tenant digests scoping the store; required with a store shared by several proxies (the same file on each), else the file store's own or a random one")
	fs.StringVar(&f.LogLevel, "log-level", "info", "`LEVEL` of the JSON log lines on stderr: debug, info, warn, error")
}

// Config turns the flags into a server configuration, opening the store.
func (f *Flags) Config(log *slog.Logger) (Config, error) {
	mode, err := ParseMode(f.Mode)
	if err != nil {
		return Config{}, err
	}
	ups := append([]Upstream(nil), f.Upstreams...)
	if f.ConfigFile != "" {
		fc, err := LoadFile(f.ConfigFile)
		if err != nil {
			return Config{}, err
		}
		ups = append(ups, fc.Upstreams...)
	}
	if len(ups) == 0 {
		ups = append(ups, DefaultUpstreams...)
	}
	var secret []byte
	if f.SecretFile != "" {
		if secret, err = os.ReadFile(f.SecretFile); err != nil {
			return Config{}, &ConfigError{Where: "--secret-file", Problem: err.Error()}
		}
		if len(secret) < 32 {
			return Config{}, &ConfigError{Where: "--secret-file", Problem: fmt.Sprintf("the secret has %d bytes, want 32 or more", len(secret))}
		}
	}
	store, err := OpenStore(f.StoreURI, f.Store)
	if err != nil {
		return Config{}, err
	}
	if secret == nil {
		switch store.(type) {
		case *replayhttp.MemoryStore, *FileStore:
		default:
			if c, ok := store.(io.Closer); ok {
				c.Close()
			}
			return Config{}, &ConfigError{Where: "--secret-file", Problem: "a store shared by several proxies needs the same secret on each: give it with --secret-file"}
		}
	}
	var retry *replayhttp.Retry
	if f.Retry {
		retry = &replayhttp.Retry{}
	}
	return Config{Upstreams: ups, Store: store, Mode: mode, Retry: retry, MaxBodyBytes: f.MaxBody,
		MaxStreams: f.MaxStreams, StoreTimeout: f.StoreTimeout, Logger: log, Secret: secret}, nil
}

// NewLogger returns the JSON logger for the level name.
func NewLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, &ConfigError{Where: "--log-level " + level, Problem: "want debug, info, warn or error"}
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l})), nil
}

// Run serves the proxy the flags describe until ctx is done, then shuts
// down gracefully: it stops accepting, lets the streams in flight finish
// (for at most ShutdownTimeout), and closes the store. Log lines go to
// logw as JSON; the first says where the proxy listens, once /healthz
// answers.
func Run(ctx context.Context, f *Flags, logw io.Writer) error {
	log, err := NewLogger(logw, f.LogLevel)
	if err != nil {
		return err
	}
	cfg, err := f.Config(log)
	if err != nil {
		return err
	}
	srv, err := New(cfg)
	if err != nil {
		if c, ok := cfg.Store.(io.Closer); ok {
			c.Close()
		}
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", f.Listen)
	if err != nil {
		return err
	}
	var names []string
	for _, u := range cfg.Upstreams {
		names = append(names, u.Name+"="+u.URL)
	}
	log.Info("listening", "addr", ln.Addr().String(), "upstreams", names, "mode", cfg.Mode.String(),
		"store", storeName(f.StoreURI), "retry", cfg.Retry != nil)
	return Serve(ctx, ln, srv, f.ShutdownTimeout, log)
}

// storeName is the store URI without credentials, for the log.
func storeName(uri string) string {
	if i := strings.Index(uri, "@"); i >= 0 {
		if j := strings.Index(uri, "://"); j >= 0 && j < i {
			return uri[:j+3] + "***" + uri[i:]
		}
	}
	return uri
}

// Serve serves h on ln until ctx is done, then stops accepting and waits
// for the requests in flight (streams included) to finish, for at most
// grace; the streams still open then are cut.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, grace time.Duration, log *slog.Logger) error {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: no new connections; waiting for the streams in flight", "grace", grace.String())
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := hs.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		hs.Close()
		err = fmt.Errorf("replayproxy: streams still open after %v were cut", grace)
		log.Warn("shutdown", "error", err.Error())
		return err
	}
	if err == nil {
		log.Info("shut down")
	}
	return err
}
