package replayhttp

import (
	"container/list"
	"sync"
)

// recent keeps, per key (a tenant's), the last few values put under it,
// most recent first: the tapes of a tenant's request bodies (tapeCache),
// the chain states of its requests (chainCache). The least recently used
// key goes first once the values' sizes exceed the limits' bytes or the
// keys their number. The zero value is ready. A key's values are never
// read for another key.
type recent[T comparable] struct {
	mu    sync.Mutex
	m     map[string]*list.Element // of *recentKeyed[T]
	order list.List                // oldest first
	bytes int
}

type recentKeyed[T comparable] struct {
	key  string
	vals []T // most recent first; a slice never changed once set
}

// recentLimits bounds a recent cache: the sizes of all values, the keys,
// the values per key; size is a value's.
type recentLimits[T comparable] struct {
	bytes, keys, perKey int
	size                func(T) int
}

// get returns the values kept under key, most recent first; the caller
// must not change the slice.
func (c *recent[T]) get(key string) []T {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok {
		return nil
	}
	c.order.MoveToBack(e)
	return e.Value.(*recentKeyed[T]).vals
}

// put keeps v (not the zero T) under key, first, in place of replaced
// (a value it continues; the zero T for none).
func (c *recent[T]) put(key string, v, replaced T, lim recentLimits[T]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*list.Element{}
	}
	var k *recentKeyed[T]
	if e, ok := c.m[key]; ok {
		c.order.MoveToBack(e)
		k = e.Value.(*recentKeyed[T])
	} else {
		k = &recentKeyed[T]{key: key}
		c.m[key] = c.order.PushBack(k)
	}
	// A new slice: readers may hold the old one.
	vals := make([]T, 0, lim.perKey)
	vals = append(vals, v)
	c.bytes += lim.size(v)
	for _, o := range k.vals {
		if o == replaced || len(vals) == lim.perKey {
			c.bytes -= lim.size(o)
			continue
		}
		vals = append(vals, o)
	}
	k.vals = vals
	for c.order.Len() > 1 && (c.bytes > lim.bytes || c.order.Len() > lim.keys) {
		old := c.order.Front()
		c.order.Remove(old)
		ok := old.Value.(*recentKeyed[T])
		delete(c.m, ok.key)
		for _, o := range ok.vals {
			c.bytes -= lim.size(o)
		}
	}
}
