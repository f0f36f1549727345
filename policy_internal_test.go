package replay

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

// countingCodec counts the contracts it builds.
type countingCodec struct {
	name  string
	built *atomic.Int32
}

func (c countingCodec) API() string                { return c.name }
func (countingCodec) Decode([]byte) (*Turn, error) { return nil, nil }
func (countingCodec) DecodeRequest([]byte) (History, Target, error) {
	return History{}, Target{}, nil
}
func (countingCodec) Encode(*Turn) ([]byte, error)            { return nil, nil }
func (countingCodec) Patch(b []byte, _ *Turn) ([]byte, error) { return b, nil }
func (c countingCodec) Contract() ReplayContract {
	c.built.Add(1)
	return ReplayContract{API: c.name, Rules: []Rule{{ID: c.name + "/rule"}}}
}

// uncomparable is a codec whose value cannot be a map key.
type uncomparable struct {
	countingCodec
	tags []string
}

// holding is comparable, but its value is not.
type holding struct {
	countingCodec
	v any
}

// A registry builds a comparable codec's contract once, and keeps at most
// maxContracts of them; an uncomparable codec's is built every time.
func TestContractOfKept(t *testing.T) {
	var r Registry
	var built atomic.Int32
	c := countingCodec{"a", &built}
	first := r.contractOf(c)
	second := r.contractOf(c)
	assert.Equal(t, first, second)
	assert.Equal(t, "a/rule", second.Rules[0].ID)
	assert.Equal(t, int32(1), built.Load(), "built once")

	u := uncomparable{countingCodec{"u", &built}, []string{"x"}}
	r.contractOf(u)
	r.contractOf(u)
	assert.Equal(t, int32(3), built.Load(), "an uncomparable codec's, every time")
	// A comparable type holding a value that is not: built every time,
	// never a key (which would panic).
	h := holding{countingCodec{"h", &built}, []int{1}}
	r.contractOf(h)
	r.contractOf(h)
	assert.Equal(t, int32(5), built.Load(), "a codec holding an interface, every time")

	for i := 0; i < 2*maxContracts; i++ {
		r.contractOf(countingCodec{string(rune('A'+i%26)) + string(rune('a'+i/26)), &built})
	}
	kept := 0
	r.contracts.Range(func(any, any) bool { kept++; return true })
	assert.Equal(t, maxContracts, kept, "kept up to the bound")
}
