// Package patchtest holds what the codecs' Patch and Strip tests share:
// the checks that hold Patch and Strip to their gjson/sjson references,
// the benchmarks that compare them, and the references of the shared
// helpers (contentpatch, chatstream.PatchCallSignatures) as they were.
// Only tests import it.
package patchtest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
)

// Patch is a codec's Patch, or its reference.
type Patch func(msg []byte, t *replay.Turn) ([]byte, error)

// Strip is a codec's Strip, or its reference.
type Strip func(raw []byte) ([]byte, []codecs.Change)

// SamePatch requires patch to give what ref gives on msg and tu: the same
// bytes, never msg's own, or errors that say the same (the same text, both
// malformed or neither, the same pointer and API), and msg left as it was.
func SamePatch(t testing.TB, patch, ref Patch, msg []byte, tu *replay.Turn) {
	t.Helper()
	keep := bytes.Clone(msg)
	got, gerr := patch(msg, tu)
	want, werr := ref(msg, tu)
	if !bytes.Equal(msg, keep) {
		t.Fatalf("Patch changed its input %q to %q", keep, msg)
	}
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("Patch(%q): error %v, the reference's %v", msg, gerr, werr)
	}
	if gerr != nil {
		if errors.Is(gerr, replay.ErrMalformed) != errors.Is(werr, replay.ErrMalformed) || gerr.Error() != werr.Error() {
			t.Fatalf("Patch(%q): error %v, the reference's %v", msg, gerr, werr)
		}
		var ge, we *replay.Error
		if errors.As(gerr, &ge) != errors.As(werr, &we) || ge != nil && (ge.Pointer != we.Pointer || ge.API != we.API) {
			t.Fatalf("Patch(%q): error %#v, the reference's %#v", msg, ge, we)
		}
		return
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Patch(%q)\n got %q\nwant %q", msg, got, want)
	}
	if len(got) > 0 && len(msg) > 0 && &got[0] == &msg[0] {
		t.Fatalf("Patch(%q) returned its input's bytes", msg)
	}
}

// SameStrip requires strip to leave raw as it was and to return raw itself
// whenever it removes nothing, and, on a raw that valid accepts, to give
// what ref gives: the same bytes and changes. On other bytes it must only
// not panic.
func SameStrip(t testing.TB, strip, ref Strip, valid func([]byte) bool, raw []byte) {
	t.Helper()
	keep := bytes.Clone(raw)
	got, gch := strip(raw)
	if !bytes.Equal(raw, keep) {
		t.Fatalf("Strip changed its input %q to %q", keep, raw)
	}
	if len(gch) == 0 && (len(got) != len(raw) || len(raw) > 0 && &got[0] != &raw[0]) {
		t.Fatalf("Strip(%q) removed nothing and did not return its input: %q", raw, got)
	}
	if !valid(raw) {
		return
	}
	want, wch := ref(raw)
	if !bytes.Equal(got, want) || !reflect.DeepEqual(gch, wch) {
		t.Fatalf("Strip(%q)\n got %q %#v\nwant %q %#v", raw, got, gch, want, wch)
	}
}

// SeedTurns returns the turns that turn reads from the files of dir (given
// each file's extension and bytes; nil when it reads none), and fails tb
// when there are fewer than five.
func SeedTurns(tb testing.TB, dir string, turn func(ext string, data []byte) *replay.Turn) []*replay.Turn {
	tb.Helper()
	var out []*replay.Turn
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		if tu := turn(filepath.Ext(name), data); tu != nil {
			out = append(out, tu)
		}
	}
	if len(out) < 5 {
		tb.Fatalf("only %d seed turns", len(out))
	}
	return out
}
