package replayproxy_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reasonreplay/replay/codecs/anthropic"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/reasonreplay/replay/replayproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	sameThinking = `{"type":"thinking","thinking":"Call the tool again.","signature":"EqQBCkgIAhABGAIiQsameSig+/="}`
	sameCall     = `{"type":"tool_use","id":"toolu_same","name":"get_weather","input":{"city":"Bern"}}`
)

// sameTurns is a Messages request of n turns that all show the same (a
// call of the same tool), each answered, with their thinking blocks or
// without.
func sameTurns(n int, kept bool) string {
	var b strings.Builder
	b.WriteString(anthropicHead + firstUser)
	call := `{"role":"assistant","content":[` + sameCall + `]}`
	if kept {
		call = `{"role":"assistant","content":[` + sameThinking + `,` + sameCall + `]}`
	}
	for range n {
		b.WriteString(`,` + call + `,{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_same","content":"ok"}]}`)
	}
	b.WriteString(`]}`)
	return b.String()
}

// turnsWithin returns the most turns a sameTurns request without its
// thinking blocks holds within size bytes.
func turnsWithin(size int) int {
	one, two := len(sameTurns(1, false)), len(sameTurns(2, false))
	return 1 + (size-one)/(two-one)
}

// everyTurnStore holds one captured turn under every key: the worst case,
// where each turn of a request has a capture to restore. Its reads are
// counted, and take delay each.
type everyTurnStore struct {
	doc   []byte
	delay time.Duration
	gets  atomic.Int64
}

func (s *everyTurnStore) Put(context.Context, replayhttp.Key, []byte) error { return nil }

func (s *everyTurnStore) Get(context.Context, replayhttp.Key) ([][]byte, error) {
	s.gets.Add(1)
	time.Sleep(s.delay)
	return [][]byte{append([]byte(nil), s.doc...)}, nil
}

func newEveryTurnStore(t *testing.T, delay time.Duration) *everyTurnStore {
	body := anthropicRequest(firstUser, `{"role":"assistant","content":[`+sameThinking+`,`+sameCall+`]}`,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_same","content":"ok"}]}`)
	h, _, err := anthropic.Codec{}.DecodeRequest([]byte(body))
	require.NoError(t, err)
	h.Turns[0].Seal()
	return &everyTurnStore{doc: h.Turns[0].AppendJSON(nil), delay: delay}
}

// A request at --max-body whose every turn has a capture to restore is
// repaired, audited and sent in bounded time (the client gives up after
// two minutes), with every turn restored.
func TestMaxBodyRequestIsBounded(t *testing.T) {
	size := 4 << 20
	if raceEnabled {
		size = 256 << 10 // the race detector makes each turn ten times dearer
	}
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"msg_2","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`)
	})
	store := newEveryTurnStore(t, 0)
	// The store is in memory and never fails: a store operation that a
	// loaded machine delays past the default 250 ms would be skipped as a
	// failing store's, which is not what this test is about.
	hs, _, _ := proxy(t, replayproxy.Config{Store: store, Mode: replayproxy.ModeEnforce, MaxBodyBytes: int64(size),
		StoreTimeout: time.Minute, Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	turns := turnsWithin(size)
	body := sameTurns(turns, false)
	require.LessOrEqual(t, len(body), size)
	require.Greater(t, len(body), size-len(sameTurns(2, false))+len(sameTurns(1, false)), "the body is at --max-body, within one turn")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hs.URL+"/anthropic/v1/messages", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", tenantKey)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err, "the request did not finish within two minutes")
	readAll(t, resp)
	t.Logf("%d bytes, %d turns restored in %v", len(body), turns, time.Since(start))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "restored="+strconv.Itoa(turns), resp.Header.Get(replayproxy.HeaderRepairs))
	assert.Equal(t, int64(turns), store.gets.Load(), "one store read per turn")
	got := up.received()
	require.Len(t, got, 1)
	assert.Equal(t, sameTurns(turns, true), string(got[0].body), "every turn restored, byte for byte")
}

// A client that goes away while its request is being repaired stops the
// repair: the store is read no more and nothing reaches the upstream.
func TestClientGoneStopsRepair(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) { w.WriteHeader(http.StatusTeapot) })
	store := newEveryTurnStore(t, 5*time.Millisecond)
	hs, _, _ := proxy(t, replayproxy.Config{Store: store, Mode: replayproxy.ModeEnforce, StoreTimeout: time.Second,
		Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: up.URL}}})
	turns := turnsWithin(1 << 20)
	body := sameTurns(turns, false)
	require.Greater(t, turns, 2000, "%d turns: seconds of store reads", turns)

	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hs.URL+"/anthropic/v1/messages", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", tenantKey)
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	deadline := time.Now().Add(30 * time.Second)
	for store.gets.Load() < 20 {
		require.True(t, time.Now().Before(deadline), "repair did not start")
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	// The reads stop: once the count holds still for half a second, it
	// must hold for good, far below the turns.
	last := store.gets.Load()
	for still := time.Now(); time.Since(still) < 500*time.Millisecond; {
		require.True(t, time.Now().Before(deadline), "the store is still being read: %d of %d", store.gets.Load(), turns)
		time.Sleep(50 * time.Millisecond)
		if n := store.gets.Load(); n != last {
			last, still = n, time.Now()
		}
	}
	t.Logf("the store was read %d times for %d turns", last, turns)
	assert.Less(t, last, int64(turns/2))
	time.Sleep(200 * time.Millisecond)
	assert.Equal(t, last, store.gets.Load())
	assert.Empty(t, up.received(), "nothing reached the upstream")
}
