package main

import (
	"os"
	"strings"
	"syscall"
)

// hugePagesAvailable reports whether the command asks for huge pages: not
// when GODEBUG sets disablethp=1, the runtime's switch against them (the
// last setting of it wins, as the runtime reads it).
func hugePagesAvailable() bool {
	on := true
	for _, kv := range strings.Split(os.Getenv("GODEBUG"), ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(kv), "disablethp="); ok {
			on = v != "1"
		}
	}
	return on
}

// hugePages advises the kernel to back b with transparent huge pages
// (MADV_HUGEPAGE) when it first touches it. b must start on a page
// boundary, as an allocation of hugeBodyMin bytes or more does. It is advice:
// a kernel without huge pages, or with them off, refuses or ignores it,
// and nothing changes.
func hugePages(b []byte) {
	syscall.Madvise(b, syscall.MADV_HUGEPAGE)
}
