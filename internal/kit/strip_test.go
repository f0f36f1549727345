package kit

import (
	"strconv"
	"sync"
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

// The first pointers are made when first asked for, not by NewPointers
// (codecs make their Pointers when the program starts), and are the ones
// the eager table made, asked for from many goroutines at once.
func TestPointersLazy(t *testing.T) {
	var p *Pointers
	assert.Equal(t, 1.0, testing.AllocsPerRun(20, func() { p = NewPointers("/content/") }), "NewPointers makes only itself")
	assert.Nil(t, p.first, "the pointers are made before they are asked for")

	var eager [64]string // the table as NewPointers made it when the program started
	for i := range eager {
		eager[i] = "/content/" + strconv.Itoa(i)
	}
	var wg sync.WaitGroup
	got := make([][]string, 8)
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 70 {
				got[g] = append(got[g], p.At(i))
			}
		}()
	}
	wg.Wait()
	for _, ptrs := range got {
		assert.Equal(t, eager[:], ptrs[:64])
		assert.Equal(t, []string{"/content/64", "/content/65", "/content/66", "/content/67", "/content/68", "/content/69"}, ptrs[64:])
	}
	require.NotNil(t, p.first)
	assert.Equal(t, eager, *p.first)
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
