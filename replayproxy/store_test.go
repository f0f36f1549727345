package replayproxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/reasonreplay/replay/replayproxy"
	"github.com/reasonreplay/replay/stream"
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
	tu, err := stream.Decode(strings.NewReader(anthropicSSE(sig, id)), mustCodec(t), stream.Options{})
	require.NoError(t, err)
	return tu
}

func mustCodec(t *testing.T) replay.ReasoningCodec {
	c, err := replay.Lookup("anthropic", "anthropic", "claude-sonnet-4-5")
	require.NoError(t, err)
	return c
}

func fkey(id string) replayhttp.Key { return replayhttp.Key{Tenant: "t", Conversation: "c" + id} }

// A proxy restarted on the same file store repairs the next turn of a
// conversation the previous process captured.
func TestFileStoreAcrossProxyRestart(t *testing.T) {
	sig := sigFor("restart")
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		writeEvents(w, anthropicEvents(sig, "toolu_RS"))
	})
	path := filepath.Join(t.TempDir(), "turns.jsonl")
	ups := []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}

	store, err := replayproxy.OpenFileStore(path, replayproxy.StoreOptions{})
	require.NoError(t, err)
	hs, srv, _ := proxy(t, replayproxy.Config{Store: store, Upstreams: ups})
	readAll(t, post(t, hs.URL+"/anthropic/v1/messages", anthropicRequest(firstUser)))
	hs.Close()
	require.NoError(t, srv.Close())

	store, err = replayproxy.OpenFileStore(path, replayproxy.StoreOptions{})
	require.NoError(t, err)
	hs, _, _ = proxy(t, replayproxy.Config{Store: store, Upstreams: ups})
	resp := post(t, hs.URL+"/anthropic/v1/messages", followUp(`{"role":"assistant","content":[`+toolUse("toolu_RS")+`]}`, "toolu_RS"))
	readAll(t, resp)
	assert.Equal(t, "restored=1", resp.Header.Get(replayproxy.HeaderRepairs))
	got := up.received()
	require.Len(t, got, 2)
	assert.Equal(t, followUp(`{"role":"assistant","content":[`+thinkingBlock(sig)+`,`+toolUse("toolu_RS")+`]}`, "toolu_RS"), string(got[1].body))
}

// refusingStore refuses, as an entry's problem, every document that names
// a tool call "toolu_big".
type refusingStore struct{ replayhttp.MemoryStore }

func (r *refusingStore) Put(ctx context.Context, key replayhttp.Key, doc []byte) error {
	if strings.Contains(string(doc), "toolu_big") {
		return &replayhttp.EntryError{Key: key, Reason: "a document too large"}
	}
	return r.MemoryStore.Put(ctx, key, doc)
}

// An entry refused by the store is that entry's problem: the store is not
// taken for down (no backoff, no log line, store_up stays 1), and the next
// conversations are captured and repaired as before.
func TestEntryErrorKeepsTheStore(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		id := r.Header.Get("X-Call")
		writeEvents(w, anthropicEvents(sigFor(id), "toolu_"+id))
	})
	hs, srv, logs := proxy(t, replayproxy.Config{Store: &refusingStore{}, StoreTimeout: 100 * time.Millisecond, StoreBackoff: time.Minute,
		Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	for _, id := range []string{"big", "ok1", "big", "ok2"} {
		readAll(t, post(t, hs.URL+"/anthropic/v1/messages", anthropicRequest(firstUser), "X-Call", id))
		resp := post(t, hs.URL+"/anthropic/v1/messages", followUp(`{"role":"assistant","content":[`+toolUse("toolu_"+id)+`]}`, "toolu_"+id), "X-Call", id+"b")
		readAll(t, resp)
		if id == "big" {
			assert.NotContains(t, resp.Header.Get(replayproxy.HeaderRepairs), "restored")
		} else {
			assert.Equal(t, "restored=1", resp.Header.Get(replayproxy.HeaderRepairs), id)
		}
	}
	assert.NotContains(t, logs.String(), "store unavailable")
	m := metrics(t, srv)
	assert.Contains(t, m, "\nreplay_proxy_store_up 1\n")
	assert.Contains(t, m, `replay_proxy_store_errors_total{op="put",result="entry"} 4`, "two big conversations of two turns (toolu_big, toolu_bigb)")
	assert.NotContains(t, m, `result="failed"`)
}

// slowStore answers Put only after delay, then keeps what doc holds at
// that time.
type slowStore struct {
	replayhttp.MemoryStore
	delay atomic.Int64
	mu    sync.Mutex
	docs  [][]byte
}

func (s *slowStore) Put(ctx context.Context, key replayhttp.Key, doc []byte) error {
	time.Sleep(time.Duration(s.delay.Load()))
	s.mu.Lock()
	s.docs = append(s.docs, bytes.Clone(doc))
	s.mu.Unlock()
	return s.MemoryStore.Put(ctx, key, doc)
}

// A store Put that outlives its timeout still writes the document it was
// given, whatever the proxy captures meanwhile.
func TestSlowPutKeepsItsDocument(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		id := r.Header.Get("X-Call")
		writeEvents(w, anthropicEvents(sigFor(id), "toolu_"+id))
	})
	store := &slowStore{}
	hs, _, _ := proxy(t, replayproxy.Config{Store: store, StoreTimeout: 30 * time.Millisecond, StoreBackoff: time.Millisecond,
		Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	store.delay.Store(int64(300 * time.Millisecond))
	var ids []string
	for i := range 6 {
		id := fmt.Sprint("slow", i)
		ids = append(ids, id)
		readAll(t, post(t, hs.URL+"/anthropic/v1/messages", anthropicRequest(`{"role":"user","content":"`+id+`"}`), "X-Call", id))
		time.Sleep(40 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	store.mu.Lock()
	defer store.mu.Unlock()
	require.Len(t, store.docs, len(ids))
	seen := map[string]int{}
	for _, d := range store.docs {
		require.True(t, json.Valid(d), "%s", d)
		n := 0
		for _, id := range ids {
			if bytes.Contains(d, []byte(sigFor(id))) {
				seen[id]++
				n++
			}
		}
		assert.Equal(t, 1, n, "%s", d)
	}
	for _, id := range ids {
		assert.Equal(t, 1, seen[id], id)
	}
}
