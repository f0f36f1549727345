package replayproxy_test

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/reasonreplay/replay/replayproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runFlags starts Run with the arguments and returns the address it logs
// once it listens, the log, and a stop function that waits for Run.
func runFlags(t *testing.T, args ...string) (addr string, logs *syncBuffer, stop func() error) {
	t.Helper()
	var f replayproxy.Flags
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	f.Register(fs)
	require.NoError(t, fs.Parse(append([]string{"--listen", "127.0.0.1:0"}, args...)))
	logs = &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- replayproxy.Run(ctx, &f, logs) }()
	deadline := time.Now().Add(5 * time.Second)
	for addr == "" && time.Now().Before(deadline) {
		for _, line := range strings.Split(logs.String(), "\n") {
			var l struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "listening" {
				addr = l.Addr
			}
		}
		select {
		case err := <-done:
			cancel()
			t.Fatalf("Run ended: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	require.NotEmpty(t, addr, logs.String())
	return addr, logs, func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			return context.DeadlineExceeded
		}
	}
}

// /healthz answers as soon as the listening line is logged; the flags
// build the upstreams, the mode and the store.
func TestRunHealthzAndFlags(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		writeEvents(w, anthropicEvents(sigFor("r"), "toolu_R"))
	})
	addr, logs, stop := runFlags(t, "--upstream", "claude="+up.URL, "--mode", "enforce", "--store", "memory")
	resp, err := http.Get("http://" + addr + "/healthz")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	readAll(t, resp)
	broken := followUp(`{"role":"assistant","content":[`+toolUse("toolu_R")+`]}`, "toolu_R")
	resp = post(t, "http://"+addr+"/claude/v1/messages", broken)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "enforce, with the claude name read as Anthropic")
	readAll(t, resp)
	require.NoError(t, stop())
	assert.Contains(t, logs.String(), `"msg":"listening","addr":"`+addr+`","upstreams":["claude=`+up.URL+`"],"mode":"enforce","store":"memory","retry":false}`)
	assert.Contains(t, logs.String(), `"msg":"shut down"`)
}

// --retry turns the classified retry on; without it the Config has none.
func TestRetryFlag(t *testing.T) {
	for args, on := range map[string]bool{"--retry": true, "": false} {
		var f replayproxy.Flags
		fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
		f.Register(fs)
		require.NoError(t, fs.Parse(strings.Fields(args)))
		cfg, err := f.Config(slog.New(slog.DiscardHandler))
		require.NoError(t, err)
		assert.Equal(t, on, cfg.Retry != nil, args)
	}
}

func TestFlagErrors(t *testing.T) {
	for args, want := range map[string]string{
		"--upstream anthropic":                        "--upstream anthropic: want NAME=URL",
		"--upstream healthz=http://x":                 "upstream healthz: the name is a path the proxy answers itself",
		"--upstream Big=http://x":                     "upstream Big: the name must be lower-case letters, digits, '.', '_' or '-' (it is the first path segment)",
		"--upstream a=ftp://x":                        `upstream a: "ftp://x" is not an http(s) URL`,
		"--mode loud":                                 "--mode loud: want off, report or enforce",
		"--log-level chatty":                          "--log-level chatty: want debug, info, warn or error",
		"--upstream a=http://x --upstream a=http://y": "upstream a: configured twice",
	} {
		var f replayproxy.Flags
		fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f.Register(fs)
		err := fs.Parse(strings.Fields(args))
		if err == nil {
			err = replayproxy.Run(context.Background(), &f, io.Discard)
		}
		require.Error(t, err, args)
		assert.Contains(t, err.Error(), want, args)
	}
}

// A shutdown lets the stream in flight finish: the client reads it whole,
// while new connections are refused.
func TestShutdownFinishesStreams(t *testing.T) {
	events := anthropicEvents(sigFor("sd"), "toolu_SD")
	started, release := make(chan struct{}), make(chan struct{})
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		writeEvents(w, events[:3])
		close(started)
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
		writeEvents(w, events[3:])
	})
	addr, _, stop := runFlags(t, "--upstream", "anthropic="+up.URL, "--shutdown-timeout", "10s")
	resp := post(t, "http://"+addr+"/anthropic/v1/messages", anthropicRequest(firstUser))
	<-started
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) { // wait for the listener to close
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err != nil {
			break
		}
		c.Close()
		time.Sleep(10 * time.Millisecond)
	}
	_, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
	assert.Error(t, err, "no new connections while shutting down")
	close(release)
	assert.Equal(t, strings.Join(events, ""), readAll(t, resp), "the stream in flight finished")
	assert.NoError(t, <-stopped)
}

// The configuration file adds upstreams (with a provider when the name
// says none); an unknown member or a bad URL is refused.
func TestConfigFile(t *testing.T) {
	dir := t.TempDir()
	good := dir + "/good.json"
	require.NoError(t, os.WriteFile(good, []byte(`{"upstreams":[{"name":"local","url":"http://127.0.0.1:11434/","provider":"deepseek"}]}`), 0o600))
	fc, err := replayproxy.LoadFile(good)
	require.NoError(t, err)
	assert.Equal(t, []replayproxy.Upstream{{Name: "local", URL: "http://127.0.0.1:11434/", Provider: "deepseek"}}, fc.Upstreams)

	for body, want := range map[string]string{
		`{"upstream":[]}`: `json: unknown field "upstream"`,
		`{"upstreams":[{"name":"x","url":"nope"}]}`: `upstream x: "nope" is not an http(s) URL`,
	} {
		bad := dir + "/bad.json"
		require.NoError(t, os.WriteFile(bad, []byte(body), 0o600))
		_, err := replayproxy.LoadFile(bad)
		var ce *replayproxy.ConfigError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, bad+": "+want, err.Error())
	}
}
