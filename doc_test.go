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

// The root speaks to users: its summary stays within 60 lines, and what
// only a codec author needs (package codecs) or only a stream reader needs
// (package stream) is not in it.
func TestRootSummaryIsShort(t *testing.T) {
	out, err := exec.Command("go", "doc", "-short", ".").Output()
	if err != nil {
		t.Skipf("go doc is not available: %v", err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	require.LessOrEqual(t, len(lines), 60, "go doc -short . has %d lines", len(lines))
	for _, l := range lines {
		for _, name := range []string{"Frame", "FrameDecoder", "Malformed", "RegisterFormat", "FormatTraits", "Refusal", "Stream", "Decoder", "StreamOptions"} {
			f := strings.Fields(l)
			require.False(t, len(f) >= 2 && (f[1] == name || strings.HasPrefix(f[1], name+"(") || strings.HasPrefix(f[1], name+"[")), "the root exports %s: %s", name, l)
		}
	}
}
