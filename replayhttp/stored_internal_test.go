package replayhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/benchreq"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Carry's turn of a stored turn is kept per target by what Carry reads of
// a target: a field added to Target must be weighed for carryKey.
func TestCarryKeyNamesWhatCarryReads(t *testing.T) {
	var names []string
	tt := reflect.TypeOf(replay.Target{})
	for i := 0; i < tt.NumField(); i++ {
		names = append(names, tt.Field(i).Name)
	}
	assert.Equal(t, []string{"API", "Provider", "Model", "Account", "PrefixHash", "Tools", "Store", "Thinking", "Headers", "AccountCreated", "Batch"}, names,
		"Target changed: if Carry reads the new field, add it to carryKey")
}

// The same document reads once, whoever holds it; a document that does
// not read is remembered as such; the cache keeps within its bounds.
func TestStoredCache(t *testing.T) {
	var c storedCache
	reads := 0
	read := func(doc string) (*replay.Turn, error) {
		reads++
		if strings.Contains(doc, "bad") {
			return nil, fmt.Errorf("bad document")
		}
		return &replay.Turn{}, nil
	}
	a := c.read([]byte(`{"a":1}`), true, read)
	require.NoError(t, a.err)
	assert.Same(t, a, c.read([]byte(`{"a":1}`), true, read))
	assert.NotSame(t, a, c.read([]byte(`{"a":2}`), true, read))
	bad := c.read([]byte(`"bad"`), true, read)
	require.Error(t, bad.err)
	assert.Same(t, bad, c.read([]byte(`"bad"`), true, read))
	assert.Equal(t, 3, reads)
	for i := 0; i < storedCacheEntries+10; i++ {
		c.read([]byte(fmt.Sprintf(`{"n":%d}`, i)), true, read)
	}
	assert.Equal(t, storedCacheEntries, c.n)
	assert.Len(t, c.m, storedCacheEntries)
	big := bytes.Repeat([]byte("x"), storedCacheBytes/4)
	c.read(big, true, read)
	assert.LessOrEqual(t, c.bytes, storedCacheBytes)
	huge := bytes.Repeat([]byte("y"), storedCacheBytes/8)
	assert.NotSame(t, c.read(huge, true, read), c.read(huge, false, read), "a document larger than the cache takes is not kept")
	assert.Len(t, c.byAddr, c.n, "one address an entry, none of an entry gone")
	checkOrder(t, &c)
}

// checkOrder checks that the cache's order of use holds its entries, each
// once, linked both ways.
func checkOrder(t *testing.T, c *storedCache) {
	t.Helper()
	n := 0
	var prev *stored
	for s := c.oldest; s != nil; s = s.next {
		require.Same(t, prev, s.prev, "entry %d", n)
		require.Same(t, s, c.m[s.doc], "entry %d", n)
		prev = s
		n++
	}
	require.Same(t, prev, c.newest)
	require.Equal(t, c.n, n)
	require.Len(t, c.m, n)
}

// The least recently used entry goes first: an entry read again is kept
// past the bound, the one read least recently is not.
func TestStoredCacheOrder(t *testing.T) {
	var c storedCache
	reads := 0
	read := func(string) (*replay.Turn, error) { reads++; return &replay.Turn{}, nil }
	doc := func(i int) []byte { return []byte(fmt.Sprintf(`{"n":%d}`, i)) }
	for i := range storedCacheEntries {
		c.read(doc(i), i%2 == 0, read)
	}
	checkOrder(t, &c)
	c.read(doc(0), false, read) // the oldest, used again
	c.read(doc(storedCacheEntries/2), true, read)
	assert.Equal(t, storedCacheEntries, reads)
	c.read(doc(storedCacheEntries), false, read) // one past the bound
	c.read(doc(storedCacheEntries+1), false, read)
	checkOrder(t, &c)
	assert.Equal(t, storedCacheEntries, c.n)
	reads = 0
	c.read(doc(0), false, read)
	c.read(doc(storedCacheEntries/2), false, read)
	assert.Equal(t, 0, reads, "the entries used again are kept")
	c.read(doc(1), false, read)
	c.read(doc(2), false, read)
	assert.Equal(t, 2, reads, "the two least recently used went")
	checkOrder(t, &c)
}

// A document returned again in the slice it was last returned in is found
// by the slice's address; in another slice, by its bytes (the entry then
// answers to the new slice); other bytes never by an address.
func TestStoredCacheByAddress(t *testing.T) {
	var c storedCache
	reads := 0
	read := func(doc string) (*replay.Turn, error) {
		reads++
		// The turn shares the document it is read from, as a stored
		// turn's strings do.
		return &replay.Turn{Provenance: replay.Provenance{Model: doc}}, nil
	}
	kept := []byte(`{"a":1}`)
	a := c.read(kept, true, read)
	assert.Same(t, a, c.read(kept, true, read))
	assert.Same(t, a, c.byAddr[addrOf(kept)], "found by the slice")
	again := []byte(`{"a":1}`)
	assert.Same(t, a, c.read(again, true, read), "the same bytes in another slice")
	assert.Same(t, a, c.byAddr[addrOf(again)])
	_, found := c.byAddr[addrOf(kept)]
	assert.False(t, found, "an entry answers to the slice it was last returned in")
	prefix := again[:5]
	assert.Equal(t, string(prefix), c.read(prefix, true, read).turn.Provenance.Model, "a shorter slice at the same address is other bytes")
	other := []byte(`{"a":2}`)
	assert.Equal(t, `{"a":2}`, c.read(other, true, read).turn.Provenance.Model)
	assert.Equal(t, 3, reads)
	assert.Len(t, c.byAddr, c.n)

	// Another store's bytes are read by their content alone: a slice it
	// returned and then wrote other bytes into is not the document it held.
	var o storedCache
	buf := []byte(`{"t":"tenant-a"}`)
	first := o.read(buf, false, read)
	assert.Empty(t, o.byAddr, "no address kept for a store's bytes it may reuse")
	copy(buf, `{"t":"tenant-b"}`)
	second := o.read(buf, false, read)
	assert.NotSame(t, first, second)
	assert.Equal(t, `{"t":"tenant-b"}`, second.turn.Provenance.Model)
	assert.Equal(t, `{"t":"tenant-a"}`, first.turn.Provenance.Model, "the turn was read from a copy of the store's bytes")
	assert.Equal(t, 5, reads)
}

// sameBlocks holds only for turns differences finds nothing between: every
// turn of the agent's conversation against itself, and against each of
// its turns changed one way.
func TestSameBlocksMeansNoDifferences(t *testing.T) {
	pc := newPathCase(t, benchreq.Anthropic(), 80<<10)
	c := pc.call(pc.body)
	require.Greater(t, len(c.req.History.Turns), 3)
	for _, tu := range c.req.History.Turns {
		want := cloneTurn(t, tu)
		same, _ := sameBlocks(tu, want, func() [][]byte { return wireOf(want) }, nil)
		assert.True(t, same)
		assert.Empty(t, appendDifferences(nil, tu, want))
		for _, change := range []func(*replay.Turn){
			func(x *replay.Turn) { x.Blocks[0].(*replay.ReasoningText).Signature = replay.Some("other") },
			func(x *replay.Turn) { x.Blocks[0].(*replay.ReasoningText).Text += " " },
			func(x *replay.Turn) { x.Blocks = x.Blocks[1:] },
			func(x *replay.Turn) { x.Blocks[0], x.Blocks[1] = x.Blocks[1], x.Blocks[0] },
			func(x *replay.Turn) { x.Blocks[1].(*replay.Text).ID = "msg_1" },
			func(x *replay.Turn) { x.Blocks[2].(*replay.ToolCall).ItemID = "fc_1" },
			func(x *replay.Turn) { x.Blocks[1].(*replay.Text).Text = "other" },
		} {
			got := cloneTurn(t, tu)
			change(got)
			same, _ := sameBlocks(got, want, func() [][]byte { return wireOf(want) }, nil)
			assert.False(t, same)
			byWire, _ := sameBlocksByWire(got, want, func() [][]byte { return wireOf(want) }, nil)
			assert.Equal(t, byWire, same)
		}
	}
}

func cloneTurn(t *testing.T, tu *replay.Turn) *replay.Turn {
	t.Helper()
	c, err := replay.UnmarshalTurn(tu.AppendJSON(nil))
	require.NoError(t, err)
	return c
}

// Repair reads a stored document once: a second request finds it read,
// and a document altered in the store since is read again (and refused
// when its items no longer match their digests).
func TestRepairReadsAStoredTurnOnce(t *testing.T) {
	pc := newPathCase(t, benchreq.Anthropic(), 80<<10)
	c := pc.call(pc.stripped)
	out, reps := pc.tr.repair(context.Background(), c)
	require.Equal(t, string(pc.body), string(out), "every turn put back")
	require.NotEmpty(t, reps)
	n := pc.tr.docs.n
	assert.Equal(t, len(c.req.History.Turns), n)
	again, reps2 := pc.tr.repair(context.Background(), pc.call(pc.stripped))
	assert.Equal(t, out, again)
	assert.Equal(t, reps, reps2)
	assert.Equal(t, n, pc.tr.docs.n, "nothing read again")

	// A stored document altered: its item no longer matches its digest.
	first, _ := c.req.TurnSpan(0)
	k := c.scope.key(first)
	docs, err := pc.tr.Store.Get(context.Background(), k)
	require.NoError(t, err)
	sig := benchreq.Turn(0).Signature
	bad := bytes.Replace(docs[0], []byte(sig), []byte(strings.ToLower(sig)), 1)
	store := &MemoryStore{}
	require.NoError(t, store.Put(context.Background(), k, bad))
	pc.tr.Store = store
	_, reps3 := pc.tr.repair(context.Background(), pc.call(pc.stripped))
	require.NotEmpty(t, reps3)
	assert.Equal(t, Repair{Pointer: "/messages/1", Action: RepairStoreError,
		Detail: "1 stored entry for this point did not read as a turn; judged by the request alone"}, reps3[0])
}

// Requests repaired at once from one Transport share what it read.
func TestRepairConcurrently(t *testing.T) {
	pc := newPathCase(t, benchreq.Anthropic(), 80<<10)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 4; i++ {
				out, _ := pc.tr.repair(context.Background(), pc.call(pc.stripped))
				if !bytes.Equal(out, pc.body) {
					t.Error("not put back")
				}
				out, reps := pc.tr.repair(context.Background(), pc.call(pc.body))
				if !bytes.Equal(out, pc.body) || len(reps) > 0 {
					t.Error("a request as captured was repaired")
				}
			}
		}()
	}
	wg.Wait()
}

// What repair made of a turn is recalled for the same bytes in the same
// place (last or not) only.
func TestRepairedRecall(t *testing.T) {
	var c carried
	_, _, ok := c.recall([]byte(`{"a":1}`), false)
	assert.False(t, ok)
	c.remember([]byte(`{"a":1}`), false, []byte(`{"a":2}`), []Repair{{Action: RepairRestored, Detail: "d"}})
	out, reps, ok := c.recall([]byte(`{"a":1}`), false)
	require.True(t, ok)
	assert.Equal(t, `{"a":2}`, string(out))
	assert.Equal(t, []Repair{{Action: RepairRestored, Detail: "d"}}, reps)
	_, _, ok = c.recall([]byte(`{"a":1}`), true)
	assert.False(t, ok, "the last turn of a request may read otherwise")
	_, _, ok = c.recall([]byte(`{"a":1} `), false)
	assert.False(t, ok)
}

// sameWireByBytes is sameBlocks' item comparison by the wire forms
// alone: what sameWire's fast answer must agree with.
func sameWireByBytes(x, w replay.ReasoningItem) bool {
	return bytes.Equal(x.AppendWire(nil), w.AppendWire(nil))
}

// randomItem draws a reasoning item from a small set of values, so that
// two draws often share some or all of them.
func randomItem(rng *rand.Rand) replay.ReasoningItem {
	pick := func(vs ...string) string { return vs[rng.IntN(len(vs))] }
	optS := func() replay.Opt[string] {
		switch rng.IntN(4) {
		case 0:
			return replay.Opt[string]{}
		case 1:
			return replay.NullOf[string]()
		}
		return replay.Some(pick("", "a", "sig"))
	}
	optI := func() replay.Opt[int] {
		switch rng.IntN(3) {
		case 0:
			return replay.Opt[int]{}
		case 1:
			return replay.NullOf[int]()
		}
		return replay.Some(rng.IntN(2))
	}
	m := replay.ItemMeta{Format: replay.Format(pick("", "anthropic-claude-v1", "openai-responses-v1")), ID: optS(), Index: optI(),
		Unfinished: rng.IntN(2) == 0, Attached: rng.IntN(2) == 0, Digest: pick("", "d1")}
	if rng.IntN(2) == 0 {
		m.Extra = json.RawMessage(pick(`{"x":1}`, `{"y":"z"}`))
	}
	switch rng.IntN(4) {
	case 0:
		return &replay.ReasoningText{ItemMeta: m, Text: pick("", "t", "t\u00e9"), Signature: optS()}
	case 1:
		return &replay.Summary{ItemMeta: m, Summary: pick("", "s")}
	case 2:
		return &replay.Encrypted{ItemMeta: m, Data: pick("", "blob")}
	}
	return &replay.Opaque{ItemMeta: m, Type: pick("a", "b"), Raw: json.RawMessage(pick(`{"type":"a"}`, `{"type":"b"}`))}
}

// sameWire says yes only for items whose wire forms are the same bytes,
// and for every pair of items with the same values (a sealed capture and
// the request's item differ in the library's own fields only).
func TestSameWire(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 7))
	yes := 0
	for i := 0; i < 20000; i++ {
		x, w := randomItem(rng), randomItem(rng)
		if sameWire(x, w) {
			yes++
			require.True(t, sameWireByBytes(x, w), "%#v\n%#v", x, w)
		}
		require.True(t, sameWire(w, w))
	}
	assert.Greater(t, yes, 20, "pairs found the same")
	// The library's own fields are not on the wire.
	a := &replay.ReasoningText{Text: "t", Signature: replay.Some("s")}
	b := &replay.ReasoningText{ItemMeta: replay.ItemMeta{Digest: "d", Unfinished: true, Attached: true, Display: replay.Some("x")}, Text: "t", Signature: replay.Some("s")}
	assert.True(t, sameWire(a, b))
}

// BenchmarkSameBlocks compares each model turn of a 540 KB Anthropic
// request with its sealed capture, as repair does when the request sends
// what was captured: by the items' fields (sameBlocks) and by their wire
// forms (what sameBlocks did before).
func BenchmarkSameBlocks(b *testing.B) {
	pc := newPathCase(b, benchreq.Anthropic(), 540<<10)
	c := pc.call(pc.body)
	var got, want []*replay.Turn
	var wires []func() [][]byte
	for _, tu := range c.req.History.Turns {
		w, err := replay.UnmarshalTurn(tu.AppendJSON(nil))
		require.NoError(b, err)
		w.Seal()
		wire := wireOf(w)
		got, want, wires = append(got, tu), append(want, w), append(wires, func() [][]byte { return wire })
	}
	for _, fast := range []bool{true, false} {
		name := "fields"
		if !fast {
			name = "wire"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var buf []byte
			for b.Loop() {
				for i := range got {
					var same bool
					if fast {
						same, buf = sameBlocks(got[i], want[i], wires[i], buf)
					} else {
						same, buf = sameBlocksByWire(got[i], want[i], wires[i], buf)
					}
					if !same {
						b.Fatal("not the same")
					}
				}
			}
		})
	}
}

// sameBlocksByWire is sameBlocks comparing every reasoning item by its
// wire form (as it did before sameWire): the two always agree.
func sameBlocksByWire(got, want *replay.Turn, wire func() [][]byte, buf []byte) (bool, []byte) {
	return compareBlocks(got, want, wire, buf, false)
}

// A turn sent as captured is remembered as such with its bytes: the same
// request again finds every turn in the memo (nothing to do), and still
// sends its body unchanged with no repairs; a turn whose reasoning the
// client stripped is then restored as before.
func TestRepairRemembersSameTurns(t *testing.T) {
	pc := newPathCase(t, benchreq.Anthropic(), 80<<10)
	ctx := context.Background()
	for round := 0; round < 2; round++ {
		c := pc.call(pc.body)
		out, reps := pc.tr.repair(ctx, c)
		assert.Equal(t, string(pc.body), string(out), "round %d", round)
		assert.Empty(t, reps, "round %d", round)
	}
	c := pc.call(pc.body)
	memos := 0
	for ti := range c.req.History.Turns {
		first, end := c.req.TurnSpan(ti)
		raw := string(c.req.TurnRaw(first, end))
		for el := pc.tr.docs.oldest; el != nil; el = el.next {
			for _, cr := range el.allCarried() {
				if m := cr.memo; cr.memoed && m.raw == raw {
					memos++
					assert.Nil(t, m.out, "turn %d", ti)
					assert.Empty(t, m.reps, "turn %d", ti)
				}
			}
		}
	}
	assert.Equal(t, len(c.req.History.Turns), memos, "every turn remembered as sent as captured")
	cs := pc.call(pc.stripped)
	out, reps := pc.tr.repair(ctx, cs)
	assert.Equal(t, string(pc.body), string(out), "the stripped turns restored")
	assert.Len(t, reps, len(c.req.History.Turns))
}

// wireOf gives each reasoning item's wire form, as AppendWire writes it,
// and nil for every other block; appending to one leaves the others as
// they are.
func TestWireOf(t *testing.T) {
	pc := newPathCase(t, benchreq.Shapes()[1], 160<<10) // OpenAI Responses: several items a turn
	c := pc.call(pc.body)
	require.NotNil(t, c.req)
	require.Greater(t, len(c.req.History.Turns), 3)
	items := 0
	for _, tu := range c.req.History.Turns {
		wire := wireOf(tu)
		require.Len(t, wire, len(tu.Blocks))
		for i, b := range tu.Blocks {
			it, ok := b.(replay.ReasoningItem)
			if !ok {
				assert.Nil(t, wire[i])
				continue
			}
			items++
			assert.Equal(t, string(it.AppendWire(nil)), string(wire[i]))
		}
		for i := range wire {
			if wire[i] != nil {
				wire[i] = append(wire[i], "xxxxxxxx"...)
			}
		}
		for i, b := range tu.Blocks {
			if it, ok := b.(replay.ReasoningItem); ok {
				assert.Equal(t, string(it.AppendWire(nil))+"xxxxxxxx", string(wire[i]))
			}
		}
	}
	assert.Greater(t, items, len(c.req.History.Turns), "more than one item a turn")
}

// allCarried is every target's carried turn the stored turn keeps.
func (s *stored) allCarried() []*carried {
	var out []*carried
	if s.carried.set {
		out = append(out, s.carried.v)
	}
	for _, c := range s.carried.m {
		out = append(out, c)
	}
	return out
}

// A stored turn keeps what Carry made of it for each of up to maxCarried
// targets, and its visible digest for each set of skipped names: the first
// in their own fields, the others in maps, each found again as it was
// made, and a target past the bound carried anew each time.
func TestStoredKeepsPerTarget(t *testing.T) {
	pc := newPathCase(t, benchreq.Anthropic(), 80<<10)
	c := pc.call(pc.body)
	require.NotNil(t, c.req)
	require.NotEmpty(t, c.req.History.Turns)
	tu := c.req.History.Turns[0]
	s := &stored{turn: tu}
	var first []*carried
	for i := range maxCarried + 2 {
		target := replay.Target{API: "anthropic", Provider: "anthropic", Model: fmt.Sprintf("claude-%d", i)}
		cr := s.carry(target, carryStored(pc.tr.registry(), target, nil))
		require.NotNil(t, cr.want)
		first = append(first, cr)
	}
	for i := range maxCarried + 2 {
		target := replay.Target{API: "anthropic", Provider: "anthropic", Model: fmt.Sprintf("claude-%d", i)}
		cr := s.carry(target, carryStored(pc.tr.registry(), target, nil))
		if i < maxCarried {
			assert.Same(t, first[i], cr, "target %d kept", i)
		} else {
			assert.NotSame(t, first[i], cr, "target %d past the bound carried anew", i)
			assert.Equal(t, first[i].want, cr.want)
		}
	}
	assert.Len(t, s.allCarried(), maxCarried)
	assert.Equal(t, maxCarried, s.carried.len())

	dg := newDigester(nil)
	defer dg.release()
	none := s.visibleOf(dg, nil)
	dgs := newDigester([]string{"cache_control"})
	defer dgs.release()
	skip := s.visibleOf(dgs, []string{"cache_control"})
	assert.Equal(t, dg.visible(tu), string(none[:]))
	assert.Equal(t, dgs.visible(tu), string(skip[:]))
	assert.Equal(t, none, s.visibleOf(dg, nil), "the first set's digest found again")
	assert.Equal(t, skip, s.visibleOf(dgs, []string{"cache_control"}), "the second set's digest found again")
	assert.Equal(t, "", s.vis.k)
	assert.Equal(t, map[string][32]byte{"cache_control": skip}, s.vis.m)
	assert.Equal(t, 2, s.vis.len())
}

// A stored document larger than the limits take is refused before it is
// read or copied, and never kept: repair judges the turn by the request,
// and says the store's entry did not read.
func TestStoredTooLargeIsNotRead(t *testing.T) {
	pc := newPathCase(t, benchreq.Anthropic(), 80<<10)
	c := pc.call(pc.stripped)
	first, _ := c.req.TurnSpan(0)
	require.GreaterOrEqual(t, first, 0)
	docs, _, err := storeGet(context.Background(), pc.tr.Store, nil, c.scope.key(first))
	require.NoError(t, err)
	require.Len(t, docs, 1)
	pc.tr.Limits.MaxEvent = len(docs[0]) - 1
	out, reps := pc.tr.repair(context.Background(), c)
	require.NotEmpty(t, reps)
	assert.Equal(t, Repair{Pointer: "/messages/1", Action: RepairStoreError,
		Detail: "1 stored entry for this point did not read as a turn; judged by the request alone"}, reps[0])
	_, kept := pc.tr.docs.m[string(docs[0])]
	assert.False(t, kept, "the document is not kept")
	assert.NotEqual(t, string(pc.body), string(out), "the first turn is not restored")
	pc.tr.Limits.MaxEvent = 0
	out, _ = pc.tr.repair(context.Background(), pc.call(pc.stripped))
	assert.Equal(t, string(pc.body), string(out), "within the limits, every turn restored")
}
