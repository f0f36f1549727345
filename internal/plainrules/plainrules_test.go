package plainrules

import (
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/stretchr/testify/require"
)

// TestLazyIsRules: a Lazy makes the rules Rules makes for its fields, once,
// and hands out the same slice at every call.
func TestLazyIsRules(t *testing.T) {
	l := Lazy{API: "x-api", Name: "X", Own: replay.Format("x-v1"), Unit: "thinking part"}
	got, want := l.Rules(), Rules("x-api", "X", replay.Format("x-v1"), "thinking part")
	require.Len(t, got, len(want))
	for i := range want {
		require.Equal(t, want[i].ID, got[i].ID)
		require.Equal(t, want[i].Severity, got[i].Severity)
		require.Equal(t, want[i].Doc, got[i].Doc)
		require.NotNil(t, got[i].Check)
	}
	require.Equal(t, []string{"x-api/inexpressible", "x-api/foreign-reasoning"}, []string{got[0].ID, got[1].ID})
	again := l.Rules()
	require.Same(t, &got[0], &again[0])
}
