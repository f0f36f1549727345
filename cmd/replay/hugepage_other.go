//go:build !linux

package main

// hugePagesAvailable reports false: the command asks for huge pages on
// Linux only.
func hugePagesAvailable() bool { return false }

// hugePages does nothing here.
func hugePages([]byte) {}
