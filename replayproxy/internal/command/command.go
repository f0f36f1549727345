// Package command is the replay-proxy command: its flags, their
// REPLAY_PROXY_* environment variables and configuration file, the store
// a URL names, tracing, and the server's lifetime.
package command

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/reasonreplay/replay/redisstore"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/reasonreplay/replay/replayproxy"
)

// Name is the command's name, in messages.
const Name = "replay-proxy"

// EnvPrefix opens the environment variable of each flag:
// REPLAY_PROXY_MAX_BODY for --max-body.
const EnvPrefix = "REPLAY_PROXY_"

// Flags are the command's settings.
type Flags struct {
	Listen          string
	Upstreams       []replayproxy.Upstream
	ConfigFile      string
	Mode            string
	Retry           bool
	StoreURI        string
	Store           replayproxy.StoreOptions
	StoreTimeout    time.Duration
	MaxBody         int64
	MaxInflight     int64
	MaxStreams      int
	ReadHeader      time.Duration
	ReadTimeout     time.Duration
	WriteTimeout    time.Duration
	IdleTimeout     time.Duration
	ShutdownTimeout time.Duration
	LogLevel        string
	SecretFile      string
	OTLPEndpoint    string
	Version         bool
}

// upstreamFlag is the repeatable --upstream NAME=URL.
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
	// The environment variable and the file may list several.
	for _, one := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' }) {
		up, err := parseUpstream(one)
		if err != nil {
			return err
		}
		u.f.Upstreams = append(u.f.Upstreams, up)
	}
	return nil
}

// ConfigError is a mistake in the command's settings (exit status 2).
type ConfigError = replayproxy.ConfigError

// parseUpstream reads NAME=URL.
func parseUpstream(s string) (replayproxy.Upstream, error) {
	name, u, ok := strings.Cut(s, "=")
	if !ok {
		return replayproxy.Upstream{}, &ConfigError{Where: "--upstream " + s, Problem: "want NAME=URL"}
	}
	return replayproxy.Upstream{Name: strings.TrimSpace(name), URL: strings.TrimSpace(u)}, nil
}

// Register defines the command's flags on fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.Listen, "listen", "127.0.0.1:8080", "`ADDR` to listen on, host:port (port 0 picks a free one, logged at start)")
	fs.Var(upstreamFlag{f}, "upstream", "`NAME=URL`: forward /NAME/... to URL/... (repeatable; NAME is a name a codec declares, such as anthropic, openai, gemini, openrouter, "+
		"or any name for an OpenAI-compatible host). Without any, the public endpoint of every API that has one")
	fs.StringVar(&f.ConfigFile, "config", "", "JSON `FILE` setting any flag by its name ({\"mode\":\"enforce\",\"max-body\":1048576}) and adding upstreams ({\"upstreams\":[{\"name\":...,\"url\":...,\"provider\":...}]})")
	fs.StringVar(&f.Mode, "mode", "report", "audit `MODE`: off, report (X-Replay-Audit header and a log line), enforce (answer the provider's 400 without calling it)")
	fs.BoolVar(&f.Retry, "retry", false, "retry once a request the upstream refused with a known replay error, with the classified fix applied, and apply a fix that worked up front to the conversation's next requests")
	fs.StringVar(&f.StoreURI, "store", "memory", "store `URI`: memory, file:PATH (survives a restart), redis://[user:password@]HOST:PORT/DB (rediss:// for TLS), "+
		"redis+sentinel://HOST:PORT?master_name=NAME, redis+cluster://HOST:PORT?addr=HOST:PORT..., with ?prefix=P for this deployment's keys")
	fs.IntVar(&f.Store.MaxTurns, "store-max-turns", 10000, "`N` turns kept at most (memory and file stores)")
	fs.IntVar(&f.Store.MaxBytes, "store-max-bytes", 256<<20, "`N` bytes of turn documents kept at most (memory and file stores)")
	fs.DurationVar(&f.Store.TTL, "store-ttl", time.Hour, "`D`: how long a turn is kept")
	fs.DurationVar(&f.StoreTimeout, "store-timeout", 250*time.Millisecond, "`D`: bound on each store operation; a failing store is skipped, requests pass through unrepaired")
	fs.Int64Var(&f.MaxBody, "max-body", 32<<20, "`N` bytes a request body may have, decoded (413 beyond)")
	fs.Int64Var(&f.MaxInflight, "max-inflight-bytes", 1<<30, "`N` bytes the request bodies in flight may take, all requests together, each counted four times (its working copies included; 503 with Retry-After beyond); "+
		"unless GOMEMLIMIT is set, seven eighths of it is the Go runtime's memory limit")
	fs.IntVar(&f.MaxStreams, "max-streams", 1024, "`N` requests proxied at once (503 with Retry-After beyond)")
	fs.DurationVar(&f.ReadHeader, "read-header-timeout", 10*time.Second, "`D` a client has to send a request's headers")
	fs.DurationVar(&f.ReadTimeout, "read-timeout", time.Minute, "`D` a client has to send a request's body")
	fs.DurationVar(&f.WriteTimeout, "write-timeout", time.Minute, "`D` each write to a client may take (a client that stops reading its stream is cut)")
	fs.DurationVar(&f.IdleTimeout, "idle-timeout", 2*time.Minute, "`D` an idle keep-alive connection is kept")
	fs.DurationVar(&f.ShutdownTimeout, "shutdown-timeout", 30*time.Second, "`D`: on SIGINT or SIGTERM, how long streams in flight may take to finish")
	fs.StringVar(&f.SecretFile, "secret-file", "", "`FILE` holding the secret (32 bytes or more) that keys the tenant digests scoping the store; required with a store shared by several proxies (the same file on each), else the file store's own or a random one")
	fs.StringVar(&f.OTLPEndpoint, "otlp-endpoint", "", "`URL` of an OTLP/HTTP collector (http://127.0.0.1:4318) to export a trace span per request to; off when empty")
	fs.StringVar(&f.LogLevel, "log-level", "info", "`LEVEL` of the JSON log lines on stderr: debug, info, warn, error")
	fs.BoolVar(&f.Version, "version", false, "print the version and exit")
}

// EnvName is the environment variable of a flag.
func EnvName(flagName string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// parse reads the command line, then, for every flag it did not set, the
// flag's environment variable, then the configuration file (named by
// --config or REPLAY_PROXY_CONFIG). The command line wins over the
// environment, which wins over the file; the file's upstreams add to the
// others.
func parse(fs *flag.FlagSet, f *Flags, args []string, getenv func(string) string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return &ConfigError{Where: fs.Arg(0), Problem: "takes no operands; name upstreams with --upstream NAME=URL"}
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	var err error
	fs.VisitAll(func(fl *flag.Flag) {
		if err != nil || set[fl.Name] {
			return
		}
		if v := getenv(EnvName(fl.Name)); v != "" {
			if e := fs.Set(fl.Name, v); e != nil {
				err = &ConfigError{Where: EnvName(fl.Name), Problem: fmt.Sprintf("invalid value %q: %v", v, e)}
			}
			set[fl.Name] = true
		}
	})
	if err != nil || f.ConfigFile == "" {
		return err
	}
	return applyFile(fs, f, f.ConfigFile, set)
}

// applyFile sets, from a JSON configuration file, every flag not set
// already; its "upstreams" are added.
func applyFile(fs *flag.FlagSet, f *Flags, name string, set map[string]bool) error {
	b, err := os.ReadFile(name)
	if err != nil {
		return &ConfigError{Where: name, Problem: err.Error()}
	}
	var members map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&members); err != nil {
		return &ConfigError{Where: name, Problem: err.Error()}
	}
	if _, err := dec.Token(); err != io.EOF {
		return &ConfigError{Where: name, Problem: "something follows the object"}
	}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range members {
			if !yield(k) {
				return
			}
		}
	}) {
		raw := members[k]
		if k == "upstreams" {
			var ups []replayproxy.Upstream
			d := json.NewDecoder(bytes.NewReader(raw))
			d.DisallowUnknownFields()
			if err := d.Decode(&ups); err != nil {
				return &ConfigError{Where: name, Problem: "upstreams: " + err.Error()}
			}
			f.Upstreams = append(f.Upstreams, ups...)
			continue
		}
		flagName := strings.ReplaceAll(k, "_", "-")
		fl := fs.Lookup(flagName)
		if fl == nil || flagName == "config" || flagName == "version" {
			return &ConfigError{Where: name, Problem: fmt.Sprintf("unknown setting %q", k)}
		}
		if set[flagName] {
			continue
		}
		var vals []string
		var one any
		if err := json.Unmarshal(raw, &one); err != nil {
			return &ConfigError{Where: name, Problem: k + ": " + err.Error()}
		}
		switch v := one.(type) {
		case string:
			vals = []string{v}
		case float64, bool:
			vals = []string{strings.TrimSpace(string(raw))}
		case []any:
			for _, x := range v {
				s, ok := x.(string)
				if !ok {
					return &ConfigError{Where: name, Problem: k + ": want a list of strings"}
				}
				vals = append(vals, s)
			}
		default:
			return &ConfigError{Where: name, Problem: k + ": want a string, a number, a boolean or a list of strings"}
		}
		for _, v := range vals {
			if err := fs.Set(flagName, v); err != nil {
				return &ConfigError{Where: name, Problem: fmt.Sprintf("%s: invalid value %q: %v", k, v, err)}
			}
		}
	}
	return nil
}

// parseMode reads "off", "report" or "enforce".
func parseMode(s string) (replayproxy.Mode, error) {
	for _, m := range []replayproxy.Mode{replayproxy.ModeOff, replayproxy.ModeReport, replayproxy.ModeEnforce} {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, &ConfigError{Where: "--mode " + s, Problem: "want off, report or enforce"}
}

// openStore opens the store uri names: memory, file:PATH, or a Redis URL.
func openStore(uri string, o replayproxy.StoreOptions) (replayhttp.Store, error) {
	switch {
	case uri == "" || uri == "memory":
		return &replayhttp.MemoryStore{MaxTurns: o.MaxTurns, MaxBytes: o.MaxBytes, TTL: o.TTL, MaxPerKey: o.MaxPerKey}, nil
	case strings.HasPrefix(uri, "file:"):
		return replayproxy.OpenFileStore(strings.TrimPrefix(strings.TrimPrefix(uri, "file:"), "//"), o)
	case strings.HasPrefix(uri, "redis"):
		s, err := redisstore.Open(uri, redisstore.Options{TTL: o.TTL, MaxPerKey: o.MaxPerKey, MaxEntryBytes: o.MaxEntryBytes, Logger: o.Logger})
		if err != nil {
			return nil, &ConfigError{Where: "--store", Problem: err.Error()}
		}
		return s, nil
	}
	return nil, &ConfigError{Where: "--store " + storeName(uri), Problem: "unknown store (want memory, file:PATH, or a redis://, rediss://, redis+sentinel:// or redis+cluster:// URL)"}
}

// storeName is a store URI without its credentials, for logs and messages.
func storeName(uri string) string {
	if strings.HasPrefix(uri, "redis") {
		return redisstore.Redact(uri)
	}
	if i := strings.LastIndex(uri, "@"); i >= 0 {
		if j := strings.Index(uri, "://"); j >= 0 && j < i {
			return uri[:j+3] + "xxxxx" + uri[i:]
		}
	}
	return uri
}

// Config turns the flags into a server configuration, opening the store.
func (f *Flags) Config(log *slog.Logger) (replayproxy.Config, error) {
	mode, err := parseMode(f.Mode)
	if err != nil {
		return replayproxy.Config{}, err
	}
	var secret []byte
	if f.SecretFile != "" {
		if secret, err = os.ReadFile(f.SecretFile); err != nil {
			return replayproxy.Config{}, &ConfigError{Where: "--secret-file", Problem: err.Error()}
		}
		if len(secret) < 32 {
			return replayproxy.Config{}, &ConfigError{Where: "--secret-file", Problem: fmt.Sprintf("the secret has %d bytes, want 32 or more", len(secret))}
		}
	}
	so := f.Store
	so.MaxEntryBytes, so.Secret, so.Logger = int(f.MaxBody), secret, log
	store, err := openStore(f.StoreURI, so)
	if err != nil {
		return replayproxy.Config{}, err
	}
	if secret == nil {
		switch store.(type) {
		case *replayhttp.MemoryStore, *replayproxy.FileStore:
		default:
			if c, ok := store.(io.Closer); ok {
				c.Close()
			}
			return replayproxy.Config{}, &ConfigError{Where: "--secret-file", Problem: "a store shared by several proxies needs the same secret on each: give it with --secret-file"}
		}
	}
	var retry *replayhttp.Retry
	if f.Retry {
		retry = &replayhttp.Retry{}
	}
	return replayproxy.Config{Upstreams: f.Upstreams, Store: store, Mode: mode, Retry: retry, MaxBodyBytes: f.MaxBody,
		MaxInflightBytes: f.MaxInflight, MaxStreams: f.MaxStreams, ReadTimeout: f.ReadTimeout, WriteTimeout: f.WriteTimeout,
		StoreTimeout: f.StoreTimeout, Logger: log, Secret: secret, Version: Version()}, nil
}

// NewLogger returns the JSON logger for the level name.
func NewLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, &ConfigError{Where: "--log-level " + level, Problem: "want debug, info, warn or error"}
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l})), nil
}

// Version says which build this is, from the binary's build information:
// the module version (or "(devel)"), the VCS revision when recorded, and
// the Go version.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		v += " " + rev + modified
	}
	return v + " " + bi.GoVersion
}

// Main runs the command with args (without the program name) until ctx
// is done, and returns the exit status: 0, 1 when it failed while
// running, 2 for a mistake in its settings.
func Main(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(Name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f Flags
	f.Register(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: %s [flags]\n\nA reverse proxy that captures LLM reasoning, repairs what agents drop and audits requests.\n"+
			"Every flag may also be set by its environment variable (%s) or in the --config file.\n\n", Name, EnvName("max-body"))
		fs.VisitAll(func(fl *flag.Flag) {
			name, usage := flag.UnquoteUsage(fl)
			fmt.Fprintf(stderr, "  --%s %s\n    \t%s (%s", fl.Name, name, usage, EnvName(fl.Name))
			if fl.DefValue != "" && fl.DefValue != "false" {
				fmt.Fprintf(stderr, "; default %s", fl.DefValue)
			}
			fmt.Fprintln(stderr, ")")
		})
	}
	if err := parse(fs, &f, args, getenv); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, Name+": "+err.Error())
		return 2
	}
	if f.Version {
		fmt.Fprintln(stdout, Name+" "+Version())
		return 0
	}
	if err := Run(ctx, &f, stderr); err != nil {
		fmt.Fprintln(stderr, Name+": "+err.Error())
		var ce *ConfigError
		if errors.As(err, &ce) {
			return 2
		}
		return 1
	}
	return 0
}

// Run serves the proxy the flags describe until ctx is done, then shuts
// down gracefully: it stops accepting, lets the streams in flight finish
// (for at most ShutdownTimeout), and closes the store. Log lines go to
// logw as JSON; the first says where the proxy listens, once /livez
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
	if os.Getenv("GOMEMLIMIT") == "" && f.MaxInflight > 0 {
		// The collector keeps the heap near what the budget allows.
		// (seven eighths of it: the rest is what the runtime does not
		// count, its own structures and the unreturned pages).
		debug.SetMemoryLimit(f.MaxInflight / 8 * 7)
	}
	stopTracing, err := tracing(ctx, f.OTLPEndpoint, &cfg)
	if err != nil {
		closeStore(cfg.Store)
		return err
	}
	defer stopTracing()
	srv, err := replayproxy.New(cfg)
	if err != nil {
		closeStore(cfg.Store)
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", f.Listen)
	if err != nil {
		return err
	}
	var names []string
	for _, u := range srv.Upstreams() {
		names = append(names, u.Name+"="+u.URL)
	}
	log.Info("listening", "addr", ln.Addr().String(), "upstreams", names, "mode", cfg.Mode.String(),
		"store", storeName(f.StoreURI), "retry", cfg.Retry != nil, "version", cfg.Version)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: f.ReadHeader, IdleTimeout: f.IdleTimeout,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	return serve(ctx, ln, hs, f.ShutdownTimeout, log)
}

func closeStore(s replayhttp.Store) {
	if c, ok := s.(io.Closer); ok {
		c.Close()
	}
}

// serve serves hs on ln until ctx is done, then stops accepting and waits
// for the requests in flight (streams included) to finish, for at most
// grace; the streams still open then are cut.
func serve(ctx context.Context, ln net.Listener, hs *http.Server, grace time.Duration, log *slog.Logger) error {
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
		err = fmt.Errorf("streams still open after %v were cut", grace)
		log.Warn("shutdown", "error", err.Error())
		return err
	}
	if err == nil {
		log.Info("shut down")
	}
	return err
}
