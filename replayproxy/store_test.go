package replayproxy_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/reasonreplay/replay/replayproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flakyStore fails while down is set, and blocks (ignoring its context)
// while hang is set.
type flakyStore struct {
	replayhttp.MemoryStore
	down, hang atomic.Bool
}

var errDown = errors.New("connection refused")

func (f *flakyStore) Put(ctx context.Context, key replayhttp.Key, doc []byte) error {
	if f.hang.Load() {
		time.Sleep(2 * time.Second)
	}
	if f.down.Load() {
		return errDown
	}
	return f.MemoryStore.Put(ctx, key, doc)
}

func (f *flakyStore) Get(ctx context.Context, key replayhttp.Key) ([][]byte, error) {
	if f.hang.Load() {
		time.Sleep(2 * time.Second)
	}
	if f.down.Load() {
		return nil, errDown
	}
	return f.MemoryStore.Get(ctx, key)
}

// A failing store: requests pass through unrepaired, without waiting, with
// one log line and the store's error as the reason in X-Replay-Repairs;
// when the store answers again the proxy repairs again and says so.
func TestStoreDownPassesThroughAndRecovers(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		id := r.Header.Get("X-Call")
		writeEvents(w, anthropicEvents(sigFor(id), "toolu_"+id))
	})
	store := &flakyStore{}
	hs, srv, logs := proxy(t, replayproxy.Config{Store: store, StoreTimeout: 100 * time.Millisecond, StoreBackoff: 50 * time.Millisecond,
		Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	var repairs string
	loop := func(id string) (restored bool, took time.Duration) {
		start := time.Now()
		readAll(t, post(t, hs.URL+"/anthropic/v1/messages", anthropicRequest(firstUser), "X-Call", id))
		resp := post(t, hs.URL+"/anthropic/v1/messages", followUp(`{"role":"assistant","content":[`+toolUse("toolu_"+id)+`]}`, "toolu_"+id), "X-Call", id+"b")
		readAll(t, resp)
		repairs = resp.Header.Get(replayproxy.HeaderRepairs)
		return repairs == "restored=1", time.Since(start)
	}
	ok, _ := loop("a")
	assert.True(t, ok)

	store.down.Store(true)
	ok, took := loop("b")
	assert.False(t, ok, "passed through")
	assert.Equal(t, "store-error=1", repairs, "the store's error is the reason")
	assert.Less(t, took, 2*time.Second)
	assert.Contains(t, metrics(t, srv), "\nreplay_proxy_store_up 0\n")
	store.hang.Store(true)
	time.Sleep(60 * time.Millisecond) // past the backoff: the store is asked, and hangs
	ok, took = loop("c")
	assert.False(t, ok)
	assert.Equal(t, "store-error=1", repairs)
	assert.Less(t, took, 1500*time.Millisecond, "a hanging store is not waited on")
	store.hang.Store(false)
	store.down.Store(false)

	deadline := time.Now().Add(5 * time.Second)
	for ok = false; !ok && time.Now().Before(deadline); {
		time.Sleep(60 * time.Millisecond)
		ok, _ = loop("d" + time.Now().Format("150405.000000"))
	}
	assert.True(t, ok, "repairs again once the store answers")
	log := logs.String()
	assert.Equal(t, 1, strings.Count(log, `"msg":"store unavailable: requests pass through unrepaired and turns are not kept until it answers again"`), log)
	assert.Equal(t, 1, strings.Count(log, `"msg":"store recovered: repairing and keeping turns again"`))
	assert.Contains(t, metrics(t, srv), "\nreplay_proxy_store_up 1\n")
	assert.Contains(t, metrics(t, srv), `replay_proxy_store_errors_total{op="put",result="failed"}`)
}

func turnOf(t *testing.T, sig, id string) *replay.Turn {
	t.Helper()
	tu, err := replay.DecodeStream(strings.NewReader(anthropicSSE(sig, id)), mustCodec(t), replay.StreamOptions{})
	require.NoError(t, err)
	return tu
}

func mustCodec(t *testing.T) replay.FrameDecoder {
	c, err := replay.Lookup("anthropic", "anthropic", "claude-sonnet-4-5")
	require.NoError(t, err)
	return c.NewStream()
}

func fkey(id string) replayhttp.Key { return replayhttp.Key{Tenant: "t", Conversation: "c" + id} }

// The file store keeps its turns across a restart, drops the expired ones
// and stays within its bounds.
func TestFileStoreSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "turns.jsonl")
	ctx := context.Background()
	s, err := replayproxy.OpenFileStore(path, replayproxy.StoreOptions{MaxTurns: 3})
	require.NoError(t, err)
	want := map[string]string{}
	for _, id := range []string{"1", "2", "3", "4"} {
		tu := turnOf(t, sigFor(id), "toolu_"+id)
		require.NoError(t, s.Put(ctx, fkey(id), tu.AppendJSON(nil)))
		want[id] = string(tu.AppendJSON(nil))
	}
	require.NoError(t, s.Close())

	s, err = replayproxy.OpenFileStore(path, replayproxy.StoreOptions{MaxTurns: 3})
	require.NoError(t, err)
	defer s.Close()
	assert.Equal(t, 3, s.Len(), "the newest within the bounds")
	got, err := s.Get(ctx, fkey("1"))
	require.NoError(t, err)
	assert.Empty(t, got)
	for _, id := range []string{"2", "3", "4"} {
		got, err := s.Get(ctx, fkey(id))
		require.NoError(t, err)
		require.Len(t, got, 1)
		assert.Equal(t, want[id], string(got[0]), "byte for byte")
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, 3, strings.Count(string(b), "\n"), "rewritten with the live records")

	// An expired record and a line cut by a crash are skipped.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
	require.NoError(t, err)
	_, _ = f.WriteString(`{"expires":1,"tenant":"t","conversation":"old","turn":` + want["1"] + "}\n" + `{"expires":99999999999999,"tenant":"t","conversation":"cut","tu`)
	f.Close()
	s2, err := replayproxy.OpenFileStore(path, replayproxy.StoreOptions{MaxTurns: 3})
	require.NoError(t, err)
	defer s2.Close()
	assert.Equal(t, 3, s2.Len())
	got, _ = s2.Get(ctx, replayhttp.Key{Tenant: "t", Conversation: "old"})
	assert.Empty(t, got)
}

// OpenStore names its stores, and says where the Redis one lives.
func TestOpenStore(t *testing.T) {
	s, err := replayproxy.OpenStore("memory", replayproxy.StoreOptions{})
	require.NoError(t, err)
	assert.IsType(t, &replayhttp.MemoryStore{}, s)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	s, err = replayproxy.OpenStore("file:"+path, replayproxy.StoreOptions{})
	require.NoError(t, err)
	require.IsType(t, &replayproxy.FileStore{}, s)
	require.NoError(t, s.(*replayproxy.FileStore).Close())
	_, err = replayproxy.OpenStore("redis://127.0.0.1:6379/0", replayproxy.StoreOptions{})
	var ce *replayproxy.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "--store redis://127.0.0.1:6379/0: unknown store (want memory, file:PATH); the Redis store is in the module github.com/reasonreplay/replay/redisstore, whose replay-proxy command takes it", err.Error())
}

// A proxy restarted on the same file store repairs the next turn of a
// conversation the previous process captured.
func TestFileStoreAcrossProxyRestart(t *testing.T) {
	sig := sigFor("restart")
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		writeEvents(w, anthropicEvents(sig, "toolu_RS"))
	})
	path := filepath.Join(t.TempDir(), "turns.jsonl")
	ups := []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}

	store, err := replayproxy.OpenStore("file:"+path, replayproxy.StoreOptions{})
	require.NoError(t, err)
	hs, srv, _ := proxy(t, replayproxy.Config{Store: store, Upstreams: ups})
	readAll(t, post(t, hs.URL+"/anthropic/v1/messages", anthropicRequest(firstUser)))
	hs.Close()
	require.NoError(t, srv.Close())

	store, err = replayproxy.OpenStore("file:"+path, replayproxy.StoreOptions{})
	require.NoError(t, err)
	hs, _, _ = proxy(t, replayproxy.Config{Store: store, Upstreams: ups})
	resp := post(t, hs.URL+"/anthropic/v1/messages", followUp(`{"role":"assistant","content":[`+toolUse("toolu_RS")+`]}`, "toolu_RS"))
	readAll(t, resp)
	assert.Equal(t, "restored=1", resp.Header.Get(replayproxy.HeaderRepairs))
	got := up.received()
	require.Len(t, got, 2)
	assert.Equal(t, followUp(`{"role":"assistant","content":[`+thinkingBlock(sig)+`,`+toolUse("toolu_RS")+`]}`, "toolu_RS"), string(got[1].body))
}
