package replayhttp

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/reasonreplay/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func textTurn(s string) *replay.Turn {
	return &replay.Turn{Complete: true, Blocks: []replay.Block{&replay.Text{Text: s}}}
}

func TestMemoryStoreBounds(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1000, 0)
	s := &MemoryStore{MaxTurns: 2, TTL: time.Minute}
	s.now = func() time.Time { return now }
	require.NoError(t, s.Put(ctx, []string{"a", "shared"}, textTurn("one")))
	require.NoError(t, s.Put(ctx, []string{"b", "shared"}, textTurn("two")))
	require.NoError(t, s.Put(ctx, []string{"a"}, textTurn("one"))) // the same turn again: refreshed, not doubled
	got, err := s.Get(ctx, "shared")
	require.NoError(t, err)
	require.Len(t, got, 2, "refreshed, not doubled")
	assert.Equal(t, "two", got[0].VisibleText())
	assert.Equal(t, "one", got[1].VisibleText(), "the most recently put last")

	require.NoError(t, s.Put(ctx, []string{"c"}, textTurn("three"))) // evicts "two", the oldest
	assert.Equal(t, 2, s.Len())
	got, _ = s.Get(ctx, "b")
	assert.Empty(t, got)
	got, _ = s.Get(ctx, "shared")
	require.Len(t, got, 1)
	assert.Equal(t, "one", got[0].VisibleText())

	got[0].Blocks[0].(*replay.Text).Text = "changed" // a copy
	again, _ := s.Get(ctx, "a")
	assert.Equal(t, "one", again[0].VisibleText())

	now = now.Add(61 * time.Second)
	assert.Equal(t, 0, s.Len())
	got, _ = s.Get(ctx, "a")
	assert.Empty(t, got)
	assert.Empty(t, s.keys, "no key outlives its turns")
}

func TestMemoryStoreMaxBytes(t *testing.T) {
	ctx := context.Background()
	one := textTurn("one")
	s := &MemoryStore{MaxBytes: len(one.AppendJSON(nil)) + 1}
	require.NoError(t, s.Put(ctx, []string{"a"}, one))
	require.NoError(t, s.Put(ctx, []string{"b"}, textTurn("two")))
	assert.Equal(t, 1, s.Len())
	got, _ := s.Get(ctx, "b")
	require.Len(t, got, 1)
}

// A key holds at most MaxPerKey turns, the most recently put; a turn it
// lets go of stays under its other keys, and leaves the store when no key
// names it any more.
func TestMemoryStoreMaxPerKey(t *testing.T) {
	ctx := context.Background()
	s := &MemoryStore{MaxPerKey: 3}
	for _, n := range []string{"1", "2", "3", "4", "5"} {
		require.NoError(t, s.Put(ctx, []string{"call:" + n, "pos:1:h"}, textTurn("turn "+n)))
	}
	assert.Equal(t, 5, s.Len())
	assert.Equal(t, []string{"turn 3", "turn 4", "turn 5"}, texts(t, s, "pos:1:h"))
	assert.Equal(t, []string{"turn 1"}, texts(t, s, "call:1"))

	// Put again, turn 2 is the key's newest.
	require.NoError(t, s.Put(ctx, []string{"call:2", "pos:1:h"}, textTurn("turn 2")))
	assert.Equal(t, []string{"turn 4", "turn 5", "turn 2"}, texts(t, s, "pos:1:h"))
	assert.Equal(t, []string{"call:1"}, s.order.Front().Value.(*memEntry).keys)

	// Under the one shared key only: the turn let go of is gone.
	s = &MemoryStore{MaxPerKey: 1} // means 2: a key must be able to read as ambiguous
	for _, n := range []string{"a", "b", "c"} {
		require.NoError(t, s.Put(ctx, []string{"pos:3:h"}, textTurn(n)))
	}
	assert.Equal(t, 2, s.Len())
	assert.Equal(t, []string{"b", "c"}, texts(t, s, "pos:3:h"))
}

// However many turns share a key, the key reads as ambiguous as long as
// more than one of them lives, and names the one left when one is left:
// Get's "ambiguous: leave it and report" holds with the bound.
func TestMemoryStoreMaxPerKeyKeepsAmbiguity(t *testing.T) {
	for _, back := range []int{1, 2, 3} { // which earlier turn is put again
		for _, every := range []int{2, 3, 4} { // how often
			for n := 60; n < 64; n++ { // how many turns
				t.Run(fmt.Sprint(back, "/", every, "/", n), func(t *testing.T) { ambiguityCase(t, back, every, n) })
			}
		}
	}
}

// ambiguityCase puts turns under one shared key and their own, puts an
// earlier turn again under its own key only now and then, and checks the
// shared key against a model after every step.
func ambiguityCase(t *testing.T, back, every, turns int) {
	ctx := context.Background()
	now := time.Unix(1000, 0)
	s := &MemoryStore{MaxPerKey: 2, TTL: 100 * time.Second}
	s.now = func() time.Time { return now }
	// The model: when each turn expires, and whether it was put under the
	// shared key since it entered the store.
	expires, shared := map[string]time.Time{}, map[string]bool{}
	put := func(n string, keys ...string) {
		require.NoError(t, s.Put(ctx, keys, textTurn(n)))
		if !now.Before(expires[n]) {
			shared[n] = false // a new entry
		}
		shared[n] = shared[n] || slices.Contains(keys, "pos:1:h")
		expires[n] = now.Add(100 * time.Second)
	}
	check := func(step int) {
		var live []string
		for n, at := range expires {
			if shared[n] && now.Before(at) {
				live = append(live, n)
			}
		}
		got := texts(t, s, "pos:1:h")
		switch {
		case len(live) > 1:
			assert.Len(t, got, 2, "step %d: %d live turns share the key", step, len(live))
		case len(live) == 1:
			assert.Equal(t, live, got, "step %d", step)
		default:
			assert.Empty(t, got, "step %d", step)
		}
	}
	name := func(i int) string { return "turn " + strconv.Itoa(i%23) } // some turns are put again
	for i := 0; i < turns; i++ {
		put(name(i), "call:"+name(i), "pos:1:h")
		now = now.Add(2 * time.Second)
		check(i)
		if i%every != 0 && i >= back {
			p := name(i - back) // now newer than the turns put after it
			put(p, "call:"+p)
		}
		now = now.Add(3 * time.Second)
		check(i)
	}
	for step := turns; step < turns+30; step++ {
		check(step)
		now = now.Add(5 * time.Second)
	}
	assert.Equal(t, 0, s.Len())
	assert.Empty(t, s.keys)
}

func texts(t *testing.T, s *MemoryStore, key string) []string {
	t.Helper()
	got, err := s.Get(context.Background(), key)
	require.NoError(t, err)
	var out []string
	for _, tu := range got {
		out = append(out, tu.VisibleText())
	}
	return out
}
