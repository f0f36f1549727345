package replayproxy_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/pprof"
	"strconv"
	"testing"

	"github.com/reasonreplay/replay/internal/benchreq"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/reasonreplay/replay/replayproxy"
	"github.com/stretchr/testify/require"
)

func TestTmpProf(t *testing.T) {
	size, _ := strconv.Atoi(os.Getenv("PROF_SIZE"))
	if size == 0 {
		t.Skip()
	}
	up := cpuUpstream()
	defer up.Close()
	srv, err := replayproxy.New(replayproxy.Config{Mode: replayproxy.ModeReport, Store: &replayhttp.MemoryStore{},
		Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16, DisableCompression: true}}
	sh := benchreq.Anthropic()
	n := sh.Turns(size)
	for k := 0; k <= n; k++ {
		send(t, client, hs.URL+"/anthropic/v1/messages", sh.Request(k), k)
	}
	body := sh.Request(n)
	f, _ := os.Create(os.Getenv("PROF_OUT"))
	pprof.StartCPUProfile(f)
	reps, _ := strconv.Atoi(os.Getenv("PROF_REPS"))
	for i := 0; i < reps; i++ {
		send(t, client, hs.URL+"/anthropic/v1/messages", body, n)
	}
	pprof.StopCPUProfile()
	f.Close()
}
