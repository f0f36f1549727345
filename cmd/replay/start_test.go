package main

import (
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
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
// initialisation: 1 MB and 8,500 allocations, most of the start). Of this
// module's packages only those that register something when the program
// starts (codecs, formats, the command table) may
// allocate then, and only for their registrations, within a bound; every
// other table, compiled pattern or rule list is made when first used
// (sync.Once) or is a switch or a literal.
func TestStartIsSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	_, bin := buildReplay(t)
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
	ownBytes, ownAllocs := 0, 0 // this module's packages
	for _, m := range initLine.FindAllStringSubmatch(string(out), -1) {
		b, _ := strconv.Atoi(m[2])
		a, _ := strconv.Atoi(m[3])
		pkgs = append(pkgs, pkg{m[1], b, a})
		total, allocs = total+b, allocs+a
		if m[1] == "main" || strings.HasPrefix(m[1], module+"/") || m[1] == module {
			ownBytes, ownAllocs = ownBytes+b, ownAllocs+a
		}
	}
	require.NotEmpty(t, pkgs, "no inittrace lines: %s", out)
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].bytes > pkgs[j].bytes })
	for _, p := range pkgs {
		assert.NotContains(t, p.name, "jsonschema", "a JSON Schema compiler is initialised at start")
		if (p.name == "main" || strings.HasPrefix(p.name, module+"/")) && !registers(p.name) {
			assert.Zero(t, p.bytes, "%s allocates when the program starts (%d allocations): build it when first used", p.name, p.allocs)
		}
	}
	t.Logf("package initialisation: %d bytes in %d allocations (this module's packages: %d bytes in %d); largest %v",
		total, allocs, ownBytes, ownAllocs, pkgs[:min(3, len(pkgs))])
	// What the registering packages may allocate: their registrations, and
	// nothing a registration does not need (HTTP facts, element pointers,
	// event name sets are made when first used). They allocated 28 KB in
	// 438 allocations when those were made at start; about 14 KB in 130
	// since.
	assert.Less(t, ownBytes, 20<<10, "this module's packages allocate more when the program starts")
	assert.Less(t, ownAllocs, 180, "this module's packages allocate more when the program starts")
	assert.Less(t, total, 256<<10)
	assert.Less(t, allocs, 1000)
}

const module = "github.com/reasonreplay/replay"

// registers reports the packages that register something when the program
// starts: the codecs and their formats. (The session readers are a
// switch.)
func registers(pkg string) bool {
	return pkg == module+"/formats" || strings.HasPrefix(pkg, module+"/codecs/")
}
