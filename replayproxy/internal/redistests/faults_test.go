package redistests_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reasonreplay/replay/redisstore"
	"github.com/reasonreplay/replay/redisstore/redistest"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/reasonreplay/replay/replayproxy"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// zkey and dkey are the Redis keys of k (see the package documentation).
func zkey(k replayhttp.Key) string {
	return "replay:z:{" + strconv.Itoa(len(k.Tenant)) + ":" + k.Tenant + ":" + k.Conversation + "}"
}
func dkey(k replayhttp.Key) string {
	return "replay:d:{" + strconv.Itoa(len(k.Tenant)) + ":" + k.Tenant + ":" + k.Conversation + "}"
}

func doc(i int) []byte {
	return []byte(fmt.Sprintf(`{"turn":%d,"text":"%s"}`, i, strings.Repeat("t", 700)))
}

func gets(t *testing.T, s *redisstore.Store, k replayhttp.Key) []string {
	t.Helper()
	got, err := s.Get(context.Background(), k)
	require.NoError(t, err)
	var out []string
	for _, d := range got {
		out = append(out, string(d))
	}
	return out
}

// A key holds the MaxPerKey most recently put documents, the least
// recently put first; one put again becomes the newest; the tenants'
// keys never meet, whatever their names hold.
func TestPerKeyCap(t *testing.T) {
	r := redistest.Start(t)
	s, err := redisstore.Open(r.URL(), redisstore.Options{MaxPerKey: 3})
	require.NoError(t, err)
	defer s.Close()
	ctx := context.Background()
	k := replayhttp.Key{Tenant: "t", Conversation: "c"}
	for i := 0; i < 20; i++ {
		require.NoError(t, s.Put(ctx, k, doc(i)))
	}
	assert.Equal(t, []string{string(doc(17)), string(doc(18)), string(doc(19))}, gets(t, s, k))
	require.NoError(t, s.Put(ctx, k, doc(17)))
	assert.Equal(t, []string{string(doc(18)), string(doc(19)), string(doc(17))}, gets(t, s, k), "put again: the newest")
	c := r.Client()
	assert.EqualValues(t, 3, c.ZCard(ctx, zkey(k)).Val())
	assert.EqualValues(t, 3, c.HLen(ctx, dkey(k)).Val(), "the documents let go of leave with their members")

	// "a:b" + "c" and "a" + "b:c" are two tenants' keys.
	require.NoError(t, s.Put(ctx, replayhttp.Key{Tenant: "a:b", Conversation: "c"}, doc(100)))
	assert.Empty(t, gets(t, s, replayhttp.Key{Tenant: "a", Conversation: "b:c"}))
}

// A document lives TTL after its own Put: a hot key, put to again and
// again, holds only documents put within the TTL, at most MaxPerKey of
// them, and leaves Redis one TTL after its last Put.
func TestHotKeyCannotKeepStaleDocuments(t *testing.T) {
	r := redistest.Start(t)
	ttl := 300 * time.Millisecond
	s, err := redisstore.Open(r.URL(), redisstore.Options{TTL: ttl, MaxPerKey: 8})
	require.NoError(t, err)
	defer s.Close()
	ctx := context.Background()
	c := r.Client()
	k := replayhttp.Key{Tenant: "t", Conversation: "hot"}
	// One document put once, then the key kept hot with others.
	require.NoError(t, s.Put(ctx, k, []byte(`{"first":1}`)))
	start := time.Now()
	i := 0
	for time.Since(start) < 1200*time.Millisecond {
		require.NoError(t, s.Put(ctx, k, doc(i)))
		i++
		if i%8 == 0 {
			time.Sleep(40 * time.Millisecond) // about 8 Puts per 40ms, 60 per TTL
		}
		require.LessOrEqual(t, c.ZCard(ctx, zkey(k)).Val(), int64(8))
		require.LessOrEqual(t, c.HLen(ctx, dkey(k)).Val(), int64(8))
	}
	got := gets(t, s, k)
	assert.Len(t, got, 8)
	assert.NotContains(t, got, `{"first":1}`, "put before the TTL: gone, though its key was put to since")
	now := time.Now()
	for _, z := range c.ZRangeWithScores(ctx, zkey(k), 0, -1).Val() {
		put := time.UnixMicro(int64(z.Score))
		assert.Less(t, now.Sub(put), ttl+50*time.Millisecond, "every member was put within the TTL")
	}
	time.Sleep(ttl + 100*time.Millisecond)
	assert.Empty(t, gets(t, s, k))
	assert.Zero(t, c.Exists(ctx, zkey(k), dkey(k)).Val(), "the key leaves Redis one TTL after its last Put")
	t.Logf("%d Puts in %v at TTL %v: the key held at most 8 documents", i+1, time.Since(start).Round(time.Millisecond), ttl)
}

// What another writer left under a key is untrusted input: a document
// that is not JSON, nested deeper than a request body may be, or larger
// than MaxEntryBytes (which the server does not even send), a member with
// no document, a key of another type. Each is skipped and counted, never
// an error; the good documents of the key are still served, and a Put
// puts a key of another type right.
func TestHostileEntries(t *testing.T) {
	r := redistest.Start(t)
	logs := &syncBuffer{}
	s, err := redisstore.Open(r.URL(), redisstore.Options{MaxEntryBytes: 4096, Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	require.NoError(t, err)
	defer s.Close()
	ctx := context.Background()
	c := r.Client()
	k := replayhttp.Key{Tenant: "t", Conversation: "c"}
	require.NoError(t, s.Put(ctx, k, doc(1)))
	now := float64(time.Now().UnixMicro())
	for i, bad := range []string{`{"not json`, strings.Repeat("[", 600) + strings.Repeat("]", 600), `{"big":"` + strings.Repeat("x", 8000) + `"}`} {
		m := "bad" + strconv.Itoa(i)
		require.NoError(t, c.ZAdd(ctx, zkey(k), redis.Z{Score: now + float64(i), Member: m}).Err())
		require.NoError(t, c.HSet(ctx, dkey(k), m, bad).Err())
	}
	require.NoError(t, c.ZAdd(ctx, zkey(k), redis.Z{Score: now + 9, Member: "orphan"}).Err())
	require.NoError(t, s.Put(ctx, k, doc(2)))
	for round := 0; round < 3; round++ {
		assert.Equal(t, []string{string(doc(1)), string(doc(2))}, gets(t, s, k), "the good ones, in order")
	}
	assert.EqualValues(t, 12, s.SkippedEntries(), "4 bad entries, read 3 times")
	for _, why := range []string{"not valid JSON", "larger than MaxEntryBytes", "missing from its key"} {
		assert.Equal(t, 1, strings.Count(logs.String(), why), "logged once: %s", why)
	}

	// A key of another type.
	k2 := replayhttp.Key{Tenant: "t", Conversation: "typed"}
	require.NoError(t, c.Set(ctx, zkey(k2), "a string", 0).Err())
	assert.Empty(t, gets(t, s, k2))
	assert.EqualValues(t, 13, s.SkippedEntries())
	require.NoError(t, s.Put(ctx, k2, doc(3)), "a Put puts it right")
	assert.EqualValues(t, 14, s.SkippedEntries(), "the key it replaced counted")
	assert.Equal(t, []string{string(doc(3))}, gets(t, s, k2))
	require.NoError(t, c.Del(ctx, zkey(k2)).Err())
	require.NoError(t, c.HSet(ctx, zkey(k2), "f", "v").Err())
	assert.Empty(t, gets(t, s, k2))
	assert.EqualValues(t, 15, s.SkippedEntries())

	// A document larger than MaxEntryBytes is refused at Put, with the
	// reason, as an entry's problem.
	err = s.Put(ctx, k, []byte(`{"x":"`+strings.Repeat("x", 5000)+`"}`))
	var ee *replayhttp.EntryError
	require.ErrorAs(t, err, &ee)
	assert.Contains(t, err.Error(), "larger than the Redis store keeps (4096)")
}

// Through the proxy: an entry a hostile writer corrupted is that entry's
// problem. Its conversation is judged by the request alone; every other
// conversation is repaired as before; the store is never taken for down
// (no breaker, no "store unavailable"), however often the entry is hit.
func TestHostileEntryDoesNotTurnRepairOff(t *testing.T) {
	r := redistest.Start(t)
	up := newUpstream(t)
	p, logs := proxyOn(t, r, up, replayproxy.Config{StoreTimeout: 200 * time.Millisecond, StoreBackoff: time.Second})
	ctx := context.Background()
	c := r.Client()
	turn(t, p, "bad", firstRequest())
	keys := c.Keys(ctx, "replay:d:*").Val()
	require.Len(t, keys, 1)
	fields := c.HKeys(ctx, keys[0]).Val()
	require.Len(t, fields, 1)
	require.NoError(t, c.HSet(ctx, keys[0], fields[0], `{"version":2,"complete":tru`).Err())
	for i := 0; i < 5; i++ {
		id := "good" + strconv.Itoa(i)
		// The bad entry is read, then a good conversation is repaired.
		// (The conversations share their first message, so the good ones
		// are captured under the bad one's key, beside its bad entry: the
		// bad one's request then reads the good captures, of other tool
		// calls, as a mismatch.)
		rep := turn(t, p, "bad", nextRequest(sigFor("bad"), "toolu_bad", true))
		assert.NotContains(t, rep, "restored")
		assert.NotContains(t, rep, "store-error")
		turn(t, p, id, firstRequest())
		assert.Equal(t, "restored=1", turn(t, p, id, nextRequest(sigFor(id), "toolu_"+id, true)), "the bad entry is skipped, the good one under the same key used")
	}
	assert.NotContains(t, logs.String(), "store unavailable")
	assert.Equal(t, 1, strings.Count(logs.String(), "store entry skipped"), "logged once")
	m := metricsOf(t, p)
	assert.Contains(t, m, "\nreplay_proxy_store_up 1\n")
	assert.Contains(t, m, "\nreplay_proxy_store_entries_skipped_total 10\n", "read twice a round, five rounds")
	assert.NotContains(t, m, `result="failed"`)
}

func metricsOf(t *testing.T, proxyURL string) string {
	t.Helper()
	resp, err := http.Get(proxyURL + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

// DEBUG SLEEP holds Redis past the store timeout: requests pass through
// unrepaired without waiting longer than the timeout, and are repaired
// again once Redis answers. What was kept before survives.
func TestRedisDebugSleep(t *testing.T) {
	r := redistest.Start(t)
	up := newUpstream(t)
	p, logs := proxyOn(t, r, up, replayproxy.Config{StoreTimeout: 200 * time.Millisecond, StoreBackoff: 100 * time.Millisecond})
	turn(t, p, "before", firstRequest())
	slept := make(chan error, 1)
	go func() { slept <- r.Client().Do(context.Background(), "DEBUG", "SLEEP", "1.5").Err() }()
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	turn(t, p, "during", firstRequest())
	assert.Equal(t, "store-error=1", turn(t, p, "during", nextRequest(sigFor("during"), "toolu_during", true)))
	assert.Less(t, time.Since(start), 1200*time.Millisecond, "the requests did not wait out the sleep")
	require.NoError(t, <-slept)
	deadline := time.Now().Add(5 * time.Second)
	rep := ""
	for time.Now().Before(deadline) && rep != "restored=1" {
		time.Sleep(120 * time.Millisecond)
		rep = turn(t, p, "before", nextRequest(sigFor("before"), "toolu_before", true))
	}
	assert.Equal(t, "restored=1", rep, "the turn kept before the sleep is repaired from after it")
	assert.Equal(t, 1, strings.Count(logs.String(), `"msg":"store unavailable`), logs.String())
	assert.Equal(t, 1, strings.Count(logs.String(), `"msg":"store recovered`))
}

// A restart of a Redis that persists its writes (an append-only file
// synced at every write) keeps every document put before it; one that
// does not keeps none (TestRedisRestart: the proxy passes requests
// through meanwhile).
func TestRedisRestartPersisted(t *testing.T) {
	r := redistest.StartPersistent(t)
	s, err := redisstore.Open(r.URL(), redisstore.Options{})
	require.NoError(t, err)
	defer s.Close()
	ctx := context.Background()
	for i := 0; i < 50; i++ {
		require.NoError(t, s.Put(ctx, replayhttp.Key{Tenant: "t", Conversation: strconv.Itoa(i)}, doc(i)))
	}
	r.Stop()
	r.Restart()
	for i := 0; i < 50; i++ {
		var got []string
		require.Eventually(t, func() bool {
			d, err := s.Get(ctx, replayhttp.Key{Tenant: "t", Conversation: strconv.Itoa(i)})
			got = nil
			for _, x := range d {
				got = append(got, string(x))
			}
			return err == nil
		}, 5*time.Second, 50*time.Millisecond)
		assert.Equal(t, []string{string(doc(i))}, got)
	}
}

// Two writers (two proxies' stores) on one key and on many: the bound
// holds, each key's set and hash agree, and what each key serves is what
// was put to it, the newest of it.
func TestTwoWriters(t *testing.T) {
	r := redistest.Start(t)
	ctx := context.Background()
	var stores []*redisstore.Store
	for i := 0; i < 2; i++ {
		s, err := redisstore.Open(r.URL(), redisstore.Options{MaxPerKey: 4})
		require.NoError(t, err)
		defer s.Close()
		stores = append(stores, s)
	}
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := stores[w%2]
			for i := 0; i < 150; i++ {
				k := replayhttp.Key{Tenant: "t", Conversation: strconv.Itoa(i % 10)}
				assert.NoError(t, s.Put(ctx, k, []byte(fmt.Sprintf(`{"w":%d,"i":%d}`, w, i))))
			}
		}()
	}
	wg.Wait()
	c := r.Client()
	for i := 0; i < 10; i++ {
		k := replayhttp.Key{Tenant: "t", Conversation: strconv.Itoa(i)}
		got := gets(t, stores[i%2], k)
		assert.Len(t, got, 4)
		assert.EqualValues(t, 4, c.ZCard(ctx, zkey(k)).Val())
		assert.EqualValues(t, 4, c.HLen(ctx, dkey(k)).Val())
		for _, d := range got {
			var w, n int
			_, err := fmt.Sscanf(d, `{"w":%d,"i":%d}`, &w, &n)
			require.NoError(t, err)
			assert.Equal(t, i, n%10, "a document of this key")
			assert.GreaterOrEqual(t, n, 100, "among the newest: put in the last rounds")
		}
	}
}

// The read time of a hot key stays flat as turns are added to it (the
// per-key bound): the median of 40 Gets after 100, 1,000, 10,000 and
// 30,000 Puts of distinct 1 KB documents to one key.
func TestHotKeyReadFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("puts 30,000 documents")
	}
	r := redistest.Start(t)
	s, err := redisstore.Open(r.URL(), redisstore.Options{})
	require.NoError(t, err)
	defer s.Close()
	ctx := context.Background()
	c := r.Client()
	k := replayhttp.Key{Tenant: "t", Conversation: "hot"}
	put := 0
	var rows []string
	var first, last time.Duration
	for _, n := range []int{100, 1000, 10000, 30000} {
		for ; put < n; put++ {
			require.NoError(t, s.Put(ctx, k, doc(put)))
		}
		times := make([]time.Duration, 40)
		for i := range times {
			start := time.Now()
			got, err := s.Get(ctx, k)
			times[i] = time.Since(start)
			require.NoError(t, err)
			require.Len(t, got, 8)
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		med := times[len(times)/2]
		if first == 0 {
			first = med
		}
		last = med
		rows = append(rows, fmt.Sprintf("| %6d | %d | %d | %v | %v |", n, c.ZCard(ctx, zkey(k)).Val(), c.HLen(ctx, dkey(k)).Val(), med.Round(time.Microsecond), times[len(times)*9/10].Round(time.Microsecond)))
	}
	t.Logf("hot key read time (1 KB documents, MaxPerKey 8):\n| turns put | members | documents | Get p50 | Get p90 |\n| --- | --- | --- | --- | --- |\n%s", strings.Join(rows, "\n"))
	assert.Less(t, float64(last), 3*float64(first)+float64(2*time.Millisecond), "flat: %v after 30,000 Puts, %v after 100", last, first)
}
