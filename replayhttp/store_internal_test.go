package replayhttp

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func key(conv string) Key { return Key{Tenant: "t1", Conversation: conv} }

func docs(t *testing.T, s *MemoryStore, k Key) []string {
	t.Helper()
	got, err := s.Get(context.Background(), k)
	require.NoError(t, err)
	var out []string
	for _, d := range got {
		out = append(out, string(d))
	}
	return out
}

func TestMemoryStoreBounds(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1000, 0)
	s := &MemoryStore{MaxTurns: 2, TTL: time.Minute}
	s.now = func() time.Time { return now }
	require.NoError(t, s.Put(ctx, key("a"), []byte(`{"one":1}`)))
	require.NoError(t, s.Put(ctx, key("a"), []byte(`{"two":2}`)))
	require.NoError(t, s.Put(ctx, key("a"), []byte(`{"one":1}`))) // the same bytes again: refreshed, not doubled
	assert.Equal(t, []string{`{"two":2}`, `{"one":1}`}, docs(t, s, key("a")), "the most recently put last")
	assert.Empty(t, docs(t, s, Key{Tenant: "t2", Conversation: "a"}), "another tenant's key")

	require.NoError(t, s.Put(ctx, key("b"), []byte(`{"three":3}`))) // evicts "two", the oldest
	assert.Equal(t, 2, s.Len())
	assert.Equal(t, []string{`{"one":1}`}, docs(t, s, key("a")))

	got, _ := s.Get(ctx, key("a"))
	got[0][2] = 'X' // a copy
	assert.Equal(t, []string{`{"one":1}`}, docs(t, s, key("a")))

	now = now.Add(61 * time.Second)
	assert.Equal(t, 0, s.Len())
	assert.Empty(t, docs(t, s, key("a")))
	assert.Zero(t, s.t.Keys(), "no key outlives its entries")
}

func TestMemoryStoreKeepsItsOwnCopy(t *testing.T) {
	s := &MemoryStore{}
	doc := []byte(`{"a":"b"}`)
	require.NoError(t, s.Put(context.Background(), key("a"), doc))
	doc[2] = 'X'
	assert.Equal(t, []string{`{"a":"b"}`}, docs(t, s, key("a")))
}

func TestMemoryStoreMaxBytes(t *testing.T) {
	ctx := context.Background()
	one := []byte(`{"one":1}`)
	s := &MemoryStore{MaxBytes: len(one) + 1}
	require.NoError(t, s.Put(ctx, key("a"), one))
	require.NoError(t, s.Put(ctx, key("b"), []byte(`{"two":2}`)))
	assert.Equal(t, 1, s.Len())
	assert.Equal(t, []string{`{"two":2}`}, docs(t, s, key("b")))
	err := s.Put(ctx, key("c"), []byte(`{"far too large":1}`))
	var ee *EntryError
	require.ErrorAs(t, err, &ee, "larger than the store: refused with a reason")
	assert.Equal(t, key("c"), ee.Key)
	assert.Contains(t, err.Error(), "a document of 19 bytes is larger than the store keeps (10)")
	assert.Empty(t, docs(t, s, key("c")))
	assert.Equal(t, []string{`{"two":2}`}, docs(t, s, key("b")), "and it took nothing's place")
}

// A key holds at most MaxPerKey documents, the most recently put; the
// bound is at least two, so that a key that names several still reads as
// ambiguous.
func TestMemoryStoreMaxPerKey(t *testing.T) {
	ctx := context.Background()
	s := &MemoryStore{MaxPerKey: 3}
	for _, n := range []string{"1", "2", "3", "4", "5"} {
		require.NoError(t, s.Put(ctx, key("k"), []byte(n)))
	}
	assert.Equal(t, 3, s.Len())
	assert.Equal(t, []string{"3", "4", "5"}, docs(t, s, key("k")))
	require.NoError(t, s.Put(ctx, key("k"), []byte("3")))
	assert.Equal(t, []string{"4", "5", "3"}, docs(t, s, key("k")), "put again: the newest")

	s = &MemoryStore{MaxPerKey: 1} // means 2
	for _, n := range []string{"a", "b", "c"} {
		require.NoError(t, s.Put(ctx, key("k"), []byte(n)))
	}
	assert.Equal(t, []string{"b", "c"}, docs(t, s, key("k")))
}

// However many entries come and go, expiry leaves nothing behind (the
// table's own invariants are checked in package entries).
func TestMemoryStoreChurn(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1000, 0)
	s := &MemoryStore{MaxTurns: 50, MaxPerKey: 2, TTL: 100 * time.Second}
	s.now = func() time.Time { return now }
	for i := 0; i < 500; i++ {
		k := key(strconv.Itoa(i % 37))
		require.NoError(t, s.Put(ctx, k, []byte(strconv.Itoa(i%53))))
		now = now.Add(time.Second)
		require.LessOrEqual(t, len(docs(t, s, k)), 2)
		require.LessOrEqual(t, s.Len(), 50)
	}
	now = now.Add(101 * time.Second)
	assert.Equal(t, 0, s.Len())
	assert.Zero(t, s.t.Keys())
	assert.Zero(t, s.t.Size())
}
