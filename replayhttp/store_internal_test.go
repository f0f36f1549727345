package replayhttp

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/reasonreplay/replay/internal/own"
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

	// Get returns the store's own bytes, never changed by the store: what
	// a caller kept stays as it was when its entry goes; an append by the
	// caller copies.
	got, _ := s.Get(ctx, key("a"))
	require.Len(t, got, 1)
	assert.Equal(t, len(got[0]), cap(got[0]))
	kept := got[0]
	again, _ := s.Get(ctx, key("a"))
	assert.Same(t, &kept[0], &again[0][0], "no copy")
	_ = append(kept, '!')
	assert.Equal(t, []string{`{"one":1}`}, docs(t, s, key("a")))
	require.NoError(t, s.Put(ctx, key("c"), []byte(`{"four":4}`))) // evicts "one", the oldest
	assert.Empty(t, docs(t, s, key("a")))
	assert.Equal(t, `{"one":1}`, string(kept))

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

// ownWrapper declares its Get to be m's.
type ownWrapper struct {
	*MemoryStore
	own bool
}

func (w ownWrapper) OwnStore(own.Token) any {
	if w.own {
		return w.MemoryStore
	}
	return nil
}

// storeGet reads a MemoryStore's own bytes, directly or through a store
// of this module that declares its Get to be the MemoryStore's; any other
// store (one that embeds a MemoryStore included) through its Get.
func TestStoreGetOwn(t *testing.T) {
	ctx := context.Background()
	m := &MemoryStore{}
	k := Key{Tenant: "t", Conversation: "c"}
	require.NoError(t, m.Put(ctx, k, []byte(`{"doc":1}`)))
	for _, tc := range []struct {
		name  string
		store Store
		own   bool
	}{
		{"MemoryStore", m, true},
		{"declared", ownWrapper{m, true}, true},
		{"not declared", ownWrapper{m, false}, false},
		{"embedded", struct{ *MemoryStore }{m}, false},
	} {
		docs, own, err := storeGet(ctx, tc.store, nil, k)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.own, own, tc.name)
		require.Len(t, docs, 1, tc.name)
		assert.Equal(t, `{"doc":1}`, string(docs[0]), tc.name)
	}
}
