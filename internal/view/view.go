// Package view is the one place in the module that reads memory without
// copying it: the only importer of package unsafe. Decoders read a frame
// in place (a string that views the frame's bytes), find where a value
// read from an event lies in it, and hand out texts that grow in a buffer
// without being copied at each growth. Each of these is safe under one
// invariant, stated on the function that relies on it and held by the
// tests named there:
//
//   - A string from [String] views bytes that do not change while it is
//     in use. Decoders make one from a frame, valid only during the call
//     it is passed to, and copy whatever they keep: the stream core
//     zeroes each frame once its decoder returns, and the codecs' tests
//     write over every chunk they fed (codectest.FeedPush), so a view kept
//     past its call reads other bytes at once and fails the test.
//   - A slice from [Bytes] is never written.
//   - [Offset] compares addresses; it reads no memory.
//   - A [Text]'s bytes, once its String has handed them out, are never
//     written again: an [Arena] only appends after them, and a text with
//     no room left moves to new memory, leaving the old bytes as they were
//     (TestArenaKeepsWhatItHandsOut).
package view

import "unsafe"

// String returns b's bytes as a string, without a copy. The string is
// valid only while b is not written: use it for reads during the call
// that owns b, and copy what is kept.
func String(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// Bytes returns s's bytes as a slice, without a copy. The slice must
// never be written (its memory may be read-only).
func Bytes(s string) []byte {
	if s == "" {
		return nil
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// Offset reports where x lies in s when x is a view of s (a substring of
// it, as a reader that returns views hands out): its offset, and true.
// For any other x, including "", it reports false. It compares addresses
// only.
func Offset(s, x string) (int, bool) {
	if len(s) == 0 || len(x) == 0 {
		return 0, false
	}
	off := addr(x) - addr(s)
	if off >= uintptr(len(s)) || uintptr(len(x)) > uintptr(len(s))-off {
		return 0, false
	}
	return int(off), true
}

// Within reports whether x is a view of s (see [Offset]).
func Within(s, x string) bool {
	_, ok := Offset(s, x)
	return ok
}

func addr(s string) uintptr { return uintptr(unsafe.Pointer(unsafe.StringData(s))) }
