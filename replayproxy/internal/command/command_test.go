package command

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/reasonreplay/replay/replayproxy"
	"github.com/reasonreplay/replay/replayproxy/internal/proxytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer = proxytest.SyncBuffer

func sseEvent(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }

// stream is an Anthropic Messages stream of one signed thinking block and
// a tool call.
func stream(sig, toolID string) []string {
	return []string{
		sseEvent("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}`),
		sseEvent("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`),
		sseEvent("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Call the tool."}}`),
		sseEvent("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"`+sig+`"}}`),
		sseEvent("content_block_stop", `{"type":"content_block_stop","index":0}`),
		sseEvent("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"`+toolID+`","name":"get_weather","input":{}}}`),
		sseEvent("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{}"}}`),
		sseEvent("content_block_stop", `{"type":"content_block_stop","index":1}`),
		sseEvent("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":4}}`),
		sseEvent("message_stop", `{"type":"message_stop"}`),
	}
}

const head = `{"model":"claude-sonnet-4-5","max_tokens":2048,"stream":true,"thinking":{"type":"enabled","budget_tokens":1024},` +
	`"tools":[{"name":"get_weather","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"Weather?"}`

func first() string { return head + `]}` }

// broken is the next request with the thinking block dropped.
func broken(toolID string) string {
	return head + `,{"role":"assistant","content":[{"type":"tool_use","id":"` + toolID + `","name":"get_weather","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + toolID + `","content":"18°C"}]}]}`
}

// upstream serves the stream, holding it open until release is closed
// when hold is set.
func upstream(t *testing.T, hold chan struct{}) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		ev := stream("EqQBsig", "toolu_1")
		for i, e := range ev {
			_, _ = io.WriteString(w, e)
			w.(http.Flusher).Flush()
			if i == 2 && hold != nil {
				select {
				case <-hold:
				case <-time.After(10 * time.Second):
				}
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// start runs Main with the arguments and environment and returns the
// address it logs once it listens, its log, and a stop function that
// returns its exit status.
func start(t *testing.T, env map[string]string, args ...string) (addr string, logs *syncBuffer, stop func() int) {
	t.Helper()
	logs = &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, append([]string{"--listen", "127.0.0.1:0"}, args...), func(k string) string { return env[k] }, io.Discard, logs)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for addr == "" && time.Now().Before(deadline) {
		for _, line := range strings.Split(logs.String(), "\n") {
			var l struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "listening" {
				addr = l.Addr
			}
		}
		select {
		case code := <-done:
			cancel()
			t.Fatalf("Main ended with %d: %s", code, logs.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
	require.NotEmpty(t, addr, logs.String())
	return addr, logs, func() int {
		cancel()
		select {
		case code := <-done:
			return code
		case <-time.After(10 * time.Second):
			return -1
		}
	}
}

func post(t *testing.T, url, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", "sk-command-test")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	return resp
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	return string(b)
}

// /livez answers as soon as the listening line is logged; the flags build
// the upstreams, the mode and the store; a shutdown logs its end.
func TestRunFlags(t *testing.T) {
	up := upstream(t, nil)
	addr, logs, stop := start(t, nil, "--upstream", "claude="+up.URL, "--mode", "enforce", "--store", "memory")
	resp, err := http.Get("http://" + addr + "/livez")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	readAll(t, resp)
	resp = post(t, "http://"+addr+"/claude/v1/messages", broken("toolu_R"))
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "enforce, with the claude name read as Anthropic")
	readAll(t, resp)
	assert.Equal(t, 0, stop())
	assert.Contains(t, logs.String(), `"msg":"listening","addr":"`+addr+`","upstreams":["claude=`+up.URL+`"],"mode":"enforce","store":"memory","retry":false,"version":"`)
	assert.Contains(t, logs.String(), `"msg":"shut down"`)
}

// Every flag has its environment variable and its member in the
// configuration file; the command line wins over the environment, which
// wins over the file; the file's upstreams add to the others.
func TestEnvAndConfigFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "proxy.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"mode":"off","max-body":4096,"max_streams":7,"retry":true,"read-timeout":"3s",`+
		`"upstream":["a=http://127.0.0.1:1"],"upstreams":[{"name":"local","url":"http://127.0.0.1:11434","provider":"deepseek"}]}`), 0o600))
	parseWith := func(env map[string]string, args ...string) (*Flags, error) {
		var f Flags
		fs := flag.NewFlagSet(Name, flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f.Register(fs)
		return &f, parse(fs, &f, args, func(k string) string { return env[k] })
	}
	f, err := parseWith(map[string]string{"REPLAY_PROXY_MODE": "enforce", "REPLAY_PROXY_CONFIG": file, "REPLAY_PROXY_MAX_STREAMS": "9"}, "--max-streams", "11")
	require.NoError(t, err)
	assert.Equal(t, "enforce", f.Mode, "the environment over the file")
	assert.Equal(t, 11, f.MaxStreams, "the command line over the environment")
	assert.Equal(t, int64(4096), f.MaxBody, "the file")
	assert.True(t, f.Retry)
	assert.Equal(t, 3*time.Second, f.ReadTimeout)
	assert.Equal(t, []replayproxy.Upstream{{Name: "a", URL: "http://127.0.0.1:1"}, {Name: "local", URL: "http://127.0.0.1:11434", Provider: "deepseek"}}, f.Upstreams)

	f, err = parseWith(map[string]string{"REPLAY_PROXY_UPSTREAM": "x=http://127.0.0.1:2,y=http://127.0.0.1:3", "REPLAY_PROXY_STORE_TTL": "5m"})
	require.NoError(t, err)
	assert.Equal(t, []replayproxy.Upstream{{Name: "x", URL: "http://127.0.0.1:2"}, {Name: "y", URL: "http://127.0.0.1:3"}}, f.Upstreams)
	assert.Equal(t, 5*time.Minute, f.Store.TTL)

	// Every flag is settable both ways.
	var all Flags
	fs := flag.NewFlagSet(Name, flag.ContinueOnError)
	all.Register(fs)
	fs.VisitAll(func(fl *flag.Flag) {
		assert.True(t, strings.HasPrefix(EnvName(fl.Name), "REPLAY_PROXY_"), fl.Name)
		assert.Equal(t, strings.ToUpper(strings.ReplaceAll(fl.Name, "-", "_")), strings.TrimPrefix(EnvName(fl.Name), "REPLAY_PROXY_"))
	})

	for body, want := range map[string]string{
		`{"upstreams":[{"name":"x","url":"http://h","nope":1}]}`: `upstreams: json: unknown field "nope"`,
		`{"moode":"off"}`:      `unknown setting "moode"`,
		`{"max-body":"lots"}`:  `max-body: invalid value "lots": parse error`,
		`{"mode":{"a":1}}`:     `mode: want a string, a number, a boolean or a list of strings`,
		`{"version":true}`:     `unknown setting "version"`,
		`[1]`:                  `json: cannot unmarshal array`,
		`{"store":"memory"} x`: `something follows the object`,
	} {
		require.NoError(t, os.WriteFile(file, []byte(body), 0o600))
		_, err := parseWith(nil, "--config", file)
		if want == "" {
			assert.NoError(t, err, body)
			continue
		}
		var ce *ConfigError
		require.ErrorAs(t, err, &ce, body)
		assert.Contains(t, err.Error(), file+": "+want, body)
	}
	_, err = parseWith(map[string]string{"REPLAY_PROXY_MAX_BODY": "big"})
	assert.ErrorContains(t, err, "REPLAY_PROXY_MAX_BODY: invalid value \"big\": parse error")
}

// Mistakes in the settings exit 2 with the reason, before anything
// listens.
func TestSettingErrors(t *testing.T) {
	for args, want := range map[string]string{
		"--upstream anthropic":                        "--upstream anthropic: want NAME=URL",
		"--upstream healthz=http://x":                 "upstream healthz: the name is a path the proxy answers itself",
		"--upstream readyz=http://x":                  "upstream readyz: the name is a path the proxy answers itself",
		"--upstream Big=http://x":                     "upstream Big: the name must be lower-case letters, digits, '.', '_' or '-' (it is the first path segment)",
		"--upstream a=ftp://u:hunter2@x":              `upstream a: "ftp://u:xxxxx@x" is not an http(s) URL`,
		"--mode loud":                                 "--mode loud: want off, report or enforce",
		"--log-level chatty":                          "--log-level chatty: want debug, info, warn or error",
		"--upstream a=http://x --upstream a=http://y": "upstream a: configured twice",
		"--store nosql://x":                           "--store nosql://x: unknown store",
		"--store redis://127.0.0.1:1/0":               "--secret-file: a store shared by several proxies needs the same secret on each",
		"--otlp-endpoint localhost:4318":              "--otlp-endpoint: want the collector's http(s) URL",
		"anthropic":                                   "anthropic: takes no operands",
	} {
		var errOut syncBuffer
		code := Main(context.Background(), strings.Fields(args), func(string) string { return "" }, io.Discard, &errOut)
		assert.Equal(t, 2, code, args)
		assert.Contains(t, errOut.String(), want, args)
		assert.NotContains(t, errOut.String(), "hunter2")
	}
}

// --version prints the build's version from its build information.
func TestVersion(t *testing.T) {
	var out, errOut syncBuffer
	assert.Equal(t, 0, Main(context.Background(), []string{"--version"}, func(string) string { return "" }, &out, &errOut))
	assert.Equal(t, Name+" "+Version()+"\n", out.String())
	assert.Regexp(t, `^replay-proxy \S+.* go1\.\d+`, out.String())
	assert.Empty(t, errOut.String())
	errOut = syncBuffer{}
	assert.Equal(t, 0, Main(context.Background(), []string{"--help"}, func(string) string { return "" }, &out, &errOut))
	assert.Contains(t, errOut.String(), "  --max-inflight-bytes N\n")
	assert.Contains(t, errOut.String(), "(REPLAY_PROXY_MAX_INFLIGHT_BYTES; default 1073741824)")
}

// A shutdown lets the stream in flight finish: the client reads it whole,
// while new connections are refused.
func TestShutdownFinishesStreams(t *testing.T) {
	release := make(chan struct{})
	up := upstream(t, release)
	addr, _, stop := start(t, nil, "--upstream", "anthropic="+up.URL, "--shutdown-timeout", "10s")
	resp := post(t, "http://"+addr+"/anthropic/v1/messages", first())
	buf := make([]byte, 10)
	_, err := io.ReadFull(resp.Body, buf)
	require.NoError(t, err)
	stopped := make(chan int, 1)
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
	_, err = net.DialTimeout("tcp", addr, 100*time.Millisecond)
	assert.Error(t, err, "no new connections while shutting down")
	close(release)
	assert.Equal(t, strings.Join(stream("EqQBsig", "toolu_1"), ""), string(buf)+readAll(t, resp), "the stream in flight finished")
	assert.Equal(t, 0, <-stopped)
}

// No secret is ever printed: a run with a password-bearing store URL (in
// the environment), a secret file, and requests carrying credentials in
// headers and in the query, some refused, some failing upstream; every
// byte the command wrote is searched.
func TestSecretsNeverPrinted(t *testing.T) {
	secrets := []string{"redis-pass-7f3a", "sk-ant-api-key-9c1d", "bearer-token-44e2", "goog-key-1b8f", "the-shared-secret-0123456789abcdef"}
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret")
	require.NoError(t, os.WriteFile(secretFile, []byte(secrets[4]), 0o600))
	up := upstream(t, nil)
	env := map[string]string{
		"REPLAY_PROXY_STORE":       "redis://user:" + secrets[0] + "@127.0.0.1:1/0?dial_timeout=50ms",
		"REPLAY_PROXY_SECRET_FILE": secretFile,
		"REPLAY_PROXY_LOG_LEVEL":   "debug",
	}
	addr, logs, stop := start(t, env, "--upstream", "anthropic="+up.URL, "--upstream", "gemini=http://127.0.0.1:1", "--store-timeout", "100ms")
	auth := []string{"X-Api-Key", secrets[1], "Authorization", "Bearer " + secrets[2], "X-Goog-Api-Key", secrets[3]}
	readAll(t, post(t, "http://"+addr+"/anthropic/v1/messages?key="+secrets[3], first(), auth...))
	readAll(t, post(t, "http://"+addr+"/anthropic/v1/messages?key="+secrets[3], broken("toolu_1"), auth...))
	readAll(t, post(t, "http://"+addr+"/gemini/v1beta/models/gemini-3-pro-preview:generateContent?key="+secrets[3], `{"contents":[]}`, auth...))
	readAll(t, post(t, "http://"+addr+"/anthropic/v1/messages?key="+secrets[3], `{"not json`, auth...))
	resp, err := http.Get("http://" + addr + "/readyz")
	require.NoError(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "Redis is not there")
	readAll(t, resp)
	resp, err = http.Get("http://" + addr + "/metrics")
	require.NoError(t, err)
	metrics := readAll(t, resp)
	assert.Equal(t, 0, stop())

	// The same URL, given as a flag, in a failing start.
	var out, errOut syncBuffer
	code := Main(context.Background(), []string{"--store", "rediss://user:" + secrets[0] + "@[::1", "--secret-file", secretFile}, func(string) string { return "" }, &out, &errOut)
	assert.Equal(t, 2, code)

	all := logs.String() + out.String() + errOut.String() + metrics
	assert.Contains(t, logs.String(), `"store":"redis://user:xxxxx@127.0.0.1:1/0?dial_timeout=50ms"`)
	assert.Contains(t, logs.String(), `"msg":"store unavailable`)
	assert.Contains(t, errOut.String(), "rediss://xxxxx")
	for _, s := range secrets {
		assert.NotContains(t, all, s)
	}
}

// --secret-file gives the secret that keys the tenants; one shorter than
// 32 bytes, or a file that does not read, is refused.
func TestSecretFileFlag(t *testing.T) {
	dir := t.TempDir()
	good, short := filepath.Join(dir, "good"), filepath.Join(dir, "short")
	require.NoError(t, os.WriteFile(good, []byte("0123456789abcdef0123456789abcdef0123"), 0o600))
	require.NoError(t, os.WriteFile(short, []byte("0123456789"), 0o600))
	parse := func(args string) (replayproxy.Config, error) {
		var f Flags
		fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
		f.Register(fs)
		require.NoError(t, fs.Parse(strings.Fields(args)))
		return f.Config(slog.New(slog.DiscardHandler))
	}
	cfg, err := parse("--secret-file " + good)
	require.NoError(t, err)
	assert.Equal(t, "0123456789abcdef0123456789abcdef0123", string(cfg.Secret))
	cfg, err = parse("")
	require.NoError(t, err)
	assert.Nil(t, cfg.Secret, "the memory store needs none: the proxy draws one")
	_, err = parse("--secret-file " + short)
	assert.EqualError(t, err, "--secret-file: the secret has 10 bytes, want 32 or more")
	_, err = parse("--secret-file " + filepath.Join(dir, "none"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--secret-file: open ")
}
