package think

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDefaultSetIsTheDeclaredTags: the default tags are compiled when the
// first splitter with no tags configured is made, not when the program
// starts, from the list as declared: DefaultTags holds that list, and a
// program that changes DefaultTags before then does not change what a
// default splitter recognises (as when the set was compiled at start).
func TestDefaultSetIsTheDeclaredTags(t *testing.T) {
	require.Equal(t, defaultTags[:], DefaultTags)
	split := func() (string, string) {
		var s Splitter
		vis, reasoning := s.Append(nil, nil, []byte("<seed:think>why</seed:think>so<x>not</x>"))
		vis, reasoning = s.Finish(vis, reasoning)
		return string(vis), string(reasoning)
	}
	saved := DefaultTags[2]
	DefaultTags[2] = Tag{"<x>", "</x>"}
	defer func() { DefaultTags[2] = saved }()
	// As if no default splitter had been made yet in this process.
	defaultOnce, defaultCompiled = sync.Once{}, nil
	vis, reasoning := split()
	require.Equal(t, "why", reasoning)
	require.Equal(t, "so<x>not</x>", vis)
	require.Same(t, defaultSet(), defaultSet())
}
