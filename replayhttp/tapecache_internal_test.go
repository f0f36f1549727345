package replayhttp

import (
	"math/rand/v2"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/benchreq"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/readafter"
	"github.com/reasonreplay/replay/internal/view"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// sameVals requires two tapes' values to lie at the same places with the
// same names, all the way down.
func sameVals(t *testing.T, a, b jsonw.Val, path string) {
	t.Helper()
	require.Equal(t, a.Exists(), b.Exists(), path)
	require.Equal(t, a.Start(), b.Start(), path)
	require.Equal(t, a.End(), b.End(), path)
	require.Equal(t, a.Name(), b.Name(), path)
	require.Equal(t, a.Raw(), b.Raw(), path)
	if !a.IsObject() && !a.IsArray() {
		return
	}
	require.Equal(t, a.Len(), b.Len(), path)
	var as, bs []jsonw.Val
	a.ForEach(func(_ int, _ string, v jsonw.Val) bool { as = append(as, v); return true })
	b.ForEach(func(_ int, _ string, v jsonw.Val) bool { bs = append(bs, v); return true })
	require.Equal(t, len(as), len(bs), path)
	for i := range as {
		sameVals(t, as[i], bs[i], path+"/"+as[i].Name())
	}
}

// A request read with the tape of a tenant's earlier body is, for every
// codec's request shape, exactly the request read cold (its elements,
// bound members, target, turns and tape), whatever the requests do from
// one to the next: grow, shrink, come back the same, switch between
// conversations and tenants, change a byte, gain white space; and the
// caller's buffer changing after the call (the cache keeps its own copy).
func TestTapeCacheIsCold(t *testing.T) {
	for _, s := range benchreq.Shapes() {
		t.Run(s.API, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(37, uint64(len(s.API))))
			tr := &Transport{}
			convs := []*benchreq.Shape{s, {}}
			*convs[1] = *s
			convs[1].Base = s.Base + 500
			tenants := []string{"tenant-a", "tenant-b"}
			n := []int{1, 1}
			var last []byte
			hits, same := 0, 0
			for step := 0; step < 120; step++ {
				c := rng.IntN(2)
				var body []byte
				switch op := rng.IntN(12); {
				case op < 5:
					n[c] += 1 + rng.IntN(2)
				case op < 7:
					n[c] = rng.IntN(n[c] + 1)
				case op < 9 && last != nil:
					body = append([]byte(nil), last...) // the same again
				}
				n[c] = min(n[c], 14)
				if body == nil {
					body = convs[c].Request(n[c])
				}
				rec, ok := codecs.Recognise(replay.Default(), http.MethodPost, &url.URL{Scheme: "https", Host: "x", Path: s.Path}, s.API, gjson.GetBytes(body, "model").Str)
				require.True(t, ok)
				if rng.IntN(4) == 0 {
					if r, err := rec.Codec.ReadRequest(body); err == nil && len(r.Elements) > 0 {
						if rng.IntN(2) == 0 {
							if edited, ok := editLetter(rng, r, rng.IntN(len(r.Elements)), false); ok {
								body = edited
							}
						} else {
							e := r.Elements[rng.IntN(len(r.Elements))]
							body = append(append(append([]byte(nil), body[:e.Start]...), ' '), body[e.Start:]...)
						}
					}
				}
				tenant := tenants[rng.IntN(2)]
				prev := tr.tapes.prev(tenant, body)
				if prev != nil {
					hits++
					if prev.Text() == string(body) {
						same++
					}
				}
				got, gerr := readafter.Read(rec.Codec, body, prev)
				cold, cerr := rec.Codec.ReadRequest(append([]byte(nil), body...))
				require.Equal(t, cerr, gerr, "step %d", step)
				if cerr != nil {
					continue
				}
				require.Equal(t, cold.Elements, got.Elements, "step %d", step)
				require.Equal(t, cold.Bound, got.Bound, "step %d", step)
				require.Equal(t, cold.Target, got.Target, "step %d", step)
				require.Equal(t, cold.History.Pointers, got.History.Pointers, "step %d", step)
				require.Equal(t, cold.History.Turns, got.History.Turns, "step %d", step)
				ct, gt := cold.History.RequestTape(cold.History.Request), got.History.RequestTape(got.History.Request)
				require.Equal(t, ct == nil, gt == nil)
				if ct != nil {
					sameVals(t, ct.Root(), gt.Root(), "")
				}
				tr.tapes.keep(tenant, body, gt, prev)
				last = append([]byte(nil), body...)
				// The caller reuses its buffer: the cache must not see it.
				for i := range body {
					body[i] = '#'
				}
			}
			if s.API == "anthropic" {
				assert.Greater(t, hits, 60, "the cache was consulted")
				assert.Positive(t, same, "the same body came again")
			}
		})
	}
}

// The cache stays within its bounds, and one tenant's tapes are never
// handed to another.
func TestTapeCacheBounds(t *testing.T) {
	var c tapeCache
	s := benchreq.Anthropic()
	body := s.Request(6)
	var tp jsonw.Tape
	require.True(t, tp.ResetBytes(body))
	c.keep("a", body, &tp, nil)
	require.Nil(t, c.prev("b", body), "another tenant's")
	require.NotNil(t, c.prev("a", body))
	for i := 0; i < 3*tapePerKey; i++ {
		b := s.Request(6 + i)
		var x jsonw.Tape
		require.True(t, x.ResetBytes(b))
		c.keep("a", b, &x, nil)
	}
	kept := c.get("a")
	require.Len(t, kept, tapePerKey)
	total := 0
	for _, tp := range kept {
		total += tapeSize(tp)
	}
	c.mu.Lock()
	require.Equal(t, total, c.bytes, "the bytes counted are the bytes kept")
	c.mu.Unlock()
	for i := 0; i < tapeCacheKeys+10; i++ {
		var x jsonw.Tape
		b := []byte(`{"messages":[1]}`)
		require.True(t, x.ResetBytes(b))
		c.keep(string(rune(i))+"k", b, &x, nil)
	}
	c.mu.Lock()
	require.LessOrEqual(t, c.order.Len(), tapeCacheKeys)
	c.mu.Unlock()
}

// Requests of one tenant read concurrently, each after the tapes the
// others kept, read as they read cold (run with -race).
func TestTapeCacheConcurrent(t *testing.T) {
	tr := &Transport{}
	s := benchreq.Anthropic()
	rec, ok := codecs.Recognise(replay.Default(), http.MethodPost, &url.URL{Scheme: "https", Host: "x", Path: s.Path}, s.API, "")
	require.True(t, ok)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 12; i++ {
				body := s.Request(2 + (i+g)%5)
				prev := tr.tapes.prev("t", body)
				got, err := readafter.Read(rec.Codec, body, prev)
				if !assert.NoError(t, err) {
					return
				}
				cold, _ := rec.Codec.ReadRequest(body)
				assert.Equal(t, cold.Elements, got.Elements)
				tr.tapes.keep("t", body, got.History.RequestTape(got.History.Request), prev)
			}
		}(g)
	}
	wg.Wait()
}

// The cache reads its own copy of a body: the caller's buffer, changed
// into another text after the call, does not make that text's tape.
func TestTapeCacheCopiesTheBody(t *testing.T) {
	var c tapeCache
	buf := []byte(`{"messages":[1,22]}`)
	var tp jsonw.Tape
	require.True(t, tp.ResetBytes(buf))
	c.keep("a", buf, &tp, nil)
	copy(buf, `{"messages":[12,2]}`)
	prev := c.prev("a", buf)
	require.NotNil(t, prev)
	var got, want jsonw.Tape
	require.True(t, got.ResetBytesAfter(buf, prev))
	require.True(t, want.ResetBytes(buf))
	sameVals(t, want.Root(), got.Root(), "")
}

// prevShared says how many leading bytes the tape it returns shares with
// the body; told that, keepShared adds nothing for a body that is the
// tape's text, and keeps a body that continues it in its place.
func TestTapeCacheShared(t *testing.T) {
	var c tapeCache
	s := benchreq.Anthropic()
	body, next := s.Request(6), s.Request(7)
	var tp, tn jsonw.Tape
	require.True(t, tp.ResetBytes(body))
	require.True(t, tn.ResetBytes(next))
	c.keep("a", body, &tp, nil)
	prev, n := c.prevShared("a", body)
	require.NotNil(t, prev)
	assert.Equal(t, len(body), n)
	c.keepShared("a", body, false, &tp, prev, n)
	assert.Len(t, c.get("a"), 1, "the same body adds nothing")
	prev, n = c.prevShared("a", next)
	assert.Equal(t, jsonw.Shared(string(next), string(body)), n)
	assert.Less(t, n, len(body))
	c.keepShared("a", next, false, &tn, prev, n)
	tapes := c.get("a")
	require.Len(t, tapes, 1, "a body that continues the tape's text takes its place")
	assert.Equal(t, string(next), tapes[0].Text())
	_, n = c.prevShared("b", body)
	assert.Zero(t, n, "no tape, nothing shared")
}

// prev is prevShared without the count.
func (c *tapeCache) prev(key string, body []byte) *jsonw.Tape {
	t, _ := c.prevShared(key, body)
	return t
}

// keep is keepShared, counting what body shares with from's text.
func (c *tapeCache) keep(key string, body []byte, t, from *jsonw.Tape) {
	shared := 0
	if from != nil {
		shared = jsonw.Shared(view.String(body), from.Text())
	}
	c.keepShared(key, body, false, t, from, shared)
}

// A body the middleware owns is kept as it is; any other is copied, so
// that its holder writing it again changes nothing kept.
func TestTapeCacheKeepsOwnedBodies(t *testing.T) {
	s := benchreq.Anthropic()
	for _, owned := range []bool{true, false} {
		var c tapeCache
		body := s.Request(6)
		want := string(body)
		var tp jsonw.Tape
		require.True(t, tp.ResetBytes(body))
		c.keepShared("a", body, owned, &tp, nil, 0)
		tapes := c.get("a")
		require.Len(t, tapes, 1)
		assert.Equal(t, owned, view.Within(view.String(body), tapes[0].Text()), "owned %v: kept without a copy", owned)
		if !owned {
			copy(body, `{"other":1}   `)
			assert.Equal(t, want, tapes[0].Text(), "a copy, which the holder's writes leave alone")
		}
	}
}
