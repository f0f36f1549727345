package traits

import (
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What is registered is found, before and after later registrations; a
// format registered twice panics; an unknown one is not found.
func TestRegisterLookup(t *testing.T) {
	Register("test-a", Entry{Root: 1, Declared: "a"})
	e, ok := Lookup("test-a")
	require.True(t, ok)
	assert.Equal(t, Entry{Root: 1, Declared: "a"}, e)
	Register("test-b", Entry{Root: 2})
	e, ok = Lookup("test-b")
	require.True(t, ok, "a registration after a lookup is seen")
	assert.Equal(t, 2, e.Root)
	_, ok = Lookup("test-a")
	assert.True(t, ok)
	_, ok = Lookup("test-none")
	assert.False(t, ok)
	assert.PanicsWithValue(t, `replay: format "test-a" registered twice`, func() { Register("test-a", Entry{}) })
}

// Lookups race with registrations without a data race (run with -race),
// and every registration is eventually seen.
func TestConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				f := "test-c-" + strconv.Itoa(g) + "-" + strconv.Itoa(i)
				Register(f, Entry{Root: i})
				e, ok := Lookup(f)
				if !ok || e.Root != i {
					t.Errorf("%s: %v %v", f, e, ok)
				}
			}
		}(g)
	}
	wg.Wait()
	_, ok := Lookup("test-c-3-49")
	assert.True(t, ok)
}
