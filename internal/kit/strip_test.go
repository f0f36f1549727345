package kit

import (
	"strconv"
	"testing"

	"github.com/reasonreplay/replay/codecs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A pointer is the prefix and the index, made once for the first ones and
// on demand past them.
func TestPointers(t *testing.T) {
	p := NewPointers("/parts/")
	for _, i := range []int{0, 9, 63, 64, 1000} {
		assert.Equal(t, "/parts/"+strconv.Itoa(i), p.At(i))
	}
	assert.Zero(t, testing.AllocsPerRun(50, func() { _ = p.At(63) }))
}

// DropElems gives back the message itself, with empty (not nil) changes
// and no allocation, when nothing goes; else the message without the
// elements, and one change per element removed, in order.
func TestDropElems(t *testing.T) {
	ptrs := NewPointers("/content/")
	isX := func(v string) bool { return v == `"x"` }
	raw := []byte(`{"role":"assistant","content":[{"type":"text"},{"type":"tool_use"}]}`)
	out, ch := DropElems(raw, "content", "type", isX, ptrs, "gone")
	require.NotNil(t, ch)
	assert.Empty(t, ch)
	assert.Same(t, &raw[0], &out[0])
	assert.Zero(t, testing.AllocsPerRun(50, func() { DropElems(raw, "content", "type", isX, ptrs, "gone") }))

	raw = []byte(`{"role":"assistant","content":[{"type":"x"},{"type":"text"},{"type":"x"}]}`)
	out, ch = DropElems(raw, "content", "type", isX, ptrs, "gone")
	assert.Equal(t, `{"role":"assistant","content":[{"type":"text"}]}`, string(out))
	assert.Equal(t, []codecs.Change{{Pointer: "/content/0", Removed: true, Detail: "gone"}, {Pointer: "/content/2", Removed: true, Detail: "gone"}}, ch)
}
