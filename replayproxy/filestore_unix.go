//go:build unix

package replayproxy

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// openNoFollow opens name, refusing a symbolic link (O_NOFOLLOW).
func openNoFollow(name string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(name, flag|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, perm)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symbolic link: give the path of the file itself", name)
	}
	return f, err
}

// lockFile takes the advisory lock of a store file, on its own lock file
// at name (which a rewrite of the store file does not replace), without
// waiting: a second process gets an error naming the holder.
func lockFile(name string) (*os.File, error) {
	f, err := openNoFollow(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("replayproxy: locking the store file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder := ""
		if b, rerr := os.ReadFile(name); rerr == nil {
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil {
				holder = " (pid " + strconv.Itoa(pid) + ")"
			}
		}
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("replayproxy: the store file %s is in use by another process%s: one proxy per file (give each its own, or share a Redis store)",
				strings.TrimSuffix(name, ".lock"), holder)
		}
		return nil, fmt.Errorf("replayproxy: locking the store file: %w", err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

// fdatasync writes f's data to the disk.
func fdatasync(f *os.File) error {
	sc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := sc.Control(func(fd uintptr) { serr = fdatasyncFD(int(fd)) }); err != nil {
		return err
	}
	return serr
}
