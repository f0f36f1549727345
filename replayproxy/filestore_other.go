//go:build !unix

package replayproxy

import (
	"fmt"
	"os"
)

// openNoFollow opens name, refusing a symbolic link (checked before the
// open: this system has no O_NOFOLLOW).
func openNoFollow(name string, flag int, perm os.FileMode) (*os.File, error) {
	if fi, err := os.Lstat(name); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s is a symbolic link: give the path of the file itself", name)
	}
	return os.OpenFile(name, flag, perm)
}

// lockFile creates the lock file; this system has no flock, so a second
// process is not refused.
func lockFile(name string) (*os.File, error) {
	return openNoFollow(name, os.O_RDWR|os.O_CREATE, 0o600)
}

func fdatasync(f *os.File) error { return f.Sync() }
