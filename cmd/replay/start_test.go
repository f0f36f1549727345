package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var initLine = regexp.MustCompile(`(?m)^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

// TestStartIsSmall runs the built binary's `--version` under
// GODEBUG=inittrace=1 and bounds what package initialisation allocates, a
// figure that does not depend on the machine's load: a process that does
// nothing must stay cheap to start. No JSON Schema compiler is linked (the
// one the schemas are tested against compiles five drafts' meta-schemas at
// initialisation: 1 MB and 8,500 allocations, most of the start).
func TestStartIsSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "replay")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err)
	type pkg struct {
		name          string
		bytes, allocs int
	}
	var pkgs []pkg
	total, allocs := 0, 0
	for _, m := range initLine.FindAllStringSubmatch(string(out), -1) {
		b, _ := strconv.Atoi(m[2])
		a, _ := strconv.Atoi(m[3])
		pkgs = append(pkgs, pkg{m[1], b, a})
		total, allocs = total+b, allocs+a
	}
	require.NotEmpty(t, pkgs, "no inittrace lines: %s", out)
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].bytes > pkgs[j].bytes })
	for _, p := range pkgs {
		assert.NotContains(t, p.name, "jsonschema", "a JSON Schema compiler is initialised at start")
	}
	t.Logf("package initialisation: %d bytes in %d allocations; largest %v", total, allocs, pkgs[:min(3, len(pkgs))])
	assert.Less(t, total, 640<<10)
	assert.Less(t, allocs, 3000)
}
