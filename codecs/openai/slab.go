package openai

import "strings"

// A stream decoder builds, per output item, a handful of small objects
// (the item, its blocks, their turn blocks), a few kept strings (ids,
// names, encrypted content) and one growing text per block. Allocated one
// by one, they cost a dozen allocations or more per item, which a tool loop
// of short items pays on every item. They are carved instead from chunks
// that the decoder owns: the objects from a slab per type, the kept strings
// and the texts from the engine's arena (see [engine.Run.Texts]). Nothing
// handed out is ever written again, so every string and pointer stays
// valid for as long as the turn that holds it.

// slab hands out zeroed values of T from chunks of growing size.
type slab[T any] struct {
	free []T
	n    int // values handed out so far
}

// slabMax is the most values a slab chunk holds.
const slabMax = 64

// new returns a pointer to a zero T.
func (s *slab[T]) new() *T {
	if len(s.free) == 0 {
		s.free = make([]T, min(max(s.n, 2), slabMax))
	}
	p := &s.free[0]
	s.free = s.free[1:]
	s.n++
	return p
}

// internType returns the item type s without a copy when it is one the
// decoder knows, else a copy of it.
func internType(s string) string {
	switch s {
	case "reasoning":
		return "reasoning"
	case "message":
		return "message"
	case "function_call":
		return "function_call"
	case "custom_tool_call":
		return "custom_tool_call"
	case "compaction":
		return "compaction"
	}
	return strings.Clone(s)
}
