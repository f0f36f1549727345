package entries

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// check requires that the table's index and its entries agree.
func (t *Table[K]) check(tb testing.TB) {
	tb.Helper()
	n, size := 0, 0
	for k, l := range t.keys {
		require.NotEmpty(tb, l)
		require.LessOrEqual(tb, len(l), t.b.PerKey)
		for _, el := range l {
			require.Equal(tb, k, el.Value.(*entry[K]).key)
			size += len(el.Value.(*entry[K]).doc)
		}
		n += len(l)
	}
	require.Equal(tb, t.order.Len(), n)
	require.Equal(tb, t.bytes, size)
	require.LessOrEqual(tb, n, t.b.Entries)
	require.LessOrEqual(tb, size, t.b.Bytes)
}

// However many entries come and go, the index and the entries agree, the
// bounds hold, and expiry leaves nothing behind.
func TestChurn(t *testing.T) {
	now := time.Unix(1000, 0)
	tb := New[string](Bounds{Entries: 50, PerKey: 2, TTL: 100 * time.Second, Bytes: 120})
	for i := 0; i < 500; i++ {
		require.True(t, tb.Put(strconv.Itoa(i%37), []byte(strconv.Itoa(i%53)), now, now.Add(100*time.Second)))
		now = now.Add(time.Second)
		tb.check(t)
	}
	now = now.Add(101 * time.Second)
	assert.Zero(t, tb.Len(now))
	assert.Zero(t, tb.Keys())
	assert.Zero(t, tb.Size())
}

// Entries put with their own expiries (a file's records) read until then,
// and Each walks the live ones in put order.
func TestOwnExpiries(t *testing.T) {
	now := time.Unix(1000, 0)
	tb := New[string](Bounds{})
	tb.Put("a", []byte("1"), now, now.Add(10*time.Second))
	tb.Put("a", []byte("2"), now, now.Add(5*time.Second))
	tb.Put("b", []byte("3"), now, now.Add(20*time.Second))
	assert.Equal(t, [][]byte{[]byte("1"), []byte("2")}, tb.Get("a", now))
	later := now.Add(7 * time.Second)
	assert.Equal(t, [][]byte{[]byte("1")}, tb.Get("a", later), "an entry behind a later one is not served once expired")
	var seen []string
	tb.Each(later, func(k string, doc []byte, exp time.Time) { seen = append(seen, k+string(doc)) })
	assert.Equal(t, []string{"a1", "b3"}, seen)
	assert.False(t, tb.Put("c", make([]byte, 257<<20), now, later), "larger than the size bound")
	tb.check(t)
}
