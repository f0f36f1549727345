package replayproxy

import "syscall"

func fdatasyncFD(fd int) error { return syscall.Fdatasync(fd) }
