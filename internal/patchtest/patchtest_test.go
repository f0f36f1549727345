package patchtest

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
)

// recorder is a testing.TB whose Fatalf records that it was called and
// ends the goroutine, as testing's does.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(string, ...any) {
	r.failed = true
	runtime.Goexit()
}

// fails reports whether check calls Fatalf on a recorder.
func fails(check func(t testing.TB)) bool {
	r := &recorder{}
	done := make(chan struct{})
	go func() { defer close(done); check(r) }()
	<-done
	return r.failed
}

func TestSamePatch(t *testing.T) {
	fresh := func(m []byte, _ *replay.Turn) ([]byte, error) { return bytes.Clone(m), nil }
	errAt := func(ptr string) Patch {
		return func([]byte, *replay.Turn) ([]byte, error) { return nil, codecs.Malformed("x", -1, ptr, "bad") }
	}
	msg := []byte(`{"a":1}`)
	for _, c := range []struct {
		name       string
		patch, ref Patch
		fail       bool
	}{
		{"same bytes", fresh, fresh, false},
		{"other bytes", func(m []byte, _ *replay.Turn) ([]byte, error) { return []byte(`{}`), nil }, fresh, true},
		{"its input", func(m []byte, _ *replay.Turn) ([]byte, error) { return m, nil }, fresh, true},
		{"input changed", func(m []byte, _ *replay.Turn) ([]byte, error) { out := bytes.Clone(m); m[0] = ' '; return out, nil }, fresh, true},
		{"the same error", errAt("/a"), errAt("/a"), false},
		{"an error and none", errAt("/a"), fresh, true},
		{"another pointer", errAt("/a"), func(m []byte, t *replay.Turn) ([]byte, error) {
			_, err := errAt("/a")(m, t)
			var e *replay.Error
			errors.As(err, &e)
			e2 := *e
			e2.Pointer = "/b"
			return nil, &e2
		}, true},
		{"not malformed", errAt("/a"), func([]byte, *replay.Turn) ([]byte, error) {
			return nil, fmt.Errorf("%s", codecs.Malformed("x", -1, "/a", "bad").Error())
		}, true},
	} {
		m := bytes.Clone(msg)
		if got := fails(func(t testing.TB) { SamePatch(t, c.patch, c.ref, m, nil) }); got != c.fail {
			t.Errorf("%s: failed %v", c.name, got)
		}
	}
}

func TestSameStrip(t *testing.T) {
	same := func(r []byte) ([]byte, []codecs.Change) { return r, nil }
	drop := func(r []byte) ([]byte, []codecs.Change) {
		return []byte(`{}`), []codecs.Change{{Pointer: "/a", Removed: true}}
	}
	for _, c := range []struct {
		name       string
		raw        string
		strip, ref Strip
		fail       bool
	}{
		{"nothing to strip", `{"a":1}`, same, same, false},
		{"the same change", `{"a":1}`, drop, drop, false},
		{"a change missed", `{"a":1}`, same, drop, true},
		{"a copy of what stays", `{"a":1}`, func(r []byte) ([]byte, []codecs.Change) { return bytes.Clone(r), nil }, same, true},
		{"a copy of invalid text", `{"a":`, func(r []byte) ([]byte, []codecs.Change) { return bytes.Clone(r), nil }, drop, true},
		{"invalid text left to the reference", `{"a":`, same, drop, false},
	} {
		raw := []byte(c.raw)
		if got := fails(func(t testing.TB) { SameStrip(t, c.strip, c.ref, jsonw.ValidBytes, raw) }); got != c.fail {
			t.Errorf("%s: failed %v", c.name, got)
		}
	}
}
