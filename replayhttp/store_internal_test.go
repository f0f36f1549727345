package replayhttp

import (
	"context"
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
	require.Len(t, got, 2)
	assert.Equal(t, "one", got[0].VisibleText())
	assert.Equal(t, "two", got[1].VisibleText())

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
