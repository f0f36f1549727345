package think

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDefaultSetIsTheDeclaredTags: the default tags are compiled when the
// first splitter with no tags configured is made, not when the program
// starts, from the list as declared; DefaultTags returns a copy, so a
// program that changes what it returned does not change what a default
// splitter recognises.
func TestDefaultSetIsTheDeclaredTags(t *testing.T) {
	tags := DefaultTags()
	require.Equal(t, defaultTags[:], tags)
	split := func() (string, string) {
		var s Splitter
		vis, reasoning := s.Append(nil, nil, []byte("<seed:think>why</seed:think>so<x>not</x>"))
		vis, reasoning = s.Finish(vis, reasoning)
		return string(vis), string(reasoning)
	}
	tags[2] = Tag{"<x>", "</x>"}
	require.Equal(t, Tag{"<seed:think>", "</seed:think>"}, DefaultTags()[2])
	// As if no default splitter had been made yet in this process.
	defaultOnce, defaultCompiled = sync.Once{}, nil
	vis, reasoning := split()
	require.Equal(t, "why", reasoning)
	require.Equal(t, "so<x>not</x>", vis)
	require.Same(t, defaultSet(), defaultSet())
}
