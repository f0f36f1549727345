//go:build unix && !linux

package replayproxy

import "syscall"

func fdatasyncFD(fd int) error { return syscall.Fsync(fd) }
