package replay_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The package comment is one comment: godoc shows it whole, from its
// first sentence.
func TestPackageDocIsWhole(t *testing.T) {
	out, err := exec.Command("go", "doc", ".").Output()
	if err != nil {
		t.Skipf("go doc is not available: %v", err)
	}
	lines := strings.SplitN(string(out), "\n", 4)
	require.GreaterOrEqual(t, len(lines), 3)
	require.True(t, strings.HasPrefix(lines[2], "Package replay "), "go doc . starts with %q", lines[2])
	require.Contains(t, string(out), "# Vocabulary")
}
