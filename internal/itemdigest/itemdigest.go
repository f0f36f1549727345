// Package itemdigest computes the digest of a reasoning item's replay bytes:
// what Turn.Seal records in ItemMeta.Digest, and what repair and the
// audit compare with it. It is one function, below the root package (it
// knows an item only by its AppendWire method), so that the root and the
// middleware compute the same digest the same way.
package itemdigest

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// Wire is a reasoning item, known by its wire form.
type Wire interface {
	AppendWire(dst []byte) []byte
}

// Of returns "sha256:" and the hex SHA-256 of its wire form. The wire form
// is written into a pooled buffer: only its digest leaves.
func Of(it Wire) string {
	d := of(it)
	return string(d[:])
}

// Matches reports whether d is the digest of it (what Of returns), without
// making the digest's string.
func Matches(it Wire, d string) bool {
	if len(d) != size {
		return false
	}
	w := of(it)
	return string(w[:]) == d
}

// size is the length of a digest.
const size = len("sha256:") + 2*sha256.Size

// of returns the digest of it.
func of(it Wire) [size]byte {
	bp, _ := bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	w := it.AppendWire((*bp)[:0])
	sum := sha256.Sum256(w)
	if cap(w) <= maxBuf {
		*bp = w
		bufs.Put(bp)
	}
	var out [size]byte
	n := copy(out[:], "sha256:")
	hex.Encode(out[n:], sum[:])
	return out
}

// bufs are the buffers wire forms are written into.
var bufs sync.Pool

// maxBuf bounds a buffer bufs keeps.
const maxBuf = 256 << 10
