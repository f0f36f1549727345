package replayhttp

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/benchreq"
	"github.com/reasonreplay/replay/internal/readafter"
	"github.com/reasonreplay/replay/internal/view"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

func readShape(t testing.TB, s *benchreq.Shape, body []byte) (*codecs.Request, bool) {
	t.Helper()
	rec, ok := codecs.Recognise(replay.Default(), http.MethodPost, &url.URL{Scheme: "https", Host: "x", Path: s.Path}, s.API, gjson.GetBytes(body, "model").Str)
	require.True(t, ok)
	r, err := rec.Codec.ReadRequest(body)
	if err != nil {
		return nil, false
	}
	return r, true
}

// editLetter changes one lower-case letter, drawn at random, of the
// bytes of r's element i (or of bound member i when bound is set) into
// another; false when there is none.
func editLetter(rng *rand.Rand, r *codecs.Request, i int, bound bool) ([]byte, bool) {
	start, end := 0, 0
	if bound {
		start, end = r.Bound[i].Start, r.Bound[i].End
	} else {
		start, end = r.Elements[i].Start, r.Elements[i].End
	}
	var at []int
	for j := start; j < end; j++ {
		if c := r.Body[j]; c >= 'a' && c <= 'z' {
			at = append(at, j)
		}
	}
	if len(at) == 0 {
		return nil, false
	}
	j := at[rng.IntN(len(at))]
	b := append([]byte(nil), r.Body...)
	b[j] = 'a' + (b[j]-'a'+1+byte(rng.IntN(25)))%26
	return b, true
}

// The chain a Transport continues from its cache is, for every codec's
// request shape, exactly the cold chain (and the chain of the raw text),
// whatever the requests do from one to the next: grow by a turn or
// several, shrink, come back, switch between conversations and tenants,
// change a byte of an element or of the system prompt, or a byte the
// canonical form does not see (white space). The visible digests it
// hands to repair are the cold ones too.
//
// With the codec named (chainOf), a codec whose turns are read from their
// own bytes (readafter.OwnBytes) takes the visible digest of an element
// with the bytes of a cached one from the cache: the digests are still the
// cold ones.
func TestChainCacheIsCold(t *testing.T) {
	for _, own := range []bool{false, true} {
		for _, s := range benchreq.Shapes() {
			t.Run(fmt.Sprintf("%s/own=%v", s.API, own), func(t *testing.T) { chainCacheIsCold(t, s, own) })
		}
	}
}

func chainCacheIsCold(t *testing.T, s *benchreq.Shape, own bool) {
	{
		{
			rng := rand.New(rand.NewPCG(27, uint64(len(s.API))))
			tr := &Transport{}
			convs := []*benchreq.Shape{s, {}}
			*convs[1] = *s
			convs[1].Base = s.Base + 500
			tenants := []string{"tenant-a", "tenant-b"}
			var tapes tapeCache
			n := []int{1, 1}
			hits, shortcuts := 0, 0
			for step := 0; step < 160; step++ {
				c := rng.IntN(2)
				switch op := rng.IntN(10); {
				case op < 5:
					n[c] += 1 + rng.IntN(2)
				case op < 7:
					n[c] = rng.IntN(n[c] + 1)
				}
				n[c] = min(n[c], 14)
				body := convs[c].Request(n[c])
				r, ok := readShape(t, convs[c], body)
				require.True(t, ok)
				if rng.IntN(4) == 0 && len(r.Elements) > 0 {
					var edited []byte
					switch rng.IntN(3) {
					case 0:
						edited, ok = editLetter(rng, r, rng.IntN(len(r.Elements)), false)
					case 1:
						if len(r.Bound) > 0 {
							edited, ok = editLetter(rng, r, rng.IntN(len(r.Bound)), true)
						}
					default: // white space before an element
						e := r.Elements[rng.IntN(len(r.Elements))]
						edited = append(append(append([]byte(nil), r.Body[:e.Start]...), ' '), r.Body[e.Start:]...)
					}
					if edited != nil {
						if er, ok := readShape(t, convs[c], edited); ok {
							r = er
						}
					}
				}
				tenant := tenants[rng.IntN(2)]
				before := len(tr.chains.get(chainKey(tenant, r.Invisible)))
				rec, ok := codecs.Recognise(replay.Default(), http.MethodPost, &url.URL{Scheme: "https", Host: "x", Path: s.Path}, s.API, gjson.GetBytes(r.Body, "model").Str)
				require.True(t, ok)
				var codec codecs.HTTPCodec
				if own {
					codec = rec.Codec
				}
				// Mostly, as the middleware does: read after the tenant's
				// recent tapes (the chain then takes the bytes the body
				// shares with the tape's text as equal), the body owned
				// or not (an entry keeps it, or a copy).
				owned := rng.IntN(2) == 0
				if rng.IntN(4) != 0 {
					prev, _ := tapes.prevShared(tenant, r.Body)
					rr, err := readafter.Read(rec.Codec, r.Body, prev)
					require.NoError(t, err)
					r = rr
				}
				if tp := r.History.RequestTape(r.History.Request); tp != nil {
					after, prefix := tp.Prefix()
					for _, e := range tr.chains.get(chainKey(tenant, r.Invisible)) {
						if prefix > 0 && e.src != "" && view.Within(after, e.src) {
							shortcuts++ // an entry whose bytes are the tape's text
							break
						}
					}
					tapes.keepShared(tenant, r.Body, owned, tp, nil, 0)
				}
				got, vis := tr.chainOf(r, tenant, codec, owned)
				if before > 0 {
					hits++
				}
				cold := chain(r)
				require.Equal(t, cold, got, "step %d", step)
				require.Equal(t, chainOfRaw(r), got, "step %d", step)
				for ti, v := range vis {
					if v != "" {
						require.Equal(t, visible(r.History.Turns[ti], newDigester(r.Invisible).skip), v, "step %d turn %d", step, ti)
					}
				}
			}
			assert.Greater(t, hits, 100, "the cache was consulted")
			assert.Greater(t, shortcuts, 4, "entries over the text the request was read after")
		}
	}
}

// A request that continues a cached one writes only its new elements: it
// replaces the entry it continues, shares its leading states, and a
// request all of whose elements are in an entry adds none. One tenant's
// entries (or one set of skipped names') are never another's.
func TestChainCacheContinues(t *testing.T) {
	s := benchreq.Anthropic()
	r1, ok := readShape(t, s, s.Request(3))
	require.True(t, ok)
	r2, ok := readShape(t, s, s.Request(4))
	require.True(t, ok)
	_, e1, rep := newChainer(r1).run(nil, true)
	require.NotNil(t, e1)
	assert.Nil(t, rep)
	d2, e2, rep := newChainer(r2).run([]*chainEntry{e1}, true)
	require.NotNil(t, e2)
	assert.Equal(t, chain(r2), d2)
	// Request(4) changes the last tool result of Request(3) (it is no
	// longer the last): the entry continues from before it.
	k := len(r1.Elements) - 1
	assert.Nil(t, rep, "the old last element differs: not continued whole")
	assert.Same(t, &e1.states[k][0], &e2.states[k][0], "the leading states are shared")
	assert.NotSame(t, &e1.states[k+1][0], &e2.states[k+1][0])
	// The same request again: all of it is in e2.
	d, e, _ := newChainer(r2).run([]*chainEntry{e2}, true)
	assert.Nil(t, e)
	assert.Equal(t, e2.d, d)

	tr := &Transport{}
	tr.chain(r2, "a")
	assert.Len(t, tr.chains.get(chainKey("a", r2.Invisible)), 1)
	assert.Empty(t, tr.chains.get(chainKey("b", r2.Invisible)), "another tenant")
	assert.Empty(t, tr.chains.get(chainKey("a", append(r2.Invisible, "x"))), "other skipped names")
	assert.NotEqual(t, chainKey("a\x00b", []string{"c"}), chainKey("a", []string{"b", "c"}))
	tr.chain(r2, "")
	assert.Empty(t, tr.chains.get(chainKey("", r2.Invisible)), "no tenant, no cache")
}

// BenchmarkChain takes the chain of a 540 KB Anthropic tool-loop request
// cold, continued from the request before it (one turn shorter), and
// continued from the same request (a retry, or the proxy benchmark's
// repeated request).
func BenchmarkChain(b *testing.B) {
	s := benchreq.Anthropic()
	n := s.Turns(540 << 10)
	prev, ok := readShape(b, s, s.Request(n-1))
	require.True(b, ok)
	r, ok := readShape(b, s, s.Request(n))
	require.True(b, ok)
	_, ep, _ := newChainer(prev).run(nil, true)
	_, er, _ := newChainer(r).run(nil, true)
	for _, c := range []struct {
		name  string
		prevs []*chainEntry
	}{{"cold", nil}, {"grown", []*chainEntry{ep}}, {"same", []*chainEntry{er}}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(r.Body)))
			for b.Loop() {
				newChainer(r).run(c.prevs, true)
			}
		})
	}
}

// Requests of one tenant read and fill the cache at once (run with -race):
// each still gets the cold chain.
func TestChainCacheConcurrent(t *testing.T) {
	s := benchreq.Anthropic()
	reqs := make([]*codecs.Request, 8)
	cold := make([][]string, len(reqs))
	for i := range reqs {
		r, ok := readShape(t, s, s.Request(i+1))
		require.True(t, ok)
		reqs[i], cold[i] = r, chain(r)
	}
	tr := &Transport{}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 3*len(reqs); k++ {
				i := (k + g) % len(reqs)
				if d, _ := tr.chain(reqs[i], "t"); !slices.Equal(d, cold[i]) {
					errs <- fmt.Sprintf("goroutine %d, request %d", g, i)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	assert.NotEmpty(t, tr.chains.get(chainKey("t", reqs[0].Invisible)))
}

// A request larger than the cache keeps is computed whole and leaves
// nothing behind.
func TestChainCacheSkipsLargeRequests(t *testing.T) {
	s := benchreq.Anthropic()
	r, ok := readShape(t, s, s.Request(2))
	require.True(t, ok)
	big := *r
	big.Body = append(append([]byte(nil), r.Body...), make([]byte, chainCacheMaxBody)...) // the elements as they were, past the end padding
	tr := &Transport{}
	d, _ := tr.chain(&big, "t")
	assert.Equal(t, chain(r), d)
	assert.Empty(t, tr.chains.get(chainKey("t", r.Invisible)))
	tr.chain(r, "t")
	assert.Len(t, tr.chains.get(chainKey("t", r.Invisible)), 1)
}

// A conversation walked request by request keeps each model turn's bytes
// with its lastness in the latest request: every model turn of the entry
// the walk leaves holds its bytes, only the request's last turn is marked
// the last (so that the same request again takes every turn's visible
// digest from the entry, none computed), and the digests are the cold ones.
func TestChainCacheWalkKeepsOwnBytes(t *testing.T) {
	s := benchreq.Anthropic()
	tr := &Transport{}
	rec, ok := codecs.Recognise(replay.Default(), http.MethodPost, &url.URL{Scheme: "https", Host: "x", Path: s.Path}, s.API, gjson.GetBytes(s.Request(1), "model").Str)
	require.True(t, ok)
	var r *codecs.Request
	for k := 0; k <= 12; k++ {
		r, ok = readShape(t, s, s.Request(k))
		require.True(t, ok)
		d, vis := tr.chainOf(r, "a", rec.Codec, true)
		require.Equal(t, chain(r), d, "request %d", k)
		for ti, v := range vis {
			if v != "" {
				require.Equal(t, visible(r.History.Turns[ti], newDigester(r.Invisible).skip), v, "request %d turn %d", k, ti)
			}
		}
	}
	ents := tr.chains.get(chainKey("a", r.Invisible))
	require.NotEmpty(t, ents)
	ent := ents[0]
	require.Len(t, ent.els, len(r.Elements))
	turns := 0
	for i, el := range ent.els {
		if el.kind != 'a' {
			continue
		}
		turns++
		ti := r.Elements[i].Turn
		assert.Equal(t, string(r.Body[r.Elements[i].Start:r.Elements[i].End]), string(el.raw), "element %d", i)
		assert.Equal(t, ti == len(r.History.Turns)-1, el.last, "element %d", i)
	}
	assert.Equal(t, len(r.History.Turns), turns)
	ch := newChainer(r)
	ch.key = readafter.TurnKey(rec.Codec)
	require.Equal(t, len(r.Elements), ch.match(ent))
	for ti, v := range ch.vis {
		assert.Equal(t, visible(r.History.Turns[ti], newDigester(r.Invisible).skip), v, "turn %d: taken from the entry", ti)
	}
}

// same takes an entry's bytes as the body's without comparing them only
// when they are the text the body was read after, at the body's place,
// within the bytes the two share; anything else is compared.
func TestChainerSame(t *testing.T) {
	after := `{"messages":["ab","cd","ab"],"x":1}`
	body := []byte(`{"messages":["ab","cd","ab"],"x":2}`)
	ch := &chainer{r: &codecs.Request{Body: body}, after: after, prefix: len(after) - 2}
	at := func(s string, i int) []byte { return view.Bytes(after[i : i+len(s)]) }
	assert.True(t, ch.same(13, 17, at(`"ab"`, 13)), "after's bytes at the body's place")
	assert.False(t, ch.same(13, 17, at(`"cd"`, 18)), "after's bytes at another place, other bytes")
	assert.True(t, ch.same(13, 17, at(`"ab"`, 23)), "after's bytes at another place, the same bytes: compared")
	assert.False(t, ch.same(13, 17, at(`"ab"`, 13)[:3]), "another length")
	assert.False(t, ch.same(32, 35, at(`:1}`, 32)), "past the prefix: compared")
	copy(body[13:17], `"zz"`)
	assert.False(t, ch.same(13, 17, []byte(`"ab"`)), "other bytes, compared")
}
